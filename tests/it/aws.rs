//! The official terraform-provider-aws 3.39.0, a protocol-5 Go provider, over AutoMTLS and
//! through the v5 → v6 upgrading client, against moto as the AWS API.

use pulumi_terraform_provider::{proto::tfplugin6 as v6, tfschema};
use tfp_cty::Value;
use tfp_testkit::moto;

use crate::support::{
    Moto, Resource, block, captured, dynamic, launch, no_errors, object, traces_of,
};

#[tokio::test]
async fn aws_s3_bucket_lifecycle_against_moto() {
    let moto = Moto::start();
    let provider = launch("aws_3_39_0").await;
    let traces = traces_of(&provider);
    assert_eq!(provider.protocol(), 5);
    assert!(provider.mtls(), "AutoMTLS is on by default");
    let client = provider.client();

    let response = client
        .get_provider_schema()
        .await
        .expect("GetProviderSchema");
    no_errors("GetProviderSchema", &response.diagnostics);
    let schema = tfschema::provider_schema(&response).expect("schema converts");
    assert_eq!(schema.resources.len(), 711);
    assert_eq!(schema.data_sources.len(), 246);

    // Provider configuration pointing every service we use at moto.
    let provider_block = &schema.provider.block;
    let config = moto::terraform_config(&moto.endpoint, provider_block, "test");
    let config_type = provider_block.implied_type();
    let validated = client
        .validate_provider_config(v6::validate_provider_config::Request {
            config: Some(dynamic(&config, &config_type)),
        })
        .await
        .expect("ValidateProviderConfig (PrepareProviderConfig)");
    no_errors("ValidateProviderConfig", &validated.diagnostics);
    let configured = client
        .configure_provider(v6::configure_provider::Request {
            terraform_version: "1.10.0".into(),
            config: Some(dynamic(&config, &config_type)),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider");
    no_errors("ConfigureProvider", &configured.diagnostics);

    let bucket = format!("tfp-test-{}", std::process::id());
    let resource = block(&schema.resources, "aws_s3_bucket");
    let ty = resource.implied_type();
    let bucket_config = object(resource, vec![("bucket", Value::string(bucket.clone()))]);
    let null = Value::null(ty.clone());
    let valid = client
        .validate_resource_config(v6::validate_resource_config::Request {
            type_name: "aws_s3_bucket".into(),
            config: Some(dynamic(&bucket_config, &ty)),
            client_capabilities: None,
        })
        .await
        .expect("ValidateResourceConfig");
    no_errors("ValidateResourceConfig", &valid.diagnostics);

    // Create.
    let buckets = Resource::new(client, "aws_s3_bucket", &ty);
    let plan = buckets
        .plan(&null, &bucket_config, &bucket_config, vec![])
        .await;
    assert!(
        plan.legacy_type_system,
        "SDKv2 providers use the legacy type system"
    );
    let planned = captured(
        "aws_s3_bucket.plan-create",
        plan.planned_state.as_ref(),
        &ty,
    );
    assert!(
        !planned.attr("arn").is_some_and(Value::is_known),
        "arn is unknown until apply"
    );
    let applied = buckets.apply(&null, &plan, &bucket_config).await;
    let state = captured(
        "aws_s3_bucket.apply-create",
        applied.new_state.as_ref(),
        &ty,
    );
    let private = applied.private;
    assert_eq!(
        state.attr("id").and_then(Value::as_str),
        Some(bucket.as_str())
    );
    assert_eq!(
        state.attr("arn").and_then(Value::as_str),
        Some(format!("arn:aws:s3:::{bucket}").as_str())
    );
    assert_eq!(
        moto.status(&format!("/{bucket}")),
        200,
        "the bucket exists in moto"
    );

    // Refresh.
    let read = buckets.read(&state, private.clone()).await;
    let refreshed = captured("aws_s3_bucket.read", read.new_state.as_ref(), &ty);
    assert_eq!(
        refreshed.attr("bucket").and_then(Value::as_str),
        Some(bucket.as_str())
    );

    // Import, then read the imported object, as Terraform does.
    let imported = client
        .import_resource_state(v6::import_resource_state::Request {
            type_name: "aws_s3_bucket".into(),
            id: bucket.clone(),
            ..Default::default()
        })
        .await
        .expect("ImportResourceState");
    no_errors("ImportResourceState", &imported.diagnostics);
    assert_eq!(imported.imported_resources.len(), 1);
    let object_state = captured(
        "aws_s3_bucket.import",
        imported.imported_resources[0].state.as_ref(),
        &ty,
    );
    let read = buckets
        .read(
            &object_state,
            imported.imported_resources[0].private.clone(),
        )
        .await;
    let refreshed = captured("aws_s3_bucket.read", read.new_state.as_ref(), &ty);
    assert_eq!(refreshed.attr("arn"), state.attr("arn"));

    // Upgrade the state as stored (JSON) at the current schema version.
    let raw = tfp_cty::to_json(&state, &ty).expect("state encodes as JSON");
    let upgraded = client
        .upgrade_resource_state(v6::upgrade_resource_state::Request {
            type_name: "aws_s3_bucket".into(),
            version: schema.resources["aws_s3_bucket"].version,
            raw_state: Some(v6::RawState {
                json: raw,
                flatmap: Default::default(),
            }),
        })
        .await
        .expect("UpgradeResourceState");
    no_errors("UpgradeResourceState", &upgraded.diagnostics);
    assert_eq!(
        captured(
            "aws_s3_bucket.upgrade",
            upgraded.upgraded_state.as_ref(),
            &ty
        )
        .attr("id"),
        state.attr("id")
    );

    // Destroy: plan with a null proposed state and config, then apply the null plan.
    let plan = buckets.plan(&state, &null, &null, private).await;
    assert!(
        plan.legacy_type_system,
        "SDKv2 providers use the legacy type system"
    );
    let planned = captured(
        "aws_s3_bucket.plan-destroy",
        plan.planned_state.as_ref(),
        &ty,
    );
    assert!(planned.is_null(), "a destroy plan is null");
    let applied = buckets.apply(&state, &plan, &null).await;
    let gone = captured(
        "aws_s3_bucket.apply-destroy",
        applied.new_state.as_ref(),
        &ty,
    );
    assert!(gone.is_null(), "a destroyed bucket has a null state");
    assert_eq!(
        moto.status(&format!("/{bucket}")),
        404,
        "the bucket is gone from moto"
    );

    let stopped = client
        .stop_provider(v6::stop_provider::Request {})
        .await
        .expect("StopProvider (Stop)");
    assert_eq!(stopped.error, "");
    provider.shutdown().await.expect("aws exits");
    traces.assert_gone().await;
}
