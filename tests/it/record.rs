//! Recording real providers and replaying the recordings with the providers gone: a Pyvider
//! lifecycle (protocol 6) and an AWS 3.39.0 lifecycle against moto (protocol 5, recorded under
//! the v6 method names); secrets kept out of recordings; `PULUMI_TF_DEBUG_GRPC` itself; and
//! Pyvider and AWS (with moto stopped before the replay) sessions through our server, replayed
//! through the `replay` subcommand to the same Pulumi answers.
//!
//! A session is a function of a client and fixed inputs, so the replay makes the same requests
//! as the live run when it gets the same answers; its answers are compared with the live ones.

use crate::support::records;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use pulumi_terraform_provider::{
    host::{Client, Provider},
    proto::tfplugin6 as v6,
    recording::{
        Messages as _, REDACTED, Record, parse_recording,
        record::{Recorder, Recording},
    },
    tfschema,
};
use tfp_cty::{ProviderSchema, Type, Value};
use tfp_goplugin::Launch;

use crate::plugin::Plugin;
use tfp_testkit::moto;

use crate::support::{
    Fixtures, Moto, Resource, block, dynamic, launch, no_errors, object, traces_of, value,
};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// The answers of a session, comparable whatever the order of their maps.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Answers {
    schema: Option<v6::get_provider_schema::Response>,
    /// Every other answer, in order, as its method and `Debug` text (those messages have no
    /// maps, so the text is deterministic).
    calls: Vec<(&'static str, String)>,
}

impl Answers {
    fn push(&mut self, method: &'static str, answer: &impl std::fmt::Debug) {
        self.calls.push((method, format!("{answer:?}")));
    }

    pub(crate) fn methods(&self) -> Vec<&'static str> {
        let mut methods = vec!["GetProviderSchema"];
        methods.extend(self.calls.iter().map(|(m, _)| *m));
        methods
    }
}

async fn schema(client: &Client, answers: &mut Answers) -> ProviderSchema {
    let response = client
        .get_provider_schema()
        .await
        .expect("GetProviderSchema");
    no_errors("GetProviderSchema", &response.diagnostics);
    let schema = tfschema::provider_schema(&response).expect("schema converts");
    answers.schema = Some(response);
    schema
}

/// Plans and applies one change of `resources`; returns the new state and private.
async fn change(
    resources: &Resource<'_>,
    answers: &mut Answers,
    ty: &Type,
    (prior, config): (&Value, &Value),
    private: Vec<u8>,
) -> (Value, Vec<u8>) {
    let (plan, applied) = resources.change(prior, config, private).await;
    answers.push("PlanResourceChange", &plan);
    answers.push("ApplyResourceChange", &applied);
    (value(applied.new_state.as_ref(), ty), applied.private)
}

