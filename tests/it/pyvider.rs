//! Pyvider 0.8.1, a protocol-6 provider in Python, over AutoMTLS.

use pulumi_terraform_provider::{proto::tfplugin6 as v6, tfschema};
use tfp_cty::{Type, Value};

use crate::support::{Resource, block, captured, dynamic, launch, no_errors, object, traces_of};

#[tokio::test]
async fn pyvider_schema_crud_and_functions() {
    let provider = launch("pyvider").await;
    let traces = traces_of(&provider);
    assert_eq!(provider.protocol(), 6);
    assert!(provider.mtls(), "AutoMTLS is on by default");
    let client = provider.client();

    let response = client
        .get_provider_schema()
        .await
        .expect("GetProviderSchema");
    no_errors("GetProviderSchema", &response.diagnostics);
    let schema = tfschema::provider_schema(&response).expect("schema converts");
    assert_eq!(schema.resources.len(), 4, "{:?}", schema.resources.keys());
    assert_eq!(
        schema.data_sources.len(),
        5,
        "{:?}",
        schema.data_sources.keys()
    );
    assert_eq!(schema.functions.len(), 25, "{:?}", schema.functions.keys());
    assert_eq!(
        schema.ephemeral_resources.len(),
        1,
        "{:?}",
        schema.ephemeral_resources.keys()
    );

    let config_type = schema.provider.block.implied_type();
    let configure = client
        .configure_provider(v6::configure_provider::Request {
            terraform_version: "1.10.0".into(),
            config: Some(dynamic(
                &object(&schema.provider.block, vec![]),
                &config_type,
            )),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider");
    no_errors("ConfigureProvider", &configure.diagnostics);

    // A file managed through pyvider_file_content: create, read, update, delete.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("managed.txt");
    let resource = block(&schema.resources, "pyvider_file_content");
    let ty = resource.implied_type();
    let config = |content: &str| {
        object(
            resource,
            vec![
                ("filename", Value::string(file.to_string_lossy())),
                ("content", Value::string(content)),
            ],
        )
    };
    let null = Value::null(ty.clone());
    let files = Resource::new(client, "pyvider_file_content", &ty);

    let (state, private) = apply(
        &files,
        &ty,
        &null,
        &config("first"),
        &config("first"),
        vec![],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&file).expect("file created"),
        "first"
    );
    assert_eq!(state.attr("content").and_then(Value::as_str), Some("first"));
    assert!(
        state
            .attr("content_hash")
            .and_then(Value::as_str)
            .is_some_and(|h| !h.is_empty())
    );

    let read = client
        .read_resource(v6::read_resource::Request {
            type_name: "pyvider_file_content".into(),
            current_state: Some(dynamic(&state, &ty)),
            private: private.clone(),
            ..Default::default()
        })
        .await
        .expect("ReadResource");
    no_errors("ReadResource", &read.diagnostics);
    assert_eq!(
        captured("pyvider_file_content.read", read.new_state.as_ref(), &ty)
            .attr("content")
            .and_then(Value::as_str),
        Some("first")
    );

    // Update: the proposed state is the config, with computed attributes the config leaves
    // null taken from the prior state.
    let mut proposed = config("second");
    if let tfp_cty::Kind::Object(attrs) = &mut proposed.kind {
        for (name, attribute) in &resource.attributes {
            if attribute.computed && attrs.get(name).is_some_and(Value::is_null) {
                attrs.insert(
                    name.clone(),
                    state
                        .attr(name)
                        .cloned()
                        .expect("prior has every attribute"),
                );
            }
        }
    }
    let (updated, private) =
        apply(&files, &ty, &state, &proposed, &config("second"), private).await;
    assert_eq!(
        std::fs::read_to_string(&file).expect("file updated"),
        "second"
    );
    assert_ne!(
        updated.attr("content_hash"),
        state.attr("content_hash"),
        "the hash follows the content"
    );

    let (gone, _) = apply(&files, &ty, &updated, &null, &null, private).await;
    assert!(gone.is_null(), "a destroyed resource has a null state");
    assert!(!file.exists(), "the file is deleted");

    // Functions.
    let functions = client
        .get_functions(v6::get_functions::Request {})
        .await
        .expect("GetFunctions");
    no_errors("GetFunctions", &functions.diagnostics);
    assert_eq!(functions.functions.len(), 25);
    let upper = call(client, "upper", vec![Value::string("hello")], &Type::String).await;
    assert_eq!(upper.as_str(), Some("HELLO"));
    let quotient = call(
        client,
        "divide",
        vec![Value::number(2i64), Value::number(0i64)],
        &Type::Number,
    )
    .await;
    let quotient = quotient.as_number().expect("a number");
    assert!(
        quotient.is_infinite() && quotient.to_f64() > 0.0,
        "divide(2, 0) is +Inf, got {quotient:?}"
    );

    provider.shutdown().await.expect("pyvider exits");
    traces.assert_gone().await;
}

/// Plans and applies a change of `pyvider_file_content`, returning the new state (captured
/// under the change's name) and private.
async fn apply(
    files: &Resource<'_>,
    ty: &Type,
    prior: &Value,
    proposed: &Value,
    config: &Value,
    private: Vec<u8>,
) -> (Value, Vec<u8>) {
    let plan = files.plan(prior, proposed, config, private).await;
    let applied = files.apply(prior, &plan, config).await;
    let phase = match (prior.is_null(), config.is_null()) {
        (true, _) => "create",
        (false, false) => "update",
        (false, true) => "delete",
    };
    let state = captured(
        &format!("pyvider_file_content.apply-{phase}"),
        applied.new_state.as_ref(),
        ty,
    );
    (state, applied.private)
}

async fn call(
    client: &pulumi_terraform_provider::host::Client,
    name: &str,
    args: Vec<Value>,
    ret: &Type,
) -> Value {
    let arguments = args.iter().map(|a| dynamic(a, &a.ty())).collect();
    let response = client
        .call_function(v6::call_function::Request {
            name: name.into(),
            arguments,
        })
        .await
        .expect("CallFunction");
    assert!(response.error.is_none(), "{name}: {:?}", response.error);
    captured(&format!("function.{name}"), response.result.as_ref(), ret)
}
