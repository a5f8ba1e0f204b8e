//! What every end-to-end scenario shares: the tools it runs, a throwaway Pulumi project with its own
//! `PULUMI_HOME`, file backend and stack, and one way to run the CLI that prints each step and its time.
//!
//! Invariants:
//! - Every project has one network namespace whose only interface is loopback ([`Netns`]); every
//!   `pulumi` run and every server the scenario starts ([`Project::service`]) joins it, so they reach one
//!   another on 127.0.0.1 and nothing else. Where namespaces are not allowed, the run says so and relies
//!   on the next point alone.
//! - Every `pulumi` runs with a cleared environment: PATH (the toolchain's bin first, or first a
//!   directory holding only our binary, for a scenario that asks for it), a temporary HOME, PULUMI_HOME
//!   and TMPDIR (so the CLI's log files stay in the project), a passphrase, no update check, no plugin
//!   download, and HTTP(S) proxies pointing at a closed port on 127.0.0.1, so any attempt to reach the
//!   network fails at once instead of leaking out.
//!   Nothing from the caller's environment (credentials, `~/.pulumi`, Terraform settings) reaches it;
//!   a scenario adds variables only through [`Project::set_env`].
//! - Every process a scenario starts carries a marker variable unique to the project. When the project is
//!   dropped, its servers are killed by their PIDs, then any process still carrying the marker (a plugin
//!   or provider the CLI left behind) is reported and killed by its PID, then the namespace's holder is
//!   killed, then the temporary directory is removed.
//! - A failed step's error names the step and shows the CLI's output.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

use super::netns::{Netns, Service};
use crate::{manifest, util};

/// The passphrase of every stack's secrets provider.
const PASSPHRASE: &str = "e2e-passphrase";
/// The name of every scenario's stack.
const STACK: &str = "test";
/// The variable that marks every process a project starts.
const MARKER: &str = "TFP_E2E_PROJECT";
/// How long plugins may take to exit after the CLI that started them.
const LINGER: std::time::Duration = std::time::Duration::from_secs(5);
/// How many trailing lines of a failed step's stdout and stderr its error shows.
const TAIL_LINES: usize = 60;

/// The peers and binaries the scenarios use, found once.
pub(super) struct Tools {
    pulumi: PathBuf,
    /// PATH for the CLI: the toolchain's bin (language hosts) first, then the caller's.
    path: OsString,
    /// Our `pulumi-resource-terraform-provider`.
    plugin: PathBuf,
    /// Its version, as `pulumi plugin install` needs it.
    pub(super) plugin_version: String,
    /// The Pyvider launcher, a local Terraform provider.
    pub(super) pyvider: PathBuf,
    /// Our own Pyvider provider, `testdata/providers/tfptest`.
    pub(super) tfptest: PathBuf,
    /// Its previous release, whose resource identity is version 0.
    pub(super) tfptest_identity_v0: PathBuf,
    /// TypeScript's compiler and the `node_modules` it compiles generated SDKs against.
    pub(super) tsc: PathBuf,
    pub(super) node_modules: PathBuf,
    /// A Python with the Pulumi SDK.
    pub(super) python: PathBuf,
    /// A Python with moto and `cryptography`: moto's launcher and the servers of `xtask/bench`.
    pub(super) tools_python: PathBuf,
    /// The real Terraform providers hashicorp/aws 3.39.0 and hashicorp/random 3.6.3.
    pub(super) aws: PathBuf,
    pub(super) random: PathBuf,
    /// OpenTofu 1.11.0, the oracle the comparisons run the same configurations through.
    pub(super) tofu: PathBuf,
    /// `ip`, when every CLI run can get a loopback-only network namespace; `None` where it cannot.
    isolate: Option<PathBuf>,
}

