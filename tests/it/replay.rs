//! Replaying recordings: the Go binary's own (random 3.x, phpipam's config-in-destroy) in
//! process and through the `replay` subcommand launched as a provider, and a changed request
//! failing with the method and the field named.

use crate::support::records;
use std::path::{Path, PathBuf};

use pulumi_terraform_provider::{
    host::{Client, Provider},
    proto::tfplugin6 as v6,
    recording::{Messages as _, Record},
    tfschema,
};
use tfp_cty::Value;
use tfp_goplugin::Launch;

use crate::support::{script, traces_of};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// A recording of the Go binary, committed in `testdata/conformance/upstream`.
pub(crate) fn upstream(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/conformance/upstream")
        .join(name)
}

/// Makes the recorded call of `record` through `client` and checks that the answer is the
/// recorded response.
pub(crate) async fn check_call(client: &Client, record: &Record) {
    macro_rules! dispatch {
        ($($name:literal => $method:ident($module:ident),)*) => {
            match record.method() {
                "GetProviderSchema" => {
                    let expected: v6::get_provider_schema::Response =
                        record.response_message().expect("the recorded response decodes");
                    let actual = client.get_provider_schema().await.expect("GetProviderSchema");
                    assert!(actual == expected, "GetProviderSchema answers as recorded");
                }
                $($name => {
                    let request: v6::$module::Request =
                        record.request_message().expect("the recorded request decodes");
                    let expected: v6::$module::Response =
                        record.response_message().expect("the recorded response decodes");
                    let actual = client
                        .$method(request)
                        .await
                        .unwrap_or_else(|err| panic!("{}: {err}", $name));
                    assert_eq!(actual, expected, "{} answers as recorded", $name);
                })*
                other => panic!("no dispatch for {other}"),
            }
        };
    }
    dispatch! {
        "ValidateProviderConfig" => validate_provider_config(validate_provider_config),
        "ConfigureProvider" => configure_provider(configure_provider),
        "ValidateResourceConfig" => validate_resource_config(validate_resource_config),
        "PlanResourceChange" => plan_resource_change(plan_resource_change),
        "ApplyResourceChange" => apply_resource_change(apply_resource_change),
        "ReadResource" => read_resource(read_resource),
        "ImportResourceState" => import_resource_state(import_resource_state),
        "UpgradeResourceState" => upgrade_resource_state(upgrade_resource_state),
        "ReadDataSource" => read_data_source(read_data_source),
        "CallFunction" => call_function(call_function),
        "GetFunctions" => get_functions(get_functions),
        "StopProvider" => stop_provider(stop_provider),
    }
}

#[tokio::test]
async fn upstream_recordings_replay_in_process() {
    for (file, calls) in [
        ("tf-grpc-log-random.json", 13),
        ("tf-grpc-log-config-in-destroy.json", 6),
    ] {
        let path = upstream(file);
        let recorded = records(&path);
        assert_eq!(recorded.len(), calls, "{file}");
        let replayed = crate::support::replayed(&path, "recorded").await;
        for record in &recorded {
            check_call(replayed.client(), record).await;
        }
        assert!(
            replayed.replayer().remaining().is_empty(),
            "{file}: every recorded call was made: {:?}",
            replayed.replayer().remaining()
        );
    }
}

#[tokio::test]
async fn upstream_recording_replays_through_the_subcommand_as_a_provider() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = upstream("tf-grpc-log-random.json");
    let wrapper = script(
        &dir,
        "terraform-provider-random",
        &format!("exec '{BIN}' replay '{}'", path.display()),
    );
    let provider = Provider::launch(Launch::new(&wrapper))
        .await
        .expect("the replay starts");
    let traces = traces_of(&provider);
    assert_eq!(provider.protocol(), 6);
    assert!(
        provider.mtls(),
        "the replay answers AutoMTLS, as a provider does"
    );
    for record in &records(&path) {
        check_call(provider.client(), record).await;
    }
    let exit = provider
        .shutdown()
        .await
        .expect("a launched provider reports its exit");
    assert!(
        exit.status.is_some_and(|s| s.success()),
        "the replay exits cleanly after Shutdown: {exit}"
    );
    traces.assert_gone().await;

    // A host without AutoMTLS (TF_DISABLE_PLUGIN_TLS) gets plaintext.
    let mut plain = Launch::new(&wrapper);
    plain.tls = false;
    let provider = Provider::launch(plain).await.expect("the replay starts");
    assert!(!provider.mtls());
    provider
        .client()
        .get_provider_schema()
        .await
        .expect("GetProviderSchema over plaintext");
    provider.shutdown().await.expect("the replay exits");
}

