//! Provider RPCs on Pyvider through our generated client: bad input gets a clear error and no
//! crash, state in the Go binary's shapes (`__meta`, `__pulumi_raw_state_delta`) is accepted,
//! DiffConfig and the `terraformConfig` method.

use pulumi_terraform_provider::proto::pulumirpc::{self as rpc, parameterize_request::Parameters};
use serde_json::{Value as Json, json};
use tonic::Code;

use crate::{
    plugin::{Plugin, check, detailed, json, object},
    support::Fixtures,
};

const FILE: &str = "pyvider:index/fileContent:FileContent";
const SECRET_SIG: &str = "4dabf18193072939515e22adb298388d";
const SECRET: &str = "1b47061264138c4ac30d75fd1eb44270";

fn urn(token: &str, name: &str) -> String {
    format!("urn:pulumi:test::proj::{token}::{name}")
}

async fn pyvider() -> Plugin {
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    plugin
}

#[tokio::test]
async fn bad_input_is_a_clear_error() {
    let mut plugin = Plugin::start().await;
    let check = |urn: String, news: Json| rpc::CheckRequest {
        urn,
        news: Some(object(news)),
        ..Default::default()
    };

    let early = plugin
        .client
        .check(check(urn(FILE, "f"), json!({})))
        .await
        .expect_err("before Parameterize");
    assert_eq!(early.code(), Code::FailedPrecondition);
    assert!(
        early.message().contains("must be parameterized first"),
        "{}",
        early.message()
    );

    let malformed = plugin
        .client
        .parameterize(rpc::ParameterizeRequest {
            parameters: Some(Parameters::Value(
                rpc::parameterize_request::ParametersValue {
                    name: "pyvider".into(),
                    version: "0.0.0".into(),
                    value: b"{not json".to_vec(),
                },
            )),
        })
        .await
        .expect_err("a malformed parameter value");
    assert_eq!(malformed.code(), Code::InvalidArgument);
    assert!(
        malformed
            .message()
            .starts_with("failed to parse parameterized value"),
        "{}",
        malformed.message()
    );

    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    let unknown = plugin
        .client
        .check(check(urn("pyvider:index/nope:Nope", "n"), json!({})))
        .await
        .expect_err("an unknown token");
    assert_eq!(unknown.code(), Code::InvalidArgument);
    assert_eq!(
        unknown.message(),
        "[pf/tfbridge] unknown resource token: pyvider:index/nope:Nope"
    );
    let malformed = plugin
        .client
        .check(check("urn:pulumi:test::nonsense".into(), json!({})))
        .await
        .expect_err("a malformed URN and no type");
    assert_eq!(malformed.code(), Code::InvalidArgument);
    assert_eq!(
        malformed.message(),
        "the engine sent no resource type and a malformed URN \"urn:pulumi:test::nonsense\": \
         expected urn:pulumi:<stack>::<project>::<type>::<name>"
    );
    let unknown = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: "pyvider:index/getNope:getNope".into(),
            ..Default::default()
        })
        .await
        .expect_err("an unknown function");
    assert_eq!(
        unknown.message(),
        "[pf/tfbridge] unknown datasource token: pyvider:index/getNope:getNope"
    );

    let wrong = plugin
        .client
        .check(check(
            urn(FILE, "f"),
            json!({"filename": "/tmp/x", "content": {"not": "a string"}}),
        ))
        .await
        .expect_err("a wrong property type");
    assert_eq!(wrong.code(), Code::InvalidArgument);
    assert_eq!(
        wrong.message(),
        "invalid value at `content`: expected a string, found object"
    );

    // A missing required input: a check failure naming the Pulumi path, then, should the
    // engine go on anyway, the provider's error with the path.
    let missing = plugin
        .client
        .check(check(urn(FILE, "f"), json!({"content": "no file name"})))
        .await
        .expect("Check")
        .into_inner();
    let reasons: Vec<&str> = missing.failures.iter().map(|f| f.reason.as_str()).collect();
    assert_eq!(
        reasons,
        vec![
            "Attribute cannot be null. Validation failed for a value of type 'Object'.. Examine \
             values at 'f.filename'."
        ]
    );
    assert!(
        missing.failures.iter().all(|f| f.property.is_empty()),
        "as in Go"
    );
    let missing = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn(FILE, "f"),
            properties: Some(object(json!({"content": "no file name"}))),
            ..Default::default()
        })
        .await
        .expect_err("a missing required input");
    assert_eq!(missing.code(), Code::Unknown);
    assert_eq!(
        missing.message(),
        "[filename] Attribute cannot be null: Validation failed for a value of type 'Object'."
    );

    let unknown_method = plugin
        .client
        .call(rpc::CallRequest {
            tok: "pulumi:providers:pyvider/nope".into(),
            ..Default::default()
        })
        .await
        .expect_err("an unknown method");
    assert_eq!(
        unknown_method.message(),
        "unknown method pulumi:providers:pyvider/nope"
    );

    // Pyvider 0.8.1 lists files but nothing else, and List says so (the Go binary claims there
    // are no list schemas at all).
    let listed = plugin
        .client
        .list(rpc::ListRequest {
            token: "pyvider:index/localDirectory:LocalDirectory".into(),
            ..Default::default()
        })
        .await
        .expect_err("nothing to list");
    assert_eq!(listed.code(), Code::Unimplemented);
    assert_eq!(
        listed.message(),
        "pyvider:index/localDirectory:LocalDirectory cannot be listed: the Terraform provider \
         pyvider has no list resource for it; it lists pyvider:index/fileContent:FileContent"
    );

    // The server still answers after all of that.
    let info = plugin
        .client
        .get_plugin_info(())
        .await
        .expect("still serving");
    assert_eq!(info.into_inner().version, "0.0.0");
    plugin.stop().await;
}

