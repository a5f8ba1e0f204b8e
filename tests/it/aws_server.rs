//! The official AWS provider 3.39.0 (protocol 5, SDKv2) behind our server, against moto:
//! configuration through CheckConfig and Configure, the lifecycle of `aws_s3_bucket` with import
//! and a replacement, a data source, and a create that half-fails.
//!
//! One moto and one server (parameterized and configured once: launching AWS is the slow
//! part) serve a list of named phases. Each phase runs in a task of its own, so a failing one
//! is reported by name and the phases after it still run.

use std::{
    future::Future,
    path::PathBuf,
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
};

use pulumi_terraform_provider::{
    proto::{
        pulumirpc::{
            self as rpc, parameterize_request::Parameters,
            resource_provider_client::ResourceProviderClient,
        },
        tfplugin6 as v6,
    },
    recording::Messages as _,
    server::partial,
};
use serde_json::{Value as Json, json};
use tfp_testkit::moto;
use tonic::transport::Channel;

use crate::{
    plugin::{Plugin, SECRET, SECRET_SIG, check, detailed, json, object},
    support::{Fixtures, Moto},
};

const BUCKET: &str = "aws:index/s3Bucket:S3Bucket";
const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/// The secret key we configure; it must appear in none of our logs.
const SECRET_KEY: &str = "moto-secret-key-b7c1d9e2";
const PROVIDER_URN: &str = "urn:pulumi:test::proj::pulumi:providers:aws::default_0_0_0";

fn urn(name: &str) -> String {
    format!("urn:pulumi:test::proj::{BUCKET}::{name}")
}

fn urn_of(token: &str, name: &str) -> String {
    format!("urn:pulumi:test::proj::{token}::{name}")
}

/// The provider configuration for moto at `endpoint`, as `pulumi config` stores it.
fn config(endpoint: &str) -> Json {
    moto::pulumi_config(endpoint, "test", json!(SECRET_KEY))
}

/// What every phase gets: our server, parameterized with AWS and configured for moto.
#[derive(Clone)]
struct Aws {
    client: ResourceProviderClient<Channel>,
    moto: Arc<Moto>,
    /// Where the server records the Terraform calls.
    recording: PathBuf,
    /// Secrets the provider made that our server must not log.
    made: Arc<Mutex<Vec<String>>>,
}

impl Aws {
    /// A name for a bucket of this test run.
    fn bucket(what: &str) -> String {
        format!("tfp-server-{what}-{}", std::process::id())
    }

    /// The HTTP status of the bucket `name` in moto.
    fn status(&self, name: &str) -> u16 {
        self.moto.status(&format!("/{name}"))
    }

    /// Creates the bucket `name` (as resource `urn_name`) from `news`; returns the answer.
    async fn create(&mut self, urn_name: &str, news: Json) -> rpc::CreateResponse {
        self.client
            .create(rpc::CreateRequest {
                urn: urn(urn_name),
                properties: Some(object(news)),
                ..Default::default()
            })
            .await
            .expect("Create")
            .into_inner()
    }

    async fn delete(&mut self, id: &str, urn: String, properties: Option<prost_types::Struct>) {
        self.client
            .delete(rpc::DeleteRequest {
                id: id.to_owned(),
                urn,
                properties,
                ..Default::default()
            })
            .await
            .expect("Delete");
    }
}

type Phase = fn(Aws) -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// Each phase named after its function.
macro_rules! phases {
    ($($phase:ident),* $(,)?) => {
        &[$((stringify!($phase), |aws| Box::pin($phase(aws)))),*]
    };
}

/// The phases, in the order they run.
const PHASES: &[(&str, Phase)] = phases![
    config_is_checked_and_a_secret_key_stays_secret,
    a_misspelt_config_key_gets_a_suggestion,
    validation_errors_name_the_pulumi_path,
    a_bucket_is_previewed_created_and_refreshed,
    a_tag_change_is_an_update_and_a_new_name_a_replacement,
    a_bucket_imports_by_id_and_its_data_source_reads_it,
    delete_passes_the_private_state_on,
    a_create_that_half_fails_keeps_the_bucket,
    name_prefix_drops_the_autoname,
    an_autonamed_user_gets_an_access_key_whose_secret_is_secret,
    list_is_not_supported,
];