/// Create, read and delete a file through pyvider_file_content.
pub(crate) async fn pyvider_session(
    client: &Client,
    file: &Path,
    recording: Option<&Path>,
) -> Answers {
    let mut answers = Answers::default();
    let schema = schema(client, &mut answers).await;
    if let Some(recording) = recording {
        // On disk as soon as the call returns: a crash now would lose nothing.
        assert_eq!(records(recording).len(), 1, "GetProviderSchema is recorded");
    }
    let provider_type = schema.provider.block.implied_type();
    let configured = client
        .configure_provider(v6::configure_provider::Request {
            terraform_version: "1.10.0".into(),
            config: Some(dynamic(
                &object(&schema.provider.block, vec![]),
                &provider_type,
            )),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider");
    answers.push("ConfigureProvider", &configured);

    let resource = block(&schema.resources, "pyvider_file_content");
    let ty = resource.implied_type();
    let config = object(
        resource,
        vec![
            ("filename", Value::string(file.to_string_lossy())),
            ("content", Value::string("recorded")),
        ],
    );
    create_read_destroy(client, &mut answers, "pyvider_file_content", &ty, &config).await;
    answers
}

/// Creates a `type_name` from `config`, reads it back and destroys it, through Plan and Apply as
/// Terraform does; returns the created state.
async fn create_read_destroy(
    client: &Client,
    answers: &mut Answers,
    type_name: &str,
    ty: &Type,
    config: &Value,
) -> Value {
    let null = Value::null(ty.clone());
    let resources = Resource::new(client, type_name, ty);
    let (state, private) = change(&resources, answers, ty, (&null, config), vec![]).await;
    let read = resources.read(&state, private.clone()).await;
    answers.push("ReadResource", &read);
    let (gone, _) = change(&resources, answers, ty, (&state, &null), private).await;
    assert!(gone.is_null(), "a destroyed {type_name} has a null state");
    state
}

#[tokio::test]
async fn pyvider_lifecycle_replays_with_the_provider_gone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("managed.txt");
    let recording = dir.path().join("tf-grpc.json");
    let provider = launch("pyvider").await;
    let traces = traces_of(&provider);
    let recorder = Recorder::create(&recording, true).expect("the recording opens");
    let client = provider.client().clone().observed(Recording::new(recorder));
    let live = pyvider_session(&client, &file, Some(&recording)).await;
    assert!(!file.exists(), "the live session deleted its file");
    drop(client);
    provider.shutdown().await.expect("pyvider exits");
    traces.assert_gone().await;

    let recorded = records(&recording);
    let methods: Vec<&str> = recorded.iter().map(Record::method).collect();
    assert_eq!(methods, live.methods());
    assert!(
        recorded
            .iter()
            .all(|r| r.name.starts_with("pulumi-terraform-provider/") && r.error.is_empty())
    );

    let replayed = crate::support::replayed(&recording, "pyvider").await;
    let again = pyvider_session(replayed.client(), &file, None).await;
    assert!(again == live, "the replay answers as the provider did");
    assert!(replayed.replayer().remaining().is_empty());
    assert!(!file.exists(), "the replay touched no file");
}

/// Lists the `.txt` files in `dir` through Pyvider's list resource, a server-streaming call.
pub(crate) async fn list_session(client: &Client, dir: &Path) -> Answers {
    use tokio_stream::StreamExt as _;
    let mut answers = Answers::default();
    let schema = schema(client, &mut answers).await;
    let configured = client
        .configure_provider(v6::configure_provider::Request {
            terraform_version: "1.14.0".into(),
            config: Some(dynamic(
                &object(&schema.provider.block, vec![]),
                &schema.provider.block.implied_type(),
            )),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider");
    answers.push("ConfigureProvider", &configured);
    let list = block(&schema.list_resources, "pyvider_file_content");
    let config = object(
        list,
        vec![
            ("path", Value::string(dir.to_string_lossy())),
            ("suffix", Value::string(".txt")),
        ],
    );
    let mut stream = client
        .list_resource(v6::list_resource::Request {
            type_name: "pyvider_file_content".into(),
            config: Some(dynamic(&config, &list.implied_type())),
            include_resource_object: true,
            limit: 10,
        })
        .await
        .expect("ListResource");
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        let event = event.expect("a ListResource event");
        no_errors("ListResource", &event.diagnostic);
        events.push(event);
    }
    answers.push("ListResource", &events);
    answers
}

#[tokio::test]
async fn a_server_streaming_call_is_recorded_with_its_events_and_replays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let listed = dir.path().join("listed");
    std::fs::create_dir(&listed).expect("a directory to list");
    for name in ["a.txt", "b.txt", "c.log"] {
        std::fs::write(listed.join(name), name).expect("a file to list");
    }
    let recording = dir.path().join("tf-grpc.json");
    let provider = launch("pyvider").await;
    let traces = traces_of(&provider);
    let recorder = Recorder::create(&recording, true).expect("the recording opens");
    let client = provider.client().clone().observed(Recording::new(recorder));
    let live = list_session(&client, &listed).await;
    drop(client);
    provider.shutdown().await.expect("pyvider exits");
    traces.assert_gone().await;

    let recorded = records(&recording);
    let methods: Vec<&str> = recorded.iter().map(Record::method).collect();
    assert_eq!(methods, live.methods());
    // The stream is one record whose response is the JSON array of its events.
    let list = recorded.last().expect("the ListResource record");
    assert!(list.error.is_empty(), "{:?}", list.error);
    let events: serde_json::Value =
        serde_json::from_str(&list.response).expect("the events are a JSON array");
    let names: Vec<&str> = events
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|e| e["display_name"].as_str())
        .collect();
    assert_eq!(names.len(), 2, "the two .txt files: {events}");
    assert!(names.iter().all(|n| n.ends_with(".txt")), "{names:?}");

    let replayed = crate::support::replayed(&recording, "pyvider").await;
    let again = list_session(replayed.client(), &listed).await;
    assert!(
        again == live,
        "the replay streams the events the provider sent"
    );
    assert!(replayed.replayer().remaining().is_empty());
}

