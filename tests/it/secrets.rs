//! Secrets stay secret: no error, check failure, recording or forwarded log line holds a value the
//! engine sent as secret, a value the schema marks sensitive or write-only, or a provider
//! credential. Each test sends distinctive secret values through real providers and searches
//! every text we give back for them.

use std::path::Path;

use pulumi_terraform_provider::{proto::pulumirpc as rpc, recording::parse_recording};
use serde_json::{Value as Json, json};
use tfp_testkit::moto;
use tonic::Code;

use crate::{
    plugin::{Plugin, json, object, secret},
    replay_server::replaying,
    support::{EngineLogs, Fixtures, Moto},
};

fn urn(token: &str, name: &str) -> String {
    format!("urn:pulumi:test::proj::{token}::{name}")
}

/// Asserts that `text` holds none of `secrets`; a failure shows the text with each secret
/// replaced by its position in `secrets`, never the secret itself.
#[track_caller]
fn assert_hidden(what: &str, text: &str, secrets: &[&str]) {
    for (n, secret) in secrets.iter().enumerate() {
        if text.contains(secret) {
            let shown = (secrets.iter().enumerate()).fold(text.to_owned(), |shown, (m, s)| {
                shown.replace(s, &format!("<secret {m}>"))
            });
            panic!("{what} quotes secret {n}:\n{shown}");
        }
    }
}

#[tokio::test]
async fn errors_and_check_failures_never_quote_a_secret() {
    let fixtures = Fixtures::load();
    const SQS: &str = "aws:index/sqsQueue:SqsQueue";
    // A secret that is not a number where AWS wants one: our own type error.
    let not_a_number = "not-a-number-5c1f9e";
    let mut aws = Plugin::start().await;
    aws.parameterize(&fixtures.path("aws_3_39_0"), "aws").await;
    let news = object(json!({"name": "q", "delaySeconds": secret(json!(not_a_number))}));
    let checked = aws
        .client
        .check(rpc::CheckRequest {
            urn: urn(SQS, "q"),
            news: Some(news.clone()),
            ..Default::default()
        })
        .await
        .expect_err("a secret that is not a number");
    assert_eq!(checked.code(), Code::InvalidArgument);
    assert!(
        checked.message().contains("`delaySeconds`"),
        "the error names the path: {}",
        checked.message()
    );
    assert_hidden("Check's error", checked.message(), &[not_a_number]);
    let created = aws
        .client
        .create(rpc::CreateRequest {
            urn: urn(SQS, "q"),
            properties: Some(news),
            preview: true,
            ..Default::default()
        })
        .await
        .expect_err("a secret that is not a number");
    assert_eq!(created.code(), Code::InvalidArgument);
    assert_hidden("Create's error", created.message(), &[not_a_number]);

    // A secret the provider rejects: AWS quotes it in its diagnostic, and the check failure
    // must not.
    let acl = "bogus-acl-77aa91";
    let checked = aws
        .client
        .check(rpc::CheckRequest {
            urn: urn("aws:index/s3Bucket:S3Bucket", "b"),
            news: Some(object(
                json!({"bucket": "tfp-secret-acl", "acl": secret(json!(acl))}),
            )),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    let reasons: Vec<&str> = checked.failures.iter().map(|f| f.reason.as_str()).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("expected acl to be one of")),
        "AWS rejects the ACL: {reasons:?}"
    );
    assert_hidden("a check failure", &reasons.join("\n"), &[acl]);
    aws.stop().await;

    // Pyvider: a provider function, a data source and the provider configuration.
    let mut pyvider = Plugin::start().await;
    pyvider
        .parameterize(&fixtures.path("pyvider"), "pyvider")
        .await;
    let argument = "two-and-a-bit-9d3a";
    let invoked = pyvider
        .client
        .invoke(rpc::InvokeRequest {
            tok: "pyvider:index/add:add".into(),
            args: Some(object(json!({"a": secret(json!(argument)), "b": 1}))),
            ..Default::default()
        })
        .await
        .expect_err("a secret that is not a number");
    assert_eq!(invoked.code(), Code::InvalidArgument);
    assert!(invoked.message().contains("`a`"), "{}", invoked.message());
    assert_hidden("a function's error", invoked.message(), &[argument]);
    let timeout = "slow-4b1e77";
    let read = pyvider
        .client
        .invoke(rpc::InvokeRequest {
            tok: "pyvider:index/getHttpApi:getHttpApi".into(),
            args: Some(object(
                json!({"url": "http://127.0.0.1:9", "timeout": secret(json!(timeout))}),
            )),
            ..Default::default()
        })
        .await
        .expect_err("a secret that is not a number");
    assert_eq!(read.code(), Code::InvalidArgument);
    assert!(read.message().contains("`timeout`"), "{}", read.message());
    assert_hidden("a data source's error", read.message(), &[timeout]);
    // Configuration values that are not strings arrive as JSON text; a secret one that is a
    // number JSON cannot hold must not be quoted either.
    let retries = "7e99999";
    let configured = pyvider
        .client
        .check_config(rpc::CheckRequest {
            urn: "urn:pulumi:test::proj::pulumi:providers:pyvider::default".into(),
            news: Some(object(json!({"apiRetries": secret(json!(retries))}))),
            ..Default::default()
        })
        .await
        .expect_err("a number out of range");
    assert_eq!(configured.code(), Code::InvalidArgument);
    assert!(
        configured.message().contains("`apiRetries`"),
        "{}",
        configured.message()
    );
    assert_hidden("CheckConfig's error", configured.message(), &[retries]);
    let stderr = pyvider.stop().await;
    assert_hidden(
        "our stderr",
        &stderr,
        &[not_a_number, argument, timeout, retries],
    );
}

