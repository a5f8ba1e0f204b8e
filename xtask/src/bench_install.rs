//! `cargo xtask bench install`: download, verify and extract the 177 MB terraform-provider-aws 3.39.0
//! package from a local HTTPS server, by our installer and by `curl` + `sha256sum` + `unzip` of the same
//! file from the same server in the same run. A measurement, never an assertion.
//!
//! The fixture cache holds only the provider binary, so the package is rebuilt from it (deflate, one
//! entry, mode 0755, like HashiCorp's zip). `xtask/bench/registry_server.py`, run by the fixtures'
//! `tools_python`, makes a CA and a signing key for this run and serves the package over TLS on
//! 127.0.0.1 both as a provider registry (SHA256SUMS with a detached OpenPGP signature) and as a
//! provider network mirror (a `zh:` hash). Three ways are timed, wall clock from spawn to exit:
//! - our release binary's `install 127.0.0.1:<port>/hashicorp/aws 3.39.0` through the registry:
//!   discovery, version list, metadata, SHA256SUMS and its signature, download, archive hash, extract;
//! - the same binary's `install hashicorp/aws 3.39.0` through the network mirror;
//! - `curl` + `sha256sum -c` + `unzip` of the package URL, in one `sh -c`.
//!
//! Each is wrapped in `/usr/bin/time -f %M` for its peak RSS (for the shell line, the largest of its
//! processes).
//!
//! Invariants: every run starts from an empty directory, with a cleared environment (only `PATH`, a
//! fresh `HOME` and the variables the way needs), so no user configuration or cache takes part; the
//! first round is a warm-up that is checked but not counted; rounds alternate the three ways so that
//! load drifts hit them alike; every run's product is checked against the fixture binary; the server is
//! killed by its PID and the one scratch directory is removed on every exit path.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value as Json;

use crate::{fixtures, manifest, provider_zip, util};

/// Our binary, as `cargo build` names it.
const BIN: &str = "pulumi-resource-terraform-provider";
/// The provider executable inside the package.
const ENTRY: &str = "terraform-provider-aws_v3.39.0_x5";
/// GNU time, for peak RSS.
const TIME: &str = "/usr/bin/time";
/// The baseline: fetch, check against the published sha256, extract. `$1` CA, `$2` URL, `$3` sha256.
const SHELL: &str = "curl -q -sSf --cacert \"$1\" -o pkg.zip \"$2\" \
                     && echo \"$3  pkg.zip\" | sha256sum --quiet -c - \
                     && unzip -q pkg.zip -d out";

/// One way of getting the package onto disk.
#[derive(Clone, Copy)]
enum Way {
    Registry,
    Mirror,
    Shell,
}

impl Way {
    const ALL: [Way; 3] = [Way::Registry, Way::Mirror, Way::Shell];

    fn label(self) -> &'static str {
        match self {
            Way::Registry => "ours, registry (sums + signature)",
            Way::Mirror => "ours, network mirror (zh: hash)",
            Way::Shell => "curl + sha256sum + unzip",
        }
    }
}

/// One timed run.
struct Sample {
    ms: f64,
    rss_kib: u64,
}

/// Installs the fixtures, builds our binary in release mode, then times each way `runs` times after a
/// warm-up round and prints medians, ratios and peak RSS.
pub(crate) fn run(runs: usize) -> Result<()> {
    if runs < 1 {
        bail!("--runs must be at least 1");
    }
    if !Path::new(TIME).is_file() {
        bail!("{TIME} (GNU time) was not found: install the `time` package");
    }
    let cache = fixtures::run()?;
    let python = manifest::path(&cache, "tools_python")?;
    let provider = manifest::path(&cache, "aws_3_39_0")?;
    let ours = build_ours()?;
    let scratch = Scratch::create()?;
    let zip = scratch.0.join("package.zip");
    eprintln!("bench install: zipping {}", provider.display());
    provider_zip::zip_binary(&provider, ENTRY, &zip)?;
    let server = Server::start(&python, &zip, &scratch.0)?;
    let want = Product {
        sha256: util::sha256_file(&provider)?,
        size: file_size(&provider)?,
    };
    let configs = Configs::write(&scratch.0, &server.mirror_url)?;
    let mut samples: [Vec<Sample>; 3] = Default::default();
    for round in 0..=runs {
        for (way, kept) in Way::ALL.into_iter().zip(&mut samples) {
            let dir = scratch.0.join("run");
            fs::create_dir_all(dir.join("home"))
                .with_context(|| format!("could not create {}", dir.display()))?;
            let (sample, product) = match way {
                Way::Registry => install(
                    &ours,
                    &server.registry_source(),
                    &configs.direct,
                    &server,
                    &dir,
                )?,
                Way::Mirror => install(&ours, "hashicorp/aws", &configs.mirror, &server, &dir)?,
                Way::Shell => shell(&server, &dir)?,
            };
            // The warm-up round checks every byte; later rounds check the size, which is cheap.
            if round == 0 {
                util::check_sha256(
                    &product,
                    way.label(),
                    &want.sha256,
                    "the product differs from the fixture binary",
                )?;
            } else if file_size(&product)? != want.size {
                bail!("{}: {} has the wrong size", way.label(), product.display());
            }
            fs::remove_dir_all(&dir)
                .with_context(|| format!("could not remove {}", dir.display()))?;
            if round > 0 {
                kept.push(sample);
            }
        }
        eprintln!(
            "bench install: round {round}/{runs} done{}",
            if round == 0 { " (warm-up)" } else { "" }
        );
    }
    report(runs, &zip, &want, &samples)?;
    drop(server);
    drop(scratch);
    Ok(())
}

