//! `replay <recording>`: a recording served as a Terraform provider, behaving as a go-plugin
//! plugin, so that the bridge (ours or the Go one) or Terraform can run it in place of the real
//! provider through a `terraform-provider-<name>` wrapper script that executes this command.
//!
//! The go-plugin contract (hashicorp/go-plugin `server.go`): refuse to run without the magic
//! cookie, listen on a fresh unix socket, print `1|6|unix|<socket>|grpc|` as the first and only
//! stdout line, serve tfplugin6 and `plugin.GRPCController`, and stop after `Shutdown`. The
//! connection is plaintext: a go-plugin client only uses TLS when the handshake carries a
//! certificate. Like go-plugin servers, we ignore SIGINT (the host decides when we stop) and stop
//! on SIGTERM. The socket is removed however we stop.

use std::{
    io::Write as _,
    path::{Path, PathBuf},
    sync::Arc,
    sync::atomic::{AtomicU32, Ordering},
};

use anyhow::Context as _;
use tokio::signal::unix::{SignalKind, signal};

use crate::host::{
    MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE,
    replay::{Replayer, serve_unix},
};

/// Serves the recording at `recording` until the host shuts us down.
pub async fn run(recording: &Path) -> anyhow::Result<()> {
    if std::env::var(MAGIC_COOKIE_KEY).ok().as_deref() != Some(MAGIC_COOKIE_VALUE) {
        anyhow::bail!(
            "this command serves a recording as a Terraform provider plugin and must be started \
             by a plugin host (Terraform, or this bridge through a terraform-provider-<name> \
             wrapper), which sets {MAGIC_COOKIE_KEY}"
        );
    }
    let replayer = Arc::new(Replayer::from_file(recording)?);
    let (socket, listener) = Socket::bind()?;
    let handshake = format!("1|6|unix|{}|grpc|", socket.path.display());
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{handshake}").context("failed to print the handshake")?;
        stdout.flush().context("failed to print the handshake")?;
    }
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let served = serve_unix(replayer.clone(), listener);
    let mut served = std::pin::pin!(served);
    let result = loop {
        tokio::select! {
            result = &mut served => break result.context("the replay server failed"),
            _ = interrupt.recv() => {
                tracing::info!("replay: ignoring SIGINT; the plugin host stops us");
            }
            _ = terminate.recv() => break Ok(()),
        }
    };
    let left = replayer.remaining();
    if !left.is_empty() {
        let calls: Vec<String> = left.iter().map(|(m, n)| format!("{m} ×{n}")).collect();
        eprintln!(
            "replay: recorded calls that were never made: {}",
            calls.join(", ")
        );
    }
    result
}

/// A unix socket path we bound, removed when dropped.
struct Socket {
    path: PathBuf,
}

impl Socket {
    fn bind() -> anyhow::Result<(Socket, tokio::net::UnixListener)> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "plugin-replay-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        let listener = tokio::net::UnixListener::bind(&path)
            .with_context(|| format!("failed to listen on {}", path.display()))?;
        Ok((Socket { path }, listener))
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