impl Tools {
    /// Reads the fixture manifest of `cache` and asks `plugin` for its version.
    pub(super) fn load(cache: &Path, plugin: PathBuf) -> Result<Self> {
        let bin = manifest::path(cache, "pulumi_bin")?;
        let mut dirs = vec![bin];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let path = std::env::join_paths(dirs).context("a PATH entry contains a colon")?;
        let version = util::output(Command::new(&plugin).arg("--version"))?;
        let plugin_version = version
            .split_whitespace()
            .last()
            .context("`--version` printed nothing")?
            .to_owned();
        let isolate = loopback_namespace();
        Ok(Self {
            pulumi: manifest::path(cache, "pulumi_cli")?,
            path,
            plugin,
            plugin_version,
            pyvider: manifest::path(cache, "pyvider")?,
            tfptest: manifest::path(cache, "tfptest")?,
            tfptest_identity_v0: manifest::path(cache, "tfptest_identity_v0")?,
            tsc: manifest::path(cache, "tsc")?,
            node_modules: manifest::path(cache, "node_modules")?,
            python: manifest::path(cache, "pulumi_python")?,
            tools_python: manifest::path(cache, "tools_python")?,
            aws: manifest::path(cache, "aws_3_39_0")?,
            random: manifest::path(cache, "random_3_6_3")?,
            tofu: manifest::path(cache, "tofu")?,
            isolate,
        })
    }
}

/// The `ip` program if `unshare --net` and bringing up loopback inside the new namespace both work here,
/// which needs root or user namespaces, and `nsenter`, which runs each command in it, is there too; says
/// which way the runs are isolated.
pub(super) fn loopback_namespace() -> Option<PathBuf> {
    let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.is_file());
    let nsenter = util::output(Command::new("nsenter").arg("--version"))
        .map_err(|err| eprintln!("e2e: no `nsenter` here ({err:#})"))
        .is_ok();
    let works = nsenter
        && ip.as_ref().is_some_and(|ip| {
            util::output(
                Command::new("unshare")
                    .args(["--net", "--"])
                    .arg(ip)
                    .args(["link", "set", "lo", "up"]),
            )
            .map_err(|err| eprintln!("e2e: no network namespace here ({err:#})"))
            .is_ok()
        });
    if works {
        eprintln!("e2e: every project runs in its own network namespace, with loopback only");
        ip
    } else {
        eprintln!(
            "e2e: runs are not isolated from the network; the CLI gets only closed proxies and no plugin download"
        );
        None
    }
}

impl Tools {
    /// Our `pulumi-resource-terraform-provider`, as built for this run.
    pub(super) fn plugin(&self) -> &Path {
        &self.plugin
    }
}

/// What one CLI run printed.
pub(super) struct Run {
    pub(super) stdout: String,
    pub(super) stderr: String,
}

impl Run {
    /// Stdout and stderr together, for checks that do not care which stream a line went to.
    pub(super) fn text(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// A Pulumi YAML project in a temporary directory, logged in to its own file backend, with our plugin
/// installed and a stack selected; `with_pyvider` also adds the Pyvider package.
pub(super) struct Project<'a> {
    tools: &'a Tools,
    /// The servers the scenario started, stopped before anything else when the project ends.
    services: Vec<Service>,
    /// The project's network; dropped after the servers and the CLI's leftovers are gone.
    netns: Option<Netns>,
    /// Variables the scenario adds to every process's environment.
    env: BTreeMap<String, OsString>,
    /// Values never printed: the step lines and failures show `[secret]` instead.
    masked: Vec<String>,
    /// Dropped last: removing the directory.
    root: tempfile::TempDir,
    /// Pulumi.yaml as `pulumi package add` left it, to which each step appends its resources.
    base: String,
}

impl<'a> Project<'a> {
    /// Sets up the project `name`: login, plugin install and stack init.
    pub(super) fn new(tools: &'a Tools, name: &str) -> Result<Self> {
        let root = tempfile::Builder::new()
            .prefix(&format!("tfp-e2e-{name}-"))
            .tempdir()
            .context("could not create a temporary directory")?;
        for dir in [
            "home",
            "pulumi-home",
            "state",
            "project",
            "files",
            "tmp",
            "logs",
        ] {
            fs::create_dir(root.path().join(dir))
                .with_context(|| format!("could not create {dir} in the temporary directory"))?;
        }
        let netns = tools
            .isolate
            .as_deref()
            .map(Netns::new)
            .transpose()
            .context("could not create the project's network namespace")?;
        let project = Self {
            tools,
            services: Vec::new(),
            netns,
            env: BTreeMap::new(),
            masked: Vec::new(),
            root,
            base: format!("name: {name}\nruntime: yaml\n"),
        };
        project.write_program("")?;
        let state = format!("file://{}", project.root.path().join("state").display());
        project.pulumi("log in to a local file backend", &["login", &state])?;
        let plugin = tools.plugin.to_string_lossy().into_owned();
        project.pulumi(
            "install our binary as the terraform-provider plugin",
            &[
                "plugin",
                "install",
                "resource",
                "terraform-provider",
                &tools.plugin_version,
                "--file",
                &plugin,
            ],
        )?;
        project.pulumi("create the stack", &["stack", "init", STACK])?;
        Ok(project)
    }

