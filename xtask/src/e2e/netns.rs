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
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::util;

/// How long a server may take to listen or to print its ready line.
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

/// What a server must do before a scenario may use it.
pub(super) enum Ready {
    /// Listen on this TCP port.
    Port(u16),
    /// Print one line on stdout (returned by [`Service::start`]).
    Line,
}

/// A server started for a scenario, killed by its PID when dropped.
pub(super) struct Service {
    pub(super) name: String,
    child: Child,
    /// The server's stderr, shown if it fails to start.
    log: PathBuf,
}

impl Service {
    /// Spawns `cmd` (already set up with its environment) with stderr to `log`, and waits until it is
    /// ready; `sockets` is the PID whose `/proc/<pid>/net` shows the sockets of the network it runs in.
    /// Returns the service and, for [`Ready::Line`], the line it printed.
    pub(super) fn start(
        name: &str,
        mut cmd: Command,
        log: &Path,
        ready: &Ready,
        sockets: Option<u32>,
    ) -> Result<(Self, String)> {
        let stderr =
            fs::File::create(log).with_context(|| format!("could not create {}", log.display()))?;
        // A server may read its stdin to exit when we go away; keep it open and closed on drop.
        cmd.stdin(Stdio::piped())
            .stderr(stderr)
            .stdout(match ready {
                Ready::Line => Stdio::piped(),
                Ready::Port(_) => Stdio::null(),
            });
        let child = cmd
            .spawn()
            .with_context(|| format!("could not start {name}: `{}`", util::describe(&cmd)))?;
        let mut service = Self {
            name: name.to_owned(),
            child,
            log: log.to_path_buf(),
        };
        let line = match ready {
            Ready::Line => {
                let stdout = service.child.stdout.take().expect("stdout is piped");
                first_line(stdout).with_context(|| service.failure("print its ready line"))?
            }
            Ready::Port(port) => {
                let pid = sockets.unwrap_or_else(std::process::id);
                let deadline = Instant::now() + READY;
                while !listening(pid, *port) {
                    if Instant::now() > deadline
                        || service.child.try_wait().is_ok_and(|s| s.is_some())
                    {
                        bail!(service.failure(&format!("listen on port {port}")));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                String::new()
            }
        };
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

/// A TCP port free on the host's loopback; a fresh namespace has every port free.
pub(super) fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").context("could not bind a free port")?;
    Ok(listener
        .local_addr()
        .context("a bound socket has an address")?
        .port())
}

/// Reads one line, failing on end of file.
fn first_line(stdout: ChildStdout) -> Result<String> {
    let mut line = String::new();
    let read = BufReader::new(stdout)
        .read_line(&mut line)
        .context("could not read the ready line")?;
    if read == 0 {
        bail!("it exited without printing its ready line");
    }
    Ok(line)
}

/// Whether some socket in the network of process `pid` listens on TCP `port`.
fn listening(pid: u32, port: u16) -> bool {
    ["tcp", "tcp6"].iter().any(|table| {
        fs::read_to_string(format!("/proc/{pid}/net/{table}"))
            .is_ok_and(|text| listens_in(&text, port))
    })
}

/// Whether a `/proc/net/tcp` table has a socket in state LISTEN (`0A`) on `port`.
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

    #[test]
    fn a_service_in_a_namespace_is_reachable_there_only_and_dies_on_drop() {
        let Some(ip) = ["/usr/sbin/ip", "/sbin/ip"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
        else {
            panic!("`ip` is needed for this test");
        };
        let netns = Netns::new(&ip).expect("a namespace");
        let port = free_port().expect("a port");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut cmd = netns.command("python3");
        cmd.args([
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .current_dir(dir.path());
        let (service, _) = Service::start(
            "http.server",
            cmd,
            &dir.path().join("log"),
            &Ready::Port(port),
            Some(netns.pid()),
        )
        .expect("the server starts");
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