/// AWS 3.39.0 with `TF_LOG=trace` logs its HTTP requests, whose signature names the access key;
/// with moto as the AWS API, a bucket's life sends the provider's logs and ours to the engine.
#[tokio::test]
async fn forwarded_provider_logs_hide_credentials_and_secrets() {
    let fixtures = Fixtures::load();
    let moto = Moto::start();
    let engine = EngineLogs::default();
    let (address, server) = engine.serve().await;
    let mut plugin =
        Plugin::start_with_args(&[address.to_string()], &[("TF_LOG", Path::new("trace"))]).await;
    plugin
        .parameterize(&fixtures.path("aws_3_39_0"), "aws")
        .await;
    let access_key = "AKIAEXAMPLE7Q2W9X4Z1";
    let secret_key = "moto-secret-key-3f8a61";
    let tag = "tag-value-c0ffee42";
    configure_aws(&mut plugin, &moto, access_key, json!(secret_key)).await;
    let bucket = format!("tfp-logs-{}", std::process::id());
    bucket_life(&mut plugin, &bucket, tag).await;
    let stderr = plugin.stop().await;
    server.abort();
    let logs = engine.all();
    assert!(
        logs.contains("Credential=") || logs.contains("Authorization"),
        "the provider's HTTP logs reached the engine:\n{logs}"
    );
    assert_hidden("the engine's logs", &logs, &[access_key, secret_key, tag]);
    assert_hidden("our stderr", &stderr, &[access_key, secret_key, tag]);
}

/// CheckConfig and Configure of AWS against moto.
async fn configure_aws(plugin: &mut Plugin, moto: &Moto, access_key: &str, secret_key: Json) {
    let config = moto::pulumi_config(&moto.endpoint, access_key, secret_key);
    let (checked, _) = plugin.configure("aws", config).await;
    assert_eq!(checked.failures, vec![]);
}

/// Check, which must find nothing wrong, then Create with the checked inputs.
async fn check_and_create(
    plugin: &mut Plugin,
    urn: &str,
    news: Json,
) -> (prost_types::Struct, rpc::CreateResponse) {
    let inputs = plugin.check(urn, news).await;
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn.to_owned(),
            properties: Some(inputs.clone()),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    (inputs, created)
}

/// Check, Create, Read and Delete of an S3 bucket tagged with a secret.
async fn bucket_life(plugin: &mut Plugin, bucket: &str, tag: &str) {
    const BUCKET: &str = "aws:index/s3Bucket:S3Bucket";
    let news =
        json!({"bucket": bucket, "forceDestroy": true, "tags": {"Name": secret(json!(tag))}});
    let (checked, created) = check_and_create(plugin, &urn(BUCKET, "b"), news).await;
    assert_eq!(created.id, bucket);
    let read = plugin
        .client
        .read(rpc::ReadRequest {
            id: created.id.clone(),
            urn: urn(BUCKET, "b"),
            properties: created.properties.clone(),
            inputs: Some(checked),
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    assert_eq!(json(read.properties.as_ref())["bucket"], bucket);
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: created.id,
            urn: urn(BUCKET, "b"),
            properties: read.properties,
            ..Default::default()
        })
        .await
        .expect("Delete");
}