    /// Sets up the project `name` and adds the Pyvider package to it.
    pub(super) fn with_pyvider(tools: &'a Tools, name: &str) -> Result<Self> {
        let mut project = Self::new(tools, name)?;
        let pyvider = tools.pyvider.to_string_lossy().into_owned();
        project.package_add("add the Pyvider package", &[&pyvider])?;
        ensure!(
            project.base.contains("source: terraform-provider") && project.base.contains(&pyvider),
            "`pulumi package add` did not record the package in Pulumi.yaml:\n{}",
            project.base
        );
        Ok(project)
    }

    /// Runs `pulumi package add terraform-provider <args>` and keeps the Pulumi.yaml it writes as the base
    /// of later programs.
    pub(super) fn package_add(&mut self, step: &str, args: &[&str]) -> Result<Run> {
        let mut all = vec!["package", "add", "terraform-provider"];
        all.extend_from_slice(args);
        let run = self.pulumi(step, &all)?;
        let manifest = self.dir().join("Pulumi.yaml");
        self.base = fs::read_to_string(&manifest)
            .with_context(|| format!("could not read {}", manifest.display()))?;
        Ok(run)
    }

    /// Makes every later step line and failure show `[secret]` in place of `secret`.
    pub(super) fn mask(&mut self, secret: &str) {
        self.masked.push(secret.to_owned());
    }

    /// Masks the secrets of [`Project::mask`] in `text`.
    pub(super) fn masked(&self, text: &str) -> String {
        self.masked.iter().fold(text.to_owned(), |text, secret| {
            text.replace(secret.as_str(), "[secret]")
        })
    }

    /// Adds `key=value` to the environment of every later CLI run and server.
    pub(super) fn set_env(&mut self, key: &str, value: impl Into<OsString>) {
        self.env.insert(key.to_owned(), value.into());
    }

    /// Starts `program args` as a server in the project's network, with the project's environment, in
    /// the temporary directory, its stderr in `logs/<name>.log`; returns its PID and the
    /// first line it printed on stdout, its sign that it is ready. It is stopped by [`Project::stop`], or when the
    /// project ends.
    pub(super) fn service(
        &mut self,
        name: &str,
        program: &Path,
        args: &[&std::ffi::OsStr],
    ) -> Result<(u32, String)> {
        let mut cmd = match &self.netns {
            Some(netns) => netns.command(program),
            None => Command::new(program),
        };
        cmd.args(args).current_dir(self.root.path());
        self.environment(&mut cmd);
        let log = self.root.path().join("logs").join(format!("{name}.log"));
        let started = Instant::now();
        let (service, line) = Service::start(name, cmd, &log)?;
        eprintln!(
            "  start {name} (pid {}, ready in {:.1} s)",
            service.pid(),
            started.elapsed().as_secs_f64()
        );
        let pid = service.pid();
        self.services.push(service);
        Ok((pid, line))
    }

    /// Stops the server `pid` that [`Project::service`] started.
    pub(super) fn stop(&mut self, pid: u32) -> Result<()> {
        let index = self
            .services
            .iter()
            .position(|s| s.pid() == pid)
            .with_context(|| format!("no server of this project has PID {pid}"))?;
        let service = self.services.remove(index);
        eprintln!("  stop {} (pid {pid})", service.name);
        drop(service);
        Ok(())
    }

