//! Serve mode, driven over gRPC as the engine drives it: the port handshake, Parameterize and
//! GetSchema on a real provider, and SIGINT stopping the server and its provider.

use pulumi_terraform_provider::proto::pulumirpc::{self as rpc, parameterize_request::Parameters};

use crate::{plugin::Plugin, support::Fixtures};

#[tokio::test]
async fn parameterize_and_get_schema_on_a_local_provider() {
    let fixtures = Fixtures::load();
    let mut plugin = Plugin::start().await;
    let client = &mut plugin.client;

    let info = client
        .get_plugin_info(())
        .await
        .expect("GetPluginInfo")
        .into_inner();
    assert_eq!(
        info.version,
        env!("CARGO_PKG_VERSION"),
        "our version before Parameterize"
    );
    let handshake = client
        .handshake(rpc::ProviderHandshakeRequest::default())
        .await;
    assert_eq!(
        handshake.expect_err("as the Go binary").code(),
        tonic::Code::Unimplemented
    );
    let bare = client
        .get_schema(rpc::GetSchemaRequest::default())
        .await
        .expect("GetSchema")
        .into_inner();
    let bare: serde_json::Value = serde_json::from_str(&bare.schema).expect("schema JSON");
    assert_eq!(bare["name"], "terraform-provider");
    let refused = client
        .get_schema(rpc::GetSchemaRequest {
            subpackage_version: "not-a-version".to_owned(),
            ..Default::default()
        })
        .await
        .expect_err("not a semantic version");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(
        refused.message(),
        "invalid SubpackageVersion: \"not-a-version\" is not a semantic version"
    );

    let path = fixtures.path("pyvider").to_string_lossy().into_owned();
    let response = client
        .parameterize(rpc::ParameterizeRequest {
            parameters: Some(Parameters::Args(
                rpc::parameterize_request::ParametersArgs {
                    args: vec![path.clone()],
                },
            )),
        })
        .await
        .expect("Parameterize")
        .into_inner();
    assert_eq!(
        (response.name.as_str(), response.version.as_str()),
        ("pyvider", "0.0.0")
    );

    let info = client
        .get_plugin_info(())
        .await
        .expect("GetPluginInfo")
        .into_inner();
    assert_eq!(
        info.version, "0.0.0",
        "the provider's version after Parameterize"
    );
    let schema = client
        .get_schema(rpc::GetSchemaRequest::default())
        .await
        .expect("GetSchema")
        .into_inner();
    let schema: serde_json::Value = serde_json::from_str(&schema.schema).expect("schema JSON");
    assert_eq!(schema["name"], "pyvider");
    assert!(
        schema["resources"]["pyvider:index/fileContent:FileContent"].is_object(),
        "{:#}",
        schema["resources"]
    );
    let parameter = schema["parameterization"]["parameter"]
        .as_str()
        .expect("parameter value");
    use base64::Engine as _;
    let parameter = base64::engine::general_purpose::STANDARD
        .decode(parameter)
        .expect("base64");
    assert_eq!(
        String::from_utf8_lossy(&parameter),
        format!(r#"{{"local":{{"path":"{path}"}}}}"#)
    );

    let again = client
        .parameterize(rpc::ParameterizeRequest {
            parameters: Some(Parameters::Args(
                rpc::parameterize_request::ParametersArgs { args: vec![path] },
            )),
        })
        .await
        .expect_err("a second Parameterize");
    assert_eq!(
        again.message(),
        "provider is already parameterized to (pyvider, 0.0.0)"
    );
    // Stopping checks that the server exits cleanly on SIGTERM, that the provider is gone and
    // that stdout carried nothing after the port line.
    plugin.stop().await;
}

#[tokio::test]
async fn parameterize_explains_bad_arguments() {
    let mut plugin = Plugin::start().await;
    for (args, message) in [
        (vec![], "accepts between 1 and 2 arg(s), received 0"),
        (
            vec!["./terraform-provider-x", "1.0.0"],
            "local providers only accept one argument, found 2",
        ),
        (
            vec!["./not-a-provider"],
            "expected path to end with \"terraform-provider-${NAME}\"",
        ),
    ] {
        let args = args.into_iter().map(str::to_owned).collect();
        let err = (plugin.client)
            .parameterize(rpc::ParameterizeRequest {
                parameters: Some(Parameters::Args(
                    rpc::parameterize_request::ParametersArgs { args },
                )),
            })
            .await
            .expect_err("bad arguments");
        assert!(err.message().contains(message), "{}", err.message());
    }
    plugin.stop().await;
}

#[tokio::test]
async fn sigint_stops_the_server_and_the_provider_it_ran() {
    let mut plugin = crate::plugin::Plugin::start().await;
    plugin
        .parameterize(&Fixtures::load().path("pyvider"), "pyvider")
        .await;
    let children = plugin.children();
    assert_eq!(children.len(), 1, "one provider: {children:?}");
    let socket = crate::support::pyvider_socket(children[0]);
    assert!(socket.exists(), "{} exists while it runs", socket.display());
    // Stopping checks that the provider's process is gone.
    plugin.stop_with("INT").await;
    assert!(!socket.exists(), "{} was removed", socket.display());
}
