//! `cargo xtask e2e`: the real Pulumi CLI drives our binary, as a user would, offline.
//!
//! It installs the fixtures (the CLI and YAML language host among them), builds our
//! `pulumi-resource-terraform-provider` into the usual target directory, then runs every scenario (or,
//! with arguments, those whose names contain one of them: `cargo xtask e2e gen-sdk`). Each
//! scenario is one function that gets the shared [`harness::Tools`] and sets up its own throwaway project
//! (temporary `PULUMI_HOME`, file backend, stack) through [`harness::Project`], whose `pulumi(...)` prints
//! each step with its time and fails with the CLI's output. To add a scenario, write the function in a
//! module under `e2e/` and list it in [`SCENARIOS`].
//!
//! Every scenario runs even when an earlier one failed; the command fails at the end, naming the failures.

mod aws;
mod gen_sdk;
mod go_made;
mod harness;
mod identity;
mod netns;
mod oracle;
mod registry;
mod secrets;
mod write_only;
mod yaml;

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::{fixtures, interrupt, util};
use harness::Tools;

/// One scenario: it sets up its own project from the shared tools and fails on the first wrong result.
type Scenario = fn(&Tools) -> Result<()>;

/// Every scenario, in the order they run.
const SCENARIOS: &[(&str, Scenario)] = &[
    ("yaml-file-lifecycle", yaml::file_lifecycle),
    ("yaml-unknown-flows", yaml::unknown_flows),
    ("go-made-package", go_made::pinned_package),
    ("gen-sdk-pyvider", gen_sdk::pyvider),
    ("gen-sdk-aws", gen_sdk::aws),
    ("aws-moto", aws::moto),
    ("aws-partial-failure", aws::partial_failure),
    ("aws-import", aws::import),
    ("aws-secret-inputs", secrets::secret_inputs),
    ("registry-package", registry::package),
    ("write-only-lifecycle", write_only::lifecycle),
    (
        "ephemeral-into-write-only",
        write_only::ephemeral_into_write_only,
    ),
    ("identity-import", identity::import),
    ("identity-upgrade", identity::upgrade),
    ("list-pulumi-do", identity::list),
    (
        "oracle-tfptest-lifecycle",
        oracle::classic::tfptest_lifecycle,
    ),
    ("oracle-tfptest-import", oracle::classic::tfptest_import),
    (
        "oracle-pyvider-lifecycle",
        oracle::classic::pyvider_lifecycle,
    ),
    (
        "oracle-ephemeral-write-only",
        oracle::ephemeral::ephemeral_write_only,
    ),
    ("oracle-aws-lifecycle", oracle::classic::aws_lifecycle),
    ("oracle-aws-import", oracle::classic::aws_import),
];

/// Installs the fixtures, builds our binary and runs the scenarios whose names contain one of `filters`,
/// or every scenario if there are none.
pub(crate) fn run(filters: &[String]) -> Result<()> {
    let selected = select(filters)?;
    let cache = fixtures::run().context("could not install the end-to-end fixtures")?;
    run_scenarios(&cache, &selected)
}

/// Builds our binary and runs every scenario against the fixtures in `cache`.
pub(crate) fn run_with(cache: &Path) -> Result<()> {
    run_scenarios(cache, SCENARIOS)
}

/// Runs the demo's Pulumi part with `plugin` if the Pulumi toolchain fixture is installed in `cache`
/// (a full `cargo xtask fixtures` or `cargo xtask test` builds it); says so and returns `false` if not.
pub(crate) fn demo(cache: &Path, plugin: std::path::PathBuf) -> Result<bool> {
    let installed = crate::manifest::path(cache, "pulumi_cli").is_ok_and(|cli| cli.is_file());
    if !installed {
        return Ok(false);
    }
    let tools = Tools::load(cache, plugin)?;
    yaml::demo(&tools)?;
    Ok(true)
}

/// The scenarios whose names contain one of `filters`, in [`SCENARIOS`] order; all of them if `filters`
/// is empty. A filter that matches nothing is an error, so a typo does not pass as a green run.
fn select(filters: &[String]) -> Result<Vec<(&'static str, Scenario)>> {
    if let Some(unmatched) = filters.iter().find(|filter| {
        !SCENARIOS
            .iter()
            .any(|(name, _)| name.contains(filter.as_str()))
    }) {
        let names: Vec<&str> = SCENARIOS.iter().map(|(name, _)| *name).collect();
        bail!(
            "no end-to-end scenario matches {unmatched:?}; the scenarios are: {}",
            names.join(", ")
        );
    }
    Ok(SCENARIOS
        .iter()
        .filter(|(name, _)| {
            filters.is_empty() || filters.iter().any(|filter| name.contains(filter.as_str()))
        })
        .copied()
        .collect())
}

/// Builds our binary and runs `scenarios` against the fixtures in `cache`.
fn run_scenarios(cache: &Path, scenarios: &[(&'static str, Scenario)]) -> Result<()> {
    let started = Instant::now();
    let root = util::workspace_root();
    eprintln!("e2e: building pulumi-resource-terraform-provider");
    util::run_visible(util::cargo().current_dir(&root).args([
        "build",
        "--bin",
        "pulumi-resource-terraform-provider",
    ]))?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into);
    let plugin = std::path::absolute(target.join("debug/pulumi-resource-terraform-provider"))
        .context("the target directory is not a usable path")?;
    let tools = Tools::load(cache, plugin)?;

    let mut failed = Vec::new();
    for (run, (name, scenario)) in scenarios.iter().enumerate() {
        interrupt::check()
            .with_context(|| format!("{run} of {} end-to-end scenarios run", scenarios.len()))?;
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
            scenarios.len(),
            failed.join(", ")
        );
    }
    eprintln!(
        "e2e: all {} scenarios passed in {secs:.1} s",
        scenarios.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_keeps_the_scenarios_a_filter_names_in_order() {
        let check = |filters: &[&str], expected: Option<&[&str]>| {
            let filters: Vec<String> = filters.iter().map(|f| (*f).to_owned()).collect();
            let names = select(&filters)
                .ok()
                .map(|selected| selected.iter().map(|(name, _)| *name).collect::<Vec<_>>());
            assert_eq!(names.as_deref(), expected, "{filters:?}");
        };
        let all: Vec<&str> = SCENARIOS.iter().map(|(name, _)| *name).collect();
        check(&[], Some(&all));
        check(&["gen-sdk"], Some(&["gen-sdk-pyvider", "gen-sdk-aws"]));
        check(&["gen-sdk-aws"], Some(&["gen-sdk-aws"]));
        check(
            &["gen-sdk-aws", "gen-sdk-pyvider"],
            Some(&["gen-sdk-pyvider", "gen-sdk-aws"]),
        );
        check(&["no-such-scenario"], None);
        check(&["gen-sdk", "no-such-scenario"], None);
    }
}