    /// GETs `url` from inside the project's network with `curl` (trusting `ca` if given); returns the
    /// status and the body.
    pub(super) fn http_get(&self, url: &str, ca: Option<&Path>) -> Result<(u16, String)> {
        self.http("GET", url, ca)
    }

    /// Like [`Project::http_get`], with another method, such as `PUT`.
    pub(super) fn http(&self, method: &str, url: &str, ca: Option<&Path>) -> Result<(u16, String)> {
        let mut cmd = match &self.netns {
            Some(netns) => netns.command("curl"),
            None => Command::new("curl"),
        };
        cmd.env_clear().env("PATH", &self.tools.path).args([
            "-q",
            "-s",
            "--noproxy",
            "*",
            "-w",
            "\n%{http_code}",
            "-X",
            method,
        ]);
        if let Some(ca) = ca {
            cmd.arg("--cacert").arg(ca);
        }
        let out = util::output(cmd.arg(url))?;
        let (body, status) = out.rsplit_once('\n').unwrap_or(("", out.as_str()));
        let status = status
            .trim()
            .parse()
            .with_context(|| format!("curl printed no status for {url}: {out:?}"))?;
        Ok((status, body.to_owned()))
    }

    /// The tools the project runs.
    pub(super) fn tools(&self) -> &'a Tools {
        self.tools
    }

    /// The temporary directory that holds everything of the project: its home, state, logs, files.
    pub(super) fn root(&self) -> &Path {
        self.root.path()
    }

    /// Pulumi.yaml as `pulumi package add` last left it.
    pub(super) fn manifest(&self) -> &str {
        &self.base
    }

    /// Replaces Pulumi.yaml, as another tool would have written it, and makes it the base of later
    /// programs.
    pub(super) fn replace_manifest(&mut self, manifest: String) -> Result<()> {
        self.base = manifest;
        self.write_program("")
    }

    /// Puts our binary on the PATH of every later CLI run, as `pulumi-resource-terraform-provider` in a
    /// directory of its own ahead of the rest; returns the path the CLI will find it at.
    pub(super) fn put_plugin_on_path(&mut self) -> Result<PathBuf> {
        let bin = self.root.path().join("bin");
        fs::create_dir_all(&bin).with_context(|| format!("could not create {}", bin.display()))?;
        let link = bin.join("pulumi-resource-terraform-provider");
        std::os::unix::fs::symlink(&self.tools.plugin, &link)
            .with_context(|| format!("could not link our binary as {}", link.display()))?;
        let mut dirs = vec![bin];
        dirs.extend(std::env::split_paths(&self.tools.path));
        let path = std::env::join_paths(dirs).context("a PATH entry contains a colon")?;
        self.set_env("PATH", path);
        Ok(link)
    }