#[tokio::test]
async fn the_subcommand_refuses_to_run_without_the_magic_cookie() {
    let output = std::process::Command::new(BIN)
        .args(["replay", "/nonexistent"])
        .env_remove("TF_PLUGIN_MAGIC_COOKIE")
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "no handshake without the cookie");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("TF_PLUGIN_MAGIC_COOKIE"), "{stderr}");
}

/// The random recording up to its first ValidateResourceConfig, whose request `change` alters;
/// returns the error the replay answers with.
async fn changed(change: impl FnOnce(&mut v6::validate_resource_config::Request)) -> String {
    let path = upstream("tf-grpc-log-random.json");
    let recorded = records(&path);
    let replayed = crate::support::replayed(&path, "recorded").await;
    let client = replayed.client();
    for record in recorded.iter().take(4) {
        check_call(client, record).await;
    }
    let record = &recorded[4];
    assert_eq!(record.method(), "ValidateResourceConfig");
    let mut request: v6::validate_resource_config::Request =
        record.request_message().expect("decodes");
    change(&mut request);
    let err = client
        .validate_resource_config(request)
        .await
        .expect_err("a changed request does not match the recording");
    err.to_string()
}

#[tokio::test]
async fn a_changed_request_fails_naming_the_method_and_the_field() {
    let err = changed(|r| r.type_name = "random_string".into()).await;
    assert!(
        err.contains("ValidateResourceConfig request differs from the recording at type_name")
            && err.contains(r#"recorded "random_pet", got "random_string""#),
        "{err}"
    );

    // Recorded client capabilities are compared; only a recording without any (made before
    // the Go bridge sent them) leaves them out of the comparison.
    let err = changed(|r| r.client_capabilities = None).await;
    assert!(
        err.contains("at client_capabilities.write_only_attributes_allowed")
            && err.contains("recorded Bool(true), got Bool(false)"),
        "{err}"
    );

    // The same value re-encoded differently is equal by meaning; a different length is not.
    let path = upstream("tf-grpc-log-random.json");
    let schema_record = &records(&path)[0];
    let schema = tfschema::provider_schema(
        &schema_record
            .response_message::<v6::get_provider_schema::Response>()
            .expect("the schema decodes"),
    )
    .expect("the schema converts");
    let ty = schema.resources["random_pet"].block.implied_type();
    let err = changed(|r| {
        let config = r.config.as_mut().expect("a config");
        let mut value = tfp_cty::from_msgpack(&config.msgpack, &ty).expect("decodes");
        if let tfp_cty::Kind::Object(attrs) = &mut value.kind {
            attrs.insert("length".into(), Value::number(4i64));
        }
        config.msgpack = tfp_cty::to_msgpack(&value, &ty).expect("encodes");
    })
    .await;
    assert!(
        err.contains("ValidateResourceConfig request differs from the recording at config.msgpack")
            && err.contains("attribute .length")
            && err.contains("recorded 3, got 4"),
        "{err}"
    );
}

#[tokio::test]
async fn a_call_the_recording_does_not_have_fails() {
    let path = upstream("tf-grpc-log-config-in-destroy.json");
    let replayed = crate::support::replayed(&path, "recorded").await;
    let err = replayed
        .client()
        .read_resource(v6::read_resource::Request::default())
        .await
        .expect_err("the recording has no ReadResource");
    assert!(
        err.to_string()
            .contains("ReadResource was called more often than the recording has calls of it"),
        "{err}"
    );
}
