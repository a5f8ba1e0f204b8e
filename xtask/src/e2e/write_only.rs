//! Write-only arguments and ephemeral resources through the real CLI, with our tfptest provider
//! (`testdata/providers/tfptest`) and Pyvider.
//!
//! `tfptest_secret_file` writes the write-only `content_wo` it receives to its `path` and never
//! returns it; `tfptest_token` is an ephemeral resource that journals each open, renewal and
//! close with the SHA-256 of its secret `value`; Pyvider's `pyvider_lease` holds a lease file
//! while it is open. So every check is made on disk, and the state, recording and logs are
//! searched for the values themselves: with `--show-secrets`, an export would show any
//! ciphertext of them decrypted.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};

use super::harness::{self, Project, Run, Tools};
use crate::util;

/// The Pulumi type token of `tfptest_secret_file`.
const SECRET_FILE: &str = "tfptest:index/secretFile:SecretFile";
/// The functions that open `tfptest_token` and `pyvider_lease`.
const OPEN_TOKEN: &str = "tfptest:ephemeral/openToken:openToken";
const OPEN_LEASE: &str = "pyvider:ephemeral/openLease:openLease";

/// The write-only values the lifecycle sends, one per step that sets one.
const VALUES: [&str; 3] = [
    "e2e-write-only-first",
    "e2e-write-only-second",
    "e2e-write-only-third",
];

/// Where the scenario looks for values that must not be there, and what it has seen so far.
struct Evidence {
    recording: PathBuf,
    provider_log: PathBuf,
    /// Stdout and stderr of every CLI run, with our debug lines (`--debug`).
    output: String,
}

impl Evidence {
    /// Sets up `project` to record every provider call and log ours and the provider's lines.
    fn new(project: &mut Project<'_>) -> Self {
        let recording = project.scratch("tf-calls.json");
        let provider_log = project.scratch("provider.log");
        project.set_env("PULUMI_TF_DEBUG_GRPC", &recording);
        project.set_env("RUST_LOG", "pulumi_terraform_provider=debug");
        project.set_env("TF_LOG", "trace");
        project.set_env("TF_LOG_PATH", &provider_log);
        Self {
            recording,
            provider_log,
            output: String::new(),
        }
    }

    fn run(&mut self, project: &Project<'_>, step: &str, args: &[&str]) -> Result<Run> {
        let mut all = args.to_vec();
        all.push("--debug");
        let run = project.pulumi(step, &all)?;
        self.output.push_str(&run.text());
        Ok(run)
    }

    /// Fails if any of `values` is in the state (exported, with secrets shown, or in the backend's
    /// files), the recording, the CLI's output or the provider's log.
    fn check_absent(&self, project: &Project<'_>, values: &[&str], when: &str) -> Result<()> {
        let shown = project
            .pulumi(
                "export the stack with secrets",
                &["stack", "export", "--show-secrets"],
            )?
            .stdout;
        let mut places = vec![
            (
                "`pulumi stack export`".to_owned(),
                project.export()?.to_string(),
            ),
            ("`pulumi stack export --show-secrets`".to_owned(), shown),
            ("the recording".to_owned(), read_or_empty(&self.recording)?),
            (
                "the provider's log".to_owned(),
                read_or_empty(&self.provider_log)?,
            ),
            (
                "the CLI's output and our logs".to_owned(),
                self.output.clone(),
            ),
        ];
        for file in harness::files_under(&project.root().join("state"))? {
            let text = String::from_utf8_lossy(&fs::read(&file)?).into_owned();
            places.push((file.display().to_string(), text));
        }
        for (place, text) in &places {
            for value in values {
                ensure!(
                    !text.contains(value),
                    "{when}: a write-only or ephemeral value is in {place}"
                );
            }
        }
        ensure!(
            !read_or_empty(&self.recording)?.is_empty(),
            "{when}: nothing was recorded"
        );
        Ok(())
    }
}