    /// The names in `$PULUMI_HOME/plugins`, sorted: what `pulumi plugin install` or a download put there.
    pub(super) fn installed_plugins(&self) -> Result<Vec<String>> {
        let dir = self.root.path().join("pulumi-home").join("plugins");
        let mut names = Vec::new();
        for entry in
            fs::read_dir(&dir).with_context(|| format!("could not list {}", dir.display()))?
        {
            let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    /// The project directory, holding Pulumi.yaml.
    pub(super) fn dir(&self) -> PathBuf {
        self.root.path().join("project")
    }

    /// A path for a file the program manages, inside the temporary directory.
    pub(super) fn file(&self, name: &str) -> PathBuf {
        self.root.path().join("files").join(name)
    }

    /// A path for scratch output (such as generated import code), inside the temporary directory.
    pub(super) fn scratch(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// Replaces the program: Pulumi.yaml becomes the base plus `program` (its `resources:` and
    /// `outputs:` sections).
    pub(super) fn write_program(&self, program: &str) -> Result<()> {
        let path = self.dir().join("Pulumi.yaml");
        fs::write(&path, format!("{}\n{program}", self.base))
            .with_context(|| format!("could not write {}", path.display()))
    }

    /// Runs `pulumi <args>` in the project; fails unless it exits with status 0.
    pub(super) fn pulumi(&self, step: &str, args: &[&str]) -> Result<Run> {
        let (run, success, line) = self.pulumi_command(step, args)?;
        if !success {
            bail!(
                "step `{step}` failed: `{line}` exited non-zero{}",
                self.masked(&show(&run))
            );
        }
        Ok(run)
    }

    /// Runs `pulumi <args>` in the project; fails unless it exits with a non-zero status.
    pub(super) fn pulumi_fails(&self, step: &str, args: &[&str]) -> Result<Run> {
        let (run, success, line) = self.pulumi_command(step, args)?;
        if success {
            bail!(
                "step `{step}`: `{line}` succeeded but should have failed{}",
                self.masked(&show(&run))
            );
        }
        Ok(run)
    }

    /// Fails if a process the project started is still alive a few seconds after the last step, killing
    /// it; on success the temporary directory is removed.
    pub(super) fn finish(mut self) -> Result<()> {
        // The servers are meant to run until the end; stop them before looking for leftovers.
        self.services.clear();
        let marker = self.root.path().as_os_str().as_encoded_bytes().to_vec();
        let deadline = Instant::now() + LINGER;
        while Instant::now() < deadline && !marked_processes(MARKER, &marker).is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let left = marked_processes(MARKER, &marker);
        // Dropping kills them and removes the directory.
        drop(self);
        if !left.is_empty() {
            bail!("processes were left running after the last step: {left:?}");
        }
        Ok(())
    }

    /// The stack's state, from `pulumi stack export`.
    pub(super) fn export(&self) -> Result<Value> {
        let run = self.pulumi("export the stack", &["stack", "export"])?;
        serde_json::from_str(&run.stdout).context("`pulumi stack export` printed invalid JSON")
    }

    /// Runs another program (a compiler, an interpreter) with the project's environment, in `dir`; fails
    /// unless it exits with status 0.
    pub(super) fn run(&self, step: &str, dir: &Path, program: &Path, args: &[&str]) -> Result<Run> {
        let mut cmd = Command::new(program);
        cmd.args(args).current_dir(dir);
        let line = self.masked(&format!("{} {}", program.display(), args.join(" ")));
        let (run, success) = self.spawn(step, cmd, &line)?;
        if !success {
            bail!(
                "step `{step}` failed: `{line}` exited non-zero{}",
                self.masked(&show(&run))
            );
        }
        Ok(run)
    }

    /// Runs another program in `dir` inside the project's network, as `pulumi` runs, with the
    /// project's environment plus `env`; fails unless it exits with status 0.
    pub(super) fn run_in_network(
        &self,
        step: &str,
        dir: &Path,
        program: &Path,
        args: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Result<Run> {
        let mut cmd = match &self.netns {
            Some(netns) => netns.command(program),
            None => Command::new(program),
        };
        cmd.args(args).current_dir(dir);
        let name = program.file_name().map_or_else(
            || program.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let line = self.masked(&format!("{name} {}", args.join(" ")));
        let (run, success) = self.spawn_with(step, cmd, &line, env)?;
        if !success {
            bail!(
                "step `{step}` failed: `{line}` exited non-zero{}",
                self.masked(&show(&run))
            );
        }
        Ok(run)
    }

    /// Runs `pulumi <args>` in the project, in its network namespace where there is one.
    fn pulumi_command(&self, step: &str, args: &[&str]) -> Result<(Run, bool, String)> {
        let mut cmd = match &self.netns {
            Some(netns) => netns.command(&self.tools.pulumi),
            None => Command::new(&self.tools.pulumi),
        };
        cmd.args(args)
            .args(["--non-interactive", "--color=never"])
            .current_dir(self.dir());
        let line = self.masked(&format!("pulumi {}", args.join(" ")));
        let (run, success) = self.spawn(step, cmd, &line)?;
        Ok((run, success, line))
    }

    /// Runs `cmd` with the project's environment, prints the step and its duration, and returns what it
    /// printed and whether it succeeded.
    fn spawn(&self, step: &str, cmd: Command, line: &str) -> Result<(Run, bool)> {
        self.spawn_with(step, cmd, line, &[])
    }

    /// [`Project::spawn`] with `env` added to the project's environment.
    fn spawn_with(
        &self,
        step: &str,
        mut cmd: Command,
        line: &str,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Result<(Run, bool)> {
        self.environment(&mut cmd);
        cmd.envs(env.iter().copied());
        let started = Instant::now();
        // A command that cannot start is reported masked: its arguments may hold the project's
        // secrets.
        let out = util::spawn_output(&mut cmd).map_err(|err| {
            anyhow::anyhow!("{}", self.masked(&format!("step `{step}`: {err:#}")))
        })?;
        eprintln!(
            "  {step}: $ {line} ({:.1} s{})",
            started.elapsed().as_secs_f64(),
            if out.status.success() {
                String::new()
            } else {
                format!(", {}", out.status)
            }
        );
        let run = Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        Ok((run, out.status.success()))
    }

    /// Gives `cmd` the project's cleared environment (see the module's invariants).
    fn environment(&self, cmd: &mut Command) {
        let root = self.root.path();
        cmd.env_clear()
            .env("PATH", &self.tools.path)
            .env("HOME", root.join("home"))
            .env("PULUMI_HOME", root.join("pulumi-home"))
            .env("TMPDIR", root.join("tmp"))
            .env("PULUMI_CONFIG_PASSPHRASE", PASSPHRASE)
            .env("PULUMI_SKIP_UPDATE_CHECK", "true")
            .env("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "true")
            .env("LANG", "C.UTF-8")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env(MARKER, root)
            .envs(&self.env);
    }
}

impl Drop for Project<'_> {
    fn drop(&mut self) {
        self.services.clear();
        let marker = self.root.path().as_os_str().as_encoded_bytes();
        for pid in marked_processes(MARKER, marker) {
            let cmdline = fs::read(format!("/proc/{pid}/cmdline"))
                .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
                .unwrap_or_default();
            eprintln!("e2e: killing a process the CLI left behind: {pid} {cmdline}");
            // Best effort: the process may exit on its own between the scan and the kill.
            let _ = util::signal("KILL", &[pid]);
        }
    }
}

/// The PIDs of the live processes whose environment has `var=value`. Only the marker is looked for;
/// nothing else of another process's environment is kept or shown.
pub(super) fn marked_processes(var: &str, value: &[u8]) -> Vec<u32> {
    let mut needle = format!("{var}=").into_bytes();
    needle.extend_from_slice(value);
    util::live_pids()
        .into_iter()
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| environ.split(|byte| *byte == 0).any(|kv| kv == needle))
        })
        .collect()
}

/// The tails of a run's stdout and stderr, for an error.
fn show(run: &Run) -> String {
    let mut shown = String::new();
    for (label, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        let lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            continue;
        }
        let start = lines.len().saturating_sub(TAIL_LINES);
        let _ = write!(
            shown,
            "\n--- {label} (last {} lines) ---",
            lines.len() - start
        );
        for line in &lines[start..] {
            shown.push('\n');
            shown.push_str(line);
        }
    }
    shown
}

/// The resources of `kind` (a full type token) in an exported stack.
pub(super) fn resources<'v>(export: &'v Value, kind: &str) -> Vec<&'v Value> {
    export["deployment"]["resources"]
        .as_array()
        .map(|all| all.iter().filter(|r| r["type"] == kind).collect())
        .unwrap_or_default()
}

