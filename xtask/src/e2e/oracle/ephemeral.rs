//! Ephemeral resources and write-only arguments compared with OpenTofu: `testdata/oracle/
//! ephemeral_write_only`, where our `tfptest_token` and Pyvider's `pyvider_lease` are opened and
//! their secrets written, through the write-only `content_wo`, by two `tfptest_secret_file`s.
//!
//! Both resources are opened with a TTL of an hour, so that neither host renews them: when a host
//! renews depends on the clock (see the README).
//!
//! The phases create the files (the values are delivered), send the values again with a new
//! `content_wo_version` (an update), and destroy. The commands are paired as in [`super::classic`].
//! Besides the calls, each phase checks both sides' outcome on disk: each file holds a value the
//! provider opened in that phase, and neither host's state nor any recording holds it.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, ensure};

use super::{APPLY, CLASSIC, DESTROY, DESTROY_EACH, Oracle, Phase, Provider, UP};
use crate::e2e::harness::{self, Tools};
use crate::util;

/// The files the configuration writes, relative to each host's working directory.
const FILES: [&str; 2] = ["out/token.txt", "out/lease-id.txt"];

/// The YAML twin of `testdata/oracle/ephemeral_write_only` at `content_wo_version` `version`.
fn program(version: u32) -> String {
    format!(
        "variables:\n  token:\n    fn::invoke:\n      function: tfptest:ephemeral/openToken:openToken\n      \
         arguments:\n        journal: out/token.journal\n        ttlSeconds: 3600\n  lease:\n    fn::invoke:\n      \
         function: pyvider:ephemeral/openLease:openLease\n      arguments:\n        name: oracle\n        \
         path: out/held.lease\n        ttlSeconds: 3600\n\
         resources:\n  fromToken:\n    type: tfptest:index/secretFile:SecretFile\n    properties:\n      \
         path: out/token.txt\n      contentWo: ${{token.value}}\n      contentWoVersion: {version}\n  \
         fromLease:\n    type: tfptest:index/secretFile:SecretFile\n    properties:\n      \
         path: out/lease-id.txt\n      contentWo: ${{lease.leaseId}}\n      \
         contentWoVersion: {version}\n    options:\n      dependsOn:\n        - ${{fromToken}}\n"
    )
}

/// Makes the `out` directory the configuration writes into.
fn make_out(dir: &Path) -> Result<()> {
    let out = dir.join("out");
    fs::create_dir_all(&out).with_context(|| format!("could not create {}", out.display()))
}

/// Both providers' ephemeral resources into write-only arguments: create, a new
/// `content_wo_version`, destroy.
pub(in crate::e2e) fn ephemeral_write_only(tools: &Tools) -> Result<()> {
    let providers = [Provider::tfptest(tools), Provider::pyvider(tools)];
    let mut oracle = Oracle::new(
        tools,
        "oracle-ephemeral-write-only",
        "ephemeral_write_only",
        &providers,
        CLASSIC,
    )?;
    let create = program(1);
    oracle.phase(&Phase {
        name: "create",
        prepare: Some(&make_out),
        tofu: APPLY,
        program: &create,
        pulumi: UP,
        allowed: &[],
    })?;
    let first = delivered(&oracle, "create")?;

    let resend = program(2);
    oracle.phase(&Phase {
        name: "new-version",
        prepare: None,
        tofu: &[APPLY, &["-var", "wo_version=2"]].concat(),
        program: &resend,
        pulumi: UP,
        allowed: &[],
    })?;
    let second = delivered(&oracle, "new-version")?;
    for (before, after) in first.iter().zip(&second) {
        ensure!(
            before != after,
            "a new content_wo_version did not deliver newly opened values"
        );
    }

    oracle.phase(&Phase {
        name: "destroy",
        prepare: None,
        tofu: &[DESTROY, &["-var", "wo_version=2"]].concat(),
        program: &resend,
        pulumi: &["destroy", "--yes"],
        allowed: &[DESTROY_EACH],
    })?;
    for dir in oracle.dirs() {
        for file in FILES {
            ensure!(
                !dir.join(file).exists(),
                "destroy left {}",
                dir.join(file).display()
            );
        }
    }
    oracle.finish()
}

/// The values each side's files received in `phase`, OpenTofu's first, after checking that each
/// side's lease was closed and that neither side's state nor any recording holds a value.
fn delivered(oracle: &Oracle<'_>, phase: &str) -> Result<Vec<String>> {
    let mut values = Vec::new();
    for dir in oracle.dirs() {
        for file in FILES {
            let path = dir.join(file);
            let value = harness::read_file(&path)?
                .with_context(|| format!("{phase}: {} was not written", path.display()))?;
            ensure!(!value.is_empty(), "{phase}: {} is empty", path.display());
            values.push(value);
        }
        // The token's journal ends each open line with the SHA-256 of the value it issued.
        let journal = dir.join("out/token.journal");
        let lines = fs::read_to_string(&journal)
            .with_context(|| format!("{phase}: could not read {}", journal.display()))?;
        let digest = format!(
            "sha256={}",
            util::sha256_bytes(values[values.len() - 2].as_bytes())
        );
        ensure!(
            lines
                .lines()
                .rfind(|l| l.starts_with("open "))
                .is_some_and(|l| l.ends_with(&digest)),
            "{phase}: {} does not hold the token last opened in {}",
            FILES[0],
            dir.display()
        );
        let lease = dir.join("out/held.lease");
        ensure!(
            !lease.exists(),
            "{phase}: the lease {} is still held after the command",
            lease.display()
        );
    }
    // The token's value is sensitive, so no recording holds it; the lease ID is not, so the
    // lease's own calls may (its result, and its private state in Renew and Close).
    for (place, method, text) in oracle.stored()? {
        for (index, value) in values.iter().enumerate() {
            let lease_call = index % 2 == 1 && method.ends_with("EphemeralResource");
            ensure!(
                lease_call || !text.contains(value.as_str()),
                "{phase}: a write-only value is in {place}"
            );
        }
    }
    Ok(values)
}
