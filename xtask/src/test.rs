//! `cargo xtask test`: the whole check CI runs, in order: install the fixtures, check formatting, lint
//! with clippy (every warning is an error), build the API documentation (every rustdoc warning, such as
//! a broken link, is an error), run the workspace tests with `TFP_FIXTURES_DIR` pointing at
//! the fixture cache, so tests find the real peers through its manifest, then the end-to-end scenarios
//! (`cargo xtask e2e`) with the real Pulumi CLI.
//!
//! The workspace tests get a temporary directory of their own (`TMPDIR`), where they and the providers
//! they start make their directories and sockets. It is removed when they end, however they end, so a
//! run stopped by a signal, which ends a test before its own cleanup, leaves nothing behind; and tests
//! that pass must have emptied it themselves, or the phase fails naming what they left.
//!
//! The first failing phase fails the command. Each phase reports its wall time, and a summary of all of
//! them ends the run, so a slow CI run says where its time went.

use std::{path::Path, time::Instant};

use anyhow::{Context as _, Result, ensure};

use crate::{e2e, fixtures, interrupt, util};

/// Runs the fixtures, format check, lint, tests and end-to-end scenarios.
pub(crate) fn run() -> Result<()> {
    let mut phases = Phases::default();
    let cache = phases.run(
        "fixtures",
        "could not install the test fixtures",
        fixtures::run,
    )?;
    phases.run(
        "fmt",
        "formatting differs from rustfmt's: run `cargo fmt --all`",
        || util::run_visible(util::cargo().args(["fmt", "--all", "--check"])),
    )?;
    phases.run(
        "clippy",
        "clippy found problems: fix them, or allow one with `#[expect(lint, reason = \"…\")]`",
        || {
            util::run_visible(util::cargo().args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]))
        },
    )?;
    phases.run(
        "docs",
        "the API documentation has problems (a broken or private link, stray HTML): fix them",
        || {
            util::run_visible(
                util::cargo()
                    .args(["doc", "--workspace", "--no-deps", "--quiet"])
                    .env("RUSTDOCFLAGS", "-D warnings"),
            )
        },
    )?;
    phases.run("tests", "the workspace tests failed", || {
        workspace_tests(&cache)
    })?;
    phases.run("e2e", "the end-to-end scenarios failed", || {
        e2e::run_with(&cache)
    })?;
    phases.summary();
    Ok(())
}

/// `cargo test --workspace` with the fixtures at `cache` and a temporary directory of its own,
/// which must be empty when the tests pass and is removed in any case. The tests are built first,
/// with the system's temporary directory: what compilers and build scripts leave in theirs is not
/// for the tests to answer for.
fn workspace_tests(cache: &Path) -> Result<()> {
    util::run_visible(util::cargo().args(["test", "--workspace", "--no-run"]))?;
    let tmp = tempfile::Builder::new()
        .prefix("tfp-tests-")
        .tempdir()
        .context("making the tests' temporary directory")?;
    util::run_visible(
        util::cargo()
            .args(["test", "--workspace"])
            .env(fixtures::DIR_ENV, cache)
            .env("TMPDIR", tmp.path()),
    )?;
    let left = left_in(tmp.path())?;
    ensure!(
        left.is_empty(),
        "the tests passed but left this in their temporary directory: {}; a test removes what it \
         and the processes it starts create",
        left.join(", ")
    );
    Ok(())
}

/// The names of the entries in `dir`, sorted.
fn left_in(dir: &Path) -> Result<Vec<String>> {
    let mut names = std::fs::read_dir(dir)
        .and_then(|entries| {
            entries
                .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect::<std::io::Result<Vec<_>>>()
        })
        .with_context(|| format!("listing {}", dir.display()))?;
    names.sort();
    Ok(names)
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

#[cfg(test)]
mod tests {
    #[test]
    fn what_is_left_is_named_entry_by_entry_in_order() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir(dir.path().join("plugin123")).expect("a directory");
        std::fs::write(dir.path().join("pyvider-7.sock"), "").expect("a file");
        std::fs::write(dir.path().join(".tmpA"), "").expect("a file");
        assert_eq!(
            super::left_in(dir.path()).expect("listed"),
            [".tmpA", "plugin123", "pyvider-7.sock"]
        );
        std::fs::remove_dir_all(dir.path().join("plugin123")).expect("removed");
        for name in ["pyvider-7.sock", ".tmpA"] {
            std::fs::remove_file(dir.path().join(name)).expect("removed");
        }
        assert!(super::left_in(dir.path()).expect("listed").is_empty());
    }
}
