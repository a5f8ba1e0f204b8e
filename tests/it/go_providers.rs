//! Terraform providers built from their Go modules: random 3.6.3 (plugin framework), tls 3.4.0
//! (SDKv2, protocol 5) and tls 4.0.5 (plugin framework).

use pulumi_terraform_provider::{proto::tfplugin6 as v6, tfschema};
use tfp_cty::Value;

use crate::support::{Resource, block, dynamic, launch, no_errors, object, traces_of, value};

/// Launches `fixture`, checks its schema has `resource`, and plans and applies one with `attrs`;
/// returns the new state's attribute `check`.
async fn create(
    fixture: &str,
    resource: &str,
    attrs: Vec<(&str, Value)>,
    check: &str,
) -> (u32, Value) {
    let provider = launch(fixture).await;
    let traces = traces_of(&provider);
    let protocol = provider.protocol();
    assert!(provider.mtls(), "{fixture}: AutoMTLS is on by default");
    let client = provider.client();
    let response = client
        .get_provider_schema()
        .await
        .expect("GetProviderSchema");
    no_errors("GetProviderSchema", &response.diagnostics);
    let schema = tfschema::provider_schema(&response).expect("schema converts");
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
    no_errors("ConfigureProvider", &configured.diagnostics);

    let resource_block = block(&schema.resources, resource);
    let ty = resource_block.implied_type();
    let config = object(resource_block, attrs);
    let null = Value::null(ty.clone());
    let (plan, applied) = Resource::new(client, resource, &ty)
        .change(&null, &config, vec![])
        .await;
    let planned = value(plan.planned_state.as_ref(), &ty);
    assert!(
        !planned.attr(check).is_some_and(Value::is_known),
        "{check} is unknown in the plan"
    );
    let state = value(applied.new_state.as_ref(), &ty);
    provider.shutdown().await.expect("provider exits");
    traces.assert_gone().await;
    (
        protocol,
        state.attr(check).cloned().expect("attribute in state"),
    )
}

#[tokio::test]
async fn random_3_6_3_creates_a_pet() {
    let (protocol, id) = create(
        "random_3_6_3",
        "random_pet",
        vec![("length", Value::number(3i64))],
        "id",
    )
    .await;
    assert_eq!(protocol, 5, "terraform-provider-random serves protocol 5");
    let id = id.as_str().expect("a pet name");
    assert_eq!(id.split('-').count(), 3, "three words: {id}");
}

#[tokio::test]
async fn tls_3_4_0_sdkv2_creates_a_key() {
    let (protocol, pem) = create(
        "tls_3_4_0",
        "tls_private_key",
        vec![("algorithm", Value::string("ECDSA"))],
        "private_key_pem",
    )
    .await;
    assert_eq!(protocol, 5);
    assert!(
        pem.as_str()
            .is_some_and(|p| p.starts_with("-----BEGIN EC PRIVATE KEY-----"))
    );
}

#[tokio::test]
async fn tls_4_0_5_creates_a_key() {
    let (_, pem) = create(
        "tls_4_0_5",
        "tls_private_key",
        vec![("algorithm", Value::string("ED25519"))],
        "public_key_openssh",
    )
    .await;
    assert!(pem.as_str().is_some_and(|p| p.starts_with("ssh-ed25519 ")));
}
