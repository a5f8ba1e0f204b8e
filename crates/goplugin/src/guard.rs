//! The guard: a process of its own that ends our providers when we are killed without a chance
//! to end them ourselves (SIGKILL, the kernel's OOM killer).
//!
//! Each provider leads its own process group, so that what it starts ends with it; the same
//! choice means that a signal to our group does not reach it, and a process killed by SIGKILL
//! runs no code. Without help, its providers would run on under init, each holding its socket.
//!
//! A program that wants the help calls [`enable`] with a command that runs [`run`] (our binary
//! with the argument [`ARGUMENT`]). The first provider spawned after that starts the guard, in a
//! process group of its own (a signal to ours does not reach it either), with an empty
//! environment, its stdout and stderr closed, and a pipe to its stdin whose writing end only we
//! hold (std opens it close-on-exec, so no provider inherits it). On that pipe each provider's
//! process group is announced when spawned, its socket when its handshake names one, and its end
//! once it has ended. When the pipe reaches EOF, we are gone, however we ended: the guard sends
//! SIGTERM to every group still announced whose leader is still the process announced (the
//! same start time, so that a reused pid is never signalled), SIGKILL a second later to what is
//! left, removes their sockets as our reaper would (`child::remove_socket`), and exits. After a
//! normal end every group has been withdrawn, and the guard exits at once.
//!
//! Architecture invariant: no `unsafe`, no shared memory; the guard knows only what the pipe
//! said, and a failed write to it costs the guarding, never a launch.

use std::{
    collections::HashMap,
    io::{BufRead as _, Write as _},
    os::unix::process::CommandExt as _,
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{Mutex, OnceLock, PoisonError},
    time::{Duration, Instant, SystemTime},
};

use rustix::process::{Pid, Signal};

/// The argument that makes our binary run [`run`] instead of anything else.
pub const ARGUMENT: &str = "__guard-providers";

/// How long the groups have after SIGTERM before they get SIGKILL, as our reaper gives them.
const GRACE: Duration = Duration::from_secs(1);
/// How often the guard looks whether the groups it signalled are gone.
const POLL: Duration = Duration::from_millis(20);

/// The command that runs the guard, once [`enable`]d.
static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
static GUARD: Mutex<Guard> = Mutex::new(Guard::Idle);

enum Guard {
    /// Not needed yet: no provider was spawned.
    Idle,
    Running {
        stdin: ChildStdin,
        /// Kept so that a guard that fails is reaped.
        child: Child,
    },
    /// It could not be started or stopped reading; said once, not tried again.
    Failed,
}

/// Has the first provider spawned from now on start the guard: `program` run with
/// [`ARGUMENT`]. Without it (a library user, a test) providers are guarded by our own reaper
/// alone.
pub fn enable(program: PathBuf) {
    let _ = PROGRAM.set(program);
}

/// Announces the process group of a provider just spawned (its leader `pid`).
pub(crate) fn announce(pid: u32, spawned_at: SystemTime) {
    let since = spawned_at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    send(
        &format!("+ {pid} {}.{:09}\n", since.as_secs(), since.subsec_nanos()),
        true,
    );
}

/// Announces the socket the provider whose group `pid` leads listens on.
pub(crate) fn socket(pid: u32, path: &Path) {
    // A path with a line break cannot be said on one line; such a socket is left to our reaper.
    if let Some(path) = path.to_str().filter(|p| !p.contains('\n')) {
        send(&format!("s {pid} {path}\n"), false);
    }
}

/// Withdraws the group `pid` led: it has ended, and its socket is gone.
pub(crate) fn withdraw(pid: u32) {
    send(&format!("- {pid}\n"), false);
}

fn send(line: &str, may_start: bool) {
    let Some(program) = PROGRAM.get() else {
        return;
    };
    let mut guard = GUARD.lock().unwrap_or_else(PoisonError::into_inner);
    if matches!(*guard, Guard::Idle) {
        if !may_start {
            return;
        }
        *guard = start(program);
    }
    if let Guard::Running { stdin, child } = &mut *guard {
        // A few bytes into a pipe whose reader never stops reading: this does not block.
        if let Err(err) = stdin.write_all(line.as_bytes()) {
            tracing::warn!(
                "the process that ends our providers if we are killed has stopped ({err}); \
                 they are ended when we exit, as before, but not if we are killed"
            );
            let _ = child.try_wait();
            *guard = Guard::Failed;
        }
    }
}

