//! The `record` pass-through in front of real providers, started by our own host through a
//! `terraform-provider-<name>` launcher as Terraform, OpenTofu or the bridge start it: it serves
//! the protocol the real provider chose (6 for Pyvider, 5 for AWS 3.39.0) under AutoMTLS,
//! answers exactly as the provider does (unary and streaming calls), records what the host sent
//! in the `PULUMI_TF_DEBUG_GRPC` format, redacted, and leaves no process or socket behind.
//! (`cargo xtask e2e` runs it under OpenTofu and the `pulumi` CLI, in the oracle comparisons.)

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pulumi_terraform_provider::{
    host::Provider,
    proto::tfplugin6 as v6,
    recording::{REDACTED, Record},
    tfschema,
};
use tfp_cty::Value;
use tfp_goplugin::Launch;
use tfp_testkit::{
    gone::assert_exited,
    processes::{children_of, running},
};

use crate::record::{aws_session, list_session, mentions, pyvider_session, token_session};
use crate::support::records;
use crate::support::{Fixtures, Moto, dynamic, launch, no_errors, object, script, traces_of};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// A launcher named `terraform-provider-<name>` that runs the pass-through in front of `real`.
fn launcher(
    dir: &tempfile::TempDir,
    name: &str,
    recording: &Path,
    real: &Path,
    flags: &str,
) -> PathBuf {
    script(
        dir,
        &format!("terraform-provider-{name}"),
        &format!(
            "exec '{BIN}' record {flags} '{}' '{}'",
            recording.display(),
            real.display()
        ),
    )
}

/// Starts the pass-through with our host, which offers protocols 5 and 6 and uses AutoMTLS.
async fn through(launcher: &Path) -> Provider {
    let provider = Provider::launch(Launch::new(launcher))
        .await
        .unwrap_or_else(|err| panic!("launching the pass-through: {err:#}"));
    assert!(provider.mtls(), "the pass-through answers AutoMTLS");
    provider
}

/// The real provider the pass-through `provider` started.
fn real_provider(provider: &Provider) -> u32 {
    let pid = provider.pid().expect("the pass-through runs");
    let children = children_of(pid);
    assert_eq!(
        children.len(),
        1,
        "one real provider under {pid}: {children:?}"
    );
    children[0]
}

fn methods(recording: &Path) -> Vec<String> {
    records(recording)
        .iter()
        .map(|r| r.method().to_owned())
        .collect()
}

#[tokio::test]
async fn pyvider_through_the_pass_through_answers_as_pyvider_and_is_recorded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("managed.txt");
    let listed = dir.path().join("listed");
    std::fs::create_dir(&listed).expect("a directory to list");
    for name in ["a.txt", "b.txt", "c.log"] {
        std::fs::write(listed.join(name), name).expect("a file to list");
    }
    let real = Fixtures::load().path("pyvider");

    let direct = launch("pyvider").await;
    let expected = pyvider_session(direct.client(), &file, None).await;
    let expected_list = list_session(direct.client(), &listed).await;
    direct.shutdown().await.expect("pyvider exits");

    let recording = dir.path().join("recorded.json");
    let provider = through(&launcher(&dir, "pyvider", &recording, &real, "")).await;
    assert_eq!(provider.protocol(), 6, "Pyvider's protocol");
    let traces = traces_of(&provider);
    let pyvider = real_provider(&provider);
    let answers = pyvider_session(provider.client(), &file, None).await;
    assert!(
        answers == expected,
        "the pass-through answers as Pyvider does"
    );
    let listed_answers = list_session(provider.client(), &listed).await;
    assert!(
        listed_answers == expected_list,
        "a server-streaming call streams Pyvider's events"
    );
    provider.shutdown().await.expect("the pass-through exits");
    traces.assert_gone().await;
    assert_exited(pyvider).await;

    let mut expected_methods = expected.methods();
    expected_methods.extend(expected_list.methods());
    assert_eq!(methods(&recording), expected_methods);
    let list = records(&recording).pop().expect("the ListResource record");
    let events: serde_json::Value =
        serde_json::from_str(&list.response).expect("the events are a JSON array");
    assert_eq!(
        events.as_array().map(Vec::len),
        Some(2),
        "two .txt files: {events}"
    );
}

