//! What the tests see of processes, through `/proc`: who is running, whose child, with which
//! files open, and bounded waits for them to change.

use std::{
    path::Path,
    time::{Duration, Instant},
};

/// Whether a process exists and is not a zombie.
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.rsplit(") ").next().unwrap_or("").starts_with('Z'))
}

/// The live processes whose parent is `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("procfs").flatten() {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // Field 4 of stat is the parent pid; the command name may contain spaces, so split
        // after its closing parenthesis.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1));
        if ppid == Some(pid.to_string().as_str())
            && let Ok(child) = entry.file_name().to_string_lossy().parse()
            && running(child)
        {
            found.push(child);
        }
    }
    found
}

/// The live processes whose command line contains `marker`.
pub fn running_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("procfs").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse() else {
            continue;
        };
        if command_line(pid).contains(marker) && running(pid) {
            found.push(pid);
        }
    }
    found
}

/// The command line of `pid`, its arguments joined by spaces; empty once it is gone.
pub fn command_line(pid: u32) -> String {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&cmdline).replace('\0', " ")
}

/// Whether process `pid` has `path` open.
pub fn has_open(pid: u32, path: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == path))
}

/// The paths of the unix sockets process `pid` has open.
pub fn unix_sockets(pid: u32) -> Vec<std::path::PathBuf> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .filter_map(|target| {
                    let target = target.to_string_lossy().into_owned();
                    let inode = target.strip_prefix("socket:[")?.strip_suffix(']')?;
                    Some(inode.to_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    let table = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (inode, path) = (fields.get(6)?, fields.get(7)?);
            (inodes.iter().any(|i| i == inode) && path.starts_with('/'))
                .then(|| std::path::PathBuf::from(path))
        })
        .collect()
}

/// Sends `signal` (`TERM`, `KILL`, `STOP`…) to a process this test started, directly or
/// through the processes it started.
pub fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} {pid}");
}

/// A process this test started, stopped with SIGTERM (so that it stops what it started), then
/// SIGKILL after ten seconds, if the test ends before it has: a failed check would otherwise
/// leave it running. Dismissed once the test has seen it exit, so that a PID the system may
/// have given to another process is never signalled.
pub struct StopOnDrop(Option<u32>);

impl StopOnDrop {
    pub fn new(pid: u32) -> StopOnDrop {
        StopOnDrop(Some(pid))
    }

    /// The process has exited: nothing is left to stop.
    pub fn dismiss(mut self) {
        self.0 = None;
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let Some(pid) = self.0.filter(|pid| running(*pid)) else {
            return;
        };
        let send = |signal: &str| {
            // No assertion: this runs while a failed test unwinds.
            let _ = std::process::Command::new("kill")
                .args([&format!("-{signal}"), &pid.to_string()])
                .status();
        };
        send("TERM");
        if wait_for(Duration::from_secs(10), || (!running(pid)).then_some(())).is_none() {
            send("KILL");
        }
    }
}

/// Polls `probe` until it gives a value or `limit` has passed.
pub fn wait_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Polls `probe` until it gives a value or `limit` has passed, without blocking the runtime:
/// for async tests, whose runtime may be what makes the probe succeed.
pub async fn poll_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits at most `limit` for `child` to exit.
pub fn exited_within(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    wait_for(limit, || child.try_wait().ok().flatten())
}

/// How many TCP connections to port `port` of 127.0.0.1 are established in this network
/// namespace, as `/proc/net/tcp` lists them (the client's side: the remote port is `port`).
pub fn connections_to(port: u16) -> usize {
    // Columns: `sl local_address rem_address st …`, addresses as `0100007F:1F90` (hex, the
    // IPv4 address in host byte order), state 01 is ESTABLISHED.
    let remote = format!("0100007F:{port:04X}");
    std::fs::read_to_string("/proc/net/tcp")
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.get(2) == Some(&remote.as_str()) && fields.get(3) == Some(&"01")
        })
        .count()
}