/// Configure with an S3 bucket's life against moto: create, refresh, destroy.
pub(crate) async fn aws_session(
    client: &Client,
    endpoint: &str,
    bucket: &str,
    secret: &str,
) -> Answers {
    let mut answers = Answers::default();
    let schema = schema(client, &mut answers).await;
    let provider_block = &schema.provider.block;
    let config = moto::terraform_config(endpoint, provider_block, secret);
    let config_type = provider_block.implied_type();
    let validated = client
        .validate_provider_config(v6::validate_provider_config::Request {
            config: Some(dynamic(&config, &config_type)),
        })
        .await
        .expect("ValidateProviderConfig");
    no_errors("ValidateProviderConfig", &validated.diagnostics);
    answers.push("ValidateProviderConfig", &validated);
    let configured = client
        .configure_provider(v6::configure_provider::Request {
            terraform_version: "1.10.0".into(),
            config: Some(dynamic(&config, &config_type)),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider");
    no_errors("ConfigureProvider", &configured.diagnostics);
    answers.push("ConfigureProvider", &configured);

    let resource = block(&schema.resources, "aws_s3_bucket");
    let ty = resource.implied_type();
    let bucket_config = object(resource, vec![("bucket", Value::string(bucket))]);
    let state =
        create_read_destroy(client, &mut answers, "aws_s3_bucket", &ty, &bucket_config).await;
    assert_eq!(state.attr("id").and_then(Value::as_str), Some(bucket));
    answers
}

#[tokio::test]
async fn aws_lifecycle_against_moto_replays_with_the_provider_gone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-grpc.json");
    let bucket = format!("tfp-record-{}", std::process::id());
    let secret = format!("tfp-aws-secret-{}", std::process::id());
    let moto = Moto::start();
    let endpoint = moto.endpoint.clone();
    let provider = launch("aws_3_39_0").await;
    let traces = traces_of(&provider);
    assert_eq!(provider.protocol(), 5);
    let recorder = Recorder::create(&recording, true).expect("the recording opens");
    let client = provider.client().clone().observed(Recording::new(recorder));
    let live = aws_session(&client, &endpoint, &bucket, &secret).await;
    drop(client);
    provider.shutdown().await.expect("aws exits");
    traces.assert_gone().await;
    drop(moto);

    // Protocol-5 calls are recorded under the tfplugin6 names.
    let recorded = records(&recording);
    let methods: Vec<&str> = recorded.iter().map(Record::method).collect();
    assert_eq!(methods, live.methods());
    let text = std::fs::read_to_string(&recording).expect("reads");
    assert!(!mentions(&text, &secret), "the secret key is not recorded");
    assert!(mentions(&text, REDACTED), "it is replaced by the marker");

    let replayed = crate::support::replayed(&recording, "aws").await;
    let again = aws_session(replayed.client(), &endpoint, &bucket, &secret).await;
    assert!(again == live, "the replay answers as the provider did");
    assert!(replayed.replayer().remaining().is_empty());
}

/// Configures Pyvider with `api_token` and creates a pyvider_timed_token; returns its token.
pub(crate) async fn token_session(client: &Client, api_token: &str) -> String {
    let mut answers = Answers::default();
    let schema = schema(client, &mut answers).await;
    let provider_type = schema.provider.block.implied_type();
    let config = object(
        &schema.provider.block,
        vec![("api_token", Value::string(api_token))],
    );
    let configured = client
        .configure_provider(v6::configure_provider::Request {
            terraform_version: "1.10.0".into(),
            config: Some(dynamic(&config, &provider_type)),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider");
    no_errors("ConfigureProvider", &configured.diagnostics);
    let resource = block(&schema.resources, "pyvider_timed_token");
    assert!(
        resource.attributes["token"].sensitive,
        "the token is sensitive"
    );
    let ty = resource.implied_type();
    let config = object(resource, vec![("name", Value::string("recorded"))]);
    let null = Value::null(ty.clone());
    let (state, _) = change(
        &Resource::new(client, "pyvider_timed_token", &ty),
        &mut answers,
        &ty,
        (&null, &config),
        vec![],
    )
    .await;
    state
        .attr("token")
        .and_then(Value::as_str)
        .expect("a token")
        .to_owned()
}

/// Runs [`token_session`] against Pyvider, recording to `recording`; returns the API token it
/// configured and the token it got.
async fn record_token_session(recording: &Path, redact: bool) -> (String, String) {
    let api_token = format!("tfp-api-token-{}-{redact}", std::process::id());
    // pyvider_timed_token encrypts its private state with this key.
    let mut launch = Launch::new(Fixtures::load().path("pyvider"));
    launch.env.push((
        "PYVIDER_PRIVATE_STATE_SHARED_SECRET".into(),
        "tfp-test-private-state-key".into(),
    ));
    let provider = Provider::launch(launch).await.expect("pyvider starts");
    let traces = traces_of(&provider);
    let recorder = Recorder::create(recording, redact).expect("the recording opens");
    let token = token_session(
        &provider.client().clone().observed(Recording::new(recorder)),
        &api_token,
    )
    .await;
    assert!(token.len() >= 8, "a real token");
    provider.shutdown().await.expect("pyvider exits");
    traces.assert_gone().await;
    (api_token, token)
}

/// Whether a recording holds `secret`: in its text, in a request, or in a response's strings
/// or their base64 decoding (bytes fields, such as a `DynamicValue`'s msgpack).
pub(crate) fn mentions(text: &str, secret: &str) -> bool {
    fn in_json(json: &serde_json::Value, secret: &str) -> bool {
        match json {
            serde_json::Value::String(s) => {
                s.contains(secret)
                    || base64::engine::general_purpose::STANDARD
                        .decode(s)
                        .is_ok_and(|bytes| {
                            bytes.windows(secret.len()).any(|w| w == secret.as_bytes())
                        })
            }
            serde_json::Value::Array(items) => items.iter().any(|i| in_json(i, secret)),
            serde_json::Value::Object(map) => map.values().any(|v| in_json(v, secret)),
            _ => false,
        }
    }
    text.contains(secret)
        || parse_recording(text).expect("parses").iter().any(|r| {
            r.request.contains(secret)
                || serde_json::from_str(&r.response).is_ok_and(|json| in_json(&json, secret))
        })
}

#[tokio::test]
async fn recordings_hold_no_secrets_unless_asked() {
    let dir = tempfile::tempdir().expect("temp dir");

    // Unredacted, both secrets are there to find: the search works.
    let plain = dir.path().join("plain.json");
    let (api_token, token) = record_token_session(&plain, false).await;
    let text = std::fs::read_to_string(&plain).expect("reads");
    assert!(mentions(&text, &api_token) && mentions(&text, &token));
    assert!(!mentions(&text, REDACTED));

    // Redacted (the default), neither is.
    let redacted = dir.path().join("redacted.json");
    let (api_token, token) = record_token_session(&redacted, true).await;
    let text = std::fs::read_to_string(&redacted).expect("reads");
    assert!(
        !mentions(&text, &api_token),
        "the sensitive provider config is redacted"
    );
    assert!(
        !mentions(&text, &token),
        "the sensitive attribute is redacted"
    );
    assert!(mentions(&text, REDACTED));

    // The redacted recording still replays requests that carry the real secrets, and answers
    // with the marker where the token was.
    let replayed = crate::support::replayed(&redacted, "pyvider").await;
    let replayed_token = token_session(replayed.client(), &api_token).await;
    assert_eq!(replayed_token, REDACTED);
    assert!(replayed.replayer().remaining().is_empty());
}

#[test]
fn the_environment_variable_records_every_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-grpc.json");
    let provider = Fixtures::load().path("random_3_6_3");
    let run = |unredacted: bool| {
        let mut command = std::process::Command::new(BIN);
        command
            .arg("tf-schema")
            .arg(&provider)
            .env("PULUMI_TF_DEBUG_GRPC", &recording)
            .env_remove("PULUMI_TF_DEBUG_GRPC_UNREDACTED");
        if unredacted {
            command.env("PULUMI_TF_DEBUG_GRPC_UNREDACTED", "true");
        }
        let output = command.output().expect("runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = run(false);
    assert!(
        !stderr.contains("PULUMI_TF_DEBUG_GRPC_UNREDACTED"),
        "{stderr}"
    );
    let stderr = run(true);
    assert!(
        stderr.contains("warning: PULUMI_TF_DEBUG_GRPC_UNREDACTED is set"),
        "{stderr}"
    );
    // Both runs appended to the same file, which only its owner can read.
    let recorded = records(&recording);
    let methods: Vec<&str> = recorded.iter().map(Record::method).collect();
    // Each run asks for the schema, then for the identity schemas (which random 3.6.3, older
    // than resource identity, does not have).
    assert_eq!(
        methods,
        [
            "GetProviderSchema",
            "GetResourceIdentitySchemas",
            "GetProviderSchema",
            "GetResourceIdentitySchemas"
        ]
    );
    let schema: v6::get_provider_schema::Response =
        recorded[0].response_message().expect("the schema decodes");
    assert!(schema.resource_schemas.contains_key("random_password"));
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&recording)
        .expect("exists")
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "mode {mode:o}");
}

/// What a Pulumi session needs to know of its provider.
struct Session {
    /// The provider executable, or a wrapper that replays it.
    provider: PathBuf,
    /// The package name Parameterize answers.
    package: &'static str,
    /// The provider configuration, as `pulumi config` stores it.
    config: serde_json::Value,
    /// The resource's type token and inputs.
    token: &'static str,
    news: serde_json::Value,
}

/// A resource's life through the Pulumi protocol (Parameterize, CheckConfig, Configure, Check,
/// Create, Read, Delete); returns every answer's text.
async fn pulumi_session(plugin: &mut Plugin, session: Session) -> Vec<String> {
    use pulumi_terraform_provider::proto::pulumirpc::{
        self as rpc, parameterize_request::Parameters,
    };
    let client = &mut plugin.client;
    let mut answers = Vec::new();
    let parameterized = client
        .parameterize(rpc::ParameterizeRequest {
            parameters: Some(Parameters::Args(
                rpc::parameterize_request::ParametersArgs {
                    args: vec![session.provider.to_string_lossy().into_owned()],
                },
            )),
        })
        .await
        .expect("Parameterize")
        .into_inner();
    assert_eq!(parameterized.name, session.package);
    answers.push(format!("{parameterized:?}"));
    let (checked, configured) = plugin.configure(session.package, session.config).await;
    answers.push(format!("{checked:?}"));
    answers.push(format!("{configured:?}"));
    let client = &mut plugin.client;
    let urn = format!("urn:pulumi:test::proj::{}::r", session.token);
    let checked = client
        .check(rpc::CheckRequest {
            urn: urn.clone(),
            news: Some(crate::plugin::object(session.news)),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    answers.push(format!("{checked:?}"));
    let created = client
        .create(rpc::CreateRequest {
            urn: urn.clone(),
            properties: checked.inputs.clone(),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    answers.push(format!("{created:?}"));
    let read = client
        .read(rpc::ReadRequest {
            id: created.id.clone(),
            urn: urn.clone(),
            properties: created.properties.clone(),
            inputs: checked.inputs,
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    answers.push(format!("{read:?}"));
    client
        .delete(rpc::DeleteRequest {
            id: created.id,
            urn,
            properties: read.properties,
            ..Default::default()
        })
        .await
        .expect("Delete");
    answers
}

/// Runs `session` through our binary recording its Terraform calls, then the same session
/// through a fresh binary whose provider is `wrapper_name`, a script replaying that recording;
/// checks that the answers are identical and returns the recorded methods.
async fn live_then_replayed(
    dir: &tempfile::TempDir,
    wrapper_name: &str,
    session: impl Fn(PathBuf) -> Session,
    real: &Path,
    before_replay: impl FnOnce(),
) -> Vec<String> {
    let recording = dir.path().join("tf-grpc.json");
    let mut live = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;
    let answers = pulumi_session(&mut live, session(real.to_owned())).await;
    live.stop().await;
    let methods: Vec<String> = records(&recording)
        .iter()
        .map(|r| r.method().to_owned())
        .collect();
    assert!(
        methods.iter().any(|m| m == "ApplyResourceChange"),
        "{methods:?}"
    );
    before_replay();

    // The same session against the recording, through a wrapper named like the provider.
    let wrapper = crate::support::script(
        dir,
        wrapper_name,
        &format!("exec '{BIN}' replay '{}'", recording.display()),
    );
    let mut replayed = Plugin::start().await;
    let again = pulumi_session(&mut replayed, session(wrapper)).await;
    replayed.stop().await;
    assert_eq!(again, answers, "the replay answers as the provider did");
    methods
}

#[tokio::test]
async fn pyvider_through_our_server_replays_to_identical_pulumi_answers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("served.txt");
    let session = |provider: PathBuf| Session {
        provider,
        package: "pyvider",
        config: serde_json::json!({}),
        token: "pyvider:index/fileContent:FileContent",
        news: serde_json::json!({"filename": file.to_string_lossy(), "content": "served"}),
    };
    let pyvider = Fixtures::load().path("pyvider");
    live_then_replayed(
        &dir,
        "terraform-provider-pyvider",
        session,
        &pyvider,
        || {
            assert!(!file.exists(), "the live session deleted its file");
        },
    )
    .await;
    assert!(!file.exists(), "the replay touched no file");
}

#[tokio::test]
async fn aws_through_our_server_replays_to_identical_pulumi_answers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let moto = Moto::start();
    let endpoint = moto.endpoint.clone();
    let bucket = format!("tfp-served-{}", std::process::id());
    let secret = format!("tfp-served-secret-{}", std::process::id());
    let session = |provider: PathBuf| Session {
        provider,
        package: "aws",
        config: moto::pulumi_config(&endpoint, "test", secret.clone().into()),
        token: "aws:index/s3Bucket:S3Bucket",
        news: serde_json::json!({"bucket": bucket, "forceDestroy": true}),
    };
    let aws = Fixtures::load().path("aws_3_39_0");
    // The wrapper keeps the release binary's name, which gives the package its name.
    let name = aws
        .file_name()
        .expect("a file")
        .to_string_lossy()
        .into_owned();
    let methods = live_then_replayed(&dir, &name, session, &aws, || drop(moto)).await;
    assert!(
        methods.iter().any(|m| m == "ReadResource"),
        "the refresh was recorded: {methods:?}"
    );
    let text = std::fs::read_to_string(dir.path().join("tf-grpc.json")).expect("reads");
    assert!(!mentions(&text, &secret), "the secret key is not recorded");
}