#[tokio::test]
async fn aws_s3_bucket_through_our_server() {
    let moto = Arc::new(Moto::start());
    // The Terraform calls are recorded, to check what Delete sends.
    let dir = tempfile::tempdir().expect("temp dir");
    let recording = dir.path().join("tf-calls.json");
    let mut plugin = Plugin::start_with_env(&[("PULUMI_TF_DEBUG_GRPC", &recording)]).await;
    parameterize_by_value(&mut plugin).await;
    let (checked, configured) = plugin.configure("aws", config(&moto.endpoint)).await;
    assert_eq!(checked.failures, vec![]);
    assert!(configured.supports_preview && configured.accept_secrets);

    let aws = Aws {
        client: plugin.client.clone(),
        moto,
        recording,
        made: Arc::default(),
    };
    let mut failed = Vec::new();
    for (name, phase) in PHASES {
        // A panic ends the phase's task only; the harness has printed its message already.
        if tokio::spawn(phase(aws.clone())).await.is_err() {
            failed.push(*name);
        }
    }

    let stderr = plugin.stop().await;
    assert!(!stderr.contains(SECRET_KEY), "the secret key was logged");
    let made = aws.made.lock().unwrap_or_else(PoisonError::into_inner);
    for secret in made.iter() {
        assert!(
            !stderr.contains(secret),
            "a secret the provider made was logged"
        );
    }
    assert!(failed.is_empty(), "phases that failed: {failed:?}");
}

/// Parameterize in the value form an SDK embeds.
async fn parameterize_by_value(plugin: &mut Plugin) {
    let path = Fixtures::load().path("aws_3_39_0");
    let value = json!({"local": {"path": path}}).to_string();
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
}

async fn config_is_checked_and_a_secret_key_stays_secret(mut aws: Aws) {
    let config = config(&aws.moto.endpoint);
    let check = |news: Json| rpc::CheckRequest {
        urn: PROVIDER_URN.into(),
        olds: Some(object(json!({}))),
        news: Some(object(news)),
        ..Default::default()
    };
    let checked = aws
        .client
        .check_config(check(config.clone()))
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
    let endpoints: Json = serde_json::from_str(
        inputs["endpoints"]
            .as_str()
            .expect("endpoints stay a JSON string"),
    )
    .expect("JSON");
    assert_eq!(endpoints[0]["s3"], aws.moto.endpoint.as_str());

    // Set with `pulumi config set --secret`, it stays secret all the same.
    let mut secret_config = config;
    secret_config["secretKey"] = json!({SECRET_SIG: SECRET, "value": SECRET_KEY});
    let checked = aws
        .client
        .check_config(check(secret_config))
        .await
        .expect("CheckConfig")
        .into_inner();
    let inputs = json(checked.inputs.as_ref());
    assert_eq!(
        inputs["secretKey"],
        json!({SECRET_SIG: SECRET, "value": SECRET_KEY})
    );
    assert_eq!(inputs["region"], "us-east-1", "the rest stays plain");
}

