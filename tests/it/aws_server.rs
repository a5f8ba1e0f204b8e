//! The official AWS provider 3.39.0 (protocol 5, SDKv2) behind our server, against moto:
//! configuration through CheckConfig and Configure, the lifecycle of `aws_s3_bucket` with import
//! and a replacement, a data source, and a create that half-fails.

use pulumi_terraform_provider::{
    host::parse_recording,
    proto::{
        pulumirpc::{self as rpc, parameterize_request::Parameters},
        tfplugin6 as v6,
    },
    server::partial,
};
use serde_json::{Value as Json, json};

use crate::{
    plugin::{Plugin, detailed, json, object},
    support::{Fixtures, Moto},
};

const BUCKET: &str = "aws:index/s3Bucket:S3Bucket";
const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const SECRET_SIG: &str = "4dabf18193072939515e22adb298388d";
const SECRET: &str = "1b47061264138c4ac30d75fd1eb44270";
/// The secret key we configure; it must appear in none of our logs.
const SECRET_KEY: &str = "moto-secret-key-b7c1d9e2";

fn urn(name: &str) -> String {
    format!("urn:pulumi:test::proj::{BUCKET}::{name}")
}

fn urn_of(token: &str, name: &str) -> String {
    format!("urn:pulumi:test::proj::{token}::{name}")
}

