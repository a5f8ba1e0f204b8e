//! Ctrl-C and SIGTERM. The terminal sends SIGINT to every process of its foreground group:
//! xtask and what it runs (cargo, the tests, the benches, the Pulumi CLI, our plugin), each of
//! which stops itself and says so. Killed by the signal at once, as by default, xtask never
//! cleaned up: its temporary directories stayed, and so did what the end-to-end harness sweeps
//! after each project, such as the language host of a Pulumi CLI ended by the same Ctrl-C,
//! left running under init. So the first SIGINT only marks the run as interrupted: what is
//! running stops by itself, xtask cleans up as after any failure, starts nothing more
//! ([`check`], which the helpers in `util` that run commands call) and exits with 130.
//!
//! SIGTERM (`kill`, a CI runner's timeout) is sent to xtask alone, so what it runs would go on
//! without it, and used to: cargo and the tests it ran kept running, and so did what they had
//! started. The first SIGTERM therefore does what a Ctrl-C does and then passes the Ctrl-C on
//! itself, as the terminal would: SIGINT to each process below xtask that is still in its
//! process group (found by their parents in `/proc`), by PID. xtask exits with 143.
//!
//! A second signal of either kind ends xtask at once.

use std::sync::atomic::{AtomicU8, Ordering};

use anyhow::{Result, bail};

/// The exit status of the run: 0 until a signal came, then what a shell reports for a
/// process ended by it (128 + its number).
static INTERRUPTED: AtomicU8 = AtomicU8::new(0);

const BY_SIGINT: u8 = 130;
const BY_SIGTERM: u8 = 143;

/// Takes SIGINT and SIGTERM over from their defaults for the rest of the process, on a thread
/// of its own, and returns once it has. Where that fails, both keep their defaults.
pub(crate) fn watch() {
    let (registered, registration) = std::sync::mpsc::channel();
    let watching = std::thread::Builder::new()
        .name("signals".to_owned())
        .spawn(move || {
            let (runtime, mut signals) = match take_signals() {
                Ok(taken) => {
                    let _ = registered.send(Ok(()));
                    taken
                }
                Err(err) => return drop(registered.send(Err(err))),
            };
            runtime.block_on(async {
                let status = signals.next().await;
                INTERRUPTED.store(status, Ordering::SeqCst);
                if status == BY_SIGTERM {
                    eprintln!(
                        "xtask: terminated; passing a Ctrl-C on to what it runs, waiting for that \
                         to stop, then cleaning up (a second signal quits at once)"
                    );
                    interrupt_group_descendants();
                } else {
                    eprintln!(
                        "xtask: interrupted; waiting for what is running to stop, then cleaning \
                         up (Ctrl-C again to quit at once)"
                    );
                }
                let status = signals.next().await;
                eprintln!(
                    "xtask: quitting at once; processes it started and its temporary \
                     directories may be left behind"
                );
                std::process::exit(status.into());
            });
        });
    let outcome = match watching {
        Ok(_) => registration
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the thread ended"))),
        Err(err) => Err(err),
    };
    if let Err(err) = outcome {
        eprintln!("xtask: Ctrl-C and SIGTERM quit at once, as by default: {err}");
    }
}

/// SIGINT and SIGTERM, registered with a runtime of their own.
struct Signals {
    sigint: tokio::signal::unix::Signal,
    sigterm: tokio::signal::unix::Signal,
}

impl Signals {
    /// The exit status of the next signal to come.
    async fn next(&mut self) -> u8 {
        tokio::select! {
            _ = self.sigint.recv() => BY_SIGINT,
            _ = self.sigterm.recv() => BY_SIGTERM,
        }
    }
}

/// A runtime for the signal thread, and the signals registered with it.
fn take_signals() -> std::io::Result<(tokio::runtime::Runtime, Signals)> {
    use tokio::signal::unix::{SignalKind, signal};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let signals = {
        let _context = runtime.enter();
        Signals {
            sigint: signal(SignalKind::interrupt())?,
            sigterm: signal(SignalKind::terminate())?,
        }
    };
    Ok((runtime, signals))
}

