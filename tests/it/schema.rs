//! Package schemas of real providers: valid against Pulumi's metaschema, deterministic, and,
//! for Pyvider and random 3.6.3, equal to the committed snapshots.
//!
//! `UPDATE_SNAPSHOTS=1` rewrites a snapshot that differs, and still fails. Byte-for-byte
//! determinism is checked by running the same command twice.

use std::{path::Path, process::Command};

use serde_json::Value as Json;
use tfp_schema_cache::SWITCH as SCHEMA_CACHE;

use crate::support::Fixtures;

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// `schema ./<file name>` run in the provider's directory, so the local path in the parameter
/// value is the same on every machine.
fn schema(fixture: &str, extra: &[&str]) -> Vec<u8> {
    schema_and_stderr(fixture, extra).0
}

/// [`schema`]'s output, and what the command wrote on stderr.
fn schema_and_stderr(fixture: &str, extra: &[&str]) -> (Vec<u8>, String) {
    let path = Fixtures::load().path(fixture);
    let (dir, file) = (
        path.parent().expect("a directory"),
        path.file_name().expect("a file name"),
    );
    // The cache off, or the second run would read the first one's bytes instead of making
    // them again.
    let output = Command::new(BIN)
        .env(SCHEMA_CACHE, "off")
        .current_dir(dir)
        .arg("schema")
        .arg(Path::new(".").join(file))
        .args(extra)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{fixture}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.stdout, stderr)
}

fn validate(name: &str, bytes: &[u8]) -> Json {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let metaschema_path = root.join("testdata/conformance/pulumi-package-metaschema.json");
    let metaschema: Json =
        serde_json::from_slice(&std::fs::read(&metaschema_path).expect("read the metaschema"))
            .expect("JSON");
    let validator = jsonschema::draft202012::new(&metaschema).expect("the metaschema compiles");
    let instance: Json = serde_json::from_slice(bytes).expect("our schema is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .take(20)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{name} violates the metaschema:\n{}",
        errors.join("\n")
    );
    instance
}

/// Compares with the committed snapshot, kept pretty-printed with sorted keys so that a change
/// reads as a diff.
fn snapshot(name: &str, bytes: &[u8]) {
    let value: Json = serde_json::from_slice(bytes).expect("our schema is JSON");
    let pretty = serde_json::to_string_pretty(&value).expect("JSON values print") + "\n";
    let bytes = pretty.as_bytes();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/schema")
        .join(format!("{name}.schema.json"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        // A rewritten snapshot still fails the run, so that no run passes on a difference.
        if std::fs::read(&path).ok().as_deref() != Some(bytes) {
            std::fs::write(&path, bytes).expect("write snapshot");
            panic!(
                "{name}'s snapshot {} was rewritten; review the diff, then run again without \
                 UPDATE_SNAPSHOTS",
                path.display()
            );
        }
        return;
    }
    let expected = std::fs::read(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err}; run with UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    assert!(
        expected == bytes,
        "{name}'s schema differs from {}; if the change is intended, rerun with UPDATE_SNAPSHOTS=1 and review the diff",
        path.display()
    );
}

#[test]
fn pyvider_schema_is_valid_deterministic_and_as_snapshotted() {
    let first = schema("pyvider", &[]);
    let instance = validate("pyvider", &first);
    assert_eq!(instance["name"], "pyvider");
    assert_eq!(instance["resources"].as_object().map(|r| r.len()), Some(4));
    assert_eq!(
        schema("pyvider", &[]),
        first,
        "the same provider gives the same bytes"
    );
    snapshot("pyvider", &first);
}

#[test]
fn random_3_6_3_schema_is_valid_and_as_snapshotted() {
    let bytes = schema("random_3_6_3", &[]);
    let instance = validate("random 3.6.3", &bytes);
    assert!(instance["resources"]["random:index/pet:Pet"].is_object());
    snapshot("random-3.6.3", &bytes);
}

#[test]
fn tls_and_aws_schemas_are_valid() {
    let tls = validate("tls 4.0.5", &schema("tls_4_0_5", &[]));
    assert!(tls["resources"]["tls:index/privateKey:PrivateKey"].is_object());
    let aws = validate("aws 3.39.0", &schema("aws_3_39_0", &[]));
    assert_eq!(aws["resources"].as_object().map(|r| r.len()), Some(711));
}

#[test]
fn include_and_provider_name_shape_the_package() {
    let (bytes, stderr) = schema_and_stderr(
        "pyvider",
        &[
            "--provider-name",
            "pv",
            "--include",
            "pyvider_file_content,upper,pyvider_file_contnet",
        ],
    );
    // A misspelt name is no error, as in the Go binary, but no longer goes unseen.
    assert!(
        stderr.contains(
            "provider pyvider has no resource, data source or function named \
             \"pyvider_file_contnet\" (given to --include), so the package has nothing for it; \
             did you mean \"pyvider_file_content\"?"
        ),
        "{stderr}"
    );
    let instance = validate("filtered pyvider", &bytes);
    assert_eq!(instance["name"], "pv");
    let resources: Vec<&String> = instance["resources"]
        .as_object()
        .expect("resources")
        .keys()
        .collect();
    assert_eq!(resources, ["pv:index/fileContent:FileContent"]);
}
