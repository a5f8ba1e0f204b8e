//! Launch-to-ready and GetProviderSchema through our host, for `cargo xtask bench host`.
//!
//! Usage: `host <provider-executable> <runs> <mtls|plain>`. Prints one JSON object per run, then
//! one with our process's peak RSS. Timing is measured here and compared by xtask; no test
//! asserts on it.

mod support;

use std::time::Instant;

use pulumi_terraform_provider::host::Provider;
use tfp_goplugin::Launch;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, executable, runs, mode, ..] = args.as_slice() else {
        anyhow::bail!("usage: host <provider-executable> <runs> <mtls|plain>");
    };
    let runs: usize = runs.parse()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(support::until_interrupted(async {
        for _ in 0..runs {
            let mut launch = Launch::new(executable);
            launch.tls = mode == "mtls";
            let started = Instant::now();
            let provider = Provider::launch(launch).await?;
            let ready = started.elapsed();
            let schema = provider.client().get_provider_schema().await?;
            let fetched = started.elapsed() - ready;
            let mtls = provider.mtls();
            provider.shutdown().await;
            println!(
                "{}",
                serde_json::json!({
                    "launch_ms": ready.as_secs_f64() * 1000.0,
                    "schema_ms": fetched.as_secs_f64() * 1000.0,
                    "resources": schema.resource_schemas.len(),
                    "mtls": mtls,
                })
            );
        }
        anyhow::Ok(())
    }))?;
    println!(
        "{}",
        serde_json::json!({ "peak_rss_kib": support::status_kib("self", "VmHWM:")? })
    );
    Ok(())
}