/// The one resource named `name` of `kind` in an exported stack.
pub(super) fn resource<'v>(export: &'v Value, kind: &str, name: &str) -> Result<&'v Value> {
    let suffix = format!("::{name}");
    let found: Vec<&Value> = resources(export, kind)
        .into_iter()
        .filter(|r| r["urn"].as_str().is_some_and(|urn| urn.ends_with(&suffix)))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        _ => bail!(
            "the stack holds {} resources `{name}` of type {kind}, not one",
            found.len()
        ),
    }
}

/// Reads a file the program manages, or `None` if it does not exist.
pub(super) fn read_file(path: &Path) -> Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err).with_context(|| format!("could not read {}", path.display())),
    }
}

/// The size of `recording` (a `PULUMI_TF_DEBUG_GRPC` file); fails when it holds nothing, so that
/// checks of what it holds cannot pass for lack of anything to look at.
pub(super) fn recorded_bytes(recording: &Path) -> Result<u64> {
    let recorded = fs::metadata(recording).map(|m| m.len()).unwrap_or_default();
    ensure!(
        recorded > 0,
        "PULUMI_TF_DEBUG_GRPC recorded nothing at {}",
        recording.display()
    );
    Ok(recorded)
}

/// Every file under `dir`, recursively; symbolic links are not followed.
pub(super) fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in
            fs::read_dir(&dir).with_context(|| format!("could not list {}", dir.display()))?
        {
            let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
            let kind = entry
                .file_type()
                .with_context(|| format!("could not stat {}", entry.path().display()))?;
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    Ok(files)
}