/// Sends SIGINT to the processes a terminal's Ctrl-C would have reached besides xtask: those
/// below it still in its process group. What made a group of its own (our plugin's Terraform
/// providers, say) is stopped by its parent, as after a Ctrl-C.
fn interrupt_group_descendants() {
    let pids = group_descendants(std::process::id(), &processes());
    if let Err(err) = crate::util::signal("INT", &pids) {
        eprintln!("xtask: could not pass the Ctrl-C on (kill: {err}); what it runs goes on");
    }
}

/// A process as `/proc/<pid>/stat` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Process {
    pid: u32,
    parent: u32,
    group: u32,
}

/// Every process `/proc` shows; those that end while it is read are left out.
fn processes() -> Vec<Process> {
    crate::util::live_pids()
        .into_iter()
        .filter_map(|pid| parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?))
        .collect()
}

/// The PID, parent and process group of a `/proc/<pid>/stat` line. The command name, in
/// parentheses, may itself hold spaces and parentheses, so the fields are read after its last
/// `)`: state, parent, group.
fn parse_stat(stat: &str) -> Option<Process> {
    let (pid, rest) = stat.split_once(" (")?;
    let (_, fields) = rest.rsplit_once(") ")?;
    let mut fields = fields.split(' ').skip(1);
    Some(Process {
        pid: pid.trim().parse().ok()?,
        parent: fields.next()?.parse().ok()?,
        group: fields.next()?.parse().ok()?,
    })
}

/// The descendants of `root` that are in its process group, parents before children.
fn group_descendants(root: u32, processes: &[Process]) -> Vec<u32> {
    let Some(group) = processes.iter().find(|p| p.pid == root).map(|p| p.group) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut parents = vec![root];
    while let Some(parent) = parents.pop() {
        for child in processes.iter().filter(|p| p.parent == parent) {
            parents.push(child.pid);
            if child.group == group {
                found.push(child.pid);
            }
        }
    }
    found
}

/// The exit status of a run that a signal interrupted, as a shell reports a process ended by
/// it; `None` if none came.
pub(crate) fn exit_status() -> Option<u8> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        status => Some(status),
    }
}

/// An error once Ctrl-C was pressed or SIGTERM came, so that nothing more is started.
pub(crate) fn check() -> Result<()> {
    match exit_status() {
        None => Ok(()),
        Some(BY_SIGTERM) => bail!("terminated (SIGTERM)"),
        Some(_) => bail!("interrupted (Ctrl-C)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_pid_parent_and_group_whatever_the_command_name() {
        let stat = "4242 (a (tricky) name) S 17 4200 4200 0 -1 4194560 100 0 0 0";
        assert_eq!(
            parse_stat(stat),
            Some(Process {
                pid: 4242,
                parent: 17,
                group: 4200
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn descendants_in_the_group_are_found_through_those_that_left_it() {
        let p = |pid, parent, group| Process { pid, parent, group };
        let processes = [
            p(1, 0, 1),
            p(10, 1, 10),  // xtask
            p(11, 10, 10), // cargo
            p(12, 11, 10), // a test binary
            p(13, 12, 13), // a plugin in a group of its own
            p(14, 13, 10), // back in xtask's group below it: still reached
            p(20, 1, 10),  // in the group but not below xtask
            p(21, 10, 21), // below xtask, in a group of its own
        ];
        let mut found = group_descendants(10, &processes);
        found.sort_unstable();
        assert_eq!(found, vec![11, 12, 14]);
        assert!(group_descendants(99, &processes).is_empty());
    }

    #[test]
    fn this_process_is_found_in_proc_with_its_parent_and_group() {
        use std::os::unix::process::CommandExt as _;
        let me = std::process::id();
        let found = processes().into_iter().find(|p| p.pid == me);
        let me_in_proc = found.expect("this process is in /proc");
        assert_eq!(me_in_proc.parent, std::os::unix::process::parent_id());
        // A child that leads a group of its own: its group is its PID, its parent us.
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("sleep starts");
        let seen = processes().into_iter().find(|p| p.pid == child.id());
        let _ = child.kill();
        let _ = child.wait();
        let child_in_proc = seen.expect("the child is in /proc");
        assert_eq!(child_in_proc.parent, me);
        assert_eq!(child_in_proc.group, child_in_proc.pid);
        assert_ne!(me_in_proc.group, child_in_proc.group);
    }
}
