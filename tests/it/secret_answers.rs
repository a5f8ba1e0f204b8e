//! Secrets in our answers: Configure accepts secrets, so the engine sends values marked secret and
//! marks nothing in our answers itself. Every answer is then secret where the engine would have
//! made it secret for a provider that does not accept secrets (pulumi/pulumi
//! `pkg/resource/plugin/provider_plugin.go`, `annotateSecrets` and Invoke): a property whose
//! input was secret is secret in the outputs, objects key by key and arrays as a whole, and every
//! result of an invoke given a secret is secret. Each test fails while Configure answers
//! `acceptSecrets: false`, when the provider's answers came back in plain text.

use std::path::Path;

use pulumi_terraform_provider::proto::pulumirpc as rpc;
use serde_json::{Value as Json, json};

use crate::{
    plugin::{Plugin, SECRET, SECRET_SIG, json, object, secret},
    support::Fixtures,
};

fn urn(token: &str, name: &str) -> String {
    format!("urn:pulumi:test::proj::{token}::{name}")
}

/// Our server parameterized with the fixture `key` as `name`, configured with `config`;
/// asserts that Configure accepts secrets.
async fn configured(key: &str, name: &str, config: Json) -> Plugin {
    let mut plugin = Plugin::start().await;
    plugin.parameterize(&Fixtures::load().path(key), name).await;
    let (checked, configure) = plugin.configure(name, config).await;
    assert_eq!(checked.failures, vec![]);
    assert!(
        configure.accept_secrets,
        "Configure accepts secrets, so that the engine sends them marked"
    );
    plugin
}

fn item(dir: &Path, content: Json) -> Json {
    json!({"directory": dir.to_string_lossy(), "name": "item", "content": content})
}

/// A `tfptest_item` with secret content through Create, Diff, Update, Read and Delete: every
/// state answered holds the content secret, its other properties in plain text, and the
/// provider got the real value each time (the file holds it).
#[tokio::test]
async fn a_secret_input_is_secret_in_every_state_answered() {
    const ITEM: &str = "tfptest:index/item:Item";
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("item");
    let item_urn = urn(ITEM, "item");
    let mut plugin = configured("tfptest", "tfptest", json!({})).await;

    let first = "first-secret-3c1d";
    let inputs = plugin
        .check(&item_urn, item(dir.path(), secret(json!(first))))
        .await;
    assert_eq!(json(Some(&inputs))["content"], secret(json!(first)));
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: item_urn.clone(),
            properties: Some(inputs.clone()),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    assert_eq!(std::fs::read_to_string(&file).expect("the item"), first);
    let state = json(created.properties.as_ref());
    assert_eq!(state["content"], secret(json!(first)), "Create: {state}");
    assert_eq!(state["directory"], json!(dir.path().to_string_lossy()));

    // The same secret, and the same value no longer secret, are no change.
    for content in [secret(json!(first)), json!(first)] {
        let diff = plugin
            .client
            .diff(rpc::DiffRequest {
                id: created.id.clone(),
                urn: item_urn.clone(),
                olds: created.properties.clone(),
                news: Some(object(item(dir.path(), content))),
                old_inputs: Some(inputs.clone()),
                ..Default::default()
            })
            .await
            .expect("Diff")
            .into_inner();
        assert_eq!(
            diff.changes,
            rpc::diff_response::DiffChanges::DiffNone as i32,
            "{diff:?}"
        );
    }

    let second = "second-secret-8e0a";
    let news = plugin
        .check(&item_urn, item(dir.path(), secret(json!(second))))
        .await;
    let updated = plugin
        .client
        .update(rpc::UpdateRequest {
            id: created.id.clone(),
            urn: item_urn.clone(),
            olds: created.properties.clone(),
            news: Some(news.clone()),
            old_inputs: Some(inputs),
            ..Default::default()
        })
        .await
        .expect("Update")
        .into_inner();
    assert_eq!(std::fs::read_to_string(&file).expect("the item"), second);
    let state = json(updated.properties.as_ref());
    assert_eq!(state["content"], secret(json!(second)), "Update: {state}");

    // The file changed behind the provider's back: the drift read is secret too.
    let drifted = "drifted-secret-51f7";
    std::fs::write(&file, drifted).expect("the item is edited");
    let read = plugin
        .client
        .read(rpc::ReadRequest {
            id: created.id.clone(),
            urn: item_urn.clone(),
            properties: updated.properties.clone(),
            inputs: Some(news),
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    let state = json(read.properties.as_ref());
    assert_eq!(state["content"], secret(json!(drifted)), "Read: {state}");
    let inputs = json(read.inputs.as_ref());
    assert_eq!(inputs["content"], secret(json!(drifted)), "Read: {inputs}");
    assert_eq!(inputs["name"], "item");

    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: created.id,
            urn: item_urn,
            properties: read.properties,
            ..Default::default()
        })
        .await
        .expect("Delete");
    assert!(!file.exists(), "Delete removed the item");
    plugin.stop().await;
}

/// random 3.6.3's `random_shuffle`: an input list holding one secret comes back secret as a whole
/// (a provider may reorder a list, and the secret move), from Check and in the state; a map
/// holding one secret keeps its other values plain.
#[tokio::test]
async fn a_list_holding_a_secret_is_secret_whole_and_a_map_key_by_key() {
    const SHUFFLE: &str = "random:index/shuffle:Shuffle";
    let shuffle_urn = urn(SHUFFLE, "shuffle");
    let mut plugin = configured("random_3_6_3", "random", json!({})).await;
    let list = json!(["plain-a", secret(json!("secret-b-0e4c"))]);
    let news = json!({
        "inputs": list,
        "keepers": {"plain": "p", "hidden": secret(json!("k-77d2"))},
    });
    let inputs = plugin.check(&shuffle_urn, news).await;
    let checked = json(Some(&inputs));
    assert_eq!(
        checked["inputs"],
        secret(json!(["plain-a", "secret-b-0e4c"])),
        "Check: {checked}"
    );
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: shuffle_urn,
            properties: Some(inputs),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    let state = json(created.properties.as_ref());
    let shuffled = &state["inputs"];
    assert_eq!(shuffled[SECRET_SIG], SECRET, "Create: {state}");
    assert_eq!(
        shuffled["value"].as_array().map(Vec::len),
        Some(2),
        "{state}"
    );
    assert_eq!(
        state["keepers"],
        json!({"plain": "p", "hidden": secret(json!("k-77d2"))}),
        "Create: {state}"
    );
    plugin.stop().await;
}

/// An invoke given a secret argument answers every result secret; given none, none.
#[tokio::test]
async fn a_function_given_a_secret_answers_a_secret() {
    let mut plugin = configured("pyvider", "pyvider", json!({})).await;
    for (argument, expected) in [
        (secret(json!("quiet")), secret(json!("QUIET"))),
        (json!("loud"), json!("LOUD")),
    ] {
        let invoked = plugin
            .client
            .invoke(rpc::InvokeRequest {
                tok: "pyvider:index/upper:upper".into(),
                args: Some(object(json!({"inputStr": argument}))),
                ..Default::default()
            })
            .await
            .expect("Invoke")
            .into_inner();
        assert_eq!(invoked.failures, vec![]);
        assert_eq!(json(invoked.r#return.as_ref())["result"], expected);
    }
    plugin.stop().await;
}
