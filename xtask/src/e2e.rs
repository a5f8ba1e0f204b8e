//! `cargo xtask e2e`: the real Pulumi CLI drives our binary, as a user would, offline.
//!
//! It installs the fixtures (the CLI and YAML language host among them), builds our
//! `pulumi-resource-terraform-provider` into the usual target directory, then runs every scenario. Each
//! scenario is one function that gets the shared [`harness::Tools`] and sets up its own throwaway project
//! (temporary `PULUMI_HOME`, file backend, stack) through [`harness::Project`], whose `pulumi(...)` prints
//! each step with its time and fails with the CLI's output. To add a scenario, write the function in a
//! module under `e2e/` and list it in [`SCENARIOS`].
//!
//! Every scenario runs even when an earlier one failed; the command fails at the end, naming the failures.

mod gen_sdk;
mod harness;
mod yaml;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::{fixtures, util};
use harness::Tools;

/// One scenario: it sets up its own project from the shared tools and fails on the first wrong result.
type Scenario = fn(&Tools) -> Result<()>;

/// Every scenario, in the order they run.
const SCENARIOS: &[(&str, Scenario)] = &[
    ("yaml-file-lifecycle", yaml::file_lifecycle),
    ("yaml-unknown-flows", yaml::unknown_flows),
    ("gen-sdk-pyvider", gen_sdk::pyvider),
];

/// Installs the fixtures, builds our binary and runs every scenario.
pub(crate) fn run() -> Result<()> {
    let cache = fixtures::run().context("could not install the end-to-end fixtures")?;
    run_with(&cache)
}

/// Builds our binary and runs every scenario against the fixtures in `cache`.
pub(crate) fn run_with(cache: &Path) -> Result<()> {
    let started = Instant::now();
    let root = util::workspace_root();
    eprintln!("e2e: building pulumi-resource-terraform-provider");
    util::run_visible(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(&root)
            .args(["build", "--bin", "pulumi-resource-terraform-provider"]),
    )?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into);
    let plugin = std::path::absolute(target.join("debug/pulumi-resource-terraform-provider"))
        .context("the target directory is not a usable path")?;
    let tools = Tools::load(cache, plugin)?;

    let mut failed = Vec::new();
    for (name, scenario) in SCENARIOS {
        eprintln!("e2e: {name}");
        let began = Instant::now();
        let result = scenario(&tools);
        let secs = began.elapsed().as_secs_f64();
        match result {
            Ok(()) => eprintln!("e2e: {name} passed ({secs:.1} s)"),
            Err(err) => {
                eprintln!("e2e: {name} FAILED ({secs:.1} s): {err:#}");
                failed.push(*name);
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    if !failed.is_empty() {
        bail!(
            "{} of {} end-to-end scenarios failed: {}",
            failed.len(),
            SCENARIOS.len(),
            failed.join(", ")
        );
    }
    eprintln!(
        "e2e: all {} scenarios passed in {secs:.1} s",
        SCENARIOS.len()
    );
    Ok(())
}
