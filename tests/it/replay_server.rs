//! The Go binary's own recordings replayed through our server: the engine's calls (Parameterize,
//! CheckConfig, Configure, Check, Create, Delete) go to our binary, which launches the `replay`
//! subcommand as the Terraform provider. Each recording holds one session per Go process (the
//! schema is fetched twice in each), so it is cut into sessions and each runs in a fresh server.
//! A request of ours that differs from the Go bridge's fails the replay, so passing shows that our
//! server sends the same Terraform calls, by meaning, and that it turns the recorded answers into
//! the right Pulumi answers.

use pulumi_terraform_provider::proto::pulumirpc as rpc;
use pulumi_terraform_provider::recording::{Record, parse_recording};
use serde_json::{Value as Json, json};

use crate::{
    plugin::{Plugin, json, object},
    replay::upstream,
    support::script,
};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// Splits a recording into sessions, one per `ValidateProviderConfig`…`ConfigureProvider` run:
/// a session starts at the schema fetch that precedes a provider configuration.
fn sessions(name: &str) -> Vec<Vec<Record>> {
    let text = std::fs::read_to_string(upstream(name)).expect("the recording reads");
    let records = parse_recording(&text).expect("the recording parses");
    let mut sessions: Vec<Vec<Record>> = Vec::new();
    let mut configured = true;
    for record in records {
        if record.method() == "GetProviderSchema" && configured {
            sessions.push(Vec::new());
            configured = false;
        }
        if record.method() == "ConfigureProvider" {
            configured = true;
        }
        sessions
            .last_mut()
            .expect("a recording starts with the schema")
            .push(record);
    }
    sessions
}

/// Our server, parameterized with a `terraform-provider-<name>` that replays `session`.
async fn served(dir: &tempfile::TempDir, name: &str, session: &[Record]) -> Plugin {
    let recording = dir.path().join(format!("{name}.json"));
    let lines: Vec<String> = session.iter().map(Record::to_line).collect();
    std::fs::write(&recording, lines.join(",\n")).expect("writes the session");
    replaying(dir, name, &recording).await
}

/// Our server, parameterized with a `terraform-provider-<name>` in `dir` that replays the
/// recording file `recording`; the replay's report goes to `replay.stderr` in `dir`.
pub(crate) async fn replaying(
    dir: &tempfile::TempDir,
    name: &str,
    recording: &std::path::Path,
) -> Plugin {
    let wrapper = script(
        dir,
        &format!("terraform-provider-{name}"),
        &format!(
            "exec '{BIN}' replay '{}' 2>>'{}'",
            recording.display(),
            dir.path().join("replay.stderr").display()
        ),
    );
    let mut plugin = Plugin::start().await;
    plugin.parameterize(&wrapper, name).await;
    plugin
}

/// Configures the default provider of `package`; the recorded config validation must pass.
async fn configure(plugin: &mut Plugin, package: &str, news: Json) {
    let (checked, _) = plugin.configure(package, news).await;
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
}

/// What the replay reported on exit: the recorded calls our server did not make.
fn never_made(dir: &tempfile::TempDir) -> String {
    std::fs::read_to_string(dir.path().join("replay.stderr")).expect("the replay wrote its report")
}

/// The pet of `random_pet` the recording created, with `length = 3`.
const PET: &str = "curiously-diverse-newt";

/// The unknown-value sentinel of the Pulumi wire format.
const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

#[tokio::test]
async fn random_preview_and_up_replay_through_our_server() {
    let sessions = sessions("tf-grpc-log-random.json");
    assert_eq!(sessions.len(), 2, "a preview and an up");
    let urn = "urn:pulumi:dev::proj::random:index/pet:Pet::pet";
    for (session, preview) in sessions.iter().zip([true, false]) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut plugin = served(&dir, "random", session).await;
        configure(&mut plugin, "random", json!({})).await;
        let checked = plugin
            .client
            .check(rpc::CheckRequest {
                urn: urn.into(),
                news: Some(object(json!({"length": 3}))),
                ..Default::default()
            })
            .await
            .expect("Check")
            .into_inner();
        assert!(checked.failures.is_empty(), "{:?}", checked.failures);
        assert_eq!(json(checked.inputs.as_ref()), json!({"length": 3.0}));
        let created = plugin
            .client
            .create(rpc::CreateRequest {
                urn: urn.into(),
                properties: checked.inputs,
                preview,
                ..Default::default()
            })
            .await
            .expect("Create")
            .into_inner();
        let mut props = json(created.properties.as_ref());
        if preview {
            assert_eq!(created.id, "", "a preview has no ID yet");
            assert_eq!(
                props,
                json!({"id": UNKNOWN, "length": 3.0, "separator": "-"}),
                "the recorded plan, with the pet unknown"
            );
        } else {
            assert_eq!(created.id, PET, "the recorded pet is the ID");
            let delta = props
                .as_object_mut()
                .and_then(|p| p.remove("__pulumi_raw_state_delta"));
            assert!(delta.is_some(), "the raw state is recorded: {props}");
            assert_eq!(props, json!({"id": PET, "length": 3.0, "separator": "-"}));
        }
        plugin.stop().await;
        // The Go bridge fetched the schema twice per process (once more for its mux); we once.
        assert_eq!(
            never_made(&dir),
            "replay: recorded calls that were never made: GetProviderSchema ×1\n"
        );
    }
}

#[tokio::test]
async fn phpipam_destroy_with_its_config_replays_through_our_server() {
    let sessions = sessions("tf-grpc-log-config-in-destroy.json");
    assert_eq!(sessions.len(), 1, "one destroy");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut plugin = served(&dir, "phpipam", &sessions[0]).await;
    configure(
        &mut plugin,
        "phpipam",
        json!({
            "appId": "pulumi",
            "endpoint": "https://phpipam.space.voided.network/api",
            "password": "RrS94KVOZHbQnHEOhl0joqEM8MumxN",
            "username": "pulumi",
        }),
    )
    .await;
    // The recorded prior state, as the outputs the Go bridge kept for it. The optional `id`
    // attribute is renamed, and `section_id` is taken, so it is `phpipamSectionId`.
    let outputs = json!({
        "description": "", "displayOrder": 0, "dnsResolverId": 0, "editDate": "",
        "phpipamSectionId": "12", "masterSectionId": 0, "name": "Section Name",
        "permissions": "", "sectionId": 12, "showSupernetOnly": false,
        "showVlanInSubnetListing": false, "showVrfInSubnetListing": false, "strictMode": true,
        "subnetOrdering": "",
    });
    // The replay checks that the destroy sends this state with a null plan and config, and the
    // provider configured with the recorded config.
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: "12".into(),
            urn: "urn:pulumi:dev::proj::phpipam:index/section:Section::s".into(),
            properties: Some(object(outputs)),
            old_inputs: Some(object(json!({"name": "Section Name"}))),
            ..Default::default()
        })
        .await
        .expect("Delete");
    plugin.stop().await;
    // The Go bridge fetched the schema twice and validated the config twice (in CheckConfig
    // and again in Configure); we do each once.
    assert_eq!(
        never_made(&dir),
        "replay: recorded calls that were never made: GetProviderSchema ×1, \
         ValidateProviderConfig ×1\n"
    );
}
