//! `cargo xtask bench [<what>]`: measurements, never assertions.
//!
//! Without an argument (or with `all`), one table of every figure the project tracks, each beside
//! the baseline it is compared with, measured in the same run, and Pulumi's Go binary's figures
//! beside ours (`bench_all`; it installs the `go_bridge` fixture). The parts:
//! - `host`: launch-to-ready and GetProviderSchema for AWS 3.39.0 (protocol 5) and Pyvider
//!   (protocol 6), through our host with mTLS and in plaintext, against the plain Python go-plugin
//!   client (`xtask/bench/goplugin_client.py`, plaintext only: grpcio cannot do go-plugin's P-521
//!   mTLS) in the same run; medians of `--runs` runs, the ratio Python ÷ ours, and the peak RSS of
//!   our benchmark process.
//! - `install`: see `bench_install`.
//! - `schema`: the Pulumi schema of AWS 3.39.0 and of a synthetic schema ten times its size,
//!   generated from a schema in memory in fresh processes.
//! - `server`: our plugin against the providers it serves (launch, Parameterize, GetSchema,
//!   Creates one at a time and many at once).
//! - `values`: cty codecs and translation on an AWS-sized state, and how set work grows with a
//!   set's size.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use anyhow::{Context, Result, bail};
use serde_json::Value as Json;

use crate::{bench_all, fixtures, manifest, util};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum What {
    All,
    Host,
    Install,
    Schema,
    Server,
    Values,
}

pub(crate) fn run(what: What, runs: usize) -> Result<()> {
    if runs < 1 {
        bail!("--runs must be at least 1");
    }
    match what {
        What::All => bench_all::run(runs),
        What::Host => host(runs),
        What::Install => crate::bench_install::run(runs),
        What::Schema => schema(runs),
        What::Server => server(runs),
        What::Values => values(),
    }
}

/// Runs one of the root package's benchmarks with `args` and returns the JSON lines it printed.
pub(crate) fn bench_lines(bench: &str, args: &[&std::ffi::OsStr]) -> Result<Vec<Json>> {
    let output = util::output(
        util::cargo()
            .args(["bench", "--quiet", "--bench", bench, "--"])
            .args(args),
    )?;
    let lines = output
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).with_context(|| format!("bad benchmark line {l:?}")))
        .collect::<Result<Vec<Json>>>()?;
    if lines.is_empty() {
        bail!("the {bench} benchmark printed nothing:\n{output}");
    }
    Ok(lines)
}

/// The median of `key` over the lines that have it.
pub(crate) fn median_of(lines: &[Json], key: &str) -> Result<f64> {
    let mut values: Vec<f64> = lines.iter().filter_map(|l| l[key].as_f64()).collect();
    if values.is_empty() {
        bail!("no {key} in the benchmark's output");
    }
    Ok(median(&mut values))
}

/// Our release binary and the fixture cache, with the fixtures of `set` installed.
pub(crate) fn prepare(set: fixtures::Set) -> Result<(PathBuf, PathBuf)> {
    let cache = fixtures::install(set)?;
    let binary = crate::bench_install::build_ours()?;
    // The root package's benchmarks are built now, so that no measurement waits for a compiler
    // (their build links target/release's executable again, with other features: what is
    // measured is the copy `build_ours` made). A copy made just now settles while they build.
    util::run_visible(util::cargo().args([
        "bench", "--no-run", "--quiet", "--bench", "server", "--bench", "schema",
    ]))?;
    settle(&binary)?;
    Ok((binary, cache))
}

/// How long after a file last changed its digest may be remembered (`tfp_registry::SETTLE`,
/// the racy-timestamp rule of `crates/registry/src/identity.rs`).
const SETTLE: Duration = Duration::from_secs(3);

