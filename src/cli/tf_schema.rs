//! `tf-schema <path>`: a provider's schema in the JSON shape of `terraform providers schema
//! -json`, for one provider ([`tfp_cty::ProviderSchema::to_terraform_json`]).

use std::{io::Write as _, path::Path, time::Instant};

use serde_json::json;
use tfp_cty::ProviderSchema;

use tfp_goplugin::Launch;

use crate::{host::Provider, recording::record, tfschema};

/// Launches the provider at `path`, prints its schema to stdout and a report to stderr.
pub async fn run(path: &Path) -> anyhow::Result<()> {
    let started = Instant::now();
    let provider = Provider::launch(Launch::new(path))
        .await?
        .observed(record::from_env());
    let launched = started.elapsed();
    let result = fetch(&provider).await;
    let fetched = started.elapsed() - launched;
    eprintln!(
        "provider {}: protocol {}, mTLS {}, launch {:.0?}, schema {:.0?}",
        provider.name(),
        provider.protocol(),
        if provider.mtls() { "on" } else { "off" },
        launched,
        fetched,
    );
    let key = type_name(provider.name()).to_owned();
    provider.shutdown().await;
    let schema = result?;
    let document = json!({
        "format_version": "1.0",
        "provider_schemas": { key: schema.to_terraform_json() },
    });
    // Written, not printed: a reader that stops early is an error to return, not a panic.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", serde_json::to_string_pretty(&document)?)?;
    Ok(())
}

async fn fetch(provider: &Provider) -> anyhow::Result<ProviderSchema> {
    let response = provider.client().get_provider_schema().await?;
    if let Some(error) = response.diagnostics.iter().find(|d| d.severity == 1) {
        // Shown as the plugin shows a schema diagnostic: control characters escaped, so that a
        // provider's text cannot drive the terminal.
        anyhow::bail!(
            "provider returned an error diagnostic: {}: {}",
            tfp_echo::plain(&error.summary),
            tfp_echo::plain(&error.detail)
        );
    }
    Ok(tfschema::provider_schema(&response)?)
}

/// `terraform-provider-aws_v3.39.0_x5` → `aws`.
fn type_name(executable: &str) -> &str {
    let name = executable
        .strip_prefix("terraform-provider-")
        .unwrap_or(executable);
    name.split(['_', '.']).next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_the_type_name_from_the_executable() {
        assert_eq!(type_name("terraform-provider-aws_v3.39.0_x5"), "aws");
        assert_eq!(type_name("terraform-provider-pyvider"), "pyvider");
        assert_eq!(type_name("terraform-provider-random.exe"), "random");
    }
}
