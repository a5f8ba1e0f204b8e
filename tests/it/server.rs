//! Serve mode, driven over gRPC as the engine drives it: the port handshake, Parameterize and
//! GetSchema on a real provider, and SIGINT stopping the server and its provider.

use std::{
    io::{BufRead as _, BufReader},
    process::{Child, Command, Stdio},
};

use pulumi_terraform_provider::proto::pulumirpc::{
    self as rpc, parameterize_request::Parameters, resource_provider_client::ResourceProviderClient,
};
use tfp_schema_cache::SWITCH as SCHEMA_CACHE;

use crate::support::Fixtures;

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// Our binary in serve mode, in attach mode (no engine); killed when dropped.
struct Served {
    child: Child,
    port: u16,
}

impl Served {
    fn start() -> Served {
        let mut child = Command::new(BIN)
            .args(["--logtostderr", "-v=9"])
            .env(SCHEMA_CACHE, "off")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("reads the port line");
        let port = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("the first stdout line is the port: {line:?}"));
        let mut rest = String::new();
        // Nothing else may ever appear on stdout; keep reading in the background to check.
        std::thread::spawn(move || {
            let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
            assert!(
                rest.is_empty(),
                "stdout carries only the port, got {rest:?}"
            );
        });
        Served { child, port }
    }

    async fn client(&self) -> ResourceProviderClient<tonic::transport::Channel> {
        ResourceProviderClient::connect(format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("connects")
    }

    /// Stops the server as the engine does, with SIGTERM, and returns whether it exited cleanly.
    fn stop(mut self) -> bool {
        let pid = self.child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        self.child.wait().expect("exits").success()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn parameterize_and_get_schema_on_a_local_provider() {
    let fixtures = Fixtures::load();
    let served = Served::start();
    let mut client = served.client().await;

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
    // The engine hangs up before it stops a plugin.
    drop(client);
    assert!(served.stop(), "SIGTERM stops the server cleanly");
}

#[tokio::test]
async fn parameterize_explains_bad_arguments() {
    let served = Served::start();
    let mut client = served.client().await;
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
        let err = client
            .parameterize(rpc::ParameterizeRequest {
                parameters: Some(Parameters::Args(
                    rpc::parameterize_request::ParametersArgs { args },
                )),
            })
            .await
            .expect_err("bad arguments");
        assert!(err.message().contains(message), "{}", err.message());
    }
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
