//! The provider's process: spawned, drained, watched and, in the end, reaped.
//!
//! One task owns the `tokio::process::Child`. It waits for the exit, kills the process when
//! asked, publishes the exit status, and removes the provider's unix socket if the provider
//! left it behind (a killed Go plugin does). Two more tasks drain stdout and stderr for as long
//! as the process lives: a plugin that writes to a full or closed pipe would block or die. The
//! first handshake-shaped stdout line is handed to the launcher; stderr lines are forwarded to
//! the log sink and some are kept for crash reports (`LastWords`: from a Go panic on its first
//! lines, otherwise the last lines; routine log lines never).
//!
//! Each provider leads its own process group (see `launch`; all but `record`'s real provider),
//! and the group ends with it: when the provider exits, however it exits, what it started gets
//! SIGTERM at once and, if still there after a grace, SIGKILL; a kill kills the whole group at
//! once. A shell wrapper's provider or a provider's helper processes are thus never left running
//! under init.

use std::{
    collections::VecDeque,
    path::PathBuf,
    process::ExitStatus,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, SystemTime},
};

use rustix::process::{Pid, Signal};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, BufReader},
    process::Child,
    sync::{oneshot, watch},
};

use crate::{
    handshake,
    logs::{self, LogSink},
};

/// How many stderr lines are kept for crash reports.
const STDERR_TAIL_LINES: usize = 40;
/// How many of the lines a provider prints on stdout before its handshake are kept, from the
/// first, for the error that says it printed none: what a program that is not a provider says
/// (its usage, a listing) starts there.
const STDOUT_HEAD_LINES: usize = 10;
/// Longest stdout or stderr line we keep; the rest of a longer line is dropped.
const MAX_LINE_BYTES: usize = 64 * 1024;
/// How long what a provider started has to exit after SIGTERM, once the provider itself has
/// exited, before it gets SIGKILL.
const GROUP_GRACE: Duration = Duration::from_secs(1);
/// How long [`kill_all`] waits, in all, for the killed providers to be reaped.
const KILL_ALL_WAIT: Duration = Duration::from_secs(3);
/// How far a socket's time of creation may lie before the second in which the provider that
/// made it was spawned: the kernel stamps files from a clock that lags the one we read by up to a
/// tick, and some file systems keep whole seconds only.
const SOCKET_CLOCK_SLACK: Duration = Duration::from_millis(50);

/// How a provider process ended, with the end of what it wrote to stderr.
#[derive(Clone, Debug)]
pub struct ExitReport {
    pub status: Option<ExitStatus>,
    pub stderr_tail: Vec<String>,
}

impl ExitReport {
    /// How the process ended, without its stderr: `exit status 2`, `killed by signal 9 (SIGKILL)`.
    pub fn ending(&self) -> String {
        match self.status {
            Some(status) => {
                use std::os::unix::process::ExitStatusExt as _;
                match (status.code(), status.signal()) {
                    (Some(code), _) => format!("exit status {code}"),
                    (None, Some(signal)) => {
                        format!("killed by signal {signal}{}", signal_name(signal))
                    }
                    (None, None) => status.to_string(),
                }
            }
            None => "exit status unknown".to_owned(),
        }
    }

    /// Whether its stderr ends with a Go panic or fatal error.
    pub fn panicked(&self) -> bool {
        (self.stderr_tail.iter())
            .any(|line| line.starts_with("panic: ") || line.starts_with("fatal error: "))
    }
}

impl std::fmt::Display for ExitReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.ending())?;
        write_stderr_tail(f, &self.stderr_tail)
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        2 => " (SIGINT)",
        6 => " (SIGABRT)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

/// Appends ", last lines of stderr: …" when there are any.
pub(crate) fn write_stderr_tail(f: &mut impl std::fmt::Write, tail: &[String]) -> std::fmt::Result {
    if tail.is_empty() {
        return Ok(());
    }
    f.write_str("; its last lines on stderr:")?;
    write_lines(f, tail)
}

/// What a provider printed on stdout before any handshake: its first lines, blank ones left
/// out, each quoted as errors quote input (bounded, control characters escaped), and how many
/// more there were.
#[derive(Clone, Debug, Default)]
pub struct StdoutHead {
    pub lines: Vec<String>,
    pub more: usize,
}

