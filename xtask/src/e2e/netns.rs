//! A project's private network and the servers that live in it.
//!
//! Each project gets one network namespace whose only interface is loopback, kept alive by a holder
//! process (`unshare --net` running `sleep`) for as long as the project lives. Every `pulumi` run and
//! every server a scenario starts joins it with `nsenter --net`, so the CLI, its plugins, the providers
//! they launch and the scenario's servers (moto, a registry) reach one another on 127.0.0.1 and reach
//! nothing else. Where namespaces are not allowed, there is no [`Netns`] and everything shares the host's
//! loopback.
//!
//! Invariants:
//! - `nsenter` with only `--net` does not fork: the PID a command gets is the program's own, so killing a
//!   server by that PID ends it.
//! - The holder carries no project marker (it is not a leftover of the CLI); it is killed by its PID and
//!   reaped when the [`Netns`] is dropped, which removes the namespace with its last process.
//! - A [`Service`] is killed by its PID and reaped when dropped.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::util;

/// How long a server may take to print its ready line.
const READY: Duration = Duration::from_secs(60);

/// A loopback-only network namespace, alive while its holder process runs.
pub(super) struct Netns {
    holder: Child,
    /// `/proc/<holder>/ns/net`, the handle `nsenter` joins.
    handle: PathBuf,
}

impl Netns {
    /// Creates the namespace, brings loopback up in it, and waits until it is ready.
    pub(super) fn new(ip: &Path) -> Result<Self> {
        // `$0` is `ip`; `sleep` replaces the shell once loopback is up, after the line that says so.
        let mut cmd = Command::new("unshare");
        cmd.args([
            "--net",
            "--",
            "sh",
            "-c",
            "\"$0\" link set lo up && echo up && exec sleep infinity",
        ])
        .arg(ip)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
        let mut holder = cmd
            .spawn()
            .with_context(|| format!("could not start `{}`", util::describe(&cmd)))?;
        let stdout = holder.stdout.take().expect("stdout is piped");
        let handle = PathBuf::from(format!("/proc/{}/ns/net", holder.id()));
        let netns = Self { holder, handle };
        let line = first_line(stdout)?;
        if line.trim() != "up" {
            bail!("the namespace holder did not bring loopback up (it printed {line:?})");
        }
        Ok(netns)
    }

    /// A command that runs `program` inside the namespace.
    pub(super) fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut join = std::ffi::OsString::from("--net=");
        join.push(&self.handle);
        let mut cmd = Command::new("nsenter");
        cmd.arg(join).arg("--").arg(program);
        cmd
    }

    /// The PID whose `/proc/<pid>/net` shows the namespace's sockets.
    #[cfg(test)]
    pub(super) fn pid(&self) -> u32 {
        self.holder.id()
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Child::kill signals the holder's own PID; then reap it.
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// A server started for a scenario, killed by its PID when dropped.
pub(super) struct Service {
    pub(super) name: String,
    child: Child,
    /// The server's stderr, shown if it fails to start.
    log: PathBuf,
}

impl Service {
    /// Spawns `cmd` (already set up with its environment) with stderr to `log`, and waits for the
    /// first line it prints on stdout, its sign that it is ready (a server on a port the kernel
    /// picked prints that port); returns the service and that line. Waiting on the line rather
    /// than on a port we chose spares a bind-and-release race.
    pub(super) fn start(name: &str, mut cmd: Command, log: &Path) -> Result<(Self, String)> {
        let stderr =
            fs::File::create(log).with_context(|| format!("could not create {}", log.display()))?;
        // A server may read its stdin to exit when we go away; keep it open and closed on drop.
        cmd.stdin(Stdio::piped())
            .stderr(stderr)
            .stdout(Stdio::piped());
        let child = cmd
            .spawn()
            .with_context(|| format!("could not start {name}: `{}`", util::describe(&cmd)))?;
        let mut service = Self {
            name: name.to_owned(),
            child,
            log: log.to_path_buf(),
        };
        let stdout = service.child.stdout.take().expect("stdout is piped");
        let line = first_line(stdout).with_context(|| service.failure("print its ready line"))?;
        Ok((service, line))
    }

    /// The server's PID.
    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Why the server is not ready, with the tail of its log.
    fn failure(&self, what: &str) -> String {
        let log = fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!(
            "{} did not {what}; its stderr:\n{}",
            self.name,
            tail.join("\n")
        )
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        // Child::kill signals this server's own PID; then reap it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one line within [`READY`], failing on end of file. The read runs on a thread of its
/// own, which ends when the server is killed (its stdout closes) if the line never comes.
fn first_line(stdout: ChildStdout) -> Result<String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(read.map(|n| (n, line)));
    });
    match receiver.recv_timeout(READY) {
        Ok(Ok((0, _))) => bail!("it exited without printing its ready line"),
        Ok(Ok((_, line))) => Ok(line),
        Ok(Err(err)) => Err(err).context("could not read the ready line"),
        Err(_) => bail!("it printed no ready line within {} s", READY.as_secs()),
    }
}

