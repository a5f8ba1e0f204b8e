//! `cargo xtask test`: the whole check CI runs, in order: install the fixtures, check formatting, lint
//! with clippy (every warning is an error), run the workspace tests with `TFP_FIXTURES_DIR` pointing at
//! the fixture cache, so tests find the real peers through its manifest, then the end-to-end scenarios
//! (`cargo xtask e2e`) with the real Pulumi CLI.
//!
//! The first failing phase fails the command. Each phase reports its wall time, and a summary of all of
//! them ends the run, so a slow CI run says where its time went.

use std::time::Instant;

use anyhow::Result;

use crate::{e2e, fixtures, interrupt, util};

/// Runs the fixtures, format check, lint, tests and end-to-end scenarios.
pub(crate) fn run() -> Result<()> {
    let root = util::workspace_root();
    let mut phases = Phases::default();
    let cache = phases.run(
        "fixtures",
        "could not install the test fixtures",
        fixtures::run,
    )?;
    phases.run(
        "fmt",
        "formatting differs from rustfmt's: run `cargo fmt --all`",
        || {
            util::run_visible(
                util::cargo()
                    .current_dir(&root)
                    .args(["fmt", "--all", "--check"]),
            )
        },
    )?;
    phases.run(
        "clippy",
        "clippy found problems: fix them, or allow one with `#[expect(lint, reason = \"…\")]`",
        || {
            util::run_visible(util::cargo().current_dir(&root).args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]))
        },
    )?;
    phases.run("tests", "the workspace tests failed", || {
        util::run_visible(
            util::cargo()
                .current_dir(&root)
                .args(["test", "--workspace"])
                .env(fixtures::DIR_ENV, &cache),
        )
    })?;
    phases.run("e2e", "the end-to-end scenarios failed", || {
        e2e::run_with(&cache)
    })?;
    phases.summary();
    Ok(())
}

/// The wall time of each phase run so far.
#[derive(Default)]
struct Phases(Vec<(&'static str, f64)>);

impl Phases {
    /// Runs one phase, reporting its time whether it passed or failed. A failure is explained
    /// by `failed`, what it means and what to do, unless a signal stopped the run: then that is
    /// what the error says.
    fn run<T>(
        &mut self,
        name: &'static str,
        failed: &'static str,
        phase: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        eprintln!("test: {name} ...");
        let started = Instant::now();
        let result = phase().map_err(|err| match interrupt::check() {
            Ok(()) => err.context(failed),
            Err(stopped) => err.context(format!("{stopped} during the {name} phase")),
        });
        let secs = started.elapsed().as_secs_f64();
        self.0.push((name, secs));
        match &result {
            Ok(_) => eprintln!("test: {name} passed in {secs:.1} s"),
            Err(_) => {
                eprintln!("test: {name} FAILED after {secs:.1} s");
                self.summary();
            }
        }
        result
    }

    /// One line with every phase's time and the total.
    fn summary(&self) {
        let total: f64 = self.0.iter().map(|(_, secs)| secs).sum();
        let each: Vec<String> = self
            .0
            .iter()
            .map(|(name, secs)| format!("{name} {secs:.0} s"))
            .collect();
        eprintln!("test: phases: {}; total {total:.0} s", each.join(", "));
    }
}