fn start(program: &Path) -> Guard {
    let started = Command::new(program)
        .arg(ARGUMENT)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    match started {
        Ok(mut child) => match child.stdin.take() {
            Some(stdin) => Guard::Running { stdin, child },
            None => Guard::Failed,
        },
        Err(err) => {
            tracing::warn!(
                program = %program.display(),
                "could not start the process that ends our providers if we are killed ({err}); \
                 they are ended when we exit, as before, but not if we are killed"
            );
            Guard::Failed
        }
    }
}

/// One announced group.
struct Group {
    /// The leader's start time, in clock ticks since boot (`/proc/<pid>/stat`).
    started: u64,
    spawned_at: SystemTime,
    socket: Option<PathBuf>,
}

/// The guard itself: reads announcements from stdin until EOF, then ends every group still
/// announced. Never returns an error: there is nobody to tell.
pub fn run() {
    let mut groups: HashMap<u32, Group> = HashMap::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Some((what, rest)) = line.split_once(' ') else {
            continue;
        };
        let (pid, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        match what {
            "+" => {
                if let (Some(started), Some(spawned_at)) = (leader_start(pid), unix_time(rest)) {
                    let group = Group {
                        started,
                        spawned_at,
                        socket: None,
                    };
                    groups.insert(pid, group);
                }
            }
            "s" => {
                if let Some(group) = groups.get_mut(&pid) {
                    group.socket = Some(PathBuf::from(rest));
                }
            }
            "-" => {
                groups.remove(&pid);
            }
            _ => {}
        }
    }
    end(groups);
}

/// SIGTERM to every group whose leader is still the process announced, SIGKILL after
/// [`GRACE`] to what is left, then their sockets removed.
fn end(groups: HashMap<u32, Group>) {
    let live: Vec<(Pid, Group)> = groups
        .into_iter()
        .filter(|(pid, group)| leader_start(*pid) == Some(group.started))
        .filter_map(|(pid, group)| Some((Pid::from_raw(i32::try_from(pid).ok()?)?, group)))
        .collect();
    for (pid, _) in &live {
        let _ = rustix::process::kill_process_group(*pid, Signal::TERM);
    }
    let deadline = Instant::now() + GRACE;
    let mut killed = false;
    loop {
        let left: Vec<Pid> = live
            .iter()
            .map(|(pid, _)| *pid)
            .filter(|pid| rustix::process::test_kill_process_group(*pid).is_ok())
            .collect();
        if left.is_empty() {
            break;
        }
        if Instant::now() >= deadline {
            if killed {
                break;
            }
            for pid in left {
                let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            }
            killed = true;
        }
        std::thread::sleep(POLL);
    }
    for (_, group) in &live {
        if let Some(socket) = &group.socket {
            crate::child::remove_socket(socket, group.spawned_at);
        }
    }
}

/// The start time of `pid` if it leads its process group, from `/proc/<pid>/stat`.
fn leader_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces and parentheses: fields are counted
    // from the last `)`. After it come the state (field 3), ppid, pgrp (5) … starttime (22).
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let group: u32 = fields.get(2)?.parse().ok()?;
    (group == pid).then(|| fields.get(19)?.parse().ok())?
}

/// `secs.nanos` since the Unix epoch.
fn unix_time(text: &str) -> Option<SystemTime> {
    let (secs, nanos) = text.split_once('.')?;
    let since = Duration::new(secs.parse().ok()?, nanos.parse().ok()?);
    SystemTime::UNIX_EPOCH.checked_add(since)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_leaders_start_time_and_only_a_leaders() {
        let mut leader = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("sleep starts");
        let mut member = Command::new("sleep")
            .arg("30")
            .process_group(i32::try_from(leader.id()).expect("a pid fits"))
            .spawn()
            .expect("sleep starts");
        let started = leader_start(leader.id());
        let member_start = leader_start(member.id());
        for child in [&mut leader, &mut member] {
            child.kill().expect("our child");
            child.wait().expect("reaped");
        }
        assert!(started.is_some_and(|ticks| ticks > 0), "{started:?}");
        assert_eq!(member_start, None, "a member does not lead its group");
        assert_eq!(leader_start(leader.id()), None, "gone");
        assert_eq!(leader_start(u32::MAX), None);
    }

    #[test]
    fn reads_the_time_it_was_sent() {
        let at = SystemTime::UNIX_EPOCH + Duration::new(1_764_000_000, 5);
        assert_eq!(unix_time("1764000000.000000005"), Some(at));
        assert_eq!(unix_time("soon"), None);
        assert_eq!(unix_time("1.x"), None);
    }
}