#[tokio::test]
async fn provider_configuration_rpcs() {
    let mut plugin = pyvider().await;
    let provider_urn = "urn:pulumi:test::proj::pulumi:providers:pyvider::explicit";
    let checked = plugin
        .client
        .check_config(rpc::CheckRequest {
            urn: provider_urn.into(),
            news: Some(object(json!({
                "apiRetries": "5",
                "apiToken": "t0k3n",
                "apiHeaders": "{\"X-A\":\"b\"}",
                "bogusKey": "x",
                "version": "0.0.0"
            }))),
            ..Default::default()
        })
        .await
        .expect("CheckConfig")
        .into_inner();
    let reasons: Vec<&str> = checked.failures.iter().map(|f| f.reason.as_str()).collect();
    assert_eq!(
        reasons,
        vec![
            "could not validate provider configuration: Invalid or unknown key. Examine values at \
             'explicit.bogusKey'."
        ]
    );
    let inputs = json(checked.inputs.as_ref());
    assert_eq!(inputs["apiRetries"], "5");
    assert_eq!(inputs["apiHeaders"], "{\"X-A\":\"b\"}");
    assert_eq!(
        inputs["apiToken"],
        json!({SECRET_SIG: SECRET, "value": "t0k3n"})
    );

    let diff = plugin
        .client
        .diff_config(rpc::DiffRequest {
            urn: provider_urn.into(),
            old_inputs: Some(object(json!({"apiRetries": "5", "apiTimeout": "10"}))),
            olds: Some(object(json!({}))),
            news: Some(object(
                json!({"apiRetries": "6", "apiEndpoint": "http://x"}),
            )),
            ..Default::default()
        })
        .await
        .expect("DiffConfig")
        .into_inner();
    assert_eq!(
        diff.changes,
        rpc::diff_response::DiffChanges::DiffUnknown as i32
    );
    assert!(diff.replaces.is_empty() && diff.diffs.is_empty());
    assert_eq!(
        detailed(&diff),
        json!({"apiEndpoint": "ADD", "apiRetries": "UPDATE", "apiTimeout": "DELETE"})
    );

    plugin
        .client
        .configure(rpc::ConfigureRequest {
            args: Some(object(
                json!({"apiRetries": "5", "apiEndpoint": "http://example.invalid"}),
            )),
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        })
        .await
        .expect("Configure");
    let called = plugin
        .client
        .call(rpc::CallRequest {
            tok: "pulumi:providers:pyvider/terraformConfig".into(),
            ..Default::default()
        })
        .await
        .expect("terraformConfig")
        .into_inner();
    let result = json(called.r#return.as_ref());
    assert_eq!(
        result["result"]["api_retries"],
        json!({SECRET_SIG: SECRET, "value": 5.0}),
        "Terraform names, every value secret"
    );
    assert_eq!(
        result["result"]["api_endpoint"]["value"],
        "http://example.invalid"
    );
    plugin.stop().await;
}

/// State written the way the Go binary writes it is read back: `__meta` with a string schema
/// version, and a raw-state delta whose `replace` nodes carry the exact raw state (as secrets, or
/// unwrapped when the engine strips secrets).
#[tokio::test]
async fn state_in_the_go_binary_shapes() {
    let mut plugin = pyvider().await;
    let work = tempfile::tempdir().expect("temp dir");
    let file = work.path().join("go.txt");
    std::fs::write(&file, "from go").expect("write");
    let filename = file.to_string_lossy().into_owned();
    let hash = "a0b7d0ab0a4f54d06b8b3cff67d5f4b4c3de6d7aa3e06e97dcc1a1d6abbc51b6";
    // The outputs say "stale" but the delta holds the raw state the provider wrote: the delta
    // wins, as in Go, so a config of "from go" shows no content change.
    let state = |secret_delta: bool| {
        let replace = json!({"replace": {"raw": "from go"}});
        let replace = if secret_delta {
            json!({SECRET_SIG: SECRET, "value": replace})
        } else {
            replace
        };
        object(json!({
            "filename": filename,
            "content": "stale",
            "exists": true,
            "contentHash": hash,
            "__meta": "{\"schema_version\":\"1\"}",
            "__pulumi_raw_state_delta": {"obj": {"ps": {"content": replace}}},
        }))
    };
    let news = object(json!({"filename": filename, "content": "from go"}));
    for secret_delta in [true, false] {
        let diff = plugin
            .client
            .diff(rpc::DiffRequest {
                id: "missing ID".into(),
                urn: urn(FILE, "go"),
                olds: Some(state(secret_delta)),
                news: Some(news.clone()),
                ..Default::default()
            })
            .await
            .expect("Diff of Go state")
            .into_inner();
        assert!(
            !diff.diffs.contains(&"content".to_owned()),
            "the delta's raw state was used: {diff:?}"
        );
    }

    let read = plugin
        .client
        .read(rpc::ReadRequest {
            id: "missing ID".into(),
            urn: urn(FILE, "go"),
            properties: Some(state(true)),
            inputs: Some(news.clone()),
            ..Default::default()
        })
        .await
        .expect("Read of Go state")
        .into_inner();
    assert_eq!(read.id, "missing ID");
    let refreshed = json(read.properties.as_ref());
    assert_eq!(refreshed["content"], "from go");
    // The state had no identity, as the Go binary keeps none; the read adds the provider's.
    assert_eq!(
        refreshed["__meta"],
        format!(
            "{{\"identity\":{{\"filename\":{filename:?}}},\"identity_schema_version\":\"0\",\
             \"schema_version\":\"1\"}}"
        )
    );

    let updated = plugin
        .client
        .update(rpc::UpdateRequest {
            id: "missing ID".into(),
            urn: urn(FILE, "go"),
            olds: Some(state(true)),
            news: Some(object(json!({"filename": filename, "content": "updated"}))),
            ..Default::default()
        })
        .await
        .expect("Update of Go state")
        .into_inner();
    assert_eq!(json(updated.properties.as_ref())["content"], "updated");
    assert_eq!(std::fs::read_to_string(&file).expect("file"), "updated");

    // A state from a newer schema version is refused, as in Go.
    let newer = object(json!({
        "filename": filename,
        "content": "updated",
        "__meta": "{\"schema_version\":\"7\"}",
    }));
    let refused = plugin
        .client
        .diff(rpc::DiffRequest {
            urn: urn(FILE, "go"),
            olds: Some(newer),
            news: Some(news.clone()),
            ..Default::default()
        })
        .await
        .expect_err("a newer state");
    assert!(
        refused
            .message()
            .starts_with("The current state of pyvider:index/fileContent:FileContent was created by a newer provider version"),
        "{}",
        refused.message()
    );

    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: "missing ID".into(),
            urn: urn(FILE, "go"),
            properties: Some(state(false)),
            ..Default::default()
        })
        .await
        .expect("Delete of Go state");
    assert!(!file.exists(), "Delete removed the file");
    plugin.stop().await;
}

