//! The whole resource lifecycle on Pyvider, driven by the Pulumi Python SDK's own generated
//! `ResourceProviderStub` (tests/it/clients/pyvider_lifecycle.py), with a fake `Engine` from the
//! same SDK receiving our logs: what the engine does, through the client the engine's SDKs use.

use std::process::Command;

use serde_json::{Value as Json, json};
use tfp_schema_cache::SWITCH as SCHEMA_CACHE;

use crate::support::Fixtures;

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");
const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const SECRET_SIG: &str = "4dabf18193072939515e22adb298388d";

/// Runs the driver and returns its JSON report.
fn drive() -> Json {
    let fixtures = Fixtures::load();
    let work = tempfile::tempdir().expect("temp dir");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/clients/pyvider_lifecycle.py"
    );
    // The driver starts our binary, which inherits the cache switch.
    let output = Command::new(fixtures.path("pulumi_python"))
        .env(SCHEMA_CACHE, "off")
        .arg(script)
        .arg(BIN)
        .arg(fixtures.path("pyvider"))
        .arg(work.path())
        .output()
        .expect("the Python driver runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "driver failed: {stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("driver printed no JSON ({err}): {stderr}"))
}

#[test]
fn pyvider_lifecycle_through_the_pulumi_python_client() {
    let r = drive();
    assert_eq!(r["rpc_error"], Json::Null, "every RPC succeeded");
    assert_eq!(
        r["parameterize"],
        json!({"name": "pyvider", "version": "0.0.0"})
    );

    // CheckConfig folds non-string values back into JSON strings; Configure answers as Go does,
    // except that it accepts secrets (README "Differences from the Go binary").
    assert_eq!(
        r["check_config"],
        json!({"inputs": {"apiRetries": "3"}, "failures": []})
    );
    assert_eq!(
        r["configure"],
        json!({
            "supportsPreview": true,
            "acceptResources": true,
            "acceptSecrets": true,
            "supportsAutonamingConfiguration": true,
        })
    );

    let work_file = |name: &str| {
        r["check"]["inputs"]["filename"]
            .as_str()
            .expect("filename")
            .replace("first.txt", name)
    };
    assert_eq!(r["check"]["failures"], json!([]));
    assert_eq!(r["check"]["inputs"]["content"], "hello");

    // Preview: nothing on disk, an empty ID, and unknowns where the plan has them.
    let preview = &r["create_preview"];
    assert_eq!(preview["id"], "");
    assert_eq!(preview["file_exists"], false);
    assert!(preview["properties"].get("__meta").is_none());
    let unknown = &r["create_preview_unknown"]["properties"];
    assert_eq!(unknown["contentHash"], UNKNOWN);
    assert_eq!(unknown["content"], UNKNOWN);

    // Create: the file, Go's ID for a resource without `id`, `__meta` and the raw-state delta.
    let created = &r["create"];
    assert_eq!(created["file"], "hello");
    assert_eq!(created["id"], "missing ID");
    let props = &created["properties"];
    assert_eq!(
        props["contentHash"], "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
        "sha256 of the content"
    );
    // Beyond the Go binary, the identity Pyvider returns (`filename`), with its version.
    assert_eq!(
        props["__meta"],
        format!(
            r#"{{"identity":{{"filename":{:?}}},"identity_schema_version":"0","schema_version":"1"}}"#,
            work_file("first.txt")
        )
    );
    assert!(props["__pulumi_raw_state_delta"].is_object());

    // Refresh after an edit on disk: the drift shows in outputs and inputs.
    assert_eq!(r["read"]["properties"]["content"], "edited on disk");
    assert_eq!(r["read"]["inputs"]["content"], "edited on disk");
    assert_eq!(r["read"]["id"], "missing ID");

    // Diff of a content change: an update with a detailed diff of every changed path.
    assert_eq!(
        r["diff_update"],
        json!({
            "changes": "DIFF_SOME",
            "diffs": ["content", "contentHash"],
            "detailedDiff": {"content": {"kind": "UPDATE"}, "contentHash": {"kind": "UPDATE"}},
            "hasDetailedDiff": true
        })
    );
    assert_eq!(r["update_preview"]["file"], "edited on disk");
    assert_eq!(r["update_preview"]["properties"]["content"], "second");
    assert_eq!(r["update"]["file"], "second");
    assert_eq!(r["update"]["properties"]["content"], "second");
    assert_eq!(r["diff_none"], json!({"changes": "DIFF_NONE"}));

    // Pyvider declares no RequiresReplace, so a new filename is an update in place.
    assert_eq!(
        r["diff_filename"],
        json!({
            "changes": "DIFF_SOME",
            "diffs": ["filename"],
            "detailedDiff": {"filename": {"kind": "UPDATE"}},
            "hasDetailedDiff": true
        })
    );
    // A replacement (create, then delete the old one) and the final delete, checked on disk.
    assert_eq!(r["replace_create"]["file"], "second");
    assert_eq!(
        r["replace_delete"],
        json!({"old_exists": false, "new_exists": true})
    );
    assert_eq!(r["delete"], json!({"exists": false}));
    assert!(!std::path::Path::new(&work_file("second.txt")).exists());
    assert_eq!(
        r["read_gone"],
        json!({"id": "", "has_properties": false}),
        "a vanished resource reads as an empty ID"
    );

    // Invoke of a data source and of a provider function.
    let info = &r["invoke_data_source"];
    assert_eq!(info["failures"], json!([]));
    assert_eq!(info["return"]["size"], 5.0);
    assert_eq!(info["return"]["isFile"], true);
    assert_eq!(
        r["invoke_function"],
        json!({"return": {"result": "HELLO"}, "failures": []})
    );

    // Autonaming: the Go binary's name for URN name `tok` and seed `seed`, or the engine's.
    assert_eq!(
        r["autoname"],
        json!({"inputs": {"name": "tok-614742c"}, "failures": []})
    );
    assert_eq!(
        r["autoname_enforced"],
        json!({"name": "proposed-by-engine"})
    );
    let token = &r["timed_token"];
    assert!(
        token["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("timed-token-id-")),
        "the `id` attribute is the ID: {token}"
    );
    assert_eq!(token["properties"]["name"], "tok-614742c");
    assert!(
        token["properties"]["token"].get(SECRET_SIG).is_some(),
        "a sensitive attribute comes back secret"
    );
    let meta: Json = serde_json::from_str(
        token["properties"]["__meta"]
            .as_str()
            .expect("__meta is a string"),
    )
    .expect("__meta is JSON");
    assert_eq!(meta["schema_version"], "1");
    assert!(
        meta["private_state"]
            .as_str()
            .is_some_and(|p| !p.is_empty())
    );

    // The provider's warning reached the fake engine with the URN and the Pulumi path.
    assert_eq!(r["warning_preview"]["name"], "legacy");
    let logs = r["engine_logs"].as_array().expect("logs");
    assert!(
        logs.iter().any(|l| l["severity"] == 2
            && l["urn"] == "urn:pulumi:test::proj::pyvider:index/warningExample:WarningExample::warned"
            && l["message"]
                == "[oldName] Attribute 'old_name' is deprecated: Please use the 'name' attribute instead."),
        "{logs:#?}"
    );
    assert_eq!(
        r["check_error"],
        json!({"code": "StatusCode.UNKNOWN", "details": "'name' and 'source_file' are mutually exclusive."})
    );

    // SIGTERM stopped our binary and the provider it ran.
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["children"], 1, "one Terraform provider was running");
    assert_eq!(r["children_alive"], json!([]));
}
