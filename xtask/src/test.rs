//! `cargo xtask test`: the whole check CI runs, in order: install the fixtures, check formatting, run
//! the workspace tests with `TFP_FIXTURES_DIR` pointing at the fixture cache, so tests find the real
//! peers through its manifest, then the end-to-end scenarios (`cargo xtask e2e`) with the real Pulumi CLI.
//! The first failing step fails the command.

use std::process::Command;

use anyhow::{Context, Result};

use crate::{e2e, fixtures, util};

/// Runs the fixtures, format check, tests and end-to-end scenarios.
pub(crate) fn run() -> Result<()> {
    let cache = fixtures::run().context("could not install the test fixtures")?;
    let root = util::workspace_root();
    util::run_visible(cargo().current_dir(&root).args(["fmt", "--all", "--check"]))
        .context("formatting differs from rustfmt's: run `cargo fmt --all`")?;
    util::run_visible(
        cargo()
            .current_dir(&root)
            .args(["test", "--workspace"])
            .env(fixtures::DIR_ENV, &cache),
    )
    .context("the workspace tests failed")?;
    e2e::run_with(&cache).context("the end-to-end scenarios failed")
}

/// The cargo that runs us (cargo sets `CARGO` for `cargo run`), else the one on PATH.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}