#[tokio::test]
async fn aws_through_the_pass_through_stays_on_protocol_5_and_its_recording_replays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let moto = Moto::start();
    let bucket = format!("tfp-pass-through-{}", std::process::id());
    let secret = format!("tfp-pass-through-secret-{}", std::process::id());
    let real = Fixtures::load().path("aws_3_39_0");
    let recording = dir.path().join("recorded.json");
    let provider = through(&launcher(&dir, "aws", &recording, &real, "")).await;
    assert_eq!(provider.protocol(), 5, "AWS 3.39.0 speaks protocol 5 only");
    let traces = traces_of(&provider);
    let aws = real_provider(&provider);
    let live = aws_session(provider.client(), &moto.endpoint, &bucket, &secret).await;
    provider.shutdown().await.expect("the pass-through exits");
    traces.assert_gone().await;
    assert_exited(aws).await;

    // Recorded under the tfplugin6 names, as our client records a protocol-5 provider.
    let recorded: Vec<String> = methods(&recording);
    assert_eq!(recorded, live.methods());
    let text = std::fs::read_to_string(&recording).expect("reads");
    assert!(!mentions(&text, &secret), "the secret key is not recorded");
    assert!(mentions(&text, REDACTED), "it is replaced by the marker");
    let replayed = crate::support::replayed(&recording, "aws").await;
    let again = aws_session(replayed.client(), &moto.endpoint, &bucket, &secret).await;
    assert!(
        again == live,
        "the recording replays to the provider's answers"
    );
    assert!(replayed.replayer().remaining().is_empty());
}

/// The API endpoint the redaction tests configure: not sensitive, so kept in recordings.
const ENDPOINT: &str = "https://pass-through.invalid/api";