/// `pulumi up`, refresh, an up with a new value alone (no change), an up with a new
/// `contentWoVersion` (an update that delivers the value), then destroy.
pub(super) fn lifecycle(tools: &Tools) -> Result<()> {
    let mut project = Project::new(tools, "writeonly")?;
    let tfptest = tools.tfptest.to_string_lossy().into_owned();
    project.package_add("add the tfptest package", &[&tfptest])?;
    for value in VALUES {
        project.mask(value);
    }
    let mut evidence = Evidence::new(&mut project);
    let target = project.file("secret.txt");
    let program = |value: &str, version: u32| {
        format!(
            "resources:\n  secret:\n    type: {SECRET_FILE}\n    properties:\n      path: {}\n      \
             contentWo: {value}\n      contentWoVersion: {version}\n",
            target.display()
        )
    };

    project.write_program(&program(VALUES[0], 1))?;
    evidence.run(&project, "create with a write-only value", &["up", "--yes"])?;
    expect_on_disk(&target, Some(VALUES[0]), "after the create")?;
    check_state(&project, 1)?;
    evidence.check_absent(&project, &VALUES, "after the create")?;

    let run = evidence.run(&project, "refresh", &["refresh", "--yes"])?;
    ensure!(
        !run.text().contains("did not check the resource"),
        "the refresh warned about write-only arguments it does not need:\n{}",
        run.text()
    );
    expect_on_disk(&target, Some(VALUES[0]), "after the refresh")?;
    check_state(&project, 1)?;

    project.write_program(&program(VALUES[1], 1))?;
    let run = evidence.run(&project, "a new value alone", &["up", "--yes"])?;
    ensure!(
        run.stdout.contains("2 unchanged") && !run.stdout.contains("1 updated"),
        "a new write-only value alone changed the resource:\n{}",
        run.stdout
    );
    expect_on_disk(&target, Some(VALUES[0]), "after a new value alone")?;

    project.write_program(&program(VALUES[2], 2))?;
    evidence.run(
        &project,
        "a new contentWoVersion",
        &["up", "--yes", "--skip-preview"],
    )?;
    expect_on_disk(&target, Some(VALUES[2]), "after a new version")?;
    check_state(&project, 2)?;
    evidence.check_absent(&project, &VALUES, "after the update")?;
    check_capabilities(&evidence.recording)?;

    evidence.run(&project, "destroy", &["destroy", "--yes"])?;
    expect_on_disk(&target, None, "after destroy")?;
    evidence.check_absent(&project, &VALUES, "after destroy")?;
    project.finish()
}

/// A program that opens `tfptest_token` and `pyvider_lease` and feeds each into the write-only
/// `contentWo` of a `tfptest_secret_file`: within one provider and across two.
pub(super) fn ephemeral_into_write_only(tools: &Tools) -> Result<()> {
    let mut project = Project::with_pyvider(tools, "ephemeral")?;
    let tfptest = tools.tfptest.to_string_lossy().into_owned();
    project.package_add("add the tfptest package", &[&tfptest])?;
    let mut evidence = Evidence::new(&mut project);
    let journal = project.file("token.journal");
    let lease = project.file("held.lease");
    let from_token = project.file("token.txt");
    let from_lease = project.file("lease-id.txt");
    project.write_program(&format!(
        "variables:\n  token:\n    fn::invoke:\n      function: {OPEN_TOKEN}\n      arguments:\n        \
         journal: {}\n  lease:\n    fn::invoke:\n      function: {OPEN_LEASE}\n      arguments:\n        \
         name: e2e\n        path: {}\n\
         resources:\n  fromToken:\n    type: {SECRET_FILE}\n    properties:\n      path: {}\n      \
         contentWo: ${{token.value}}\n      contentWoVersion: 1\n  fromLease:\n    type: {SECRET_FILE}\n    \
         properties:\n      path: {}\n      contentWo: ${{lease.leaseId}}\n      contentWoVersion: 1\n",
        journal.display(),
        lease.display(),
        from_token.display(),
        from_lease.display()
    ))?;
    evidence.run(&project, "open, then deliver", &["up", "--yes"])?;

    // The preview and the update each open and close the token once, as OpenTofu's plan and
    // apply do; the file holds the value opened by the update.
    let lines = fs::read_to_string(&journal)
        .with_context(|| format!("the token journal {} is missing", journal.display()))?;
    let opens: Vec<&str> = lines.lines().filter(|l| l.starts_with("open ")).collect();
    let closes = lines.lines().filter(|l| l.starts_with("close ")).count();
    ensure!(
        opens.len() == 2 && closes == 2,
        "the preview and the update should each open and close the token once:\n{lines}"
    );
    let delivered = harness::read_file(&from_token)?.context("the token never reached its file")?;
    let digest = format!("sha256={}", util::sha256_bytes(delivered.as_bytes()));
    ensure!(
        opens[1].ends_with(&digest),
        "the file holds a value other than the token the update opened:\n{lines}"
    );
    ensure!(
        !lease.exists(),
        "the lease {} was not closed when the deployment ended",
        lease.display()
    );
    let lease_id =
        harness::read_file(&from_lease)?.context("the lease ID never reached its file")?;
    ensure!(
        lease_id.len() == 36 && lease_id.matches('-').count() == 4,
        "the lease ID is not a UUID: {lease_id:?}"
    );
    project.mask(&delivered);
    project.mask(&lease_id);
    for resource in harness::resources(&project.export()?, SECRET_FILE) {
        ensure!(
            resource["inputs"].get("contentWo").is_none(),
            "the state keeps contentWo in the inputs of {}",
            resource["urn"]
        );
    }
    // The token and lease ID are the ephemeral results and the write-only values at once.
    let secrets = [delivered.as_str(), lease_id.as_str()];
    let export = project
        .pulumi(
            "export the stack with secrets",
            &["stack", "export", "--show-secrets"],
        )?
        .stdout;
    let state = project.export()?.to_string();
    for value in secrets {
        ensure!(
            !export.contains(value) && !state.contains(value),
            "`pulumi stack export` holds an ephemeral result"
        );
    }

    evidence.run(&project, "destroy", &["destroy", "--yes"])?;
    let lines = fs::read_to_string(&journal).context("the token journal")?;
    let opens = lines.lines().filter(|l| l.starts_with("open ")).count();
    let closes = lines.lines().filter(|l| l.starts_with("close ")).count();
    ensure!(
        opens == closes,
        "every token opened was closed once:\n{lines}"
    );
    ensure!(
        !from_token.exists() && !from_lease.exists(),
        "destroy left a secret file"
    );
    project.finish()
}