/// On the default provider, a misspelt key gets Go's text with a suggestion.
async fn a_misspelt_config_key_gets_a_suggestion(mut aws: Aws) {
    let misspelt = aws
        .client
        .check_config(rpc::CheckRequest {
            urn: PROVIDER_URN.into(),
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
}

/// Provider validation errors are failures that name the Pulumi path, through a flattened
/// (MaxItemsOne) block too.
async fn validation_errors_name_the_pulumi_path(mut aws: Aws) {
    let invalid = aws
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
}

/// Check, preview, create, refresh.
async fn a_bucket_is_previewed_created_and_refreshed(mut aws: Aws) {
    let bucket = Aws::bucket("created");
    let news = json!({"bucket": bucket, "forceDestroy": true});
    let checked = Some(check(&mut aws.client, &urn("b"), news).await);
    let preview = aws
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

    let created = aws
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
    assert_eq!(aws.status(&bucket), 200);

    let read = aws
        .client
        .read(rpc::ReadRequest {
            id: bucket.clone(),
            urn: urn("b"),
            properties: created.properties.clone(),
            inputs: checked,
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    assert_eq!(read.id, bucket);
    assert_eq!(json(read.inputs.as_ref())["bucket"], bucket.as_str());
    aws.delete(&bucket, urn("b"), read.properties).await;
}

/// A tags change is an update, with a detailed diff naming the tag; a new bucket name forces
/// a replacement, and the detailed diff says which path.
async fn a_tag_change_is_an_update_and_a_new_name_a_replacement(mut aws: Aws) {
    let bucket = Aws::bucket("updated");
    let created = aws
        .create("u", json!({"bucket": bucket, "forceDestroy": true}))
        .await;
    // Refreshed, as the engine does before an update: the state then holds the provider's
    // empty tags, which the new tag is added to.
    let read = aws
        .client
        .read(rpc::ReadRequest {
            id: bucket.clone(),
            urn: urn("u"),
            properties: created.properties,
            ..Default::default()
        })
        .await
        .expect("Read")
        .into_inner();
    let tagged = json!({"bucket": bucket, "forceDestroy": true, "tags": {"team": "infra"}});
    let diff = aws
        .client
        .diff(rpc::DiffRequest {
            id: bucket.clone(),
            urn: urn("u"),
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
    let updated = aws
        .client
        .update(rpc::UpdateRequest {
            id: bucket.clone(),
            urn: urn("u"),
            olds: read.properties.clone(),
            news: Some(object(tagged)),
            ..Default::default()
        })
        .await
        .expect("Update")
        .into_inner();
    assert_eq!(
        json(updated.properties.as_ref())["tags"],
        json!({"team": "infra"})
    );

    let renamed =
        json!({"bucket": format!("{bucket}-2"), "forceDestroy": true, "tags": {"team": "infra"}});
    let diff = aws
        .client
        .diff(rpc::DiffRequest {
            id: bucket.clone(),
            urn: urn("u"),
            olds: updated.properties.clone(),
            news: Some(object(renamed)),
            ..Default::default()
        })
        .await
        .expect("Diff")
        .into_inner();
    assert_eq!(diff.replaces, vec!["bucket".to_owned()]);
    assert_eq!(detailed(&diff)["bucket"], "UPDATE_REPLACE", "{diff:?}");
    aws.delete(&bucket, urn("u"), updated.properties).await;
}

/// Import by ID (ImportResourceState, then ReadResource), and the bucket data source.
async fn a_bucket_imports_by_id_and_its_data_source_reads_it(mut aws: Aws) {
    let bucket = Aws::bucket("imported");
    let created = aws
        .create(
            "i",
            json!({"bucket": bucket, "forceDestroy": true, "tags": {"team": "infra"}}),
        )
        .await;
    let imported = aws
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

    let invoked = aws
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
    aws.delete(&bucket, urn("i"), created.properties).await;
}

/// Delete removes the bucket and gives the provider the private state kept in `__meta`.
async fn delete_passes_the_private_state_on(mut aws: Aws) {
    let bucket = Aws::bucket("deleted");
    let created = aws
        .create("d", json!({"bucket": bucket, "forceDestroy": true}))
        .await;
    assert_eq!(aws.status(&bucket), 200);
    aws.delete(&bucket, urn("d"), created.properties.clone())
        .await;
    assert_eq!(aws.status(&bucket), 404);
    destroy_kept_the_private_state(&aws.recording, &json(created.properties.as_ref()));
}

/// A create that half-fails: moto creates the bucket, then refuses transfer acceleration on a
/// name with dots. The provider returns the bucket's state with its error, and so do we, as
/// ErrorResourceInitFailed; the engine keeps the bucket instead of forgetting it.
async fn a_create_that_half_fails_keeps_the_bucket(mut aws: Aws) {
    let dotted = format!("tfp.partial.{}", std::process::id());
    let failed = aws
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
    assert_eq!(aws.status(&dotted), 200, "the bucket exists");
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
    let retried = aws
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
    let failed = aws
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
    aws.delete(&dotted, urn("partial"), detail.properties.clone())
        .await;
    assert_eq!(aws.status(&dotted), 404);
}

/// `name_prefix` given: the autonamed `name` conflicts with it, so it is dropped and the
/// inputs validated again (pulumi-terraform-bridge `pkg/pf/tfbridge/provider_check.go`).
async fn name_prefix_drops_the_autoname(mut aws: Aws) {
    let role = check(
        &mut aws.client,
        &urn_of("aws:index/iamRole:IamRole", "role"),
        json!({
            "namePrefix": "pre-",
            "assumeRolePolicy": "{\"Version\":\"2012-10-17\",\"Statement\":[]}"
        }),
    )
    .await;
    let role_inputs = json(Some(&role));
    assert!(role_inputs.get("name").is_none(), "{role_inputs}");
    assert_eq!(role_inputs["namePrefix"], "pre-");
}

/// An IAM user, autonamed, and its access key, whose `secret` is sensitive.
async fn an_autonamed_user_gets_an_access_key_whose_secret_is_secret(mut aws: Aws) {
    let user_urn = urn_of("aws:index/iamUser:IamUser", "deployer");
    let user_inputs = check(&mut aws.client, &user_urn, json!({})).await;
    assert_eq!(
        json(Some(&user_inputs)),
        json!({"name": "deployer-614742c"}),
        "autonamed as the Go binary names it"
    );
    let user = aws
        .client
        .create(rpc::CreateRequest {
            urn: user_urn.clone(),
            properties: Some(user_inputs),
            ..Default::default()
        })
        .await
        .expect("Create user")
        .into_inner();
    assert_eq!(user.id, "deployer-614742c");
    let key_urn = urn_of("aws:index/iamAccessKey:IamAccessKey", "key");
    let key = aws
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
    // Not shown if it fails: the state holds the key's secret.
    assert_eq!(
        key_state["secret"][SECRET_SIG], SECRET,
        "the access key's secret is marked secret"
    );
    let secret = key_state["secret"]["value"]
        .as_str()
        .expect("the secret")
        .to_owned();
    assert!(secret.len() > 10);
    aws.made
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(secret);
    aws.delete(&key.id, key_urn, key.properties).await;
    aws.delete(&user.id, user_urn, user.properties).await;
}

/// AWS 3.39.0 predates Terraform list resources.
async fn list_is_not_supported(mut aws: Aws) {
    let listed = aws
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
    let records = crate::support::records(recording);
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
