//! When the engine dies without a word (SIGKILL), the plugin notices and stops: the provider and
//! what it started are ended, and their sockets removed.
//!
//! The engine is stood in for by two real parts: a shell that starts our binary as the engine
//! does (as its child, with the engine's address as the argument) and is then killed, and a
//! gRPC server of the test that answers the engine's `Log` RPC at that address.

use std::{
    io::{BufRead as _, BufReader},
    process::{Command, Stdio},
    time::Duration,
};

use pulumi_terraform_provider::proto::pulumirpc::resource_provider_client::ResourceProviderClient;
use tfp_schema_cache::SWITCH as SCHEMA_CACHE;

use crate::{
    plugin::Plugin,
    processes::{StopOnDrop, children_of, running, running_with, signal, unix_sockets, wait_for},
    support::{EngineLogs, Fixtures, script},
};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// How long the plugin may take to notice and stop before the test calls it stuck.
const STOP_BOUND: Duration = Duration::from_secs(20);

#[tokio::test]
async fn the_plugin_and_its_provider_stop_when_the_engine_dies() {
    let (engine_address, engine) = EngineLogs::default().serve().await;
    let engine_address = engine_address.to_string();

    let dir = tempfile::tempdir().expect("temp dir");
    let marker = "297.301";
    let fixtures = Fixtures::load();
    let wrapper = script(
        &dir,
        "terraform-provider-random",
        &format!(
            "sleep {marker} &\nexec '{}'",
            fixtures.path("random_3_6_3").display()
        ),
    );
    // The shell stays our binary's parent: it has more to do after the binary exits.
    let mut parent = Command::new("sh")
        .args(["-c", "\"$0\" \"$@\"; exit $?", BIN, &engine_address])
        .env(SCHEMA_CACHE, "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("sh starts");
    let mut stdout = BufReader::new(parent.stdout.take().expect("piped"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("the port line");
    let port: u16 = line.trim().parse().expect("the first line is the port");
    let ours = children_of(parent.id())
        .into_iter()
        .next()
        .expect("our binary runs under the shell");
    // If a check fails before the plugin is seen to stop: SIGTERM to it stops its provider, and
    // the shell, waiting for it, ends too.
    let stop_ours = StopOnDrop::new(ours);

    let mut client = ResourceProviderClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .expect("connects");
    client
        .parameterize(Plugin::parameterize_args(&[&wrapper.to_string_lossy()]))
        .await
        .expect("Parameterize");
    let provider = children_of(ours)
        .into_iter()
        .next()
        .expect("the provider runs under our binary");
    let sockets = unix_sockets(provider);
    assert!(!sockets.is_empty(), "the provider listens on a unix socket");

    signal(parent.id(), "KILL");
    parent.wait().expect("the shell is reaped");
    let stopped = tokio::task::spawn_blocking(move || {
        wait_for(STOP_BOUND, || (!running(ours)).then_some(()))
    })
    .await
    .expect("joins");
    assert!(
        stopped.is_some(),
        "the plugin still runs {STOP_BOUND:?} after the engine died"
    );
    stop_ours.dismiss();
    let provider_gone = wait_for(Duration::from_secs(5), || {
        (!running(provider)).then_some(())
    });
    assert!(
        provider_gone.is_some(),
        "the provider {provider} outlived the plugin"
    );
    let children_gone = wait_for(Duration::from_secs(5), || {
        running_with(&format!("sleep {marker}"))
            .is_empty()
            .then_some(())
    });
    assert!(
        children_gone.is_some(),
        "what the provider started outlived it"
    );
    for socket in &sockets {
        assert!(!socket.exists(), "socket {} left behind", socket.display());
    }
    drop(stdout);
    engine.abort();
}
