//! List through our server: the engine's `List` served from the Terraform provider's list
//! resources, with Pyvider 0.8.1's `pyvider_file_content` (no `id`: its results' IDs are their
//! identities as JSON, which Read imports by identity, `identity.rs`; this resource implements
//! no import at all) and our tfptest's `tfptest_item` (an `id`: its results' IDs are the
//! resources' Pulumi IDs, each imported here). Paging resumes where the previous page stopped.
//!
//! This is the RPC level; `cargo xtask e2e list` sends `List` with the real CLI (`pulumi do`).

use std::path::Path;

use pulumi_terraform_provider::proto::pulumirpc::{self as rpc, list_response::Response as Answer};
use serde_json::{Value as Json, json};

use crate::{
    plugin::{Plugin, json, object},
    support::Fixtures,
};

const FILE: &str = "pyvider:index/fileContent:FileContent";
const ITEM: &str = "tfptest:index/item:Item";
const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/// What one List call streamed.
#[derive(Debug, Default, PartialEq)]
struct Listing {
    /// `(id, name)` of each result, in order.
    results: Vec<(String, String)>,
    continuation: Option<String>,
    computed: bool,
}

async fn list(plugin: &mut Plugin, request: rpc::ListRequest) -> Result<Listing, tonic::Status> {
    let mut stream = plugin.client.list(request).await?.into_inner();
    let mut listing = Listing::default();
    while let Some(answer) = stream.message().await? {
        match answer.response {
            Some(Answer::Result(r)) => listing.results.push((r.id, r.name)),
            Some(Answer::Continuation(c)) => listing.continuation = Some(c.continuation_token),
            Some(Answer::Computed(_)) => listing.computed = true,
            None => panic!("an empty List answer"),
        }
    }
    Ok(listing)
}

fn query(token: &str, query: Json) -> rpc::ListRequest {
    rpc::ListRequest {
        token: token.to_owned(),
        query: Some(object(query)),
        ..Default::default()
    }
}

/// Imports `id` as the engine does (`import` option, `pulumi import`) and returns the outputs.
async fn import(plugin: &mut Plugin, token: &str, id: &str) -> Json {
    let read = plugin
        .client
        .read(rpc::ReadRequest {
            id: id.to_owned(),
            urn: format!("urn:pulumi:test::proj::{token}::imported"),
            name: "imported".to_owned(),
            r#type: token.to_owned(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|err| panic!("import of {id}: {err:?}"))
        .into_inner();
    json(read.properties.as_ref())
}

/// Our plugin, started with `env`, serving tfptest.
async fn tfptest(env: &[(&str, &Path)]) -> Plugin {
    let mut plugin = Plugin::start_with_env(env).await;
    plugin
        .parameterize(&Fixtures::load().path("tfptest"), "tfptest")
        .await;
    plugin.configure("tfptest", json!({})).await;
    plugin
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir.join("subdirectory")).expect("a directory");
    for (name, content) in files {
        std::fs::write(dir.join(name), content).expect("a file");
    }
}

#[tokio::test]
async fn pyvider_lists_every_file_of_a_directory_with_importable_ids() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let files = dir.path().join("files");
    write(
        &files,
        &[
            ("a.txt", "alpha"),
            ("b.txt", "beta"),
            ("c.log", "gamma"),
            (".hidden", "delta"),
        ],
    );
    let path = |name: &str| files.join(name).to_string_lossy().into_owned();
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    plugin.configure("pyvider", json!({})).await;

    let directory = files.to_string_lossy().into_owned();
    let every = list(&mut plugin, query(FILE, json!({"path": directory})))
        .await
        .expect("List");
    // No `id`: each ID is the file's identity, as JSON.
    let expected: Vec<(String, String)> = ["a.txt", "b.txt", "c.log"]
        .iter()
        .map(|name| {
            (
                json!({"filename": path(name)}).to_string(),
                (*name).to_owned(),
            )
        })
        .collect();
    assert_eq!(
        every,
        Listing {
            results: expected.clone(),
            ..Listing::default()
        }
    );

    // The query is the list resource's configuration, in Pulumi names.
    let filtered = list(
        &mut plugin,
        query(FILE, json!({"path": directory, "suffix": ".txt"})),
    )
    .await
    .expect("List with a suffix");
    assert_eq!(filtered.results, expected[..2]);
    let hidden = list(
        &mut plugin,
        query(FILE, json!({"path": directory, "includeHidden": true})),
    )
    .await
    .expect("List with hidden files");
    assert_eq!(hidden.results.len(), 4);
    assert_eq!(hidden.results[0].1, ".hidden");

    // A query not known yet (a preview) lists nothing and says so.
    let unknown = list(&mut plugin, query(FILE, json!({"path": UNKNOWN})))
        .await
        .expect("List of an unknown query");
    assert_eq!(
        unknown,
        Listing {
            computed: true,
            ..Listing::default()
        }
    );

    // As in Terraform, a query that leaves out a required argument or has one the list does
    // not take is refused before the provider sees it, naming them as the program does.
    let invalid = list(&mut plugin, query(FILE, json!({})))
        .await
        .expect_err("no path");
    assert_eq!(invalid.code(), tonic::Code::InvalidArgument);
    assert!(
        invalid.message().contains(&format!(
            "the query to list {FILE} lacks required arguments: `path`"
        )),
        "{invalid:?}"
    );
    let typo = list(&mut plugin, query(FILE, json!({"path": "/", "pathh": "/"})))
        .await
        .expect_err("a typo");
    assert!(
        typo.message()
            .contains("has arguments it does not take: `pathh`"),
        "{typo:?}"
    );
    // A request without a token says so, not that a URN is malformed.
    let tokenless = list(&mut plugin, query("", json!({})))
        .await
        .expect_err("no token");
    assert_eq!(tokenless.code(), tonic::Code::InvalidArgument);
    assert!(
        tokenless
            .message()
            .contains("List without a resource type token"),
        "{tokenless:?}"
    );

    plugin.stop().await;
}

