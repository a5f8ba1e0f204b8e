//! Unknown values where none can be: a resource's state never holds one, and an apply needs
//! every input known. Such input is refused with INVALID_ARGUMENT naming the property before
//! anything reaches the provider, so nothing is reported done that was not. Pyvider's
//! `pyvider_file_content` shows it on the file system.

use pulumi_terraform_provider::proto::pulumirpc as rpc;
use serde_json::{Value as Json, json};
use tonic::{Code, Status};

use crate::{
    plugin::{Plugin, json, object},
    support::Fixtures,
};

const FILE: &str = "pyvider:index/fileContent:FileContent";
const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

fn urn(name: &str) -> String {
    format!("urn:pulumi:test::proj::{FILE}::{name}")
}

/// Asserts that `status` refuses the input and names `property`.
#[track_caller]
fn assert_refused(what: &str, status: &Status, property: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
    assert!(
        status.message().contains(&format!("`{property}`")) && status.message().contains("unknown"),
        "{what} names the unknown property: {}",
        status.message()
    );
}

#[tokio::test]
async fn a_state_with_unknowns_is_refused_and_nothing_is_deleted() {
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    let work = tempfile::tempdir().expect("temp dir");
    let file = work.path().join("kept.txt");
    let filename = file.to_string_lossy().into_owned();
    let inputs = json!({"filename": filename, "content": "kept"});
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("f"),
            properties: Some(object(inputs.clone())),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    assert!(file.exists());
    let state = json(created.properties.as_ref());
    let with_unknown = |delta: bool| {
        let mut state = state.clone();
        let map = state.as_object_mut().expect("an object");
        map.insert("filename".into(), Json::from(UNKNOWN));
        if !delta {
            map.remove("__pulumi_raw_state_delta");
        }
        object(state)
    };

    for delta in [true, false] {
        let deleted = plugin
            .client
            .delete(rpc::DeleteRequest {
                id: created.id.clone(),
                urn: urn("f"),
                properties: Some(with_unknown(delta)),
                ..Default::default()
            })
            .await
            .expect_err("Delete of a state with an unknown");
        assert_refused("Delete", &deleted, "filename");
        assert!(file.exists(), "nothing was deleted");

        let updated = plugin
            .client
            .update(rpc::UpdateRequest {
                id: created.id.clone(),
                urn: urn("f"),
                olds: Some(with_unknown(delta)),
                news: Some(object(json!({"filename": filename, "content": "changed"}))),
                ..Default::default()
            })
            .await
            .expect_err("Update from a state with an unknown");
        assert_refused("Update", &updated, "filename");
        let diffed = plugin
            .client
            .diff(rpc::DiffRequest {
                id: created.id.clone(),
                urn: urn("f"),
                olds: Some(with_unknown(delta)),
                news: Some(object(inputs.clone())),
                ..Default::default()
            })
            .await
            .expect_err("Diff from a state with an unknown");
        assert_refused("Diff", &diffed, "filename");
        let read = plugin
            .client
            .read(rpc::ReadRequest {
                id: created.id.clone(),
                urn: urn("f"),
                properties: Some(with_unknown(delta)),
                inputs: Some(object(inputs.clone())),
                ..Default::default()
            })
            .await
            .expect_err("Read of a state with an unknown");
        assert_refused("Read", &read, "filename");
    }
    assert_eq!(std::fs::read_to_string(&file).expect("the file"), "kept");

    // An empty state identifies nothing to delete.
    let empty = plugin
        .client
        .delete(rpc::DeleteRequest {
            id: created.id.clone(),
            urn: urn("f"),
            properties: Some(object(json!({}))),
            ..Default::default()
        })
        .await
        .expect_err("Delete of an empty state");
    assert_eq!(empty.code(), Code::InvalidArgument, "{empty:?}");
    assert!(
        empty.message().contains("empty"),
        "the error says why: {}",
        empty.message()
    );
    assert!(file.exists(), "nothing was deleted");

    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: created.id,
            urn: urn("f"),
            properties: created.properties,
            ..Default::default()
        })
        .await
        .expect("Delete of the real state");
    assert!(!file.exists(), "the real state deletes the file");
    plugin.stop().await;
}

#[tokio::test]
async fn an_apply_with_unknown_inputs_is_refused_before_the_provider_sees_it() {
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    let work = tempfile::tempdir().expect("temp dir");
    let file = work.path().join("never.txt");
    let inputs = object(json!({"filename": file.to_string_lossy(), "content": UNKNOWN}));
    // A preview plans with the unknown.
    let preview = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("f"),
            properties: Some(inputs.clone()),
            preview: true,
            ..Default::default()
        })
        .await
        .expect("a preview with an unknown input")
        .into_inner();
    assert_eq!(preview.id, "");
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("f"),
            properties: Some(inputs.clone()),
            ..Default::default()
        })
        .await
        .expect_err("a create with an unknown input");
    assert_refused("Create", &created, "content");
    assert!(!file.exists(), "nothing was created");

    let kept = work.path().join("kept.txt");
    let filename = kept.to_string_lossy().into_owned();
    let made = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("k"),
            properties: Some(object(json!({"filename": filename, "content": "kept"}))),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    let updated = plugin
        .client
        .update(rpc::UpdateRequest {
            id: made.id.clone(),
            urn: urn("k"),
            olds: made.properties.clone(),
            news: Some(object(json!({"filename": filename, "content": UNKNOWN}))),
            ..Default::default()
        })
        .await
        .expect_err("an update with an unknown input");
    assert_refused("Update", &updated, "content");
    assert_eq!(std::fs::read_to_string(&kept).expect("the file"), "kept");
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: made.id,
            urn: urn("k"),
            properties: made.properties,
            ..Default::default()
        })
        .await
        .expect("Delete");
    plugin.stop().await;
}
