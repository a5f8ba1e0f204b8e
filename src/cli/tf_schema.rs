//! `tf-schema <path>`: a provider's schema in the JSON shape of `terraform providers schema
//! -json`, for one provider ([`tfp_cty::ProviderSchema::to_terraform_json`]), with its resource
//! identity schemas as Terraform 1.12 and later print them
//! ([`tfp_cty::IdentitySchema::section_json`]).

use std::{io::Write as _, path::Path, time::Instant};

use anyhow::Context as _;
use serde_json::{Value as Json, json};
use tfp_cty::{IdentitySchema, ProviderSchema};

use tfp_goplugin::Launch;

use crate::{host::Provider, recording::record, server::identity, tfschema};

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
    let entry = result?;
    let document = json!({
        "format_version": "1.0",
        "provider_schemas": { key: entry },
    });
    // Written, not printed: a reader that stops early is an error to return, not a panic.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", serde_json::to_string_pretty(&document)?)?;
    Ok(())
}

/// The provider's entry of the document: its schemas, then its identity schemas if it has any.
async fn fetch(provider: &Provider) -> anyhow::Result<Json> {
    let schema = fetch_schema(provider).await?;
    let identities = identity::fetch(provider.client())
        .await
        .context("GetResourceIdentitySchemas failed")?;
    let mut entry = schema.to_terraform_json();
    if let (Json::Object(entry), Some(section)) =
        (&mut entry, IdentitySchema::section_json(&identities))
    {
        entry.insert("resource_identity_schemas".into(), section);
    }
    Ok(entry)
}

async fn fetch_schema(provider: &Provider) -> anyhow::Result<ProviderSchema> {
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