/// Whether some socket in the network of process `pid` listens on TCP `port`.
#[cfg(test)]
fn listening(pid: u32, port: u16) -> bool {
    ["tcp", "tcp6"].iter().any(|table| {
        fs::read_to_string(format!("/proc/{pid}/net/{table}"))
            .is_ok_and(|text| listens_in(&text, port))
    })
}

/// Whether a `/proc/net/tcp` table has a socket in state LISTEN (`0A`) on `port`.
#[cfg(test)]
fn listens_in(table: &str, port: u16) -> bool {
    table.lines().skip(1).any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local_port = fields
            .get(1)
            .and_then(|addr| addr.rsplit_once(':'))
            .and_then(|(_, hex)| u16::from_str_radix(hex, 16).ok());
        local_port == Some(port) && fields.get(3) == Some(&"0A")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listens_in_reads_the_local_port_of_listening_sockets_only() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue\n\
                     \x20  0: 0100007F:1F90 00000000:0000 0A 00000000:00000000\n\
                     \x20  1: 0100007F:0050 0100007F:D431 01 00000000:00000000\n";
        assert!(listens_in(table, 8080));
        assert!(
            !listens_in(table, 80),
            "an established socket is not listening"
        );
        assert!(!listens_in(table, 9090));
        assert!(!listens_in("", 8080));
    }

    /// Namespaces are optional (they need root, or user namespaces): where the harness finds
    /// none, asking for one must fail with an error, not hang, and the e2e runs go without.
    #[test]
    fn a_service_in_a_namespace_is_reachable_there_only_and_dies_on_drop() {
        let Some(ip) = super::super::harness::loopback_namespace() else {
            // The harness's answer must be right: a namespace cannot be made here, or `nsenter`,
            // which runs each command in one, is missing.
            let nsenter = util::output(Command::new("nsenter").arg("--version")).is_ok();
            let made = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
                .into_iter()
                .any(|ip| Netns::new(Path::new(ip)).is_ok());
            assert!(
                !(nsenter && made),
                "namespaces work here, yet the harness found none"
            );
            return;
        };
        let netns = Netns::new(&ip).expect("a namespace");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut cmd = netns.command("python3");
        // An HTTP server on a port the kernel picks, which it prints once it listens.
        cmd.args([
            "-c",
            "import http.server as h\n\
             s = h.HTTPServer(('127.0.0.1', 0), h.SimpleHTTPRequestHandler)\n\
             print(s.server_address[1], flush=True)\n\
             s.serve_forever()",
        ])
        .current_dir(dir.path());
        let (service, line) =
            Service::start("http.server", cmd, &dir.path().join("log")).expect("the server starts");
        let port: u16 = line.trim().parse().expect("the server prints its port");
        let pid = service.pid();
        assert!(listening(netns.pid(), port));
        assert!(
            !listening(std::process::id(), port),
            "the host does not see it"
        );
        let inside = util::output(netns.command("curl").args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            &format!("http://127.0.0.1:{port}/"),
        ]))
        .expect("curl runs in the namespace");
        assert_eq!(inside.trim(), "200");
        drop(service);
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "killed and reaped"
        );
        let holder = netns.pid();
        drop(netns);
        assert!(!Path::new(&format!("/proc/{holder}")).exists());
    }
}