/// Waits until our `binary` is as an installed plugin is: changed longer than [`SETTLE`] ago.
/// Until then, every plugin that uses the schema cache hashes its own executable again
/// (20 MB, 12 to 15 ms here), since no digest of a file that young is remembered; a binary
/// the build has just written would otherwise show that cost in the first figures measured.
fn settle(binary: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let meta =
        std::fs::metadata(binary).with_context(|| format!("no binary at {}", binary.display()))?;
    let (secs, nanos) = (meta.ctime(), meta.ctime_nsec());
    let changed = UNIX_EPOCH
        + Duration::new(
            u64::try_from(secs).unwrap_or(0),
            u32::try_from(nanos).unwrap_or(0),
        );
    // A little more than the rule asks, for the clock's tick.
    let settled = changed + SETTLE + Duration::from_millis(100);
    if let Ok(wait) = settled.duration_since(SystemTime::now()) {
        eprintln!(
            "bench: waiting {:.1} s for our binary to settle (its digest is remembered after that)",
            wait.as_secs_f64()
        );
        std::thread::sleep(wait);
    }
    Ok(())
}

/// `server`: our plugin from start to port and through Parameterize and GetSchema of AWS
/// 3.39.0, with the schema cache off and warm, against the provider's own launch and
/// GetProviderSchema; and `pyvider_file_content`
/// Creates through our server against the same Plan + Apply sent straight to the provider.
fn server(runs: usize) -> Result<()> {
    let (binary, cache) = prepare(fixtures::Set::All)?;
    let aws = manifest::path(&cache, "aws_3_39_0")?;
    let launch = bench_lines(
        "server",
        &[
            "launch".as_ref(),
            binary.as_os_str(),
            aws.as_os_str(),
            runs.to_string().as_ref(),
        ],
    )?;
    let pyvider = manifest::path(&cache, "pyvider")?;
    let create = bench_lines(
        "server",
        &[
            "create".as_ref(),
            binary.as_os_str(),
            pyvider.as_os_str(),
            runs.to_string().as_ref(),
        ],
    )?;
    println!("medians of {runs} runs");
    println!(
        "  plugin start to port printed:            {:>8.1} ms",
        median_of(&launch, "start_ms")?
    );
    println!(
        "  AWS 3.39.0 Parameterize + GetSchema:     {:>8.1} ms",
        median_of(&launch, "parameterize_ms")? + median_of(&launch, "get_schema_ms")?
    );
    println!(
        "  AWS 3.39.0 launch + GetProviderSchema:   {:>8.1} ms",
        median_of(&launch, "direct_ms")?
    );
    let launched: u64 = launch
        .iter()
        .filter_map(|l| l["warm_launched"].as_u64())
        .sum();
    println!(
        "  the same, warm schema cache:             {:>8.1} ms ({launched} providers launched)",
        median_of(&launch, "warm_ms")?
    );
    let (create_ms, direct_ms) = (
        median_of(&create, "create_ms")?,
        median_of(&create, "direct_ms")?,
    );
    println!("  Create pyvider_file_content, our server: {create_ms:>8.1} ms");
    println!("  Plan + Apply straight to the provider:   {direct_ms:>8.1} ms");
    println!(
        "  ratio server ÷ direct:                   {:>8.2}×",
        create_ms / direct_ms
    );
    for width in [16, 64] {
        let ours = median_of(&create, &format!("ops_per_s_{width}"))?;
        let theirs = median_of(&create, &format!("direct_ops_per_s_{width}"))?;
        println!(
            "  {width} at once: {ours:.0} Creates/s, {theirs:.0} Plan + Apply/s straight, ratio {:.2}",
            ours / theirs
        );
    }
    Ok(())
}

/// `values`: cty msgpack and JSON codecs on an AWS-sized state (`aws_instance` with every
/// attribute set), then Struct → cty → msgpack end to end through the translation, then how set
/// work grows with a set's size. Each bench prints its own medians.
fn values() -> Result<()> {
    for (package, bench) in [
        ("tfp-cty", "values"),
        ("tfp-translate", "values"),
        ("tfp-cty", "sets"),
    ] {
        util::run_visible(
            util::cargo().args(["bench", "--quiet", "-p", package, "--bench", bench]),
        )?;
    }
    Ok(())
}

