//! The order of a replacement, as Diff asks it of the engine: a resource the program named keeps
//! its name, so the old one must go before the new one is made; one we named is named afresh
//! when the engine checks it again, and keeps the engine's order (create, then delete).
//!
//! Our tfptest provider's `tfptest_item` is a file `<directory>/<name>`, its `name` autonamed,
//! and a changed `directory` replaces it.

use serde_json::json;

use crate::{
    plugin::{Plugin, json, object},
    support::Fixtures,
};

const ITEM: &str = "tfptest:index/item:Item";

#[tokio::test]
async fn a_replacement_deletes_first_when_the_program_named_the_resource() {
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("tfptest"), "tfptest")
        .await;
    plugin.configure("tfptest", json!({})).await;
    let dir = tempfile::tempdir().expect("a temp dir");
    let (before, after) = (dir.path().join("a"), dir.path().join("b"));
    for (named_by_the_program, deletes_first) in [(true, true), (false, false)] {
        let urn = format!("urn:pulumi:test::proj::{ITEM}::item{named_by_the_program}");
        let mut news = json!({"directory": after.to_string_lossy(), "content": "one"});
        if named_by_the_program {
            news["name"] = json!("mine");
        }
        let checked = plugin.check(&urn, news).await;
        let name = json(Some(&checked))["name"].clone();
        let state = json!({
            "id": format!("{}/{}", before.to_string_lossy(), name.as_str().expect("named")),
            "directory": before.to_string_lossy(),
            "name": name,
            "content": "one",
        });
        let diff = plugin
            .client
            .diff(pulumi_terraform_provider::proto::pulumirpc::DiffRequest {
                id: state["id"].as_str().expect("an id").to_owned(),
                urn: urn.clone(),
                olds: Some(object(state)),
                news: Some(checked),
                r#type: ITEM.to_owned(),
                ..Default::default()
            })
            .await
            .expect("Diff")
            .into_inner();
        assert_eq!(diff.replaces, ["directory"], "{diff:?}");
        assert_eq!(
            diff.delete_before_replace, deletes_first,
            "named by the program: {named_by_the_program}"
        );
    }
    plugin.stop().await;
}