/// Fails unless the file at `path` holds `expected` (`None`: does not exist).
fn expect_on_disk(path: &Path, expected: Option<&str>, when: &str) -> Result<()> {
    let found = harness::read_file(path)?;
    ensure!(
        found.as_deref() == expected,
        "{when}: {} holds {}, not {}",
        path.display(),
        describe(found.as_deref()),
        describe(expected)
    );
    Ok(())
}

/// Which of [`VALUES`] a file holds, without printing an unexpected value.
fn describe(content: Option<&str>) -> String {
    match content {
        None => "nothing (it does not exist)".to_owned(),
        Some(text) => VALUES.iter().position(|v| *v == text).map_or_else(
            || format!("{} unexpected bytes", text.len()),
            |i| format!("value #{}", i + 1),
        ),
    }
}

/// The resource in the state: `contentWoVersion` is stored, `contentWo` is in neither its
/// inputs nor its outputs.
fn check_state(project: &Project<'_>, version: u32) -> Result<()> {
    let export = project.export()?;
    let resource = harness::resource(&export, SECRET_FILE, "secret")?;
    for side in ["inputs", "outputs"] {
        ensure!(
            resource[side].get("contentWo").is_none(),
            "the state keeps contentWo in its {side}"
        );
        ensure!(
            resource[side]["contentWoVersion"].as_f64() == Some(f64::from(version)),
            "the state's {side} have contentWoVersion {}, not {version}",
            resource[side]["contentWoVersion"]
        );
    }
    Ok(())
}

/// Every recorded request that can carry client capabilities allows write-only attributes.
fn check_capabilities(recording: &Path) -> Result<()> {
    let methods = [
        "ConfigureProvider",
        "ValidateResourceConfig",
        "PlanResourceChange",
        "ReadResource",
    ];
    let recorded = harness::recorded_requests_of(recording, &methods)?;
    for (method, requests) in methods.into_iter().zip(recorded) {
        ensure!(!requests.is_empty(), "no {method} was recorded");
        for request in requests {
            ensure!(
                request.contains("write_only_attributes_allowed:true")
                    || request.contains("write_only_attributes_allowed: true"),
                "a {method} request does not allow write-only attributes: {request}"
            );
        }
    }
    Ok(())
}

fn read_or_empty(path: &Path) -> Result<String> {
    Ok(harness::read_file(path)?.unwrap_or_default())
}
