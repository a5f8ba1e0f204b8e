//! `cargo xtask bench <what>`: measurements, never assertions.
//!
//! `host`: launch-to-ready and GetProviderSchema for AWS 3.39.0 (protocol 5) and Pyvider
//! (protocol 6), through our host with mTLS and in plaintext, against the plain Python go-plugin
//! client (`xtask/bench/goplugin_client.py`, plaintext only: grpcio cannot do go-plugin's
//! P-521 mTLS) in the same run; medians of `--runs` runs, the ratio Python ÷ ours, and the peak
//! RSS of our benchmark process.

use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value as Json;

use crate::{fixtures, manifest, util};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum What {
    Host,
    Install,
    Schema,
    Server,
    Values,
}

pub(crate) fn run(what: What, runs: usize) -> Result<()> {
    match what {
        What::Host => host(runs),
        What::Install => crate::bench_install::run(runs),
        What::Schema => schema(runs),
        What::Server => server(runs),
        What::Values => values(),
    }
}

/// `server`: our plugin from start to port; Parameterize + GetSchema of AWS 3.39.0 and of
/// Pyvider with the schema cache off and warm (ratio); and a `pyvider_file_content` Create
/// through our server against the same Plan + Apply sent straight to the provider (ratio).
/// Medians of `runs`.
fn server(runs: usize) -> Result<()> {
    let cache = fixtures::run()?;
    let root = util::workspace_root();
    let cargo = || Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    util::run_visible(cargo().current_dir(&root).args([
        "build",
        "--release",
        "--bin",
        "pulumi-resource-terraform-provider",
    ]))?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into);
    let binary = std::path::absolute(target.join("release/pulumi-resource-terraform-provider"))?;
    let output = util::output(
        cargo()
            .current_dir(&root)
            .args(["bench", "--quiet", "--bench", "server", "--"])
            .arg(&binary)
            .arg(manifest::path(&cache, "aws_3_39_0")?)
            .arg(manifest::path(&cache, "pyvider")?)
            .arg(runs.to_string()),
    )?;
    let keys = [
        "start_ms",
        "schema_ms",
        "warm_schema_ms",
        "pyvider_cold_ms",
        "pyvider_warm_ms",
        "create_ms",
        "direct_ms",
    ];
    let mut columns: [Vec<f64>; 7] = Default::default();
    let mut launched = 0;
    for line in output.lines().filter(|l| l.starts_with('{')) {
        let json: Json =
            serde_json::from_str(line).with_context(|| format!("bad benchmark line {line:?}"))?;
        for (column, key) in columns.iter_mut().zip(keys) {
            column.push(json[key].as_f64().with_context(|| format!("no {key}"))?);
        }
        launched += json["warm_launched"].as_u64().unwrap_or(0);
    }
    if columns[0].is_empty() {
        bail!("the benchmark printed no runs:\n{output}");
    }
    let [start, schema, warm, pyvider, pyvider_warm, create, direct] =
        columns.map(|mut c| median(&mut c));
    println!("medians of {runs} runs");
    println!("  plugin start to port printed:           {start:>8.1} ms");
    println!("  Parameterize + GetSchema, AWS 3.39.0,");
    println!("    schema cache off:                     {schema:>8.1} ms");
    println!("    warm:                                 {warm:>8.1} ms");
    println!(
        "    ratio warm ÷ off:                     {:>8.2}×",
        warm / schema
    );
    println!("  Parameterize + GetSchema, Pyvider,");
    println!("    schema cache off:                     {pyvider:>8.1} ms");
    println!("    warm:                                 {pyvider_warm:>8.1} ms");
    println!(
        "    ratio warm ÷ off:                     {:>8.2}×",
        pyvider_warm / pyvider
    );
    println!("    providers launched by warm runs:      {launched:>8}");
    println!("  Create pyvider_file_content, our server:{create:>8.1} ms");
    println!("  Plan + Apply straight to the provider:  {direct:>8.1} ms");
    println!(
        "  ratio server ÷ direct:                  {:>8.2}×",
        create / direct
    );
    Ok(())
}

/// `values`: cty msgpack and JSON codecs on an AWS-sized state (`aws_instance` with every
/// attribute set), then Struct → cty → msgpack end to end through the translation. Each bench
/// prints its own medians.
fn values() -> Result<()> {
    let root = util::workspace_root();
    for package in ["tfp-cty", "tfp-translate"] {
        util::run_visible(
            Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
                .current_dir(&root)
                .args(["bench", "--quiet", "-p", package, "--bench", "values"]),
        )?;
    }
    Ok(())
}