#[tokio::test]
async fn cancel_asks_the_provider_to_stop() {
    use pulumi_terraform_provider::{proto::tfplugin6 as v6, recording::Messages as _};
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-calls.json");
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;
    // Before Parameterize there is no provider to stop, and Cancel still succeeds.
    plugin
        .client
        .cancel(())
        .await
        .expect("Cancel before Parameterize");
    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    plugin.client.cancel(()).await.expect("Cancel");
    let stderr = plugin.stop().await;
    assert!(!stderr.contains("StopProvider failed"), "{stderr}");

    // The recording holds what Pyvider received and answered.
    let records = crate::support::records(&recording);
    let methods: Vec<&str> = records.iter().map(|r| r.method()).collect();
    let stops: Vec<_> = records
        .iter()
        .filter(|r| r.method() == "StopProvider")
        .collect();
    assert_eq!(
        stops.len(),
        1,
        "one Cancel reached the provider: {methods:?}"
    );
    assert_eq!(stops[0].error, Vec::<String>::new(), "Pyvider answered");
    let answer: v6::stop_provider::Response =
        stops[0].response_message().expect("the answer decodes");
    assert_eq!(answer.error, "", "Pyvider stopped without complaint");
}

/// Terraform refuses a call that leaves out an argument ("Not enough function arguments"),
/// naming it; an invoke without one is a check failure of that argument.
#[tokio::test]
async fn a_function_invoked_without_an_argument_is_a_check_failure() {
    let mut plugin = pyvider().await;
    let invoked = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: "pyvider:index/upper:upper".into(),
            args: Some(object(json!({}))),
            ..Default::default()
        })
        .await
        .expect("Invoke")
        .into_inner();
    assert_eq!(invoked.r#return, None, "no result");
    let failures: Vec<(&str, &str)> = invoked
        .failures
        .iter()
        .map(|f| (f.property.as_str(), f.reason.as_str()))
        .collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].0, "inputStr");
    assert!(
        failures[0].1.contains("Not enough function arguments"),
        "{failures:?}"
    );
    // With the argument, the function answers.
    let invoked = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: "pyvider:index/upper:upper".into(),
            args: Some(object(json!({"inputStr": "loud"}))),
            ..Default::default()
        })
        .await
        .expect("Invoke")
        .into_inner();
    assert_eq!(json(invoked.r#return.as_ref())["result"], "LOUD");
    plugin.stop().await;
}

/// The Go binary names a local release binary's package with its suffix
/// (`terraform-provider-random_v3.6.3` is `random_v3.6.3`), we without (`random`). A program or
/// SDK it made asks for its name, which the engine requires the answer to carry: the package is
/// then made as it made it, with its tokens, so that its resources are found and created.
#[tokio::test]
async fn a_package_the_go_binary_named_after_a_release_binary_keeps_that_name() {
    let random = Fixtures::load().path("random_3_6_3");
    assert!(random.ends_with("terraform-provider-random_v3.6.3"));
    let value = |name: &str| rpc::ParameterizeRequest {
        parameters: Some(Parameters::Value(
            rpc::parameterize_request::ParametersValue {
                name: name.into(),
                version: "0.0.0".into(),
                value: json!({"local": {"path": random}}).to_string().into_bytes(),
            },
        )),
    };
    let schema = |plugin: &mut Plugin| {
        let request = rpc::GetSchemaRequest::default();
        let mut client = plugin.client.clone();
        async move {
            let schema = client.get_schema(request).await.expect("GetSchema");
            serde_json::from_str::<Json>(&schema.into_inner().schema).expect("JSON")
        }
    };

    let mut go_named = Plugin::start().await;
    let answer = go_named.client.parameterize(value("random_v3.6.3")).await;
    assert_eq!(
        answer.expect("Parameterize").into_inner().name,
        "random_v3.6.3"
    );
    let package = schema(&mut go_named).await;
    assert_eq!(package["name"], "random_v3.6.3");
    let pet = "random_v3.6.3:index/pet:Pet";
    assert!(
        package["resources"][pet].is_object(),
        "{}",
        package["resources"]
    );
    go_named.configure("random_v3.6.3", json!({})).await;
    let created = go_named
        .client
        .create(rpc::CreateRequest {
            urn: urn(pet, "p"),
            properties: Some(object(json!({"length": 2}))),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    assert_eq!(json(created.properties.as_ref())["length"], 2.0);
    assert!(!created.id.is_empty());
    go_named.stop().await;

    // Our own name, asked for by what we made, and by the arguments of `package add`.
    let mut ours = Plugin::start().await;
    let answer = ours.client.parameterize(value("random")).await;
    assert_eq!(answer.expect("Parameterize").into_inner().name, "random");
    assert!(schema(&mut ours).await["resources"]["random:index/pet:Pet"].is_object());
    ours.stop().await;
    let mut ours = Plugin::start().await;
    ours.parameterize(&random, "random").await;
    ours.stop().await;
}

/// `--auto-name random_pet.prefix` (ours; the Go binary autonames `name` alone): Check fills
/// `prefix` as it fills a `name`, from the URN's name and the seed; the package schema makes it
/// a required output, as an autonamed `name` is; GetMapping marks it autonamed; and the
/// parameter value an SDK embeds carries the choice, so that the value form autonames it too.
#[tokio::test]
async fn auto_name_names_the_attribute_it_is_given() {
    use base64::Engine as _;
    let random = Fixtures::load().path("random_3_6_3");
    let pet = "random:index/pet:Pet";
    let args = |extra: &[&str]| {
        let mut args = vec![random.to_string_lossy().into_owned()];
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        rpc::ParameterizeRequest {
            parameters: Some(Parameters::Args(
                rpc::parameterize_request::ParametersArgs { args },
            )),
        }
    };
    let schema = |plugin: &mut Plugin| {
        let mut client = plugin.client.clone();
        async move {
            let schema = (client.get_schema(rpc::GetSchemaRequest::default()).await)
                .expect("GetSchema")
                .into_inner()
                .schema;
            serde_json::from_str::<Json>(&schema).expect("JSON")
        }
    };
    let required = |schema: &Json| schema["resources"][pet]["required"].clone();

    let mut plain = Plugin::start().await;
    plain
        .client
        .parameterize(args(&[]))
        .await
        .expect("Parameterize");
    let plain_schema = schema(&mut plain).await;
    plain.stop().await;
    assert!(
        !(required(&plain_schema).as_array().expect("a list")).contains(&json!("prefix")),
        "{}",
        required(&plain_schema)
    );

    let mut plugin = Plugin::start().await;
    let asked = args(&["--auto-name", "random_pet.prefix"]);
    plugin
        .client
        .parameterize(asked)
        .await
        .expect("Parameterize");
    let package = schema(&mut plugin).await;
    assert!(
        (required(&package).as_array().expect("a list")).contains(&json!("prefix")),
        "{}",
        required(&package)
    );
    let parameter = package["parameterization"]["parameter"]
        .as_str()
        .expect("the parameter value");
    let parameter = base64::engine::general_purpose::STANDARD
        .decode(parameter)
        .expect("base64");
    let parameter: Json = serde_json::from_slice(&parameter).expect("JSON");
    assert_eq!(parameter["autoNames"], json!(["random_pet.prefix"]));
    let mapping: Json = serde_json::from_slice(&plugin.get_mapping().await).expect("JSON");
    let prefix = &mapping["resources"]["random_pet"]["fields"]["prefix"];
    assert_eq!(prefix["default"]["autonamed"], true, "{prefix}");

    plugin.configure("random", json!({})).await;
    let inputs = json(Some(
        &check(&mut plugin.client, &urn(pet, "mypet"), json!({"length": 2})).await,
    ));
    let prefix = inputs["prefix"].as_str().expect("a prefix").to_owned();
    assert!(
        prefix.starts_with("mypet-") && prefix.len() == "mypet-".len() + 7,
        "{prefix}"
    );
    let created = (plugin.client)
        .create(rpc::CreateRequest {
            urn: urn(pet, "mypet"),
            properties: Some(object(inputs)),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    assert!(
        created.id.starts_with(&format!("{prefix}-")),
        "{}",
        created.id
    );
    plugin.stop().await;

    // What an SDK made from that schema asks for.
    let mut again = Plugin::start().await;
    let value = rpc::ParameterizeRequest {
        parameters: Some(Parameters::Value(
            rpc::parameterize_request::ParametersValue {
                name: "random".into(),
                version: "0.0.0".into(),
                value: serde_json::to_vec(&parameter).expect("JSON"),
            },
        )),
    };
    again
        .client
        .parameterize(value)
        .await
        .expect("Parameterize");
    again.configure("random", json!({})).await;
    let inputs = json(Some(
        &check(&mut again.client, &urn(pet, "other"), json!({})).await,
    ));
    assert!(
        inputs["prefix"]
            .as_str()
            .is_some_and(|p| p.starts_with("other-")),
        "{inputs}"
    );
    again.stop().await;

    // A request that cannot be honoured fails Parameterize, saying why.
    let mut refused = Plugin::start().await;
    let err = (refused.client)
        .parameterize(args(&["--auto-name=random_pet.length"]))
        .await
        .expect_err("length is a number");
    assert!(
        err.message()
            .contains("--auto-name random_pet.length: length is not a string"),
        "{}",
        err.message()
    );
    refused.stop().await;
}