/// `schema`: the Pulumi schema of AWS 3.39.0 and of a synthetic schema ten times its size,
/// each generated `runs` times from a schema in memory, in a fresh process each time; and each
/// answer converted and mapped `runs` times as Parameterize does it.
fn schema(runs: usize) -> Result<()> {
    let cache = fixtures::run()?;
    let generation = bench_all::generation(&cache, runs, true)?;
    for scale in [1, 10] {
        let lines = &generation[&scale];
        println!(
            "aws 3.39.0 ×{scale} ({} resources): {:.1} MiB of Pulumi schema",
            lines[0]["resources"],
            lines[0]["schema_bytes"].as_f64().unwrap_or(0.0) / (1024.0 * 1024.0)
        );
        println!(
            "  generation: {:.1} ms (mapping {:.1}, package schema {:.1}, JSON {:.1}); peak RSS {:.1} MiB; medians of {runs}",
            median_of(lines, "generate_ms")?,
            median_of(lines, "mapping_ms")?,
            median_of(lines, "package_ms")?,
            median_of(lines, "json_ms")?,
            median_of(lines, "peak_rss_kib")? / 1024.0
        );
        println!(
            "  before it, the provider's answer converted: {:.1} ms",
            median_of(lines, "convert_ms")?
        );
        println!(
            "  converted and mapped in one loop, as Parameterize does: {:.1} ms (CPU {:.1} ms, {:.0} pages first touched)",
            median_of(lines, "map_ms")?,
            median_of(lines, "map_cpu_ms")?,
            median_of(lines, "map_faults")?
        );
        let [convert, mapping, package, json] = steps(lines, "cpu_ms")?;
        println!(
            "  CPU time, every thread's: converting {convert:.1} ms, mapping {mapping:.1}, package schema {package:.1}, JSON {json:.1}"
        );
        let [convert, mapping, package, json] = steps(lines, "faults")?;
        println!(
            "  pages first touched (minor faults): converting {convert:.0}, mapping {mapping:.0}, package schema {package:.0}, JSON {json:.0}"
        );
    }
    Ok(())
}

/// The medians of one figure of the schema bench's steps (`convert_<figure>`, `mapping_…`,
/// `package_…`, `json_…`), in that order.
fn steps(lines: &[Json], figure: &str) -> Result<[f64; 4]> {
    let mut medians = [0.0; 4];
    for (median, step) in medians
        .iter_mut()
        .zip(["convert", "mapping", "package", "json"])
    {
        *median = median_of(lines, &format!("{step}_{figure}"))?;
    }
    Ok(medians)
}

fn host(runs: usize) -> Result<()> {
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
                util::cargo()
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

pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

/// The lower quartile, the median and the upper quartile of `values`, as Tukey's hinges: the
/// medians of the lower and the upper half, which share the middle value when the number is odd.
pub(crate) fn quartiles(values: &mut [f64]) -> [f64; 3] {
    let middle = median(values);
    let half = values.len().div_ceil(2);
    let upper_start = values.len() - half;
    [
        median(&mut values[..half]),
        middle,
        median(&mut values[upper_start..]),
    ]
}

#[cfg(test)]
mod tests {
    use super::quartiles;

    #[test]
    fn quartiles_are_the_medians_of_the_halves() {
        assert_eq!(
            quartiles(&mut [7.0, 1.0, 6.0, 2.0, 5.0, 3.0, 4.0]),
            [2.5, 4.0, 5.5]
        );
        assert_eq!(
            quartiles(&mut [8.0, 1.0, 7.0, 2.0, 6.0, 3.0, 5.0, 4.0]),
            [2.5, 4.5, 6.5]
        );
        assert_eq!(quartiles(&mut [3.0]), [3.0, 3.0, 3.0]);
    }
}
