//! Reattaching to a provider that someone else runs: we connect, never spawn and never stop it.

use pulumi_terraform_provider::host::Provider;
use tfp_goplugin::{Launch, handshake::Address, reattach};

use crate::support::{Fixtures, traces_of};

fn normalize(source: &str) -> Result<String, String> {
    let parts: Vec<&str> = source.split('/').collect();
    match parts.as_slice() {
        [namespace, name] => Ok(format!("registry.opentofu.org/{namespace}/{name}").to_lowercase()),
        [host, namespace, name] => Ok(format!("{host}/{namespace}/{name}").to_lowercase()),
        _ => Err("must be [hostname/]namespace/name".into()),
    }
}

#[tokio::test]
async fn reattaches_to_a_running_provider_without_owning_it() {
    let fixtures = Fixtures::load();
    // A provider in debug mode serves plaintext; launching one without TLS gives the same.
    let mut launch = Launch::new(fixtures.path("pyvider"));
    launch.tls = false;
    let running = Provider::launch(launch).await.expect("pyvider starts");
    let traces = traces_of(&running);
    let Some(Address::Unix(socket)) = running.address().cloned() else {
        panic!("pyvider listens on a unix socket");
    };
    let map = serde_json::json!({
        "registry.opentofu.org/local/pyvider": {
            "Protocol": "grpc", "ProtocolVersion": 6, "Pid": running.pid(), "Test": true,
            "Addr": { "Network": "unix", "String": socket },
        }
    })
    .to_string();
    let entry = reattach::lookup(reattach::VARIABLES[0], &map, "local/pyvider", normalize)
        .expect("valid map")
        .expect("entry found");
    let attached = Provider::reattach("pyvider", reattach::VARIABLES[0], &entry)
        .await
        .expect("reattach");
    assert_eq!(attached.protocol(), 6);
    assert_eq!(attached.pid(), None, "a reattached provider is not ours");
    let schema = attached
        .client()
        .get_provider_schema()
        .await
        .expect("schema over the reattached connection");
    assert_eq!(schema.resource_schemas.len(), 4);
    assert!(
        attached.shutdown().await.is_none(),
        "shutting down a reattached provider only disconnects"
    );
    // The provider still serves its original client.
    let again = running
        .client()
        .get_provider_schema()
        .await
        .expect("still running");
    assert_eq!(again.resource_schemas.len(), 4);
    running.shutdown().await.expect("pyvider exits");
    traces.assert_gone().await;
}