impl StdoutHead {
    fn push(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        if self.lines.len() < STDOUT_HEAD_LINES {
            self.lines.push(tfp_echo::plain(line).to_string());
        } else {
            self.more += 1;
        }
    }

    /// `; it printed on stdout instead:` and the lines, or nothing.
    pub(crate) fn write(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        if self.lines.is_empty() {
            return Ok(());
        }
        f.write_str("; it printed on stdout instead:")?;
        write_lines(f, &self.lines)?;
        match self.more {
            0 => Ok(()),
            1 => f.write_str("\n    (and 1 more line)"),
            more => write!(f, "\n    (and {more} more lines)"),
        }
    }
}

/// `tail`, a line each, indented under what comes before.
pub(crate) fn write_lines(f: &mut impl std::fmt::Write, tail: &[String]) -> std::fmt::Result {
    for line in tail {
        write!(f, "\n    {line}")?;
    }
    Ok(())
}

/// Shared view of a running provider process. The process is killed when the last handle on its
/// monitor is dropped.
#[derive(Debug)]
pub struct Monitor {
    pid: Option<u32>,
    exit: watch::Receiver<Option<Option<ExitStatus>>>,
    kill: Mutex<Option<oneshot::Sender<()>>>,
    stderr_tail: Arc<Mutex<LastWords>>,
    stdout_head: Arc<Mutex<StdoutHead>>,
    socket: Arc<Mutex<Option<PathBuf>>>,
}

/// The parts of a freshly spawned process that the launcher needs.
pub(crate) struct Spawned {
    pub(crate) monitor: Arc<Monitor>,
    /// The first stdout line that looks like a go-plugin handshake, or `None` on EOF.
    pub(crate) handshake: oneshot::Receiver<Option<String>>,
}

/// Starts watching `child`, spawned at `spawned_at`: its output is drained and its exit recorded
/// from now on. `leads_group` says whether it leads a process group of its own, to be ended
/// with it.
pub(crate) fn watch(
    mut child: Child,
    spawned_at: SystemTime,
    provider: &str,
    sink: LogSink,
    leads_group: bool,
) -> Spawned {
    let pid = child.id();
    if let Some(pid) = pid.filter(|_| leads_group) {
        crate::guard::announce(pid, spawned_at);
    }
    let stderr_tail = Arc::new(Mutex::new(LastWords::default()));
    let stdout_head = Arc::new(Mutex::new(StdoutHead::default()));
    let socket: Arc<Mutex<Option<PathBuf>>> = Arc::new(Mutex::new(None));
    let (handshake_tx, handshake_rx) = oneshot::channel();

    let stdout_task = child.stdout.take().map(|out| {
        let sink = sink.clone();
        tokio::spawn(drain_stdout(out, handshake_tx, stdout_head.clone(), sink))
    });
    let stderr_task = child.stderr.take().map(|err| {
        let tail = stderr_tail.clone();
        tokio::spawn(drain_stderr(err, tail, sink))
    });

    let (exit_tx, exit_rx) = watch::channel(None);
    let (kill_tx, kill_rx) = oneshot::channel::<()>();
    let (reaped_tx, reaped_rx) = watch::channel(false);
    let socket_for_reaper = socket.clone();
    let provider = provider.to_owned();
    tokio::spawn(async move {
        let group = pid.filter(|_| leads_group).and_then(ProcessGroup::of);
        let status = tokio::select! {
            status = child.wait() => status,
            _ = kill_rx => {
                if let Some(group) = group {
                    group.signal(Signal::KILL);
                }
                let _ = child.start_kill();
                child.wait().await
            }
        };
        // What the provider started ends with it; those still holding its stdout or stderr
        // would otherwise keep the drains below waiting.
        if let Some(group) = group {
            group.signal(Signal::TERM);
        }
        // Let the drains reach EOF so that the stderr tail is complete before anyone reads it.
        for task in [stdout_task, stderr_task].into_iter().flatten() {
            let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
        }
        let socket = socket_for_reaper
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(path) = socket {
            remove_socket(&path, spawned_at);
        }
        let status = status.ok();
        tracing::debug!(provider, ?status, "provider process exited");
        let _ = exit_tx.send(Some(status));
        if let Some(group) = group {
            group.finish().await;
            crate::guard::withdraw(group.leader());
        }
        let _ = reaped_tx.send(true);
    });

    let monitor = Arc::new(Monitor {
        pid,
        exit: exit_rx,
        kill: Mutex::new(Some(kill_tx)),
        stderr_tail,
        stdout_head,
        socket,
    });
    let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    live.retain(|w| !w.is_reaped());
    live.push(Watched {
        monitor: Arc::downgrade(&monitor),
        reaped: reaped_rx,
    });
    Spawned {
        monitor,
        handshake: handshake_rx,
    }
}

