//! `cargo xtask bench` (or `bench all`): every figure the project tracks in one table, each
//! beside the baseline it is compared with, both measured in this run, and the target it should
//! meet. Medians of `--runs` runs (10 by default; Pyvider's and AWS's launches and single
//! Creates, which vary the most, several times as many). A measurement, never an assertion.
//!
//! What is compared with what:
//! - each provider (random 3.6.3, tls 4.0.5, Pyvider, AWS 3.39.0): our Parameterize, first
//!   GetSchema, and both together, with the schema cache off, against the provider's own launch
//!   and GetProviderSchema through our bare host, interleaved run by run (`benches/server.rs
//!   launch`); both again from a warm schema cache, against cold; for AWS the plugin also
//!   creates an S3 bucket against moto, and its peak RSS is read before it stops;
//! - schema generation of AWS (a schema in memory → package schema bytes, in a fresh process)
//!   against the provider's GetProviderSchema (timed in the launch runs), and a synthetic schema
//!   ten times as large against AWS itself, the two scales taking turns (`benches/schema.rs`);
//! - `pyvider_file_content` Creates through our plugin, one at a time and 16 and 64 at once,
//!   against the same Plan + Apply sent straight to the provider, and our RSS after 400 of them
//!   against after 64 (`benches/server.rs create`);
//! - msgpack decoding of an `aws_instance` state against its encoding (`tfp-cty`'s `values`);
//! - the size of the release binary as `cargo build --release` leaves it.
//!
//! Pulumi's Go binary of the same plugin (built from pulumi-terraform-bridge v3.136.0's Go module,
//! the `go_bridge` fixture) goes through the same launch runs, cold (it has no schema cache), last
//! in each, and through the single Creates against Pyvider, taking turns with ours: its figures
//! fill the column `Go binary`, each with how many times ours it is.

use std::{collections::BTreeMap, ffi::OsStr, path::Path, time::Instant};

use anyhow::{Context, Result};
use serde_json::Value as Json;

use crate::{
    bench::{bench_lines, median_of, prepare},
    fixtures, manifest, util,
};

/// One line of the table.
struct Row {
    figure: String,
    ours: String,
    baseline: String,
    ratio: String,
    /// The Go binary's figure and how many times ours it is, where it was measured.
    go: String,
    target: String,
}

#[derive(Default)]
struct Table(Vec<Row>);

impl Table {
    fn row(&mut self, figure: &str, ours: String, baseline: String, ratio: String, target: &str) {
        self.0.push(Row {
            figure: figure.to_owned(),
            ours,
            baseline,
            ratio,
            go: "—".to_owned(),
            target: target.to_owned(),
        });
    }

    /// The Go binary's figure for the last row, whose figure of ours is `ours`, in `unit`.
    fn go(&mut self, go: f64, ours: f64, unit: &str) {
        let row = self
            .0
            .last_mut()
            .expect("a row to add the Go binary's figure to");
        row.go = format!("{go:.1} {unit}, {:.2}× ours", go / ours);
    }

    /// A timing of ours against a baseline timing, with their ratio.
    fn ms(&mut self, figure: &str, ours: f64, baseline: (&str, f64), target: &str) {
        self.row(
            figure,
            format!("{ours:.1} ms"),
            format!("{:.1} ms {}", baseline.1, baseline.0),
            format!("{:.2}×", ours / baseline.1),
            target,
        );
    }

    fn print(&self) {
        let widths = self.0.iter().fold([6, 4, 8, 5, 9, 6], |w, r| {
            [
                w[0].max(r.figure.chars().count()),
                w[1].max(r.ours.chars().count()),
                w[2].max(r.baseline.chars().count()),
                w[3].max(r.ratio.chars().count()),
                w[4].max(r.go.chars().count()),
                w[5].max(r.target.chars().count()),
            ]
        });
        let line = |cells: [&str; 6]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(widths)
                .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
                .collect();
            println!("| {} |", padded.join(" | "));
        };
        line(["figure", "ours", "baseline", "ratio", "Go binary", "target"]);
        line(widths.map(|w| "-".repeat(w)).each_ref().map(String::as_str));
        for r in &self.0 {
            line([&r.figure, &r.ours, &r.baseline, &r.ratio, &r.go, &r.target]);
        }
    }
}

