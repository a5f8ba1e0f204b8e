//! Ctrl-C. The terminal sends SIGINT to every process of its foreground group: xtask and what
//! it runs (cargo, the tests, the benches, the Pulumi CLI, our plugin), each of which stops
//! itself and says so. Killed by the signal at once, as by default, xtask never cleaned up: its
//! temporary directories stayed, and so did what the end-to-end harness sweeps after each
//! project, such as the language host of a Pulumi CLI ended by the same Ctrl-C, left running
//! under init. So the first SIGINT only marks the run as interrupted: what is running stops by
//! itself, xtask cleans up as after any failure, starts nothing more ([`check`], which the
//! helpers in `util` that run commands call) and exits with 130. A second SIGINT ends it at
//! once.

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Result, bail};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The exit status of a run that was interrupted, as a shell reports one ended by SIGINT.
pub(crate) const EXIT_STATUS: u8 = 130;

/// Takes SIGINT over from its default for the rest of the process, on a thread of its own, and
/// returns once it has. Where that fails, Ctrl-C keeps its default.
pub(crate) fn watch() {
    let (registered, registration) = std::sync::mpsc::channel();
    let watching = std::thread::Builder::new()
        .name("ctrl-c".to_owned())
        .spawn(move || {
            let (runtime, mut sigint) = match take_sigint() {
                Ok(taken) => {
                    let _ = registered.send(Ok(()));
                    taken
                }
                Err(err) => return drop(registered.send(Err(err))),
            };
            runtime.block_on(async {
                sigint.recv().await;
                INTERRUPTED.store(true, Ordering::SeqCst);
                eprintln!(
                    "xtask: interrupted; waiting for what is running to stop, then cleaning up \
                     (Ctrl-C again to quit at once)"
                );
                sigint.recv().await;
                eprintln!(
                    "xtask: quitting at once; processes it started and its temporary \
                     directories may be left behind"
                );
                std::process::exit(EXIT_STATUS.into());
            });
        });
    let outcome = match watching {
        Ok(_) => registration
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the thread ended"))),
        Err(err) => Err(err),
    };
    if let Err(err) = outcome {
        eprintln!("xtask: Ctrl-C quits at once, as by default: {err}");
    }
}

/// A runtime for the signal thread, and SIGINT registered with it.
fn take_sigint() -> std::io::Result<(tokio::runtime::Runtime, tokio::signal::unix::Signal)> {
    use tokio::signal::unix::{SignalKind, signal};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let sigint = {
        let _context = runtime.enter();
        signal(SignalKind::interrupt())?
    };
    Ok((runtime, sigint))
}

/// Whether Ctrl-C was pressed.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// An error once Ctrl-C was pressed, so that nothing more is started.
pub(crate) fn check() -> Result<()> {
    if interrupted() {
        bail!("interrupted (Ctrl-C)");
    }
    Ok(())
}