/// Every provider process this program has started whose reaper has not finished, so that a
/// signal, or the end of the program, can stop them all and wait for what is left of them. A
/// provider whose monitor was dropped is being killed, but its reaper may still be removing its
/// socket or ending its process group.
static LIVE: Mutex<Vec<Watched>> = Mutex::new(Vec::new());

/// One provider process, from its spawn until its reaper is done.
struct Watched {
    monitor: std::sync::Weak<Monitor>,
    /// Set once the process is reaped, its socket removed and its process group ended. A reaper
    /// dropped with the runtime closes it instead.
    reaped: watch::Receiver<bool>,
}

impl Watched {
    fn is_reaped(&self) -> bool {
        *self.reaped.borrow() || self.reaped.has_changed().is_err()
    }
}

/// Kills every provider process still running, with its process group, and waits (at most
/// `KILL_ALL_WAIT` in all) until each is reaped, its socket removed and its group ended. For
/// SIGINT, SIGTERM, the engine's death and the end of the program: no provider, and nothing a
/// provider started, outlives us.
pub async fn kill_all() {
    let reapers: Vec<watch::Receiver<bool>> = {
        let live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
        live.iter()
            .filter(|w| !w.is_reaped())
            .map(|w| {
                if let Some(monitor) = w.monitor.upgrade() {
                    monitor.kill();
                }
                w.reaped.clone()
            })
            .collect()
    };
    let deadline = tokio::time::Instant::now() + KILL_ALL_WAIT;
    for mut reaped in reapers {
        let _ = tokio::time::timeout_at(deadline, reaped.wait_for(|done| *done)).await;
    }
}

/// The process group a provider leads.
#[derive(Clone, Copy, Debug)]
struct ProcessGroup(Pid);

impl ProcessGroup {
    fn of(pid: u32) -> Option<ProcessGroup> {
        i32::try_from(pid)
            .ok()
            .and_then(Pid::from_raw)
            .map(ProcessGroup)
    }

    /// Sends `signal` to every process of the group; a group already empty is not an error.
    fn signal(self, signal: Signal) {
        let _ = rustix::process::kill_process_group(self.0, signal);
    }

    fn is_empty(self) -> bool {
        rustix::process::test_kill_process_group(self.0).is_err()
    }

    /// The pid of the process that led the group.
    fn leader(self) -> u32 {
        self.0.as_raw_nonzero().get().unsigned_abs()
    }

    /// Kills what is left of the group [`GROUP_GRACE`] after it was sent SIGTERM. The group id
    /// cannot have been reused meanwhile: the kernel keeps it reserved for as long as any member
    /// lives.
    async fn finish(self) {
        // Members that already exited but are not yet reaped by init still count, so this may
        // wait the whole grace; SIGKILL is harmless to them.
        if self.emptied_within(GROUP_GRACE).await {
            return;
        }
        tracing::debug!(
            group = self.0.as_raw_nonzero().get(),
            "killing what is left of a provider's process group"
        );
        self.signal(Signal::KILL);
        // SIGKILL is delivered on its way: wait, a grace at most, until the group is gone, so
        // that it is when our caller goes on (and, at the end, when we exit).
        self.emptied_within(GROUP_GRACE).await;
    }

