//! What our server makes a provider do, call by call, where it does what Terraform does and the
//! Go binary does not (the oracle comparisons of `cargo xtask e2e` found each): a configuration
//! is validated before the provider is configured with it, a stored state is upgraded once per
//! process and a state the provider just produced not at all, and a destroy upgrades the state
//! and plans before it applies. Our own `tfptest` provider, recorded with `PULUMI_TF_DEBUG_GRPC`.

use std::path::{Path, PathBuf};

use pulumi_terraform_provider::{proto::pulumirpc as rpc, recording::parse_recording};
use serde_json::{Value as Json, json};

use crate::plugin::{Plugin, json, object};
use crate::support::Fixtures;

const ITEM: &str = "tfptest:index/item:Item";
const URN: &str = "urn:pulumi:test::proj::tfptest:index/item:Item::item";

/// Our server parameterized with `tfptest`, recording every provider call to `recording`.
async fn served(recording: &Path) -> Plugin {
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", recording)]).await;
    plugin
        .parameterize(&Fixtures::load().path("tfptest"), "tfptest")
        .await;
    plugin
}

/// The methods recorded in `recording`, schema fetches (provider and identity schemas) left out.
fn calls(recording: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(recording).expect("the recording reads");
    parse_recording(&text)
        .expect("the recording parses")
        .iter()
        .map(|r| r.method().to_owned())
        .filter(|m| m != "GetProviderSchema" && m != "GetResourceIdentitySchemas")
        .collect()
}

/// Configure alone, as the engine configures a provider for `pulumi destroy` and `refresh`.
async fn configure_only(plugin: &mut Plugin) {
    plugin
        .client
        .configure(rpc::ConfigureRequest {
            args: Some(object(json!({}))),
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        })
        .await
        .expect("Configure");
}

fn inputs(dir: &Path, content: &str) -> Json {
    json!({"directory": dir.join("items").to_string_lossy(), "name": "item", "content": content})
}

/// Creates the item in `dir` through a fresh server; returns its outputs.
async fn create(dir: &Path, recording: &Path) -> prost_types::Struct {
    let mut plugin = served(recording).await;
    plugin.configure("tfptest", json!({})).await;
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: URN.into(),
            r#type: ITEM.into(),
            properties: Some(object(inputs(dir, "first"))),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    plugin.stop().await;
    created.properties.expect("outputs")
}

/// Deletes the item with `outputs` through a fresh server, configured as for `pulumi destroy`.
async fn destroy(recording: &Path, outputs: prost_types::Struct) {
    let mut plugin = served(recording).await;
    configure_only(&mut plugin).await;
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: "item".into(),
            urn: URN.into(),
            r#type: ITEM.into(),
            properties: Some(outputs),
            ..Default::default()
        })
        .await
        .expect("Delete");
    plugin.stop().await;
}

fn recording(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(format!("{name}.json"))
}

#[tokio::test]
async fn a_destroy_validates_the_configuration_upgrades_the_state_and_plans_first() {
    let dir = tempfile::tempdir().expect("temp dir");
    let outputs = create(dir.path(), &recording(&dir, "create")).await;
    assert_eq!(
        calls(&recording(&dir, "create")),
        [
            "ValidateProviderConfig",
            "ConfigureProvider",
            "PlanResourceChange",
            "ApplyResourceChange"
        ],
        "CheckConfig validated the configuration, so Configure did not again"
    );
    let file = dir.path().join("items/item");
    assert_eq!(
        std::fs::read_to_string(&file).ok().as_deref(),
        Some("first")
    );

    let destroyed = recording(&dir, "destroy");
    destroy(&destroyed, outputs).await;
    assert!(!file.exists(), "the item is deleted");
    assert_eq!(
        calls(&destroyed),
        [
            "ValidateProviderConfig",
            "ConfigureProvider",
            "UpgradeResourceState",
            "PlanResourceChange",
            "ApplyResourceChange"
        ]
    );
    let records = crate::support::records(&destroyed);
    let plan = records
        .iter()
        .find(|r| r.method() == "PlanResourceChange")
        .expect("a plan");
    // A destroy plan: no configuration and no proposed new state, as Terraform plans one.
    let shown = pulumi_terraform_provider::recording::show(plan).expect("shows");
    assert!(
        shown["request"]["config"].is_null() && shown["request"]["proposed_new_state"].is_null(),
        "{shown}"
    );
}

#[tokio::test]
async fn a_state_with_a_damaged_meta_is_still_deleted() {
    // The Go binary never reads `__meta` in Delete; a state whose `__meta` no longer parses
    // (edited by hand, cut short) must not keep its resource alive.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut outputs = create(dir.path(), &recording(&dir, "create")).await;
    outputs.fields.insert(
        "__meta".into(),
        prost_types::Value {
            kind: Some(prost_types::value::Kind::StringValue("{{".into())),
        },
    );
    let file = dir.path().join("items/item");
    assert!(file.exists());
    destroy(&recording(&dir, "destroy"), outputs).await;
    assert!(!file.exists(), "the item is deleted");
}

#[tokio::test]
async fn a_stored_state_is_upgraded_once_per_process_and_a_produced_one_never() {
    let dir = tempfile::tempdir().expect("temp dir");
    let stored = create(dir.path(), &recording(&dir, "create")).await;

    // A new process diffs and updates the stored state: it is upgraded once, for both.
    let updated = recording(&dir, "update");
    let mut plugin = served(&updated).await;
    plugin.configure("tfptest", json!({})).await;
    let news = object(inputs(dir.path(), "second"));
    let diff = plugin
        .client
        .diff(rpc::DiffRequest {
            id: "item".into(),
            urn: URN.into(),
            r#type: ITEM.into(),
            olds: Some(stored.clone()),
            news: Some(news.clone()),
            ..Default::default()
        })
        .await
        .expect("Diff")
        .into_inner();
    assert_eq!(
        diff.changes,
        rpc::diff_response::DiffChanges::DiffSome as i32
    );
    let update = plugin
        .client
        .update(rpc::UpdateRequest {
            id: "item".into(),
            urn: URN.into(),
            r#type: ITEM.into(),
            olds: Some(stored),
            news: Some(news.clone()),
            ..Default::default()
        })
        .await
        .expect("Update")
        .into_inner();
    // The state the update produced comes back to a read and a diff in the same process: the
    // provider produced it at its current schema version, so it is not upgraded.
    let produced = update.properties.expect("outputs");
    let read = plugin
        .client
        .read(rpc::ReadRequest {
            id: "item".into(),
            urn: URN.into(),
            r#type: ITEM.into(),
            properties: Some(produced.clone()),
            inputs: Some(news.clone()),
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    assert_eq!(json(read.properties.as_ref())["content"], "second");
    plugin
        .client
        .diff(rpc::DiffRequest {
            id: "item".into(),
            urn: URN.into(),
            r#type: ITEM.into(),
            olds: Some(produced),
            news: Some(news),
            ..Default::default()
        })
        .await
        .expect("Diff");
    plugin.stop().await;
    assert_eq!(
        calls(&updated),
        [
            "ValidateProviderConfig",
            "ConfigureProvider",
            "UpgradeResourceState",
            "PlanResourceChange",
            "PlanResourceChange",
            "ApplyResourceChange",
            "ReadResource",
            "PlanResourceChange"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("items/item"))
            .ok()
            .as_deref(),
        Some("second")
    );
}