/// A secret tag of an S3 bucket, and the configured credentials, appear nowhere in the
/// recording; the recording still replays against the same calls, which carry the real values.
#[tokio::test]
async fn recordings_hide_what_the_engine_sent_as_secret_and_still_replay() {
    let fixtures = Fixtures::load();
    let moto = Moto::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-calls.json");
    let access_key = "AKIAEXAMPLE5R8T1Y6U3";
    let secret_key = "moto-secret-key-9b2d47";
    let tag = "tag-value-5eed5eed";
    let bucket = format!("tfp-recorded-{}", std::process::id());
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;
    plugin
        .parameterize(&fixtures.path("aws_3_39_0"), "aws")
        .await;
    configure_aws(&mut plugin, &moto, access_key, secret(json!(secret_key))).await;
    bucket_life(&mut plugin, &bucket, tag).await;
    plugin.stop().await;

    let text = std::fs::read_to_string(&recording).expect("the recording reads");
    assert_hidden("the recording", &text, &[access_key, secret_key, tag]);
    let records = parse_recording(&text).expect("the recording parses");
    let redacted = records
        .iter()
        .filter(|r| r.request.contains("<redacted>") || r.response.contains("<redacted>"))
        .count();
    assert!(redacted > 0, "values were redacted");

    // Replayed, the same calls with the real values match the redacted recording.
    let mut plugin = replaying(&dir, "aws", &recording).await;
    configure_aws(&mut plugin, &moto, access_key, secret(json!(secret_key))).await;
    bucket_life(&mut plugin, &bucket, tag).await;
    plugin.stop().await;
}

/// A write-only argument (`content_wo` of our test provider's `tfptest_secret_file`) reaches
/// the provider, and no recorded call holds it: not the validation, not the plan's config or
/// proposed state, not the apply.
#[tokio::test]
async fn recordings_hide_write_only_values() {
    const SECRET_FILE: &str = "tfptest:index/secretFile:SecretFile";
    let fixtures = Fixtures::load();
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-calls.json");
    let target = dir.path().join("written.txt");
    let written = "write-only-value-7a7a7a";
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;
    plugin
        .parameterize(&fixtures.path("tfptest"), "tfptest")
        .await;
    let news = json!({"path": target.to_string_lossy(), "contentWo": written});
    let (_, created) = check_and_create(&mut plugin, &urn(SECRET_FILE, "f"), news).await;
    assert_eq!(
        std::fs::read_to_string(&target).expect("the provider wrote the file"),
        written
    );
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: created.id,
            urn: urn(SECRET_FILE, "f"),
            properties: created.properties,
            ..Default::default()
        })
        .await
        .expect("Delete");
    plugin.stop().await;
    let text = std::fs::read_to_string(&recording).expect("the recording reads");
    for method in [
        "ValidateResourceConfig",
        "PlanResourceChange",
        "ApplyResourceChange",
    ] {
        assert!(text.contains(method), "{method} was recorded");
    }
    assert_hidden("the recording", &text, &[written]);
}

/// A secret configuration block the engine sends as JSON text (tls's `proxy`), unfolded, holds
/// values the provider logs on their own (tls 4.0.5 logs the proxy URL at debug level): each
/// is hidden, in our stderr and in the recording, not only the text as a whole.
#[tokio::test]
async fn the_parts_of_a_secret_configuration_block_are_hidden_too() {
    let fixtures = Fixtures::load();
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-calls.json");
    let log = dir.path().join("tf.log");
    let mut plugin = Plugin::start_with_env(&[
        ("TF_LOG", Path::new("trace")),
        ("TF_LOG_PATH", &log),
        ("RUST_LOG", Path::new("debug")),
        ("PULUMI_TF_DEBUG_GRPC", &recording),
    ])
    .await;
    plugin
        .parameterize(&fixtures.path("tls_4_0_5"), "tls")
        .await;
    let (user, password, username) = (
        "sekrit-urluser-8008",
        "sekrit-urlpw-8009",
        "sekrit-user-8010",
    );
    let proxies =
        json!([{"url": format!("http://{user}:{password}@127.0.0.1:9"), "username": username}]);
    plugin
        .configure(
            "tls",
            json!({"proxies": secret(json!(proxies.to_string()))}),
        )
        .await;
    // Fetching a certificate through the proxy fails, after the provider has logged the proxy.
    let _ = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: "tls:index/getCertificate:getCertificate".into(),
            args: Some(object(
                json!({"url": "https://127.0.0.1:9", "verifyChain": false}),
            )),
            ..Default::default()
        })
        .await;
    let stderr = plugin.stop().await;
    let logged = std::fs::read_to_string(&log).expect("the provider's log");
    assert!(
        logged.contains("Configuring Proxy via URL")
            && stderr.contains("Configuring Proxy via URL"),
        "the provider logged its proxy"
    );
    let secrets = [user, password, username];
    assert_hidden("our stderr", &stderr, &secrets);
    assert_hidden("TF_LOG_PATH", &logged, &secrets);
    let recorded = std::fs::read_to_string(&recording).expect("the recording");
    assert!(recorded.contains("ConfigureProvider"), "{recorded}");
    assert_hidden("the recording", &recorded, &secrets);
}
