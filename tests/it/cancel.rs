//! Parameterize never blocks the other RPCs, and Cancel answers promptly and aborts what is
//! under way: a Parameterize, or the provider's own work.

use std::time::Duration;

use pulumi_terraform_provider::proto::pulumirpc as rpc;
use tonic::Code;

use crate::{
    plugin::Plugin,
    processes::{running, running_with, signal, wait_for},
    support::{Fixtures, Mirror, script},
};

/// How long an RPC that must not wait on anything may take before the test calls it stuck.
const ANSWER_BOUND: Duration = Duration::from_secs(15);

/// Runs `call` to its end, or fails naming `what` if it takes longer than [`ANSWER_BOUND`].
async fn promptly<T>(what: &str, call: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(ANSWER_BOUND, call)
        .await
        .unwrap_or_else(|_| panic!("{what} did not answer within {ANSWER_BOUND:?}"))
}

/// Cancel answers, and the Parameterize under way ends with CANCELLED.
async fn cancel_ends(
    plugin: &mut Plugin,
    parameterize: tokio::task::JoinHandle<
        Result<tonic::Response<rpc::ParameterizeResponse>, tonic::Status>,
    >,
) {
    promptly("Cancel", plugin.client.cancel(()))
        .await
        .expect("Cancel");
    let cancelled = promptly("the cancelled Parameterize", parameterize)
        .await
        .expect("joins")
        .expect_err("cancelled");
    assert_eq!(cancelled.code(), Code::Cancelled, "{cancelled:?}");
}

#[tokio::test]
async fn other_rpcs_answer_while_a_provider_never_handshakes_and_cancel_ends_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = "299.125";
    let silent = script(
        &dir,
        "terraform-provider-silent",
        &format!("exec sleep {marker}"),
    );
    let mut plugin = Plugin::start().await;
    let mut client = plugin.client.clone();
    let path = silent.to_string_lossy().into_owned();
    let parameterize = tokio::spawn(async move {
        client
            .parameterize(Plugin::parameterize_args(&[&path]))
            .await
    });
    let started = tokio::task::spawn_blocking(|| {
        wait_for(Duration::from_secs(30), || {
            running_with(marker).into_iter().next()
        })
    })
    .await
    .expect("joins");
    let provider = started.expect("the provider process starts");

    let info = promptly("GetPluginInfo", plugin.client.get_plugin_info(()))
        .await
        .expect("GetPluginInfo")
        .into_inner();
    assert_eq!(info.version, env!("CARGO_PKG_VERSION"), "the bare plugin's");
    let schema = promptly(
        "GetSchema",
        plugin.client.get_schema(rpc::GetSchemaRequest::default()),
    )
    .await
    .expect_err("no schema until Parameterize has returned");
    assert_eq!(schema.code(), Code::Unavailable, "{schema:?}");
    assert!(
        schema.message().contains("Parameterize is in progress for")
            && schema.message().contains("terraform-provider-silent"),
        "{}",
        schema.message()
    );
    let check = promptly("Check", plugin.client.check(rpc::CheckRequest::default()))
        .await
        .expect_err("no provider yet");
    assert_eq!(check.code(), Code::Unavailable, "{check:?}");

    cancel_ends(&mut plugin, parameterize).await;
    let gone = wait_for(Duration::from_secs(5), || {
        (!running(provider)).then_some(())
    });
    assert!(
        gone.is_some(),
        "the provider {provider} outlived the cancelled Parameterize"
    );

    // Nothing of the aborted attempt remains: a real provider can be parameterized now.
    let fixtures = Fixtures::load();
    plugin
        .parameterize(&fixtures.path("random_3_6_3"), "random")
        .await;
    plugin.stop().await;
}

#[tokio::test]
async fn cancel_aborts_a_parameterize_waiting_for_the_cache_lock() {
    let mirror = Mirror::new();
    let held = mirror.hold_lock();
    let (mut plugin, parameterize) =
        crate::interrupts::parameterize_waiting_for_the_lock(&mirror).await;
    cancel_ends(&mut plugin, parameterize).await;
    assert!(!mirror.entry().exists(), "no entry appeared");
    assert_eq!(mirror.leftovers(), Vec::<String>::new());

    // Once the other installer is done, Parameterize installs and starts the provider.
    drop(held);
    let response = promptly(
        "Parameterize",
        plugin.client.parameterize(Plugin::parameterize_args(&[
            Mirror::SOURCE,
            Mirror::VERSION,
        ])),
    )
    .await
    .expect("Parameterize")
    .into_inner();
    assert_eq!(
        (response.name.as_str(), response.version.as_str()),
        ("random", "3.6.3")
    );
    plugin.stop().await;
}

#[tokio::test]
async fn cancel_answers_while_the_provider_is_wedged() {
    let fixtures = Fixtures::load();
    let mut plugin = Plugin::start().await;
    plugin
        .parameterize(&fixtures.path("random_3_6_3"), "random")
        .await;
    let provider = plugin
        .children()
        .into_iter()
        .next()
        .expect("the provider runs");
    // A wedged provider: it accepts connections (the kernel does) and never answers.
    signal(provider, "STOP");
    let cancelled = tokio::time::timeout(ANSWER_BOUND, plugin.client.cancel(())).await;
    if cancelled.is_err() {
        signal(provider, "CONT");
        panic!("Cancel did not answer within {ANSWER_BOUND:?} with the provider wedged");
    }
    cancelled.expect("bounded").expect("Cancel");
    // Stopping the plugin must not wait on the wedged provider either (`stop` checks that the
    // provider is gone).
    plugin.stop().await;
}