/// Builds our binary in release mode and returns a copy of it, in `xtask-bench/` beside it,
/// wherever the target directory is.
///
/// The copy is what every bench measures, size included. Building the root package's
/// benchmarks (or tests) links the executable again, into the same place, with the features
/// their dev-dependencies add to shared dependencies (hashbrown's and rustix's, for one): a
/// different program from the one `cargo build --release` leaves, whose size the table gives.
pub(crate) fn build_ours() -> Result<PathBuf> {
    eprintln!("bench install: building {BIN} (release)");
    let output = util::output(
        util::cargo()
            .current_dir(util::workspace_root())
            .args([
                "build",
                "--release",
                "-p",
                "pulumi-terraform-provider",
                "--bin",
                BIN,
            ])
            .arg("--message-format=json-render-diagnostics"),
    )?;
    for line in output.lines() {
        let Ok(json) = serde_json::from_str::<Json>(line) else {
            continue;
        };
        if json["reason"] == "compiler-artifact"
            && json["target"]["name"] == BIN
            && let Some(exe) = json["executable"].as_str()
        {
            let exe = Path::new(exe);
            let dir = exe.with_file_name("xtask-bench");
            fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let copy = dir.join(BIN);
            // Replaced only when the build changed: a new copy must settle before it is
            // measured (`bench::settle`), an unchanged one has already.
            if util::sha256_file(&copy).ok() != Some(util::sha256_file(exe)?) {
                util::replace_file(&copy, |part| fs::copy(exe, part).map(drop))?;
            }
            return Ok(copy);
        }
    }
    bail!("cargo built no `{BIN}` executable")
}

/// One run of our `install` with the CLI configuration `config`; returns the timing and the installed
/// executable after checking the printed `zh:` hash.
fn install(
    ours: &Path,
    source: &str,
    config: &Path,
    server: &Server,
    dir: &Path,
) -> Result<(Sample, PathBuf)> {
    let mut cmd = timed(dir);
    cmd.arg(ours)
        .args(["install", source, "3.39.0"])
        .env("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", dir.join("cache"))
        .env("TF_CLI_CONFIG_FILE", config)
        .env("SSL_CERT_FILE", &server.ca);
    let (sample, stdout) = measure(&mut cmd, dir)?;
    let executable = stdout.lines().next().map(PathBuf::from).unwrap_or_default();
    if !executable.starts_with(dir) || !executable.ends_with(ENTRY) {
        bail!("`install` printed an unexpected path:\n{stdout}");
    }
    let zh = format!("zh:      zh:{}", server.sha256);
    if !stdout.lines().any(|l| l == zh) {
        bail!(
            "`install` did not report the package's zh: hash {}:\n{stdout}",
            server.sha256
        );
    }
    Ok((sample, executable))
}

/// One run of the baseline pipeline; returns the timing and the extracted executable.
fn shell(server: &Server, dir: &Path) -> Result<(Sample, PathBuf)> {
    let mut cmd = timed(dir);
    cmd.args(["sh", "-c", SHELL, "sh"])
        .arg(&server.ca)
        .arg(&server.zip_url)
        .arg(&server.sha256);
    let (sample, _) = measure(&mut cmd, dir)?;
    Ok((sample, dir.join("out").join(ENTRY)))
}

/// `/usr/bin/time` writing the peak RSS to `<dir>/rss`, in `dir`, with a cleared environment.
fn timed(dir: &Path) -> Command {
    let mut cmd = Command::new(TIME);
    cmd.current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.join("home"))
        .args(["-f", "%M", "-o"])
        .arg(dir.join("rss"));
    cmd
}

/// Runs a `timed` command; returns its wall time, peak RSS and stdout.
fn measure(cmd: &mut Command, dir: &Path) -> Result<(Sample, String)> {
    let started = Instant::now();
    let stdout = util::output(cmd)?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let rss_file = dir.join("rss");
    let text = fs::read_to_string(&rss_file)
        .with_context(|| format!("could not read {}", rss_file.display()))?;
    let rss_kib = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .with_context(|| format!("{TIME} wrote no peak RSS: {text:?}"))?;
    Ok((Sample { ms, rss_kib }, stdout))
}