/// The target of a figure at ten times AWS's size against AWS's own. Linear growth reads 10×,
/// but a ratio of two medians near 10× reads on either side of it by chance (7.8× to 10.3× in
/// the runs of 25 to 30 November, `benches/README.md`), so `≤ 10×` would judge the noise. What
/// the target must tell apart is linear from the next growth up: n·log n reads 13.5× from 711 to
/// 7,110 resources. The line between is their geometric mean.
const LINEAR: &str = "≤ 11.6× (linear 10×, n·log n 13.5×)";

/// AWS's and Pyvider's launch runs per run asked for. Their cold figures vary the most: single
/// runs of our Parameterize + GetSchema of AWS minus the provider's launch + GetProviderSchema
/// spread over 50 ms, against the 30 ms our work adds; Pyvider's launch (a Python process) alone
/// spread from 960 to 1,240 ms in one set of 20 runs, where ours and the Go binary's differ by
/// tens of milliseconds. A run of either takes two to four seconds.
const NOISY_RUNS_PER_RUN: usize = 3;

pub(crate) fn run(runs: usize) -> Result<()> {
    let (binary, cache) = prepare(fixtures::Set::Bench)?;
    let size = std::fs::metadata(&binary)
        .with_context(|| format!("no binary at {}", binary.display()))?
        .len();
    let go_binary = manifest::path(&cache, "go_bridge")?;
    let go_arg = {
        let mut arg = std::ffi::OsString::from("go=");
        arg.push(&go_binary);
        arg
    };
    // `prepare` built the root package's benchmarks; this one too, before any measurement.
    util::run_visible(util::cargo().args([
        "bench", "--no-run", "--quiet", "-p", "tfp-cty", "--bench", "values",
    ]))?;
    let started = Instant::now();
    let mut table = Table::default();
    let runs_arg = runs.to_string();
    let noisy_runs_arg = (runs * NOISY_RUNS_PER_RUN).to_string();

    let mib = |kib: f64| kib / 1024.0;
    let mut launches = BTreeMap::new();
    for (fixture, label) in [
        ("random_3_6_3", "random 3.6.3"),
        ("tls_4_0_5", "tls 4.0.5"),
        ("pyvider", "Pyvider 0.8.1"),
        ("aws_3_39_0", "AWS 3.39.0"),
    ] {
        eprintln!("bench: {label}: launch, Parameterize, GetSchema (ours, then the Go binary's)");
        let provider = manifest::path(&cache, fixture)?;
        let mut args: Vec<&OsStr> = vec![
            "launch".as_ref(),
            binary.as_os_str(),
            provider.as_os_str(),
            runs_arg.as_ref(),
            go_arg.as_os_str(),
        ];
        if fixture == "aws_3_39_0" || fixture == "pyvider" {
            args[3] = noisy_runs_arg.as_ref();
        }
        if fixture == "aws_3_39_0" {
            // The first package add, filling an empty schema cache: measured where the
            // cold path has its target. The Go binary goes through every run (about 1.6 s
            // each): its Create against moto, nearly all of it the provider's own work, is
            // within a few per cent of ours, which the medians of a third of the runs could
            // not tell apart (0.99x in one bench, 1.06x in 30 runs right after).
            args.extend([OsStr::new("moto"), OsStr::new("storing")]);
        }
        launches.insert(label, bench_lines("server", &args)?);
    }
    let start = median_of(&launches["random 3.6.3"], "start_ms")?;
    table.row(
        "plugin start → port printed",
        format!("{start:.1} ms"),
        "—".into(),
        "—".into(),
        "",
    );
    table.go(
        median_of(&launches["random 3.6.3"], "go_start_ms")?,
        start,
        "ms",
    );
    for (label, target) in [
        ("random 3.6.3", "Go ÷ ours > 1"),
        ("tls 4.0.5", "Go ÷ ours > 1"),
        ("Pyvider 0.8.1", "Go ÷ ours > 1"),
        ("AWS 3.39.0", "≤ 1.2×"),
    ] {
        let lines = &launches[label];
        let direct = median_of(lines, "direct_ms")?;
        let parameterize = median_of(lines, "parameterize_ms")?;
        let get_schema = median_of(lines, "get_schema_ms")?;
        let both = |prefix: &str| {
            let mut sums: Vec<f64> = lines
                .iter()
                .filter_map(|l| {
                    Some(
                        l[format!("{prefix}parameterize_ms")].as_f64()?
                            + l[format!("{prefix}get_schema_ms")].as_f64()?,
                    )
                })
                .collect();
            crate::bench::median(&mut sums)
        };
        let base = ("provider launch + GetProviderSchema", direct);
        table.ms(
            &format!("{label}: Parameterize, cold"),
            parameterize,
            base,
            "",
        );
        table.go(median_of(lines, "go_parameterize_ms")?, parameterize, "ms");
        table.ms(&format!("{label}: first GetSchema"), get_schema, base, "");
        table.go(median_of(lines, "go_get_schema_ms")?, get_schema, "ms");
        let cold = both("");
        table.ms(
            &format!("{label}: Parameterize + GetSchema, cold"),
            cold,
            base,
            target,
        );
        table.go(both("go_"), cold, "ms");
        if label == "AWS 3.39.0" {
            table.ms(
                &format!("{label}: Parameterize + GetSchema, cold, filling an empty cache"),
                median_of(lines, "storing_ms")?,
                base,
                "≤ 1.2×",
            );
        }
        let launched: u64 = lines
            .iter()
            .filter_map(|l| l["warm_launched"].as_u64())
            .sum();
        table.ms(
            &format!("{label}: Parameterize + GetSchema, warm ({launched} launches)"),
            median_of(lines, "warm_ms")?,
            ("cold", cold),
            if label == "AWS 3.39.0" {
                "≤ 25 ms, 0 launches"
            } else {
                "0 launches"
            },
        );
    }
    let aws = &launches["AWS 3.39.0"];
    let peak = median_of(aws, "peak_rss_kib")?;
    table.row(
        "AWS 3.39.0: plugin peak RSS (Parameterize, GetSchema, Create)",
        format!("{:.1} MiB", mib(peak)),
        "—".into(),
        "—".into(),
        "≤ 60 MiB",
    );
    table.go(mib(median_of(aws, "go_peak_rss_kib")?), mib(peak), "MiB");
    table.row(
        "AWS 3.39.0: plugin peak RSS filling an empty cache (Parameterize, GetSchema)",
        format!("{:.1} MiB", mib(median_of(aws, "storing_peak_rss_kib")?)),
        "—".into(),
        "—".into(),
        "≤ 60 MiB",
    );
    let create_bucket = median_of(aws, "create_ms")?;
    table.ms(
        "AWS 3.39.0: Create aws_s3_bucket against moto",
        create_bucket,
        (
            "AWS launch + GetProviderSchema",
            median_of(aws, "direct_ms")?,
        ),
        "",
    );
    table.go(median_of(aws, "go_create_ms")?, create_bucket, "ms");

    eprintln!("bench: schema generation, AWS 3.39.0 and ten times its size");
    let generation = generation(&cache, runs, false)?;
    let (one, ten) = (&generation[&1], &generation[&10]);
    let aws_schema_ms = median_of(aws, "direct_schema_ms")?;
    table.ms(
        "AWS 3.39.0: schema generation (schema in memory → bytes)",
        median_of(one, "generate_ms")?,
        ("AWS GetProviderSchema", aws_schema_ms),
        "≤ 30 ms",
    );
    for (key, what) in [
        ("mapping_ms", "mapping"),
        ("package_ms", "package schema"),
        ("json_ms", "JSON (the pieces GetSchema sends)"),
    ] {
        table.ms(
            &format!("  of which {what}"),
            median_of(one, key)?,
            ("AWS GetProviderSchema", aws_schema_ms),
            "",
        );
    }
    table.ms(
        &format!(
            "AWS ×10 ({} resources): schema generation",
            ten[0]["resources"]
        ),
        median_of(ten, "generate_ms")?,
        ("AWS ×1", median_of(one, "generate_ms")?),
        LINEAR,
    );
    let growth = |lines: &[Json]| -> Result<f64> {
        Ok(median_of(lines, "peak_rss_kib")? - median_of(lines, "peak_rss_kib_before")?)
    };
    table.row(
        "AWS ×10: peak RSS added by generation",
        format!("{:.1} MiB", mib(growth(ten)?)),
        format!("{:.1} MiB AWS ×1", mib(growth(one)?)),
        format!("{:.2}×", growth(ten)? / growth(one)?),
        LINEAR,
    );

    eprintln!("bench: Creates through our plugin and straight to Pyvider");
    let pyvider = manifest::path(&cache, "pyvider")?;
    let create = bench_lines(
        "server",
        &[
            "create".as_ref(),
            binary.as_os_str(),
            pyvider.as_os_str(),
            runs_arg.as_ref(),
            go_arg.as_os_str(),
        ],
    )?;
    let create_file = median_of(&create, "create_ms")?;
    table.ms(
        "Pyvider: Create pyvider_file_content",
        create_file,
        ("Plan + Apply straight", median_of(&create, "direct_ms")?),
        "",
    );
    table.go(median_of(&create, "go_create_ms")?, create_file, "ms");
    for width in [16, 64] {
        let ours = median_of(&create, &format!("ops_per_s_{width}"))?;
        let theirs = median_of(&create, &format!("direct_ops_per_s_{width}"))?;
        table.row(
            &format!("Pyvider: {width} Creates at once, throughput"),
            format!("{ours:.0}/s"),
            format!("{theirs:.0}/s straight"),
            format!("{:.2}×", ours / theirs),
            "≥ 0.9×",
        );
    }
    let (after_64, after_400) = (
        median_of(&create, "rss_kib_after_64")?,
        median_of(&create, "rss_kib_after_400")?,
    );
    table.row(
        "Pyvider: plugin RSS after 400 Creates",
        format!("{:.1} MiB", mib(after_400)),
        format!("{:.1} MiB after 64", mib(after_64)),
        format!("{:.2}×", after_400 / after_64),
        "no growth",
    );

    eprintln!("bench: msgpack codecs");
    let values = util::output(
        util::cargo().args(["bench", "--quiet", "-p", "tfp-cty", "--bench", "values"]),
    )?;
    let codec = |name: &str| -> Result<f64> {
        values
            .lines()
            .filter_map(|l| serde_json::from_str::<Json>(l).ok())
            .find(|j| j["bench"] == name)
            .and_then(|j| j["median_us"].as_f64())
            .with_context(|| format!("no {name} in the values benchmark"))
    };
    let (encode, decode) = (codec("msgpack_encode")?, codec("msgpack_decode")?);
    table.row(
        "msgpack decode of an aws_instance state",
        format!("{decode:.1} µs"),
        format!("{encode:.1} µs encode"),
        format!("{:.2}×", decode / encode),
        "≤ 2×",
    );

    table.row(
        "release binary, as cargo build --release leaves it",
        format!("{:.1} MB", size as f64 / 1e6),
        "—".into(),
        "—".into(),
        "≤ 20 MB",
    );
    let go_size = std::fs::metadata(&go_binary)
        .with_context(|| format!("no Go binary at {}", go_binary.display()))?
        .len();
    table.go(go_size as f64 / 1e6, size as f64 / 1e6, "MB");

    table.print();
    println!(
        "\nmedians of {runs} runs (Pyvider's and AWS's launches: of {}, single Creates: of {}, \
         Creates at once: of {}, the codecs: of 21), measured in {:.0} s; the Go binary's in the \
         same runs as ours (its AWS launches: in {} of them)",
        launches["AWS 3.39.0"].len(),
        create
            .iter()
            .filter(|line| line.get("create_ms").is_some())
            .count(),
        create
            .iter()
            .filter(|line| line.get("ops_per_s_64").is_some())
            .count(),
        started.elapsed().as_secs_f64(),
        aws.iter()
            .filter(|line| line["go_parameterize_ms"].is_f64())
            .count()
    );
    // The ≤ 1.2× target has been met or missed by less than its runs' spread: each run's
    // figure against the baseline measured in that run, in quartiles, says how far. The time
    // over the baseline, too: it hardly moves with the machine's speed while the baseline does,
    // so it is what compares runs made in different hours.
    let per_run = |ours: &dyn Fn(&Json) -> Option<f64>, against: fn(f64, f64) -> f64| {
        let mut values: Vec<f64> = aws
            .iter()
            .filter_map(|line| Some(against(ours(line)?, line["direct_ms"].as_f64()?)))
            .collect();
        (values.len(), crate::bench::quartiles(&mut values))
    };
    let cold = |l: &Json| Some(l["parameterize_ms"].as_f64()? + l["get_schema_ms"].as_f64()?);
    let storing = |l: &Json| l["storing_ms"].as_f64();
    let (runs, cold_ratio) = per_run(&cold, |ours, base| ours / base);
    let (_, storing_ratio) = per_run(&storing, |ours, base| ours / base);
    let (_, cold_over) = per_run(&cold, |ours, base| ours - base);
    let (_, storing_over) = per_run(&storing, |ours, base| ours - base);
    let ratio = |q: [f64; 3]| format!("{:.2}×, {:.2}×, {:.2}×", q[0], q[1], q[2]);
    let over = |q: [f64; 3]| format!("{:.1}, {:.1}, {:.1} ms", q[0], q[1], q[2]);
    println!(
        "AWS 3.39.0, each run against the baseline measured in it (quartiles of {runs} runs): \
         Parameterize + GetSchema, cold {} ({} over it); filling an empty cache {} ({} over it)",
        ratio(cold_ratio),
        over(cold_over),
        ratio(storing_ratio),
        over(storing_over)
    );
    Ok(())
}