#[tokio::test]
async fn tfptest_items_list_by_id_with_their_identities_and_in_pages() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let recording = dir.path().join("recording.json");
    let items = dir.path().join("items");
    write(&items, &[("a", "1"), ("b", "2"), ("c", "3")]);
    let directory = items.to_string_lossy().into_owned();
    let path = |name: &str| format!("{directory}/{name}");
    let mut plugin = tfptest(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;

    let every = list(&mut plugin, query(ITEM, json!({"directory": directory})))
        .await
        .expect("List");
    // With an `id`: each ID is the resource's Pulumi ID, which imports by ID.
    let expected: Vec<(String, String)> = ["a", "b", "c"]
        .iter()
        .map(|name| (path(name), (*name).to_owned()))
        .collect();
    assert_eq!(every.results, expected);
    assert_eq!(every.continuation, None);
    for (id, name) in &every.results {
        let outputs = import(&mut plugin, ITEM, id).await;
        assert_eq!(outputs["name"], name.as_str());
        let meta: Json =
            serde_json::from_str(outputs["__meta"].as_str().expect("__meta")).expect("JSON");
        assert_eq!(
            meta["identity"],
            json!({"directory": directory, "name": name})
        );
    }

    // Pages: two, a continuation, then the rest.
    let first = list(
        &mut plugin,
        rpc::ListRequest {
            page_size: 2,
            ..query(ITEM, json!({"directory": directory}))
        },
    )
    .await
    .expect("the first page");
    assert_eq!(first.results, expected[..2]);
    let token = first.continuation.expect("another page");
    let second = list(
        &mut plugin,
        rpc::ListRequest {
            page_size: 2,
            continuation_token: token,
            ..query(ITEM, json!({"directory": directory}))
        },
    )
    .await
    .expect("the second page");
    assert_eq!(
        second,
        Listing {
            results: expected[2..].to_vec(),
            ..Listing::default()
        }
    );
    // The limit counts every page, and the engine sends it with each: the page that reaches
    // it is the last.
    let mut paged = Vec::new();
    let mut token = String::new();
    loop {
        let page = list(
            &mut plugin,
            rpc::ListRequest {
                limit: 2,
                page_size: 1,
                continuation_token: token,
                ..query(ITEM, json!({"directory": directory}))
            },
        )
        .await
        .expect("a page of a limited listing");
        paged.extend(page.results);
        let Some(next) = page.continuation else { break };
        token = next;
    }
    assert_eq!(paged, expected[..2]);
    let limited = list(
        &mut plugin,
        rpc::ListRequest {
            limit: 1,
            ..query(ITEM, json!({"directory": directory}))
        },
    )
    .await
    .expect("a limited listing");
    assert_eq!(
        limited,
        Listing {
            results: expected[..1].to_vec(),
            ..Listing::default()
        }
    );
    plugin.stop().await;

    // The provider streamed each item with its identity, and was asked for objects, which the
    // IDs come from.
    let records = crate::support::records(&recording);
    let listing = records
        .iter()
        .find(|r| r.method() == "ListResource")
        .expect("a ListResource call");
    assert!(
        listing.request.contains("include_resource_object: true")
            || listing.request.contains("include_resource_object:true"),
        "{}",
        listing.request
    );
    let events: Vec<Json> = serde_json::from_str(&listing.response).expect("the events");
    assert_eq!(events.len(), 3, "{events:?}");
    for event in &events {
        assert!(
            event["identity"]["identity_data"].is_object(),
            "an event without its identity: {event}"
        );
    }
    assert!(
        records
            .iter()
            .any(|r| r.method() == "ValidateListResourceConfig"),
        "the query was validated first"
    );
}

/// The content that makes tfptest list a file's object with a null `id`
/// (`WITHOUT_ID` in `testdata/providers/tfptest/tfptest/item_list.py`).
const WITHOUT_ID: &str = "tfptest: list me without an id";

/// A listed object without its `id` is listed by its identity, which imports, and the items
/// around it are listed as usual: one incomplete object does not end the listing.
#[tokio::test]
async fn an_item_listed_without_its_id_is_listed_by_its_identity() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let items = dir.path().join("items");
    write(&items, &[("a", "1"), ("b", WITHOUT_ID), ("c", "3")]);
    let directory = items.to_string_lossy().into_owned();
    let mut plugin = tfptest(&[]).await;

    let every = list(&mut plugin, query(ITEM, json!({"directory": directory})))
        .await
        .expect("List");
    let by_identity = json!({"directory": directory, "name": "b"}).to_string();
    let id = |name: &str| (format!("{directory}/{name}"), name.to_owned());
    assert_eq!(
        every.results,
        [id("a"), (by_identity.clone(), "b".to_owned()), id("c")]
    );
    let imported = import(&mut plugin, ITEM, &by_identity).await;
    assert_eq!(imported["content"], WITHOUT_ID, "{imported}");
    assert_eq!(imported["id"], format!("{directory}/b"), "{imported}");
    plugin.stop().await;
}