/// The requests of `method` in a recording, as their protobuf text.
pub(super) fn recorded_requests(recording: &Path, method: &str) -> Result<Vec<String>> {
    let mut requests = recorded_requests_of(recording, &[method])?;
    Ok(requests.pop().unwrap_or_default())
}

/// The requests of each of `methods` in a recording, as their protobuf text, in the order of
/// `methods`; the recording is read once.
pub(super) fn recorded_requests_of(recording: &Path, methods: &[&str]) -> Result<Vec<Vec<String>>> {
    let text = read_file(recording)?.unwrap_or_default();
    let wrapped = format!("[{}]", text.trim_end().trim_end_matches(','));
    let records: Vec<Value> =
        serde_json::from_str(&wrapped).context("the recording is not JSON records")?;
    let mut requests = vec![Vec::new(); methods.len()];
    for record in &records {
        let (Some((_, method)), Some(request)) = (
            record["name"]
                .as_str()
                .and_then(|name| name.rsplit_once('.')),
            record["request"].as_str(),
        ) else {
            continue;
        };
        if let Some(i) = methods.iter().position(|m| *m == method) {
            requests[i].push(request.to_owned());
        }
    }
    Ok(requests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resource_finds_exactly_one_by_type_and_name() {
        let export = json!({"deployment": {"resources": [
            {"type": "pulumi:pulumi:Stack", "urn": "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s"},
            {"type": "pkg:index/a:A", "urn": "urn:pulumi:s::p::pkg:index/a:A::one", "id": "1"},
            {"type": "pkg:index/a:A", "urn": "urn:pulumi:s::p::pkg:index/a:A::two", "id": "2"},
        ]}});
        assert_eq!(resources(&export, "pkg:index/a:A").len(), 2);
        assert_eq!(
            resource(&export, "pkg:index/a:A", "two").expect("one match")["id"],
            "2"
        );
        let err = resource(&export, "pkg:index/a:A", "three").expect_err("no match");
        assert_eq!(
            err.to_string(),
            "the stack holds 0 resources `three` of type pkg:index/a:A, not one"
        );
        assert!(resources(&json!({}), "pkg:index/a:A").is_empty());
    }

    #[test]
    fn marked_processes_finds_only_children_with_the_marker() {
        let marker = b"xtask-e2e-unit-test-marker";
        let mut child = Command::new("sleep")
            .arg("30")
            .env("TFP_E2E_UNIT", "xtask-e2e-unit-test-marker")
            .spawn()
            .expect("sleep starts");
        // The kernel fills in a new program's environment a moment after `spawn` returns (the exec has
        // closed our status pipe by then), so look again for a while.
        let mut found = Vec::new();
        for _ in 0..100 {
            found = marked_processes("TFP_E2E_UNIT", marker);
            if !found.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let other = marked_processes("TFP_E2E_UNIT", b"another-marker");
        child.kill().expect("the child is ours");
        child.wait().expect("the child is reaped");
        assert_eq!(found, vec![child.id()]);
        assert!(other.is_empty());
    }
}
