//! Serve mode: the plugin protocol between the Pulumi engine and us.
//!
//! `pulumi-resource-terraform-provider [--logtostderr] [-v=N] [--tracing X] <engine-address>` (how
//! pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go` starts a plugin): we bind 127.0.0.1 on a
//! kernel-chosen port and print it as the only line on stdout. Unknown flags are ignored. Without
//! an engine address we run in attach mode and wait for `Attach`. SIGINT or SIGTERM stops the
//! server and the Terraform provider, and so does the engine's death: the engine starts us as
//! its child, and a killed engine cannot tell us to stop, so we watch for the parent process to
//! change (the kernel hands orphans to init or a subreaper).

use std::{io::Write as _, sync::Arc, time::Duration};

use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;

use crate::server::{engine::EngineLog, schema::Routes, service::Server};

/// The largest request we accept (the Go server's limit is 400 MiB).
const MAX_REQUEST_BYTES: usize = 400 << 20;
/// How long the engine's calls in flight have to finish when we are told to stop.
const CLIENT_GRACE: Duration = Duration::from_secs(2);
/// How long the Terraform provider has to stop when we are told to stop (go-plugin `Shutdown`
/// and its own two seconds, see `Provider::shutdown`); then it is killed.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// The engine address among our arguments: the first one that is not a flag. Flags are
/// skipped, including the value of `--tracing`, which takes one.
pub fn engine_address(args: &[String]) -> Option<String> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--tracing" || arg == "-tracing" {
            iter.next();
        } else if !arg.starts_with('-') {
            return Some(arg.clone());
        }
    }
    None
}

/// Serves until a signal; `engine` sends our logs to the engine.
pub async fn run(engine_address: Option<String>, engine: EngineLog) -> anyhow::Result<()> {
    // Read before the port is printed: an engine that dies as soon as it reads it must still be
    // seen to have died, and afterwards our parent would already be init.
    let parent = engine_address
        .is_some()
        .then(std::os::unix::process::parent_id);
    if let Some(address) = &engine_address {
        engine.connect(address).await?;
    }
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{port}")?;
    stdout.flush()?;
    drop(stdout);

    let server = Arc::new(Server::new(engine));
    let service = Routes::new(server.clone(), MAX_REQUEST_BYTES);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopped = async move {
        let mut stop_rx = stop_rx;
        let _ = stop_rx.wait_for(|stop| *stop).await;
    };
    let serving = tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_incoming_shutdown(incoming(listener), stopped);
    tokio::pin!(serving);
    tokio::select! {
        result = &mut serving => result?,
        reason = stop_reason(parent) => {
            // A signal is how the engine closes every plugin at the end of a command, so it is
            // not news: at info level the engine would show it on the stack in every `pulumi up`.
            tracing::debug!("{reason}; stopping");
            // A Parameterize under way would keep its call open for as long as it waits.
            server.abort_parameterize();
            let _ = stop_tx.send(true);
            // Graceful shutdown waits for clients to hang up; one that never does must not
            // keep us, or the Terraform provider, alive.
            if tokio::time::timeout(CLIENT_GRACE, &mut serving).await.is_err() {
                tracing::warn!("clients still connected after {CLIENT_GRACE:?}; stopping anyway");
            }
        }
    }
    if tokio::time::timeout(STOP_GRACE, server.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("the Terraform provider did not stop in time; killing it");
    }
    tfp_goplugin::kill_all().await;
    Ok(())
}

/// The engine's connections, with Nagle's algorithm off: every RPC is a small request answered
/// by a small response, and with it on, a response written in two pieces waits for the
/// client's delayed ACK (40 ms on Linux).
fn incoming(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true))
}

/// Why we stop: SIGINT, SIGTERM, or, when the engine started us (its pid is `parent`), its
/// death.
async fn stop_reason(parent: Option<u32>) -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let signals = async {
        let (Ok(mut interrupt), Ok(mut terminate)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            // Without signal handlers we still serve; the engine kills us when it is done.
            return std::future::pending().await;
        };
        tokio::select! {
            _ = interrupt.recv() => "got SIGINT",
            _ = terminate.recv() => "got SIGTERM",
        }
    };
    let orphaned = async {
        let Some(parent) = parent else {
            return std::future::pending().await;
        };
        tfp_goplugin::serve::parent_gone(parent).await;
        "the engine that started us is gone"
    };
    tokio::select! {
        reason = signals => reason,
        reason = orphaned => reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_engine_address_among_flags() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            engine_address(&args(&["127.0.0.1:1234"])),
            Some("127.0.0.1:1234".into())
        );
        assert_eq!(
            engine_address(&args(&[
                "--logtostderr",
                "-v=9",
                "--tracing",
                "http://t",
                "127.0.0.1:1",
                "--x"
            ])),
            Some("127.0.0.1:1".into())
        );
        assert_eq!(
            engine_address(&args(&["--logflow", "--tracing=http://t"])),
            None
        );
    }
}
