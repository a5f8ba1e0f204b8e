//! When the engine dies without a word (SIGKILL), the plugin notices and stops: the provider and
//! what it started are ended, and their sockets removed. When the plugin itself is killed
//! outright, its guard process does the same (`tfp_goplugin::guard`).
//!
//! The engine is stood in for by two real parts: a shell, or the test itself, that starts our
//! binary as the engine does (as its child, with the engine's address as the argument), and a
//! gRPC server of the test that answers the engine's `Log` RPC at that address.

use std::{
    io::{BufRead as _, BufReader},
    path::{Path, PathBuf},
    process::{Child, ChildStdout, Command, Stdio},
    time::Duration,
};

use pulumi_terraform_provider::proto::pulumirpc::resource_provider_client::ResourceProviderClient;
use tfp_schema_cache::SWITCH as SCHEMA_CACHE;

use crate::{
    plugin::Plugin,
    processes::{StopOnDrop, children_of, running, running_with, signal, unix_sockets, wait_for},
    support::{EngineLogs, Fixtures, guard_of, providers_of, script},
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
    let wrapper = random_with_a_helper(&dir, marker);
    // The shell stays our binary's parent: it has more to do after the binary exits.
    let (mut parent, stdout, port) = start_plugin(Command::new("sh").args([
        "-c",
        "\"$0\" \"$@\"; exit $?",
        BIN,
        &engine_address,
    ]));
    let ours = children_of(parent.id())
        .into_iter()
        .next()
        .expect("our binary runs under the shell");
    // If a check fails before the plugin is seen to stop: SIGTERM to it stops its provider, and
    // the shell, waiting for it, ends too.
    let stop_ours = StopOnDrop::new(ours);
    parameterize(port, &wrapper).await;
    let provider = providers_of(ours)
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

#[tokio::test]
async fn the_provider_stops_when_the_plugin_is_killed() {
    let (engine_address, engine) = EngineLogs::default().serve().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = "296.303";
    let wrapper = random_with_a_helper(&dir, marker);
    let (mut ours, stdout, port) = start_plugin(Command::new(BIN).arg(engine_address.to_string()));
    let stop_ours = StopOnDrop::new(ours.id());
    parameterize(port, &wrapper).await;
    let providers = providers_of(ours.id());
    let guard = guard_of(ours.id());
    let sockets: Vec<_> = providers.iter().flat_map(|p| unix_sockets(*p)).collect();

    // Killed outright, as the engine kills a plugin that does not stop in time, or the OOM
    // killer: no code of ours runs.
    signal(ours.id(), "KILL");
    ours.wait().expect("reaped");
    stop_ours.dismiss();
    let gone = |pids: &[u32]| pids.iter().all(|pid| !running(*pid)).then_some(());
    let providers_gone = wait_for(Duration::from_secs(5), || gone(&providers));
    let helpers_gone = wait_for(Duration::from_secs(5), || {
        running_with(&format!("sleep {marker}"))
            .is_empty()
            .then_some(())
    });
    let guard_gone = wait_for(Duration::from_secs(5), || gone(guard.as_slice()));
    let sockets_left: Vec<_> = sockets.iter().filter(|s| s.exists()).collect();
    // What outlived the plugin on the old code: ended here, so that a failure leaves nothing.
    let left: Vec<u32> = providers
        .iter()
        .chain(&guard)
        .copied()
        .filter(|pid| running(*pid))
        .chain(running_with(&format!("sleep {marker}")))
        .collect();
    for pid in &left {
        signal(*pid, "KILL");
    }
    for socket in &sockets_left {
        let _ = std::fs::remove_file(socket);
    }
    assert_eq!(
        providers.len(),
        1,
        "one provider under our binary: {providers:?}"
    );
    assert!(!sockets.is_empty(), "the provider listens on a unix socket");
    assert!(
        providers_gone.is_some(),
        "the provider {providers:?} outlived the plugin"
    );
    assert!(
        helpers_gone.is_some(),
        "what the provider started outlived it"
    );
    assert!(guard.is_some(), "the provider's launch started the guard");
    assert!(
        guard_gone.is_some(),
        "the guard {guard:?} stays once its work is done"
    );
    assert!(
        sockets_left.is_empty(),
        "sockets left behind: {sockets_left:?}"
    );
    drop(stdout);
    engine.abort();
}

/// random 3.6.3 behind a wrapper script that first starts a helper, `sleep <marker>`, which runs
/// in the provider's process group.
fn random_with_a_helper(dir: &tempfile::TempDir, marker: &str) -> PathBuf {
    script(
        dir,
        "terraform-provider-random",
        &format!(
            "sleep {marker} &\nexec '{}'",
            Fixtures::load().path("random_3_6_3").display()
        ),
    )
}

/// Starts `command`, our binary or a shell that runs it, with the schema cache off, and reads
/// the port our binary prints; its stdout is kept open until the caller drops it.
fn start_plugin(command: &mut Command) -> (Child, BufReader<ChildStdout>, u16) {
    let mut child = command
        .env(SCHEMA_CACHE, "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("the port line");
    let port: u16 = line.trim().parse().expect("the first line is the port");
    (child, stdout, port)
}

/// Parameterizes the plugin listening on `port` with the provider at `path`, which launches it
/// (the schema cache is off).
async fn parameterize(port: u16, path: &Path) {
    let mut client = ResourceProviderClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .expect("connects");
    client
        .parameterize(Plugin::parameterize_args(&[&path.to_string_lossy()]))
        .await
        .expect("Parameterize");
}
