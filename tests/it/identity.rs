//! Resource identity through our server, with our tfptest provider (`testdata/providers/tfptest`),
//! driven as the engine drives a resource: Create and Read keep the identity the provider
//! returns in `__meta` and give it back where Terraform 1.12 does (ReadResource's
//! `current_identity`, PlanResourceChange's `prior_identity`, ApplyResourceChange's
//! `planned_identity`), an import ID that is a JSON identity imports by identity, and a state
//! written by the release whose identity is version 0 is upgraded by the next release.
//!
//! What the provider received is read from our recording (`PULUMI_TF_DEBUG_GRPC`), decoded as
//! the tfplugin6 requests they were; what it did is on disk: `tfptest_item` is a file.

use crate::support::records;
use std::path::Path;

use pulumi_terraform_provider::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    recording::{Messages as _, Record},
    server::partial,
};
use serde_json::{Value as Json, json};
use tfp_cty::{Type, Value};

use crate::{
    plugin::{Plugin, json, object},
    support::Fixtures,
};

const ITEM: &str = "tfptest:index/item:Item";

fn urn(name: &str) -> String {
    format!("urn:pulumi:test::proj::{ITEM}::{name}")
}

/// Our server, parameterized with the tfptest release `fixture`, recording into `recording`.
async fn start(fixture: &str, recording: &Path) -> Plugin {
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", recording)]).await;
    plugin
        .parameterize(&Fixtures::load().path(fixture), "tfptest")
        .await;
    plugin.configure("tfptest", json!({})).await;
    plugin
}