/// The provider configuration for moto at `endpoint`, as `pulumi config` stores it: strings,
/// JSON for the rest.
fn config(endpoint: &str) -> Json {
    let endpoints = format!(r#"[{{"s3":"{endpoint}","sts":"{endpoint}","iam":"{endpoint}"}}]"#);
    json!({
        "region": "us-east-1",
        "accessKey": "test",
        "secretKey": SECRET_KEY,
        "skipCredentialsValidation": "true",
        "skipRequestingAccountId": "true",
        "skipMetadataApiCheck": "true",
        "skipRegionValidation": "true",
        "s3ForcePathStyle": "true",
        "endpoints": endpoints,
    })
}

#[tokio::test]
async fn aws_s3_bucket_through_our_server() {
    let fixtures = Fixtures::load();
    let moto = Moto::start();
    // The Terraform calls are recorded, to check what Delete sends.
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-calls.json");
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;
    let path = fixtures.path("aws_3_39_0").to_string_lossy().into_owned();

    // Parameterize in the value form an SDK embeds.
    let value = format!(r#"{{"local":{{"path":"{path}"}}}}"#);
    let response = plugin
        .client
        .parameterize(rpc::ParameterizeRequest {
            parameters: Some(Parameters::Value(
                rpc::parameterize_request::ParametersValue {
                    name: "aws".into(),
                    version: "0.0.0".into(),
                    value: value.into_bytes(),
                },
            )),
        })
        .await
        .expect("Parameterize")
        .into_inner();
    assert_eq!(
        (response.name.as_str(), response.version.as_str()),
        ("aws", "0.0.0")
    );

    let endpoint = &moto.endpoint;
    let config = config(endpoint);
    let provider_urn = "urn:pulumi:test::proj::pulumi:providers:aws::default_0_0_0";
    let checked = plugin
        .client
        .check_config(rpc::CheckRequest {
            urn: provider_urn.into(),
            olds: Some(object(json!({}))),
            news: Some(object(config.clone())),
            ..Default::default()
        })
        .await
        .expect("CheckConfig")
        .into_inner();
    assert_eq!(checked.failures, vec![]);
    let inputs = json(checked.inputs.as_ref());
    assert_eq!(
        inputs["skipCredentialsValidation"], "true",
        "folded back to a string"
    );
    assert_eq!(inputs["region"], "us-east-1");
    // AWS 3.39.0 does not mark `secret_key` sensitive; see the access key below for one that is.
    assert_eq!(inputs["secretKey"], SECRET_KEY);
    // Set with `pulumi config set --secret`, it stays secret all the same.
    let mut secret_config = config.clone();
    secret_config["secretKey"] = json!({SECRET_SIG: SECRET, "value": SECRET_KEY});
    let checked_secret = plugin
        .client
        .check_config(rpc::CheckRequest {
            urn: provider_urn.into(),
            olds: Some(object(json!({}))),
            news: Some(object(secret_config)),
            ..Default::default()
        })
        .await
        .expect("CheckConfig")
        .into_inner();
    let secret_inputs = json(checked_secret.inputs.as_ref());
    assert_eq!(
        secret_inputs["secretKey"],
        json!({SECRET_SIG: SECRET, "value": SECRET_KEY})
    );
    assert_eq!(secret_inputs["region"], "us-east-1", "the rest stays plain");
    let endpoints_back: Json = serde_json::from_str(
        inputs["endpoints"]
            .as_str()
            .expect("endpoints stay a JSON string"),
    )
    .expect("JSON");
    assert_eq!(endpoints_back[0]["s3"], endpoint.as_str());

    // A misspelt key on the default provider gets Go's text with a suggestion.
    let misspelt = plugin
        .client
        .check_config(rpc::CheckRequest {
            urn: provider_urn.into(),
            news: Some(object(
                json!({"regoin": "us-east-1", "region": "us-east-1"}),
            )),
            ..Default::default()
        })
        .await
        .expect("CheckConfig")
        .into_inner();
    let reasons: Vec<&str> = misspelt
        .failures
        .iter()
        .map(|f| f.reason.as_str())
        .collect();
    assert_eq!(
        reasons,
        vec![
            "`aws:regoin` is not a valid configuration key for the aws provider. Did you mean \
             `aws:region`? If the referenced key is not intended for the provider, please choose \
             a different namespace from `aws:`."
        ]
    );

    let configured = plugin
        .client
        .configure(rpc::ConfigureRequest {
            args: checked.inputs.clone(),
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        })
        .await
        .expect("Configure")
        .into_inner();
    assert!(configured.supports_preview && configured.accept_secrets);

    // Check, preview, create.
    let bucket = format!("tfp-server-{}", std::process::id());
    let news = json!({"bucket": bucket, "forceDestroy": true});
    let checked = Some(plugin.check(&urn("b"), news.clone()).await);
    // Provider validation errors are failures that name the Pulumi path, through a flattened
    // (MaxItemsOne) block too.
    let invalid = plugin
        .client
        .check(rpc::CheckRequest {
            urn: urn("bad"),
            news: Some(object(json!({
                "bucket": "tfp-invalid",
                "acl": "bogus",
                "website": {"indexDocument": "index.html", "routingRules": "not json"}
            }))),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    let mut reasons: Vec<&str> = invalid.failures.iter().map(|f| f.reason.as_str()).collect();
    reasons.sort_unstable();
    assert_eq!(
        reasons,
        vec![
            "\"website.0.routing_rules\" contains an invalid JSON: invalid character 'o' in \
             literal null (expecting 'u'). Examine values at 'bad.website.routingRules'.",
            "expected acl to be one of [private public-read public-read-write authenticated-read \
             aws-exec-read log-delivery-write], got bogus. Examine values at 'bad.acl'.",
        ]
    );

    let preview = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("b"),
            properties: checked.clone(),
            preview: true,
            ..Default::default()
        })
        .await
        .expect("Create preview")
        .into_inner();
    assert_eq!(preview.id, "");
    assert_eq!(json(preview.properties.as_ref())["arn"], UNKNOWN);

    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("b"),
            properties: checked.clone(),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    assert_eq!(
        created.id, bucket,
        "the ID is the renamed `id` (s3BucketId)"
    );
    let state = json(created.properties.as_ref());
    assert_eq!(state["s3BucketId"], bucket.as_str());
    assert_eq!(state["arn"], format!("arn:aws:s3:::{bucket}"));
    let meta: Json =
        serde_json::from_str(state["__meta"].as_str().expect("__meta")).expect("__meta is JSON");
    assert!(
        meta["private_state"].is_string(),
        "SDKv2 private state is kept: {meta}"
    );
    assert_eq!(moto.status(&format!("/{bucket}")), 200);

    // Refresh.
    let read = plugin
        .client
        .read(rpc::ReadRequest {
            id: bucket.clone(),
            urn: urn("b"),
            properties: created.properties.clone(),
            inputs: checked.clone(),
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    assert_eq!(read.id, bucket);
    assert_eq!(json(read.inputs.as_ref())["bucket"], bucket.as_str());

    // A tags change: an update, with a detailed diff naming the tag.
    let tagged = json!({"bucket": bucket, "forceDestroy": true, "tags": {"team": "infra"}});
    let diff = plugin
        .client
        .diff(rpc::DiffRequest {
            id: bucket.clone(),
            urn: urn("b"),
            olds: read.properties.clone(),
            news: Some(object(tagged.clone())),
            ..Default::default()
        })
        .await
        .expect("Diff")
        .into_inner();
    assert_eq!(
        diff.changes,
        rpc::diff_response::DiffChanges::DiffSome as i32
    );
    assert!(diff.replaces.is_empty(), "{diff:?}");
    assert!(diff.diffs.contains(&"tags".to_owned()), "{diff:?}");
    assert_eq!(detailed(&diff)["tags.team"], "ADD", "{diff:?}");
    let updated = plugin
        .client
        .update(rpc::UpdateRequest {
            id: bucket.clone(),
            urn: urn("b"),
            olds: read.properties.clone(),
            news: Some(object(tagged.clone())),
            ..Default::default()
        })
        .await
        .expect("Update")
        .into_inner();
    assert_eq!(
        json(updated.properties.as_ref())["tags"],
        json!({"team": "infra"})
    );

    // A new bucket name forces a replacement, and the detailed diff says which path.
    let renamed =
        json!({"bucket": format!("{bucket}-2"), "forceDestroy": true, "tags": {"team": "infra"}});
    let diff = plugin
        .client
        .diff(rpc::DiffRequest {
            id: bucket.clone(),
            urn: urn("b"),
            olds: updated.properties.clone(),
            news: Some(object(renamed)),
            ..Default::default()
        })
        .await
        .expect("Diff")
        .into_inner();
    assert_eq!(diff.replaces, vec!["bucket".to_owned()]);
    assert_eq!(detailed(&diff)["bucket"], "UPDATE_REPLACE", "{diff:?}");

    // Import by ID: ImportResourceState, then ReadResource.
    let imported = plugin
        .client
        .read(rpc::ReadRequest {
            id: bucket.clone(),
            urn: urn("imported"),
            ..Default::default()
        })
        .await
        .expect("Read (import)")
        .into_inner();
    assert_eq!(imported.id, bucket);
    let imported_inputs = json(imported.inputs.as_ref());
    assert_eq!(imported_inputs["bucket"], bucket.as_str());
    assert!(
        imported_inputs.get("bucketDomainName").is_none(),
        "computed-only attributes are not inputs: {imported_inputs}"
    );
    assert_eq!(
        json(imported.properties.as_ref())["tags"],
        json!({"team": "infra"})
    );

    // The bucket data source.
    let invoked = plugin
        .client
        .invoke(rpc::InvokeRequest {
            tok: "aws:index/getS3Bucket:getS3Bucket".into(),
            args: Some(object(json!({"bucket": bucket}))),
            preview: false,
        })
        .await
        .expect("Invoke")
        .into_inner();
    assert_eq!(invoked.failures, vec![]);
    assert_eq!(
        json(invoked.r#return.as_ref())["arn"],
        format!("arn:aws:s3:::{bucket}")
    );

    // Delete.
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: bucket.clone(),
            urn: urn("b"),
            properties: updated.properties.clone(),
            ..Default::default()
        })
        .await
        .expect("Delete");
    assert_eq!(moto.status(&format!("/{bucket}")), 404);
    destroy_kept_the_private_state(&recording, &json(updated.properties.as_ref()));

    // A create that half-fails: moto creates the bucket, then refuses transfer acceleration on
    // a name with dots. The provider returns the bucket's state with its error, and so do we,
    // as ErrorResourceInitFailed; the engine keeps the bucket instead of forgetting it.
    let dotted = format!("tfp.partial.{}", std::process::id());
    let failed = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("partial"),
            properties: Some(object(json!({
                "bucket": dotted,
                "forceDestroy": true,
                "accelerationStatus": "Enabled"
            }))),
            ..Default::default()
        })
        .await
        .expect_err("acceleration fails on a dotted name");
    let detail = partial::detail(&failed).unwrap_or_else(|| panic!("no partial state: {failed:?}"));
    assert_eq!(detail.id, dotted);
    assert_eq!(detail.reasons.len(), 1);
    let left = json(detail.properties.as_ref());
    assert_eq!(left["bucket"], dotted.as_str(), "{left}");
    assert_eq!(
        json(detail.inputs.as_ref())["accelerationStatus"],
        "Enabled"
    );
    assert_eq!(moto.status(&format!("/{dotted}")), 200, "the bucket exists");
    // The partial state is a usable prior state: an update of the tags goes through, and the
    // provider reads acceleration back as off.
    let news = |tags: Json| {
        object(json!({
            "bucket": dotted,
            "forceDestroy": true,
            "accelerationStatus": "Enabled",
            "tags": tags
        }))
    };
    let retried = plugin
        .client
        .update(rpc::UpdateRequest {
            id: dotted.clone(),
            urn: urn("partial"),
            olds: detail.properties.clone(),
            news: Some(news(json!({"retry": "1"}))),
            ..Default::default()
        })
        .await
        .expect("Update of the partial state")
        .into_inner();
    let retried_state = json(retried.properties.as_ref());
    assert_eq!(retried_state["tags"], json!({"retry": "1"}));
    assert_eq!(retried_state["accelerationStatus"], "");
    // Asking for acceleration again fails the same way, and Update keeps the state too.
    let failed = plugin
        .client
        .update(rpc::UpdateRequest {
            id: dotted.clone(),
            urn: urn("partial"),
            olds: retried.properties.clone(),
            news: Some(news(json!({"retry": "2"}))),
            ..Default::default()
        })
        .await
        .expect_err("acceleration still fails");
    let detail = partial::detail(&failed).unwrap_or_else(|| panic!("no partial state: {failed:?}"));
    assert_eq!(detail.id, dotted);
    let left = json(detail.properties.as_ref());
    assert_eq!(left["bucket"], dotted.as_str());
    assert_eq!(left["tags"], json!({"retry": "2"}), "{left}");
    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: dotted.clone(),
            urn: urn("partial"),
            properties: detail.properties.clone(),
            ..Default::default()
        })
        .await
        .expect("Delete of the partial bucket");
    assert_eq!(moto.status(&format!("/{dotted}")), 404);

    // `name_prefix` given: the autonamed `name` conflicts with it, so it is dropped and the
    // inputs validated again (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_check.go`).
    let role = plugin
        .client
        .check(rpc::CheckRequest {
            urn: urn_of("aws:index/iamRole:IamRole", "role"),
            news: Some(object(json!({
                "namePrefix": "pre-",
                "assumeRolePolicy": "{\"Version\":\"2012-10-17\",\"Statement\":[]}"
            }))),
            random_seed: b"seed".to_vec(),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    assert_eq!(role.failures, vec![]);
    let role_inputs = json(role.inputs.as_ref());
    assert!(role_inputs.get("name").is_none(), "{role_inputs}");
    assert_eq!(role_inputs["namePrefix"], "pre-");

    // An IAM user, autonamed, and its access key, whose `secret` is sensitive.
    let user_token = "aws:index/iamUser:IamUser";
    let user_urn = urn_of(user_token, "deployer");
    let user_inputs = plugin
        .client
        .check(rpc::CheckRequest {
            urn: user_urn.clone(),
            news: Some(object(json!({}))),
            random_seed: b"seed".to_vec(),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    assert_eq!(
        json(user_inputs.inputs.as_ref()),
        json!({"name": "deployer-614742c"}),
        "autonamed as the Go binary names it"
    );
    let user = plugin
        .client
        .create(rpc::CreateRequest {
            urn: user_urn.clone(),
            properties: user_inputs.inputs.clone(),
            ..Default::default()
        })
        .await
        .expect("Create user")
        .into_inner();
    assert_eq!(user.id, "deployer-614742c");
    let key_token = "aws:index/iamAccessKey:IamAccessKey";
    let key_urn = urn_of(key_token, "key");
    let key = plugin
        .client
        .create(rpc::CreateRequest {
            urn: key_urn.clone(),
            properties: Some(object(json!({"user": "deployer-614742c"}))),
            ..Default::default()
        })
        .await
        .expect("Create access key")
        .into_inner();
    let key_state = json(key.properties.as_ref());
    assert_eq!(
        key_state["secret"][SECRET_SIG], "1b47061264138c4ac30d75fd1eb44270",
        "{key_state}"
    );
    let secret = key_state["secret"]["value"]
        .as_str()
        .expect("the secret")
        .to_owned();
    assert!(secret.len() > 10);
    for (id, urn, properties) in [
        (key.id, key_urn, key.properties),
        (user.id, user_urn, user.properties),
    ] {
        plugin
            .client
            .delete(rpc::DeleteRequest {
                id,
                urn,
                properties,
                ..Default::default()
            })
            .await
            .expect("Delete");
    }

    // AWS 3.39.0 predates Terraform list resources.
    let listed = plugin
        .client
        .list(rpc::ListRequest {
            token: BUCKET.into(),
            ..Default::default()
        })
        .await
        .expect_err("nothing to list");
    assert_eq!(
        listed.message(),
        "List is not supported: the Terraform provider aws exposes no list resources"
    );

    let stderr = plugin.stop().await;
    assert!(!stderr.contains(SECRET_KEY), "the secret key was logged");
    assert!(
        !stderr.contains(&secret),
        "the access key's secret was logged"
    );
}

/// The bucket's destroy, the last ApplyResourceChange so far, sent the private state kept in
/// the bucket's `__meta`: SDKv2 keeps the resource's schema version and timeouts there, and
/// Terraform passes it to every later call, a destroy included.
fn destroy_kept_the_private_state(recording: &std::path::Path, state: &Json) {
    use base64::Engine as _;
    let meta: Json =
        serde_json::from_str(state["__meta"].as_str().expect("__meta")).expect("__meta is JSON");
    let private = base64::engine::general_purpose::STANDARD
        .decode(meta["private_state"].as_str().expect("private state"))
        .expect("base64");
    assert!(!private.is_empty(), "SDKv2 keeps private state");
    let text = std::fs::read_to_string(recording).expect("the recording reads");
    let records = parse_recording(&text).expect("the recording parses");
    let destroy = records
        .iter()
        .rfind(|r| r.method() == "ApplyResourceChange")
        .expect("the destroy was recorded");
    let destroy: v6::apply_resource_change::Request =
        destroy.request_message().expect("the request decodes");
    assert_eq!(destroy.type_name, "aws_s3_bucket");
    assert_eq!(
        destroy.planned_state.map(|s| s.msgpack),
        Some(vec![0xc0]),
        "a destroy plans null"
    );
    assert_eq!(
        destroy.planned_private, private,
        "Delete passes the private state on"
    );
}

#[tokio::test]
async fn a_max_items_one_block_is_looked_through_in_the_detailed_diff() {
    let moto = Moto::start();
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("aws_3_39_0"), "aws")
        .await;
    let (checked, _) = plugin.configure("aws", config(&moto.endpoint)).await;
    assert_eq!(checked.failures, vec![]);
    let bucket = format!("tfp-versioning-{}", std::process::id());
    let created = plugin
        .client
        .create(rpc::CreateRequest {
            urn: urn("versioned"),
            properties: Some(object(json!({"bucket": bucket, "forceDestroy": true}))),
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    // `versioning` is a list block of at most one element in Terraform, an object in Pulumi.
    let state = json(created.properties.as_ref());
    assert_eq!(
        state["versioning"],
        json!({"enabled": false, "mfaDelete": false}),
        "{state}"
    );

    let diff = plugin
        .client
        .diff(rpc::DiffRequest {
            id: bucket.clone(),
            urn: urn("versioned"),
            olds: created.properties.clone(),
            news: Some(object(json!({
                "bucket": bucket, "forceDestroy": true, "versioning": {"enabled": true}
            }))),
            ..Default::default()
        })
        .await
        .expect("Diff")
        .into_inner();
    assert_eq!(diff.diffs, vec!["versioning".to_owned()], "{diff:?}");
    assert!(diff.replaces.is_empty(), "{diff:?}");
    // The path is Pulumi's, `versioning.enabled`, not Terraform's `versioning[0].enabled`.
    assert_eq!(
        detailed(&diff),
        json!({"versioning.enabled": "UPDATE"}),
        "{diff:?}"
    );

    plugin
        .client
        .delete(rpc::DeleteRequest {
            id: bucket.clone(),
            urn: urn("versioned"),
            properties: created.properties,
            ..Default::default()
        })
        .await
        .expect("Delete");
    assert_eq!(moto.status(&format!("/{bucket}")), 404);
    plugin.stop().await;
}
