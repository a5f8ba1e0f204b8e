//! Ephemeral resources through our server, as Pulumi functions: Invoke opens one, the plugin
//! renews it while it runs, and closes it exactly once when it stops, whichever way it stops.
//!
//! Pyvider's `pyvider_lease` holds a lease file while open, appends `renewed …` to it on each
//! renewal and removes it on close; our tfptest's `tfptest_token` journals every open, renew and
//! close. The recording (`PULUMI_TF_DEBUG_GRPC`) counts the Renew and Close calls we made.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use pulumi_terraform_provider::{
    proto::pulumirpc as rpc,
    recording::{Record, parse_recording},
};
use serde_json::{Value as Json, json};
use tfp_testkit::processes::poll_for;

use crate::{
    plugin::{Plugin, json, object},
    support::Fixtures,
};

const LEASE: &str = "pyvider:ephemeral/openLease:openLease";
const TOKEN: &str = "tfptest:ephemeral/openToken:openToken";

/// How long a lease of two seconds may take to be renewed twice: a bound, not an expectation.
const RENEWALS: Duration = Duration::from_secs(30);

/// How a test stops the plugin.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// As the engine closes a plugin: it hangs up, then sends SIGINT.
    Shutdown,
    Sigterm,
    /// `Cancel` first, then the engine's shutdown.
    Cancel,
}

/// Our binary, parameterized with provider `key` and configured, recording to `recording`.
async fn plugin(key: &str, package: &str, recording: &Path) -> Plugin {
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", recording)]).await;
    plugin
        .parameterize(&Fixtures::load().path(key), package)
        .await;
    plugin.configure(package, json!({})).await;
    plugin
}

/// Invokes `token` with `args`; returns the result, with secrets as `{"<secret>": …}`.
async fn invoke(plugin: &mut Plugin, token: &str, args: Json) -> Json {
    let response = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: token.to_owned(),
            args: Some(object(args)),
            preview: false,
        })
        .await
        .expect("Invoke")
        .into_inner();
    assert!(
        response.failures.is_empty(),
        "Invoke failed: {:?}",
        response.failures
    );
    json(response.r#return.as_ref())
}

/// The plain value of a secret in an invoke result.
fn unsecret<'a>(value: &'a Json, what: &str) -> &'a Json {
    let secret = "4dabf18193072939515e22adb298388d";
    assert_eq!(
        value[secret], "1b47061264138c4ac30d75fd1eb44270",
        "{what} is a secret: {value}"
    );
    &value["value"]
}

fn calls(recording: &Path, method: &str) -> usize {
    let text = std::fs::read_to_string(recording).unwrap_or_default();
    let records: Vec<Record> = parse_recording(&text).expect("the recording parses");
    records.iter().filter(|r| r.method() == method).count()
}

async fn stop(plugin: Plugin, how: Stop) {
    match how {
        Stop::Shutdown => {
            plugin.stop_with("INT").await;
        }
        Stop::Sigterm => {
            plugin.stop_with("TERM").await;
        }
        Stop::Cancel => unreachable!("cancelled before"),
    }
}

/// Opens a lease of two seconds, waits for it to be renewed twice, and stops the plugin `how`.
async fn lease_lifecycle(how: Stop) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let lease = dir.path().join("held.lease");
    let mut plugin = plugin("pyvider", "pyvider", &recording).await;
    let result = invoke(
        &mut plugin,
        LEASE,
        json!({"name": "test", "path": lease.to_string_lossy(), "ttlSeconds": 2}),
    )
    .await;
    let lease_id = unsecret(&result["leaseId"], "leaseId")
        .as_str()
        .expect("a lease ID")
        .to_owned();
    assert_eq!(
        unsecret(&result["path"], "path"),
        &json!(lease.to_string_lossy())
    );
    let opened = std::fs::read_to_string(&lease).expect("Invoke created the lease file");
    assert!(
        opened.starts_with(&format!("opened {lease_id}")),
        "{opened}"
    );

    // Renewed twice, and both renewals recorded: what the provider wrote and what we
    // recorded are read together until they agree.
    let renewed = poll_for(RENEWALS, || {
        let held = std::fs::read_to_string(&lease).ok()?;
        let renewed = held.lines().filter(|l| l.starts_with("renewed ")).count();
        (renewed >= 2 && calls(&recording, "RenewEphemeralResource") == renewed).then_some(renewed)
    })
    .await;
    assert!(
        renewed.is_some(),
        "a lease of 2 s is renewed, and recorded, twice within {RENEWALS:?}: {:?}",
        std::fs::read_to_string(&lease)
    );
    assert_eq!(calls(&recording, "CloseEphemeralResource"), 0);

    let how = match how {
        Stop::Cancel => {
            plugin.client.cancel(()).await.expect("Cancel");
            assert!(!lease.exists(), "Cancel closed the lease");
            assert_eq!(calls(&recording, "CloseEphemeralResource"), 1);
            Stop::Shutdown
        }
        other => other,
    };
    stop(plugin, how).await;
    assert!(!lease.exists(), "stopping with {how:?} closed the lease");
    assert_eq!(
        calls(&recording, "CloseEphemeralResource"),
        1,
        "closed exactly once"
    );
    assert_eq!(calls(&recording, "OpenEphemeralResource"), 1);
}

#[tokio::test]
async fn a_lease_is_renewed_and_closed_once_when_the_engine_shuts_the_plugin_down() {
    lease_lifecycle(Stop::Shutdown).await;
}

