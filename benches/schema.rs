//! Pulumi schema generation for a real provider, for `cargo xtask bench schema`.
//!
//! Usage: `schema <provider-executable> <runs>`. Prints one JSON object per run: the time from
//! launch to schema bytes (`full_ms`), and the time of mapping + package schema + JSON alone
//! (`generate_ms`, on the schema fetched in that run); then our process's peak RSS.

mod support;

use std::time::Instant;

use pulumi_terraform_provider::{host::Launch, tfschema};
use tfp_mapping::Mapping;
use tfp_schema::{ParameterValue, Source};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, executable, runs, ..] = args.as_slice() else {
        anyhow::bail!("usage: schema <provider-executable> <runs>");
    };
    let runs: usize = runs.parse()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let parameter = ParameterValue {
        source: Source::Local {
            path: executable.clone(),
        },
        includes: vec![],
        excludes: vec![],
        provider_name: String::new(),
    };
    for _ in 0..runs {
        let started = Instant::now();
        let schema = runtime.block_on(async {
            let provider = Launch::new(executable).start().await?;
            let response = provider.client().get_provider_schema().await;
            provider.shutdown().await;
            anyhow::Ok(tfschema::provider_schema(&response?)?)
        })?;
        let fetched = started.elapsed();
        let generated = Instant::now();
        let mapping = Mapping::new(schema, "aws", "0.0.0", parameter.options())?;
        let bytes =
            tfp_schema::package_schema(&mapping, &parameter, pulumi_terraform_provider::VERSION)?
                .to_json();
        let generate = generated.elapsed();
        println!(
            "{}",
            serde_json::json!({
                "full_ms": (fetched + generate).as_secs_f64() * 1000.0,
                "generate_ms": generate.as_secs_f64() * 1000.0,
                "fetch_ms": fetched.as_secs_f64() * 1000.0,
                "schema_bytes": bytes.len(),
                "resources": mapping.resources().count(),
            })
        );
    }
    support::print_peak_rss()
}