/// `schema`: the Pulumi schema of AWS 3.39.0 (711 resources), with and without launching the
/// provider and fetching its schema; medians and our peak RSS.
fn schema(runs: usize) -> Result<()> {
    let cache = fixtures::run()?;
    let root = util::workspace_root();
    let provider = manifest::path(&cache, "aws_3_39_0")?;
    let output = util::output(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(&root)
            .args(["bench", "--quiet", "--bench", "schema", "--"])
            .arg(&provider)
            .arg(runs.to_string()),
    )?;
    let mut full = Vec::new();
    let mut generate = Vec::new();
    let mut rss = None;
    let mut bytes = 0;
    for line in output.lines().filter(|l| l.starts_with('{')) {
        let json: Json =
            serde_json::from_str(line).with_context(|| format!("bad benchmark line {line:?}"))?;
        if let Some(kib) = json["peak_rss_kib"].as_u64() {
            rss = Some(kib);
            continue;
        }
        full.push(json["full_ms"].as_f64().context("no full_ms")?);
        generate.push(json["generate_ms"].as_f64().context("no generate_ms")?);
        bytes = json["schema_bytes"].as_u64().unwrap_or(0);
    }
    if full.is_empty() {
        bail!("the benchmark printed no runs:\n{output}");
    }
    println!(
        "aws 3.39.0: Pulumi schema of {:.1} MiB",
        bytes as f64 / (1024.0 * 1024.0)
    );
    println!(
        "  launch + GetProviderSchema + generation: {:.0} ms (median of {runs})",
        median(&mut full)
    );
    println!(
        "  generation alone (mapping, schema, JSON): {:.0} ms (median of {runs})",
        median(&mut generate)
    );
    if let Some(kib) = rss {
        println!(
            "  peak RSS of the benchmark process: {:.1} MiB",
            kib as f64 / 1024.0
        );
    }
    Ok(())
}

fn host(runs: usize) -> Result<()> {
    if runs < 1 {
        bail!("--runs must be at least 1");
    }
    let cache = fixtures::run()?;
    let root = util::workspace_root();
    let python = manifest::path(&cache, "tools_python")?;
    let script = root.join("xtask/bench/goplugin_client.py");
    println!(
        "{:<22} {:<18} {:>12} {:>12} {:>14}",
        "provider", "client", "launch (ms)", "schema (ms)", "peak RSS (MiB)"
    );
    for (fixture, label) in [
        ("aws_3_39_0", "aws 3.39.0 (v5)"),
        ("pyvider", "pyvider 0.8.1 (v6)"),
    ] {
        let provider = manifest::path(&cache, fixture)?;
        let mut ours = Vec::new();
        for mode in ["mtls", "plain"] {
            let output = util::output(
                Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
                    .current_dir(&root)
                    .args(["bench", "--quiet", "--bench", "host", "--"])
                    .arg(&provider)
                    .arg(runs.to_string())
                    .arg(mode),
            )?;
            let (launch, schema, rss) = summarize(&output)?;
            let rss = rss.map_or("-".to_owned(), |kib| format!("{:.1}", kib as f64 / 1024.0));
            println!(
                "{label:<22} {:<18} {launch:>12.1} {schema:>12.1} {rss:>14}",
                format!("ours, {mode}")
            );
            ours.push((launch, schema));
        }
        let output = util::output(
            Command::new(&python)
                .arg(&script)
                .arg(&provider)
                .arg(runs.to_string()),
        )?;
        let (launch, schema, _) = summarize(&output)?;
        println!(
            "{label:<22} {:<18} {launch:>12.1} {schema:>12.1} {:>14}",
            "python, plain", "-"
        );
        let (our_launch, our_schema) = ours[1];
        println!(
            "{label:<22} {:<18} {:>12} {:>12}",
            "ratio python÷ours",
            format!("{:.2}×", launch / our_launch),
            format!("{:.2}×", schema / our_schema)
        );
    }
    println!("\nmedians of {runs} runs; the ratio compares plaintext with plaintext");
    Ok(())
}

/// Medians of launch and schema times, and the peak RSS line if there is one.
fn summarize(output: &str) -> Result<(f64, f64, Option<u64>)> {
    let mut launch = Vec::new();
    let mut schema = Vec::new();
    let mut rss = None;
    for line in output.lines().filter(|l| l.starts_with('{')) {
        let json: Json =
            serde_json::from_str(line).with_context(|| format!("bad benchmark line {line:?}"))?;
        if let Some(kib) = json["peak_rss_kib"].as_u64() {
            rss = Some(kib);
            continue;
        }
        launch.push(json["launch_ms"].as_f64().context("no launch_ms")?);
        schema.push(json["schema_ms"].as_f64().context("no schema_ms")?);
    }
    if launch.is_empty() {
        bail!("the benchmark printed no runs:\n{output}");
    }
    Ok((median(&mut launch), median(&mut schema), rss))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}