async fn create(plugin: &mut Plugin, name: &str, inputs: Json) -> (String, Json) {
    let checked = plugin
        .client
        .check(rpc::CheckRequest {
            urn: urn(name),
            olds: Some(object(json!({}))),
            news: Some(object(inputs)),
            random_seed: vec![0; 32],
            name: name.to_owned(),
            r#type: ITEM.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn(name),
            properties: checked.inputs,
            name: name.to_owned(),
            r#type: ITEM.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    (created.id, json(created.properties.as_ref()))
}

async fn update(plugin: &mut Plugin, name: &str, id: &str, olds: &Json, news: Json) -> Json {
    let updated = plugin
        .client
        .update(rpc::UpdateRequest {
            id: id.to_owned(),
            urn: urn(name),
            olds: Some(object(olds.clone())),
            news: Some(object(news)),
            name: name.to_owned(),
            r#type: ITEM.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Update")
        .into_inner();
    json(updated.properties.as_ref())
}

async fn delete(plugin: &mut Plugin, name: &str, id: &str, state: Json) {
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: id.to_owned(),
            urn: urn(name),
            properties: Some(object(state)),
            r#type: ITEM.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Delete");
}

/// Read as `pulumi refresh` sends it (stored outputs), or as an import (an ID alone).
async fn read(
    plugin: &mut Plugin,
    name: &str,
    id: &str,
    state: Option<&Json>,
) -> Result<rpc::ReadResponse, tonic::Status> {
    plugin
        .client
        .read(rpc::ReadRequest {
            id: id.to_owned(),
            urn: urn(name),
            properties: state.map(|s| object(s.clone())),
            name: name.to_owned(),
            r#type: ITEM.to_owned(),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// The `__meta` of outputs, parsed.
fn meta(outputs: &Json) -> Json {
    let text = outputs["__meta"]
        .as_str()
        .unwrap_or_else(|| panic!("no __meta in {outputs}"));
    serde_json::from_str(text).expect("__meta is JSON")
}

/// The identity stored in `__meta` with its version, as `[identity, version]`.
fn stored(outputs: &Json) -> Json {
    let meta = meta(outputs);
    json!([meta["identity"], meta["identity_schema_version"]])
}

/// The outputs without the identity in `__meta`, as the Go binary writes them.
fn without_identity(outputs: &Json) -> Json {
    let mut outputs = outputs.clone();
    let mut meta = meta(&outputs);
    let object = meta.as_object_mut().expect("an object");
    object.remove("identity");
    object.remove("identity_schema_version");
    if object.is_empty() {
        outputs.as_object_mut().expect("an object").remove("__meta");
    } else {
        outputs["__meta"] = Json::String(meta.to_string());
    }
    outputs
}

fn requests<T: prost::Message + Default>(records: &[Record], method: &str) -> Vec<T> {
    records
        .iter()
        .filter(|r| r.method() == method)
        .map(|r| r.request_message().expect("a request of its method"))
        .collect()
}

/// The identity type of each release.
fn v1() -> Type {
    Type::object([
        ("directory".to_owned(), Type::String),
        ("name".to_owned(), Type::String),
    ])
}

fn v0() -> Type {
    Type::object([("path".to_owned(), Type::String)])
}

/// An identity the provider was sent, as JSON; `null` for none.
fn sent(data: Option<&v6::ResourceIdentityData>, ty: &Type) -> Json {
    let Some(dv) = data.and_then(|d| d.identity_data.as_ref()) else {
        return Json::Null;
    };
    let value = tfp_cty::from_msgpack(&dv.msgpack, ty).expect("an identity of the type");
    to_json(&value)
}

fn to_json(value: &Value) -> Json {
    let text = tfp_cty::to_json(value, &value.ty()).expect("a known value");
    serde_json::from_slice(&text).expect("JSON")
}

#[tokio::test]
async fn create_read_and_update_keep_the_identity_and_send_it_back() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let items = dir.path().join("items");
    let directory = items.to_string_lossy().into_owned();
    let mut plugin = start("tfptest", &recording).await;

    let (id, state) = create(
        &mut plugin,
        "a",
        json!({"directory": directory, "name": "a", "content": "one"}),
    )
    .await;
    assert_eq!(id, format!("{directory}/a"));
    assert_eq!(
        std::fs::read_to_string(items.join("a")).expect("created"),
        "one"
    );
    let identity = json!({"directory": directory, "name": "a"});
    assert_eq!(stored(&state), json!([identity, "1"]));

    // Refresh: ReadResource gets the stored identity, and what it returns is stored.
    let refreshed = read(&mut plugin, "a", &id, Some(&state))
        .await
        .expect("Read");
    assert_eq!(refreshed.id, id);
    let refreshed_state = json(refreshed.properties.as_ref());
    assert_eq!(meta(&refreshed_state)["identity"], identity);

    // A state the Go binary wrote has no identity: Read sends none and stores what it gets.
    let go_written = without_identity(&state);
    assert_eq!(meta(&go_written), json!({"schema_version": "1"}));
    let adopted = read(&mut plugin, "a", &id, Some(&go_written))
        .await
        .expect("Read of a Go-written state");
    assert_eq!(
        meta(&json(adopted.properties.as_ref()))["identity"],
        identity
    );

    // Update: the plan gets the prior identity, the apply the planned one.
    let news = json!({"directory": directory, "name": "a", "content": "two"});
    let updated = update(&mut plugin, "a", &id, &state, news).await;
    assert_eq!(
        std::fs::read_to_string(items.join("a")).expect("updated"),
        "two"
    );
    assert_eq!(meta(&updated)["identity"], identity);

    // Delete: tfptest plans its destroys, and that plan gets the stored identity too.
    delete(&mut plugin, "a", &id, updated).await;
    assert!(!items.join("a").exists(), "deleted");
    plugin.stop().await;

    let records = records(&recording);
    let reads: Vec<v6::read_resource::Request> = requests(&records, "ReadResource");
    let current: Vec<Json> = reads
        .iter()
        .map(|r| sent(r.current_identity.as_ref(), &v1()))
        .collect();
    assert_eq!(current, [identity.clone(), Json::Null]);
    let plans: Vec<v6::plan_resource_change::Request> = requests(&records, "PlanResourceChange");
    let prior: Vec<Json> = plans
        .iter()
        .map(|p| sent(p.prior_identity.as_ref(), &v1()))
        .collect();
    assert_eq!(
        prior,
        [Json::Null, identity.clone(), identity.clone()],
        "create, update, then destroy"
    );
    let applies: Vec<v6::apply_resource_change::Request> =
        requests(&records, "ApplyResourceChange");
    let planned: Vec<Json> = applies
        .iter()
        .map(|a| sent(a.planned_identity.as_ref(), &v1()))
        .collect();
    assert_eq!(
        planned,
        [identity.clone(), identity, Json::Null],
        "a destroy plans no identity"
    );
    assert_eq!(
        records
            .iter()
            .filter(|r| r.method() == "GetResourceIdentitySchemas")
            .count(),
        1,
        "the identity schemas are asked for once"
    );
}

#[tokio::test]
async fn a_json_identity_imports_by_identity_and_a_path_by_id() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let items = dir.path().join("items");
    std::fs::create_dir(&items).expect("items");
    std::fs::write(items.join("adopted"), "already here").expect("a file to adopt");
    let directory = items.to_string_lossy().into_owned();
    let path = format!("{directory}/adopted");
    let mut plugin = start("tfptest", &recording).await;

    let identity = json!({"directory": directory, "name": "adopted"});
    let by_identity = read(&mut plugin, "by-identity", &identity.to_string(), None)
        .await
        .expect("import by identity");
    assert_eq!(by_identity.id, path);
    let outputs = json(by_identity.properties.as_ref());
    assert_eq!(outputs["content"], "already here");
    assert_eq!(meta(&outputs)["identity"], identity);
    assert_eq!(
        json(by_identity.inputs.as_ref()),
        json!({"directory": directory, "name": "adopted", "content": "already here"})
    );

    let by_id = read(&mut plugin, "by-id", &path, None)
        .await
        .expect("import by ID");
    assert_eq!(by_id.id, path);
    assert_eq!(meta(&json(by_id.properties.as_ref()))["identity"], identity);

    // A JSON object that is not an identity of the type is an ID like any other, which this
    // provider cannot find.
    let not_identity = json!({"path": path}).to_string();
    let err = read(&mut plugin, "not-identity", &not_identity, None)
        .await
        .expect_err("not a path either");
    assert!(
        err.message().contains("No tfptest_item was found for id"),
        "{err:?}"
    );
    plugin.stop().await;

    let records = records(&recording);
    let imports: Vec<v6::import_resource_state::Request> =
        requests(&records, "ImportResourceState");
    let sent_targets: Vec<(String, Json)> = imports
        .iter()
        .map(|i| (i.id.clone(), sent(i.identity.as_ref(), &v1())))
        .collect();
    assert_eq!(
        sent_targets,
        [
            (String::new(), identity.clone()),
            (path.clone(), Json::Null),
            (not_identity, Json::Null),
        ]
    );
    // The import is read with the identity it returned.
    let reads: Vec<v6::read_resource::Request> = requests(&records, "ReadResource");
    for read in &reads {
        assert_eq!(sent(read.current_identity.as_ref(), &v1()), identity);
    }
    assert_eq!(reads.len(), 2);
}

#[tokio::test]
async fn an_identity_of_version_0_is_upgraded_by_the_next_release() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let items = dir.path().join("items");
    let directory = items.to_string_lossy().into_owned();
    let path = format!("{directory}/a");

    // The previous release writes identity version 0.
    let old_recording = dir.path().join("v0.json");
    let mut old = start("tfptest_identity_v0", &old_recording).await;
    let (id, state) = create(
        &mut old,
        "a",
        json!({"directory": directory, "name": "a", "content": "one"}),
    )
    .await;
    old.stop().await;
    assert_eq!(id, path);
    assert_eq!(stored(&state), json!([{"path": path}, "0"]));
    let applies: Vec<v6::apply_resource_change::Request> =
        requests(&records(&old_recording), "ApplyResourceChange");
    assert_eq!(
        sent(applies[0].planned_identity.as_ref(), &v0()),
        json!({"path": path})
    );

    // The current release upgrades it before giving it back, on refresh and on update alike.
    let recording = dir.path().join("v1.json");
    let mut plugin = start("tfptest", &recording).await;
    let identity = json!({"directory": directory, "name": "a"});
    let refreshed = read(&mut plugin, "a", &id, Some(&state))
        .await
        .expect("Read");
    assert_eq!(
        stored(&json(refreshed.properties.as_ref())),
        json!([identity, "1"])
    );
    let news = json!({"directory": directory, "name": "a", "content": "two"});
    let updated = update(&mut plugin, "a", &id, &state, news).await;
    assert_eq!(stored(&updated), json!([identity, "1"]));
    assert_eq!(
        std::fs::read_to_string(items.join("a")).expect("updated"),
        "two"
    );
    plugin.stop().await;

    let records = records(&recording);
    let upgrades: Vec<v6::upgrade_resource_identity::Request> =
        requests(&records, "UpgradeResourceIdentity");
    assert_eq!(upgrades.len(), 2, "one for the refresh, one for the update");
    for upgrade in &upgrades {
        assert_eq!(upgrade.type_name, "tfptest_item");
        assert_eq!(upgrade.version, 0);
        let raw: Json = serde_json::from_slice(
            &upgrade
                .raw_identity
                .as_ref()
                .expect("the stored identity")
                .json,
        )
        .expect("JSON");
        assert_eq!(raw, json!({"path": path}));
    }
    let reads: Vec<v6::read_resource::Request> = requests(&records, "ReadResource");
    assert_eq!(sent(reads[0].current_identity.as_ref(), &v1()), identity);
    let plans: Vec<v6::plan_resource_change::Request> = requests(&records, "PlanResourceChange");
    assert_eq!(sent(plans[0].prior_identity.as_ref(), &v1()), identity);

    // A newer identity than the provider knows is refused, as Terraform refuses it.
    let mut newer = state.clone();
    newer["__meta"] = Json::String(
        json!({"identity": identity, "identity_schema_version": "2", "schema_version": "1"})
            .to_string(),
    );
    let mut plugin = start("tfptest", &dir.path().join("v1-again.json")).await;
    let err = read(&mut plugin, "a", &id, Some(&newer))
        .await
        .expect_err("a newer identity");
    assert!(err.message().contains("newer provider version"), "{err:?}");
    plugin.stop().await;
}

/// The `content` that makes tfptest identify an item as unknown once its file holds it
/// (`UNKNOWN_IDENTITY` in `testdata/providers/tfptest/tfptest/item.py`).
const UNKNOWN_IDENTITY: &str = "tfptest: identify me as unknown";

/// An apply that succeeds with an identity Terraform would refuse (unknown values) has made or
/// changed the object all the same: Create and Update fail as partial failures with the state
/// the provider returned, without an identity, so the engine keeps the object instead of
/// forgetting it, and a later update from that state goes through.
#[tokio::test]
async fn an_apply_with_an_unusable_identity_keeps_what_it_made() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let items = dir.path().join("items");
    let directory = items.to_string_lossy().into_owned();
    let path = format!("{directory}/a");
    let mut plugin = start("tfptest", &dir.path().join("recording.json")).await;
    let inputs = |content: &str| json!({"directory": directory, "name": "a", "content": content});

    let failed = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("a"),
            properties: Some(object(inputs(UNKNOWN_IDENTITY))),
            name: "a".to_owned(),
            r#type: ITEM.to_owned(),
            ..Default::default()
        })
        .await
        .expect_err("the identity has unknown values");
    assert!(
        failed.message().contains("unknown values"),
        "{}",
        failed.message()
    );
    let detail = partial::detail(&failed).unwrap_or_else(|| panic!("no partial state: {failed:?}"));
    assert_eq!(detail.id, path);
    let left = json(detail.properties.as_ref());
    assert_eq!(left["content"], UNKNOWN_IDENTITY, "{left}");
    assert_eq!(meta(&left).get("identity"), None, "{left}");
    assert_eq!(
        std::fs::read_to_string(items.join("a")).expect("created"),
        UNKNOWN_IDENTITY
    );

    // The kept state is a usable prior state, and a good apply stores the identity again.
    let fixed = update(&mut plugin, "a", &path, &left, inputs("fixed")).await;
    assert_eq!(
        stored(&fixed),
        json!([{"directory": directory, "name": "a"}, "1"])
    );

    // An update that succeeds with an unusable identity keeps its new state the same way.
    let failed = plugin
        .client
        .update(rpc::UpdateRequest {
            id: path.clone(),
            urn: urn("a"),
            olds: Some(object(fixed)),
            news: Some(object(inputs(UNKNOWN_IDENTITY))),
            name: "a".to_owned(),
            r#type: ITEM.to_owned(),
            ..Default::default()
        })
        .await
        .expect_err("the identity has unknown values");
    let detail = partial::detail(&failed).unwrap_or_else(|| panic!("no partial state: {failed:?}"));
    assert_eq!(detail.id, path);
    let left = json(detail.properties.as_ref());
    assert_eq!(left["content"], UNKNOWN_IDENTITY, "{left}");
    delete(&mut plugin, "a", &path, left).await;
    assert!(!items.join("a").exists(), "deleted");
    plugin.stop().await;
}
