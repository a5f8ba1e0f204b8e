//! Write-only arguments through our server, driven as the engine drives a resource (the RPCs and
//! their inputs seen from pulumi v3.255.0, README "Write-only arguments"): Check takes the value
//! out of the inputs the engine stores, Create and Update deliver it to the provider, no answer
//! carries it, and a new value alone changes nothing, while a new `*_wo_version` does.
//!
//! `tfptest_secret_file` writes the `content_wo` it receives in ApplyResourceChange's config to
//! its `path`, and fails the apply when that value is null.

use std::path::Path;

use pulumi_terraform_provider::{
    proto::pulumirpc::{self as rpc, diff_response::DiffChanges},
    recording::{Record, parse_recording},
};
use serde_json::{Value as Json, json};

use crate::{
    plugin::{Plugin, json, object},
    support::Fixtures,
};

const SECRET_FILE: &str = "tfptest:index/secretFile:SecretFile";

fn urn(name: &str) -> String {
    format!("urn:pulumi:test::proj::{SECRET_FILE}::{name}")
}

async fn check(plugin: &mut Plugin, name: &str, olds: Json, news: Json) -> Json {
    let response = plugin
        .client
        .check(rpc::CheckRequest {
            urn: urn(name),
            olds: Some(object(olds)),
            news: Some(object(news)),
            random_seed: vec![0; 32],
            name: name.to_owned(),
            r#type: SECRET_FILE.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    assert!(response.failures.is_empty(), "{:?}", response.failures);
    json(response.inputs.as_ref())
}

async fn create(plugin: &mut Plugin, name: &str, inputs: &Json) -> Result<(String, Json), String> {
    plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn(name),
            properties: Some(object(inputs.clone())),
            name: name.to_owned(),
            r#type: SECRET_FILE.to_owned(),
            ..Default::default()
        })
        .await
        .map(|r| {
            let r = r.into_inner();
            (r.id, json(r.properties.as_ref()))
        })
        .map_err(|status| status.message().to_owned())
}

async fn diff(plugin: &mut Plugin, name: &str, olds: &Json, news: &Json) -> rpc::DiffResponse {
    plugin
        .client
        .diff(rpc::DiffRequest {
            id: "x".to_owned(),
            urn: urn(name),
            olds: Some(object(olds.clone())),
            news: Some(object(news.clone())),
            name: name.to_owned(),
            r#type: SECRET_FILE.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Diff")
        .into_inner()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// Whether `value` mentions `secret` anywhere.
fn mentions(value: &Json, secret: &str) -> bool {
    value.to_string().contains(secret)
}

/// `value` as a failed check shows it: the test's write-only values hidden, as they must be in
/// any output.
fn shown(value: &Json) -> String {
    value.to_string().replace("s3cret", "<write-only value>")
}

#[tokio::test]
async fn write_only_values_reach_the_provider_and_no_answer_holds_them() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let target = dir.path().join("secret.txt");
    let path = target.to_string_lossy().into_owned();
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;
    plugin
        .parameterize(&Fixtures::load().path("tfptest"), "tfptest")
        .await;
    plugin.configure("tfptest", json!({})).await;

    // Create: Check keeps the value out of the inputs the engine stores; Create delivers it.
    let news = json!({"path": path, "contentWo": "first-s3cret", "contentWoVersion": 1});
    let checked = check(&mut plugin, "file", json!({}), news).await;
    assert_eq!(checked, json!({"path": path, "contentWoVersion": 1.0}));
    let (id, state) = create(&mut plugin, "file", &checked).await.expect("Create");
    assert_eq!(id, path);
    assert_eq!(read(&target), "first-s3cret");
    assert!(state.get("contentWo").is_none(), "{}", shown(&state));
    assert!(!mentions(&state, "s3cret"), "{}", shown(&state));

    // A new value alone: no change, as in Terraform.
    let news = json!({"path": path, "contentWo": "second-s3cret", "contentWoVersion": 1});
    let checked = check(&mut plugin, "file", checked.clone(), news).await;
    assert!(!mentions(&checked, "s3cret"), "{}", shown(&checked));
    let no_change = diff(&mut plugin, "file", &state, &checked).await;
    assert_eq!(no_change.changes(), DiffChanges::DiffNone, "{no_change:?}");

    // A new version: an update that delivers the current value.
    let news = json!({"path": path, "contentWo": "third-s3cret", "contentWoVersion": 2});
    let checked = check(&mut plugin, "file", checked.clone(), news).await;
    let change = diff(&mut plugin, "file", &state, &checked).await;
    assert_eq!(change.changes(), DiffChanges::DiffSome);
    assert_eq!(change.diffs, ["contentWoVersion"]);
    assert!(change.replaces.is_empty());
    let updated = plugin
        .client
        .update(rpc::UpdateRequest {
            id: path.clone(),
            urn: urn("file"),
            olds: Some(object(state.clone())),
            news: Some(object(checked.clone())),
            name: "file".to_owned(),
            r#type: SECRET_FILE.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Update")
        .into_inner();
    let state = json(updated.properties.as_ref());
    assert_eq!(read(&target), "third-s3cret");
    assert!(!mentions(&state, "s3cret"), "{}", shown(&state));

    // Refresh of a state whose inputs hold the value, as the Go binary stores it.
    let read_back = plugin
        .client
        .read(rpc::ReadRequest {
            id: path.clone(),
            urn: urn("file"),
            properties: Some(object(state.clone())),
            inputs: Some(object(
                json!({"path": path, "contentWo": "third-s3cret", "contentWoVersion": 2}),
            )),
            name: "file".to_owned(),
            r#type: SECRET_FILE.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    assert_eq!(
        json(read_back.inputs.as_ref()),
        json!({"path": path, "contentWoVersion": 2.0})
    );
    assert!(!mentions(&json(read_back.properties.as_ref()), "s3cret"));

    // Without Check, nothing holds the value: the provider refuses the null it gets.
    let elsewhere = dir.path().join("unchecked.txt");
    let unchecked = json!({"path": elsewhere.to_string_lossy(), "contentWoVersion": 1});
    let err = create(&mut plugin, "unchecked", &unchecked)
        .await
        .expect_err("no value to deliver");
    assert!(err.contains("content_wo"), "{err}");
    assert!(!elsewhere.exists());

    let stderr = plugin.stop().await;
    assert!(
        !stderr.contains("s3cret"),
        "our log holds a write-only value"
    );
    assert!(
        stderr.contains("did not check the resource"),
        "the unchecked Create is explained: {stderr}"
    );

    let text = std::fs::read_to_string(&recording).expect("the recording");
    assert!(
        !text.contains("s3cret"),
        "the recording holds a write-only value"
    );
    let records: Vec<Record> = parse_recording(&text).expect("the recording parses");
    assert!(records.iter().any(|r| r.method() == "ApplyResourceChange"));
    // Every request that can say so allows write-only attributes.
    for method in [
        "ConfigureProvider",
        "ValidateResourceConfig",
        "PlanResourceChange",
        "ReadResource",
    ] {
        let sent: Vec<&Record> = records.iter().filter(|r| r.method() == method).collect();
        assert!(!sent.is_empty(), "no {method} was recorded");
        for record in sent {
            assert!(
                record
                    .request
                    .contains("write_only_attributes_allowed: true")
                    || record
                        .request
                        .contains("write_only_attributes_allowed:true"),
                "{method} without the capability: {}",
                record.request
            );
        }
    }
}