/// Generation of AWS 3.39.0's package schema at scales 1 and 10, `runs` fresh processes each;
/// with `map`, also `runs` of the schema bench's `map` step at each scale (the answer converted
/// and mapped in one loop, as Parameterize does), whose lines have only its own figures.
pub(crate) fn generation(
    cache: &Path,
    runs: usize,
    map: bool,
) -> Result<BTreeMap<usize, Vec<Json>>> {
    let aws = manifest::path(cache, "aws_3_39_0")?;
    let dir = tempfile::tempdir()?;
    let dump = dir.path().join("aws.tfschema.pb");
    dump_schema(&aws, &dump)?;
    // Ten times the size, written once, then generated from in fresh processes exactly as the
    // real answer is.
    let ten = dir.path().join("aws-x10.tfschema.pb");
    util::output(
        util::cargo()
            .args(["bench", "--quiet", "--bench", "schema", "--", "scale"])
            .arg(&dump)
            .arg("10")
            .arg(&ten),
    )?;
    // The two scales take turns, so that a slow stretch of the machine falls on both and not on
    // the ratio between them.
    let mut out: BTreeMap<usize, Vec<Json>> = BTreeMap::new();
    for _ in 0..runs {
        for (scale, file) in [(1usize, &dump), (10, &ten)] {
            let steps: &[&str] = if map {
                &["generate", "map"]
            } else {
                &["generate"]
            };
            for step in steps {
                let lines = bench_lines("schema", &[step.as_ref(), file.as_os_str()])?;
                out.entry(scale).or_default().extend(lines);
            }
        }
    }
    Ok(out)
}

/// Writes AWS's GetProviderSchema answer to `file`.
fn dump_schema(aws: &Path, file: &Path) -> Result<()> {
    util::output(
        util::cargo()
            .args(["bench", "--quiet", "--bench", "schema", "--", "dump"])
            .arg(aws)
            .arg(file),
    )
    .map(drop)
}