/// Prints the medians, the ratios and what was compared.
fn report(runs: usize, zip: &Path, want: &Product, samples: &[Vec<Sample>; 3]) -> Result<()> {
    let mb = |bytes: u64| bytes as f64 / 1e6;
    println!(
        "aws 3.39.0: a {:.1} MB zip holding a {:.1} MB binary, over HTTPS from 127.0.0.1",
        mb(file_size(zip)?),
        mb(want.size)
    );
    println!(
        "{:<36} {:>10} {:>13} {:>15}",
        "way", "time (ms)", "range (ms)", "peak RSS (MiB)"
    );
    let mut times = Vec::new();
    for (way, runs) in Way::ALL.into_iter().zip(samples) {
        let mut ms: Vec<f64> = runs.iter().map(|s| s.ms).collect();
        let time = median(&mut ms);
        // `median` sorted the times, so the range is the first and the last.
        let range = format!("{:.0}–{:.0}", ms[0], ms[ms.len() - 1]);
        let rss = median(&mut runs.iter().map(|s| s.rss_kib as f64).collect::<Vec<_>>()) / 1024.0;
        println!("{:<36} {time:>10.0} {range:>13} {rss:>15.1}", way.label());
        times.push(time);
    }
    for (label, ours) in [("registry", times[0]), ("mirror", times[1])] {
        println!(
            "{:<36} {:>10}",
            format!("ratio shell÷ours, {label}"),
            format!("{:.2}×", times[2] / ours)
        );
    }
    println!(
        "\nmedians of {runs} runs after one warm-up round; a ratio above 1× means ours is faster;\n\
         the shell's RSS is its largest process; the shell ran: sh -c '{SHELL}'"
    );
    Ok(())
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

fn file_size(path: &Path) -> Result<u64> {
    Ok(fs::metadata(path)
        .with_context(|| format!("could not read {}", path.display()))?
        .len())
}

/// What every run must produce: the fixture binary.
struct Product {
    sha256: String,
    size: u64,
}

/// The CLI configuration files: one that installs from the registry, one from the mirror only.
struct Configs {
    direct: PathBuf,
    mirror: PathBuf,
}

impl Configs {
    fn write(dir: &Path, mirror_url: &str) -> Result<Self> {
        let direct = dir.join("direct.tfrc");
        let mirror = dir.join("mirror.tfrc");
        for (path, text) in [
            (
                &direct,
                "provider_installation {\n  direct {}\n}\n".to_owned(),
            ),
            (
                &mirror,
                format!(
                    "provider_installation {{\n  network_mirror {{\n    url = \"{mirror_url}\"\n  }}\n}}\n"
                ),
            ),
        ] {
            fs::write(path, text).with_context(|| format!("could not write {}", path.display()))?;
        }
        Ok(Self { direct, mirror })
    }
}

/// A scratch directory for this run, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn create() -> Result<Self> {
        let dir = std::env::temp_dir().join(format!("tfp-bench-install-{}", std::process::id()));
        if dir.exists() {
            fs::remove_dir_all(&dir)
                .with_context(|| format!("could not remove {}", dir.display()))?;
        }
        fs::create_dir(&dir).with_context(|| format!("could not create {}", dir.display()))?;
        Ok(Self(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(err) = fs::remove_dir_all(&self.0) {
            eprintln!("warning: could not remove {}: {err}", self.0.display());
        }
    }
}

/// The registry and mirror server, killed by its PID when dropped.
struct Server {
    child: Child,
    registry_host: String,
    mirror_url: String,
    zip_url: String,
    sha256: String,
    ca: PathBuf,
}

impl Server {
    /// Starts `registry_server.py` serving `zip` from `<scratch>/server` and waits for its ready line.
    fn start(python: &Path, zip: &Path, scratch: &Path) -> Result<Self> {
        let script = util::workspace_root().join("xtask/bench/registry_server.py");
        let log = scratch.join("server.log");
        let stderr =
            File::create(&log).with_context(|| format!("could not create {}", log.display()))?;
        let mut cmd = Command::new(python);
        cmd.arg(&script)
            .arg(zip)
            .arg(scratch.join("server"))
            .arg(provider_zip::platform())
            // The server exits when its stdin closes, so it cannot outlive us even if we are killed.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("could not start `{}`", util::describe(&cmd)))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut server = Server {
            child,
            registry_host: String::new(),
            mirror_url: String::new(),
            zip_url: String::new(),
            sha256: String::new(),
            ca: PathBuf::new(),
        };
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .context("could not read the server's ready line")?;
        let ready: Json = serde_json::from_str(&line).with_context(|| {
            format!(
                "the registry server did not start; its log:\n{}",
                fs::read_to_string(&log).unwrap_or_default()
            )
        })?;
        let field = |name: &str| {
            ready[name]
                .as_str()
                .map(str::to_owned)
                .with_context(|| format!("the server's ready line has no {name}: {line}"))
        };
        server.registry_host = field("registry_host")?;
        server.mirror_url = field("mirror_url")?;
        server.zip_url = field("zip_url")?;
        server.sha256 = field("sha256")?;
        server.ca = PathBuf::from(field("ca")?);
        Ok(server)
    }

    fn registry_source(&self) -> String {
        format!("{}/hashicorp/aws", self.registry_host)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Child::kill signals this child's own PID; then reap it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