    /// Whether the group is empty now or becomes so within `grace`.
    async fn emptied_within(self, grace: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            if self.is_empty() {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Monitor {
    /// The process id it was spawned with.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Remembers the unix socket the provider announced, to remove it if the provider does not.
    pub(crate) fn set_socket(&self, path: PathBuf) {
        if let Some(pid) = self.pid {
            crate::guard::socket(pid, &path);
        }
        *self.socket.lock().unwrap_or_else(PoisonError::into_inner) = Some(path);
    }

    /// Asks for the process to be killed; idempotent.
    pub fn kill(&self) {
        if let Some(kill) = self
            .kill
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            let _ = kill.send(());
        }
    }

    /// The exit report if the process has exited, waiting at most `grace` for it.
    pub async fn exited_within(&self, grace: Duration) -> Option<ExitReport> {
        let mut exit = self.exit.clone();
        let done = tokio::time::timeout(grace, exit.wait_for(Option::is_some)).await;
        match done {
            Ok(Ok(status)) => Some(ExitReport {
                status: status.expect("waited for Some"),
                stderr_tail: self.stderr_tail(),
            }),
            _ => None,
        }
    }

    /// Waits until the process has exited and been reaped.
    pub async fn wait(&self) -> ExitReport {
        let mut exit = self.exit.clone();
        let status = match exit.wait_for(Option::is_some).await {
            Ok(status) => status.expect("waited for Some"),
            // The reaper is gone without a status: the runtime is shutting down.
            Err(_) => None,
        };
        ExitReport {
            status,
            stderr_tail: self.stderr_tail(),
        }
    }

    /// The last lines the process wrote to stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr_tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .lines()
    }

    /// The first lines the process wrote to stdout before its handshake.
    pub fn stdout_head(&self) -> StdoutHead {
        self.stdout_head
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Removes the socket at `path` if the provider spawned at `spawned_at` can have made it: a
/// socket, created since. A handshake line may name any path, another program's socket
/// included, and that one is left alone.
pub(crate) fn remove_socket(path: &std::path::Path, spawned_at: SystemTime) {
    use std::os::unix::fs::FileTypeExt as _;
    let metadata = std::fs::symlink_metadata(path).ok();
    let Some(metadata) = metadata.filter(|m| m.file_type().is_socket()) else {
        return;
    };
    let whole_second = spawned_at
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(spawned_at, |t| {
            SystemTime::UNIX_EPOCH + Duration::from_secs(t.as_secs())
        });
    let since = whole_second - SOCKET_CLOCK_SLACK;
    if metadata.modified().is_ok_and(|made| made >= since) {
        let _ = std::fs::remove_file(path);
    } else {
        tracing::debug!(
            socket = %path.display(),
            "leaving the socket the provider named: it is older than the provider"
        );
    }
}

async fn drain_stdout(
    out: impl AsyncRead + Unpin,
    handshake: oneshot::Sender<Option<String>>,
    head: Arc<Mutex<StdoutHead>>,
    sink: LogSink,
) {
    let mut lines = BoundedLines::new(out);
    let mut handshake = Some(handshake);
    while let Some(line) = lines.next().await {
        if handshake.is_some() {
            if handshake::looks_like_handshake(&line) {
                if let Some(tx) = handshake.take() {
                    let _ = tx.send(Some(line));
                }
                continue;
            }
            head.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(&line);
        }
        sink.unexpected_stdout(&line);
    }
    if let Some(tx) = handshake.take() {
        let _ = tx.send(None);
    }
}

async fn drain_stderr(err: impl AsyncRead + Unpin, words: Arc<Mutex<LastWords>>, sink: LogSink) {
    let mut lines = BoundedLines::new(err);
    while let Some(line) = lines.next().await {
        sink.stderr_line(&line);
        words
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(line);
    }
}

/// What a crash report quotes of a provider's stderr.
///
/// A Go panic starts with its message and the failing goroutine, then dumps every other
/// goroutine: the start matters, so from a panic's first line on, the first lines are kept.
/// Otherwise the last lines are. Routine log lines are never kept: they can be many, may
/// carry values, and a crash's own words (a Go panic, a Python traceback) are plain text.
#[derive(Debug, Default)]
struct LastWords {
    tail: VecDeque<String>,
    crash: Vec<String>,
}

impl LastWords {
    fn push(&mut self, line: String) {
        if logs::is_routine(&line) {
            return;
        }
        if !self.crash.is_empty() || is_crash_start(&line) {
            if self.crash.len() < STDERR_TAIL_LINES {
                self.crash.push(line);
            }
            return;
        }
        if self.tail.len() == STDERR_TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }

    fn lines(&self) -> Vec<String> {
        if self.crash.is_empty() {
            self.tail.iter().cloned().collect()
        } else {
            self.crash.clone()
        }
    }
}

/// The first line the Go runtime prints when a program panics or dies of a signal.
fn is_crash_start(line: &str) -> bool {
    [
        "panic: ",
        "fatal error: ",
        "SIGQUIT: ",
        "SIGSEGV: ",
        "SIGABRT: ",
        "SIGBUS: ",
        "SIGILL: ",
    ]
    .iter()
    .any(|start| line.starts_with(start))
}

/// Reads lines of at most [`MAX_LINE_BYTES`], so a provider cannot make us buffer without bound.
struct BoundedLines<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> BoundedLines<R> {
    fn new(reader: R) -> Self {
        BoundedLines {
            reader: BufReader::new(reader),
            buf: Vec::new(),
        }
    }

    async fn next(&mut self) -> Option<String> {
        self.buf.clear();
        loop {
            let available = match self.reader.fill_buf().await {
                Ok([]) | Err(_) => {
                    return (!self.buf.is_empty()).then(|| self.take_line());
                }
                Ok(bytes) => bytes,
            };
            let (used, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&available[..used.min(room)]);
            self.reader.consume(used);
            if done {
                return Some(self.take_line());
            }
        }
    }

    fn take_line(&mut self) -> String {
        let line = String::from_utf8_lossy(&self.buf);
        line.trim_end_matches(['\n', '\r']).to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_before_the_handshake_is_kept_from_its_first_lines() {
        let mut head = StdoutHead::default();
        head.push("Usage: tool [command]");
        head.push("   ");
        head.push("\u{1b}[31mred\u{1b}[0m");
        head.push(&"x".repeat(1000));
        for i in 0..12 {
            head.push(&format!("line {i}"));
        }
        assert_eq!(head.lines.len(), STDOUT_HEAD_LINES);
        assert_eq!(head.lines[0], "Usage: tool [command]");
        // A terminal's escapes are escaped, and a long line is cut as errors cut input.
        assert_eq!(head.lines[1], "\\u{1b}[31mred\\u{1b}[0m");
        assert!(head.lines[2].len() < 400, "{}", head.lines[2]);
        assert_eq!(head.lines[9], "line 6");
        assert_eq!(head.more, 5);
        let mut text = String::new();
        head.write(&mut text).expect("a String takes any text");
        assert!(text.starts_with("; it printed on stdout instead:\n    Usage: tool [command]\n"));
        assert!(
            text.ends_with("\n    line 6\n    (and 5 more lines)"),
            "{text}"
        );
        let mut none = String::new();
        StdoutHead::default()
            .write(&mut none)
            .expect("a String takes any text");
        assert_eq!(none, "");
    }

    #[test]
    fn a_go_panic_is_quoted_from_its_start() {
        let mut words = LastWords::default();
        words.push("starting".into());
        words.push(r#"{"@level":"debug","@message":"routine"}"#.into());
        assert_eq!(words.lines(), vec!["starting"]);
        words.push("panic: runtime error: index out of range".into());
        for i in 0..100 {
            words.push(format!("goroutine {i} [running]:"));
        }
        let lines = words.lines();
        assert_eq!(lines.len(), STDERR_TAIL_LINES);
        assert_eq!(lines[0], "panic: runtime error: index out of range");
        assert_eq!(lines[1], "goroutine 0 [running]:");
    }

    #[test]
    fn otherwise_the_last_lines_are_kept() {
        let mut words = LastWords::default();
        for i in 0..100 {
            words.push(format!("line {i}"));
        }
        let lines = words.lines();
        assert_eq!(lines.len(), STDERR_TAIL_LINES);
        assert_eq!(lines.last().map(String::as_str), Some("line 99"));
    }
}