#[tokio::test]
async fn a_lease_is_renewed_and_closed_once_on_sigterm() {
    lease_lifecycle(Stop::Sigterm).await;
}

#[tokio::test]
async fn a_lease_is_renewed_and_closed_once_by_cancel() {
    lease_lifecycle(Stop::Cancel).await;
}

/// The journal's lines, each split into its words.
fn journal(path: &PathBuf) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split(' ').map(str::to_owned).collect())
        .collect()
}

#[tokio::test]
async fn tokens_are_renewed_and_each_closed_once() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let journal_path = dir.path().join("token.journal");
    let mut plugin = plugin("tfptest", "tfptest", &recording).await;
    let args = json!({"journal": journal_path.to_string_lossy(), "ttlSeconds": 2});
    let first = invoke(&mut plugin, TOKEN, args.clone()).await;
    let second = invoke(&mut plugin, TOKEN, args).await;
    let ids: Vec<String> = [&first, &second]
        .iter()
        .map(|r| {
            unsecret(&r["tokenId"], "tokenId")
                .as_str()
                .expect("an ID")
                .to_owned()
        })
        .collect();
    assert_ne!(ids[0], ids[1], "each invoke opens its own token");
    // The journal holds the value's digest, never the value.
    let value = unsecret(&first["value"], "value")
        .as_str()
        .expect("a value");
    let digest = format!("sha256={}", sha256_hex(value.as_bytes()));
    assert!(
        journal(&journal_path).contains(&vec!["open".to_owned(), ids[0].clone(), digest]),
        "{:?}",
        journal(&journal_path)
    );

    let renewed_twice = |lines: &[Vec<String>], id: &String| {
        lines
            .iter()
            .filter(|l| l.first().map(String::as_str) == Some("renew") && l.get(1) == Some(id))
            .count()
            >= 2
    };
    let renewed = poll_for(RENEWALS, || {
        let lines = journal(&journal_path);
        ids.iter().all(|id| renewed_twice(&lines, id)).then_some(())
    })
    .await;
    assert!(
        renewed.is_some(),
        "each token is renewed twice within {RENEWALS:?}: {:?}",
        journal(&journal_path)
    );
    plugin.stop().await;
    let lines = journal(&journal_path);
    for id in &ids {
        let count = |verb: &str| {
            lines
                .iter()
                .filter(|l| l.first().map(String::as_str) == Some(verb) && l.get(1) == Some(id))
                .count()
        };
        assert_eq!(count("open"), 1, "{id}: {lines:?}");
        assert!(count("renew") >= 2, "{id} renewed twice: {lines:?}");
        assert_eq!(count("close"), 1, "{id} closed once: {lines:?}");
    }
    assert_eq!(
        lines.last().map(|l| l[0].as_str()),
        Some("close"),
        "no renewal after the close: {lines:?}"
    );
    assert_eq!(calls(&recording, "CloseEphemeralResource"), 2);
    let recorded = std::fs::read_to_string(&recording).expect("the recording");
    assert!(
        !recorded.contains(value),
        "the recording holds the token, which the schema marks sensitive"
    );
}

#[tokio::test]
async fn random_password_opens_through_protocol_5_and_closes_once() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let mut plugin = plugin("random_3_7_2", "random", &recording).await;
    let result = invoke(
        &mut plugin,
        "random:ephemeral/openPassword:openPassword",
        json!({"length": 24, "special": false}),
    )
    .await;
    let password = unsecret(&result["result"], "result")
        .as_str()
        .expect("a password")
        .to_owned();
    assert_eq!(password.len(), 24);
    assert!(
        password.chars().all(char::is_alphanumeric),
        "the password has a character that is not alphanumeric"
    );
    assert_eq!(unsecret(&result["length"], "length"), &json!(24.0));
    plugin.stop().await;
    assert_eq!(calls(&recording, "OpenEphemeralResource"), 1);
    assert_eq!(calls(&recording, "CloseEphemeralResource"), 1);
    assert_eq!(calls(&recording, "RenewEphemeralResource"), 0);
    let recorded = std::fs::read_to_string(&recording).expect("the recording");
    assert!(
        !recorded.contains(&password),
        "the recording holds the password"
    );
}

#[tokio::test]
async fn an_ephemeral_resource_is_validated_before_it_opens() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let journal_path = dir.path().join("token.journal");
    let mut plugin = plugin("tfptest", "tfptest", &recording).await;
    // Pyvider reports this diagnostic without an attribute path, so it is the RPC's error.
    let refused = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: TOKEN.to_owned(),
            args: Some(object(
                json!({"journal": journal_path.to_string_lossy(), "ttlSeconds": 0}),
            )),
            preview: false,
        })
        .await
        .expect_err("an invalid configuration");
    assert!(
        refused.message().contains("ttl_seconds must be at least 1"),
        "{}",
        refused.message()
    );
    assert!(!journal_path.exists(), "nothing was opened");
    let unknown = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: TOKEN.to_owned(),
            args: Some(object(json!({
                "journal": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
            }))),
            preview: true,
        })
        .await
        .expect_err("unknown arguments");
    assert!(
        unknown.message().contains("not known yet"),
        "{}",
        unknown.message()
    );
    plugin.stop().await;
    assert_eq!(calls(&recording, "OpenEphemeralResource"), 0);
    assert_eq!(calls(&recording, "CloseEphemeralResource"), 0);
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