/// Configures Pyvider with `api_token` and [`ENDPOINT`] through `client` without asking it for
/// its schema, as OpenTofu does in a provider process after the first of a command (it caches
/// schemas).
async fn configure_without_schema(
    client: &pulumi_terraform_provider::host::Client,
    api_token: &str,
) {
    let direct = launch("pyvider").await;
    let response = direct
        .client()
        .get_provider_schema()
        .await
        .expect("GetProviderSchema");
    direct.shutdown().await.expect("pyvider exits");
    let schema = tfschema::provider_schema(&response).expect("schema converts");
    let config = object(
        &schema.provider.block,
        vec![
            ("api_token", Value::string(api_token)),
            ("api_endpoint", Value::string(ENDPOINT)),
        ],
    );
    let configured = client
        .configure_provider(v6::configure_provider::Request {
            terraform_version: "1.11.0".into(),
            config: Some(dynamic(&config, &schema.provider.block.implied_type())),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider");
    no_errors("ConfigureProvider", &configured.diagnostics);
}

#[tokio::test]
async fn the_recording_is_redacted_even_when_the_host_never_asks_for_the_schema() {
    let dir = tempfile::tempdir().expect("temp dir");
    let real = Fixtures::load().path("pyvider");
    for (flags, redacted) in [("", true), ("--unredacted", false)] {
        let recording = dir.path().join(format!("recorded-{redacted}.json"));
        let api_token = format!("tfp-pass-through-token-{}-{redacted}", std::process::id());
        let name = if redacted { "pyvider" } else { "pyvider-plain" };
        let provider = through(&launcher(&dir, name, &recording, &real, flags)).await;
        configure_without_schema(provider.client(), &api_token).await;
        provider.shutdown().await.expect("the pass-through exits");
        let text = std::fs::read_to_string(&recording).expect("reads");
        let parsed = parse(&text);
        let recorded: Vec<&str> = parsed.iter().map(Record::method).collect();
        assert_eq!(recorded, ["ConfigureProvider"], "only what the host sent");
        assert_eq!(
            mentions(&text, &api_token),
            !redacted,
            "redacted: {redacted}"
        );
        // The pass-through asked the provider for its schema itself, so only the sensitive
        // value is redacted, not the whole configuration.
        assert!(mentions(&text, ENDPOINT), "the endpoint is kept: {text}");
    }
    // A session that asks for the schema itself is redacted as the bridge's recordings are.
    // (pyvider_timed_token encrypts its private state with the key the real provider inherits.)
    let recording = dir.path().join("with-schema.json");
    let launcher = script(
        &dir,
        "terraform-provider-pyvider-schema",
        &format!(
            "PYVIDER_PRIVATE_STATE_SHARED_SECRET=tfp-test-private-state-key exec '{BIN}' record '{}' '{}'",
            recording.display(),
            real.display()
        ),
    );
    let provider = through(&launcher).await;
    let api_token = format!("tfp-pass-through-token-{}-schema", std::process::id());
    token_session(provider.client(), &api_token).await;
    provider.shutdown().await.expect("the pass-through exits");
    let text = std::fs::read_to_string(&recording).expect("reads");
    assert!(!mentions(&text, &api_token) && mentions(&text, REDACTED));
}

fn parse(text: &str) -> Vec<Record> {
    pulumi_terraform_provider::recording::parse_recording(text).expect("the recording parses")
}

#[test]
fn the_pass_through_refuses_to_run_without_a_plugin_host() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = std::process::Command::new(BIN)
        .arg("record")
        .arg(dir.path().join("recorded.json"))
        .arg(Fixtures::load().path("pyvider"))
        .env_remove("TF_PLUGIN_MAGIC_COOKIE")
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("must be started by a plugin host")
            && stderr.contains("TF_PLUGIN_MAGIC_COOKIE"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("recorded.json").exists(),
        "nothing is recorded, nothing is started"
    );
}

#[test]
fn a_pass_through_whose_provider_fails_to_start_leaves_no_recording_behind() {
    let dir = tempfile::tempdir().expect("temp dir");
    let broken = script(
        &dir,
        "terraform-provider-broken",
        "echo 'no such region' >&2; exit 3",
    );
    let record = |recording: &Path| {
        std::process::Command::new(BIN)
            .arg("record")
            .arg(recording)
            .arg(&broken)
            .env("TF_PLUGIN_MAGIC_COOKIE", pulumi_terraform_provider_cookie())
            .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
            .output()
            .expect("runs")
    };
    let fresh = dir.path().join("fresh.json");
    let output = record(&fresh);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no such region"), "{stderr}");
    assert!(
        !fresh.exists(),
        "the empty recording this run made is removed"
    );
    // A recording that was there, which the run would have appended to, stays as it was.
    let kept = dir.path().join("kept.json");
    std::fs::write(&kept, "").expect("write");
    assert!(!record(&kept).status.success());
    assert!(kept.exists(), "a recording made before is not removed");
}

#[test]
fn show_recording_prints_each_call_with_its_values_decoded() {
    let show = |path: &std::path::Path| {
        std::process::Command::new(BIN)
            .arg("show-recording")
            .arg(path)
            .output()
            .expect("runs")
    };
    let output = show(&crate::replay::upstream("tf-grpc-log-random.json"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let calls: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON call per line"))
        .collect();
    let apply = calls
        .iter()
        .find(|c| c["method"] == "ApplyResourceChange")
        .expect("the recording applies");
    assert_eq!(apply["request"]["config"]["length"], 3, "{apply}");
    assert_eq!(apply["request"]["type_name"], "random_pet");
    assert!(apply["response"]["new_state"]["id"].is_string(), "{apply}");
    let broken = tempfile::NamedTempFile::new().expect("a temp file");
    std::fs::write(broken.path(), "{\"name\": \"x.NoSuchMethod\"},\n").expect("writes");
    let output = show(broken.path());
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("NoSuchMethod is not a tfplugin6 method"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A file larger than any recording replay reads is refused before it is read (a sparse
    // file: it takes no disk).
    let file = std::fs::File::options()
        .write(true)
        .open(broken.path())
        .expect("opens");
    file.set_len(tfp_record_replay::replay::MAX_RECORDING_BYTES + 1)
        .expect("grows");
    let output = show(broken.path());
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("is larger than 1073741824 bytes"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A recording of no call shows none, and says so.
    std::fs::write(broken.path(), "").expect("writes");
    let output = show(broken.path());
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("holds no calls"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_pass_through_whose_host_dies_stops_and_stops_its_provider() {
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("recorded.json");
    let real = Fixtures::load().path("pyvider");
    // A host that dies without a word: a shell that starts the pass-through and is then killed.
    let mut host = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{BIN}' record '{}' '{}' & wait",
            recording.display(),
            real.display()
        ))
        .env("TF_PLUGIN_MAGIC_COOKIE", pulumi_terraform_provider_cookie())
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the host starts");
    let mut handshake = String::new();
    std::io::BufReader::new(host.stdout.take().expect("piped"))
        .read_line(&mut handshake)
        .expect("the handshake line");
    assert!(handshake.starts_with("1|6|unix|"), "{handshake}");
    let pass_through = children_of(host.id());
    assert_eq!(pass_through.len(), 1, "{pass_through:?}");
    let provider = children_of(pass_through[0]);
    assert_eq!(provider.len(), 1, "{provider:?}");
    host.kill().expect("the host is ours");
    host.wait().expect("the host is reaped");
    let socket = handshake
        .trim()
        .split('|')
        .nth(3)
        .map(PathBuf::from)
        .expect("a socket");
    let deadline = Instant::now() + Duration::from_secs(10);
    for pid in [pass_through[0], provider[0]] {
        while running(pid) {
            assert!(Instant::now() < deadline, "process {pid} outlived its host");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert!(!socket.exists(), "the pass-through removed its socket");
}

#[tokio::test]
async fn a_pass_through_killed_with_its_process_group_takes_its_provider_along() {
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("recorded.json");
    let real = Fixtures::load().path("pyvider");
    let provider = through(&launcher(&dir, "pyvider", &recording, &real, "")).await;
    let pyvider = real_provider(&provider);
    // Dropping a provider kills its process group at once, as our host does with a provider
    // that does not stop in time: the pass-through gets no chance to stop the real provider.
    drop(provider);
    let deadline = Instant::now() + Duration::from_secs(5);
    while running(pyvider) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let left = running(pyvider);
    if left {
        // Not left behind by the test either.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pyvider.to_string()])
            .status();
    }
    // Killed with no chance to clean up, Pyvider leaves its socket, which only the pass-through
    // knew of: ours to remove.
    let _ = std::fs::remove_file(crate::support::pyvider_socket(pyvider));
    assert!(
        !left,
        "the real provider {pyvider} outlived the pass-through's process group"
    );
}

/// go-plugin's handshake cookie for Terraform providers, which a host sets.
fn pulumi_terraform_provider_cookie() -> &'static str {
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
}
