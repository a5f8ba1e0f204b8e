//! Starting a provider as a go-plugin plugin, exactly as Terraform does.
//!
//! The child gets our environment plus the go-plugin contract (hashicorp/go-plugin `client.go`):
//! the magic cookie, the protocol versions we offer, the TCP port range, and, for AutoMTLS, our
//! client certificate. Its first handshake-shaped stdout line says where it listens and which
//! protocol it chose; we check that rather than trust it.

use std::{ffi::OsString, path::PathBuf, process::Stdio, sync::Arc, time::Duration};

use tokio::process::Command;
use tonic::transport::Channel;

use crate::{
    Error,
    child::{self, Monitor, write_stderr_tail},
    connect,
    handshake::{self, Address, OFFERED_PROTOCOLS},
    logs::{LogSettings, LogSink},
    tls::ClientIdentity,
};

/// go-plugin's handshake cookie for Terraform providers (terraform-plugin-go `tf6server`).
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// How long the Go binary waits for the handshake (go-plugin's default `StartTimeout`).
const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(60);

/// The least time a provider whose stdout ended is given to be seen exiting, even when less is
/// left of the start timeout: its exit is published only once its output is drained, a moment
/// after its stdout ends.
const EXIT_REPORT_GRACE: Duration = Duration::from_secs(1);
/// The least time connecting to a provider gets after its handshake, however late that came.
const CONNECT_GRACE: Duration = Duration::from_secs(5);

/// ETXTBSY: the executable is still open for writing, typically just after it was unpacked.
const ETXTBSY: i32 = 26;
const SPAWN_ATTEMPTS: u32 = 4;

/// How to launch one provider.
#[derive(Clone, Debug)]
pub struct Launch {
    pub executable: PathBuf,
    /// The name used in messages and logs.
    pub name: String,
    /// Whether to use AutoMTLS (on by default, as in Terraform).
    pub tls: bool,
    pub start_timeout: Duration,
    /// Extra environment for the child, on top of ours.
    pub env: Vec<(OsString, OsString)>,
    pub log: LogSettings,
    /// Whether the provider leads a process group of its own (the default), which ends with it.
    /// The `record` pass-through keeps its real provider in its own group instead: a host that
    /// kills the pass-through's group (as ours does when a provider does not stop in time) then
    /// kills the real provider too, which the killed pass-through could no longer stop.
    pub own_group: bool,
}

/// A plugin that completed its handshake, and the connection to it. The process lives as long
/// as its [`Monitor`] has a handle: dropping the last one kills it.
#[derive(Debug)]
pub struct Launched {
    /// The name used in messages and logs.
    pub name: String,
    pub channel: Channel,
    /// The protocol the plugin chose, one of those we offered: 5 or 6.
    pub protocol: u32,
    pub address: Address,
    /// Whether the connection uses go-plugin AutoMTLS.
    pub mtls: bool,
    pub monitor: Arc<Monitor>,
    /// Where the plugin's output goes, for its go-plugin stdio stream too.
    pub sink: LogSink,
}

impl Launch {
    /// Launch settings for `executable`, named after its file name, with AutoMTLS, the default
    /// start timeout and the log settings of our environment.
    pub fn new(executable: impl Into<PathBuf>) -> Launch {
        let executable = executable.into();
        let name = executable
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| executable.display().to_string());
        // The name is in every message about the provider; a path can be as long as its
        // caller likes.
        let name = tfp_echo::plain(&name).to_string();
        Launch {
            executable,
            name,
            // Terraform turns AutoMTLS off when TF_DISABLE_PLUGIN_TLS is set.
            tls: std::env::var_os("TF_DISABLE_PLUGIN_TLS").is_none_or(|v| v.is_empty()),
            start_timeout: DEFAULT_START_TIMEOUT,
            env: Vec::new(),
            log: LogSettings::from_env(),
            own_group: true,
        }
    }

    /// Starts the provider and connects to it.
    pub async fn start(self) -> Result<Launched, Error> {
        let identity = if self.tls {
            Some(ClientIdentity::generate().map_err(Error::Certificate)?)
        } else {
            None
        };
        let spawned_at = std::time::SystemTime::now();
        let child = self.spawn(identity.as_ref()).await?;
        let sink = LogSink::new(&self.name, &self.log);
        let spawned = child::watch(child, spawned_at, &self.name, sink.clone(), self.own_group);
        let monitor = spawned.monitor;
        match self
            .connect(spawned.handshake, &monitor, identity.as_ref())
            .await
        {
            Ok((channel, handshake, mtls)) => Ok(Launched {
                name: self.name,
                channel,
                protocol: handshake.protocol,
                address: handshake.address,
                mtls,
                monitor,
                sink,
            }),
            Err(err) => {
                monitor.kill();
                monitor.wait().await;
                Err(err)
            }
        }
    }

    async fn spawn(
        &self,
        identity: Option<&ClientIdentity>,
    ) -> Result<tokio::process::Child, Error> {
        let mut attempt = 1;
        loop {
            let mut command = Command::new(&self.executable);
            command
                .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
                .env("PLUGIN_PROTOCOL_VERSIONS", OFFERED_PROTOCOLS)
                .env("PLUGIN_MIN_PORT", "10000")
                .env("PLUGIN_MAX_PORT", "25000")
                .env_remove("PLUGIN_CLIENT_CERT")
                .envs(self.env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true);
            if self.own_group {
                // Its own process group, so that whatever it starts (a wrapper script's
                // provider, a provider's helpers) can be ended with it; see `child`.
                command.process_group(0);
            }
            if let Some(identity) = identity {
                command.env("PLUGIN_CLIENT_CERT", identity.cert_pem());
            }
            match command.spawn() {
                Ok(child) => return Ok(child),
                Err(err) if err.raw_os_error() == Some(ETXTBSY) && attempt < SPAWN_ATTEMPTS => {
                    // The Go binary backs off 50, 100, then 200 ms.
                    let wait = Duration::from_millis(50 << (attempt - 1));
                    tracing::debug!(
                        provider = %self.name,
                        attempt,
                        "the provider's executable is still open for writing; trying again in {wait:?}"
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err(err) if err.raw_os_error() == Some(ETXTBSY) => {
                    return Err(Error::TextFileBusy {
                        provider: self.name.clone(),
                        attempts: attempt,
                        source: err,
                    });
                }
                Err(source) => {
                    return Err(Error::Spawn {
                        provider: self.name.clone(),
                        executable: self.executable.clone(),
                        source,
                    });
                }
            }
        }
    }

    async fn connect(
        &self,
        handshake_line: tokio::sync::oneshot::Receiver<Option<String>>,
        monitor: &Arc<Monitor>,
        identity: Option<&ClientIdentity>,
    ) -> Result<(Channel, handshake::Handshake, bool), Error> {
        let provider = self.name.clone();
        // One limit for the whole start: a provider whose stdout ends early gets no more time to
        // exit than it had to print its handshake.
        let deadline = tokio::time::Instant::now() + self.start_timeout;
        let line = match tokio::time::timeout_at(deadline, handshake_line).await {
            Ok(Ok(Some(line))) => line,
            Ok(_) => {
                // Its stdout ended: usually it exited, but a wrapper may have closed stdout or
                // sent it elsewhere and kept running, maybe for ever. The caller kills it.
                let wait = deadline.max(tokio::time::Instant::now() + EXIT_REPORT_GRACE);
                return Err(match tokio::time::timeout_at(wait, monitor.wait()).await {
                    Ok(exit) => Error::ExitedBeforeHandshake {
                        provider,
                        exit,
                        stdout: monitor.stdout_head(),
                    },
                    Err(_) => Error::ClosedStdout {
                        provider,
                        timeout: self.start_timeout,
                        output: output_text(monitor),
                    },
                });
            }
            Err(_) => {
                return Err(Error::StartTimeout {
                    provider,
                    timeout: self.start_timeout,
                    output: output_text(monitor),
                });
            }
        };
        // Before the line is checked: a provider refused for it may already listen there, and the
        // socket outlives it once it is killed. Only a socket made since the spawn is ever
        // removed, whatever the line names (see `child`).
        if let Some(path) = handshake::unix_path(&line) {
            monitor.set_socket(path);
        }
        let handshake = handshake::parse(&line).map_err(|source| Error::Handshake {
            provider: provider.clone(),
            line: line.clone(),
            source,
        })?;
        let tls = match (&handshake.server_cert, identity) {
            (Some(cert), Some(identity)) => Some(identity.client_config(cert.clone()).map_err(
                |source| Error::Tls {
                    provider: provider.clone(),
                    source,
                },
            )?),
            _ => None,
        };
        let mtls = tls.is_some();
        // The start's one limit covers connecting too: a provider that listens but never
        // completes the TLS or HTTP/2 handshake would otherwise be waited for in silence.
        let address = handshake.address.to_string();
        // A handshake printed near the limit still leaves time to connect.
        let handshaken = tokio::time::Instant::now();
        let connect_by = deadline.max(handshaken + CONNECT_GRACE);
        let channel =
            match tokio::time::timeout_at(connect_by, connect::channel(&handshake.address, tls))
                .await
            {
                Ok(Ok(channel)) => channel,
                Ok(Err(source)) => {
                    // A provider that died right after its handshake leaves only a missing socket
                    // or a refused connection; how it ended says more.
                    return Err(match monitor.exited_within(EXIT_REPORT_GRACE).await {
                        Some(exit) => Error::ExitedAfterHandshake {
                            provider,
                            address,
                            exit,
                        },
                        None => Error::Connect {
                            provider,
                            address,
                            source,
                        },
                    });
                }
                Err(_) => {
                    let output = output_text(monitor);
                    // In whole seconds: the wait's exact length says nothing more.
                    let waited =
                        Duration::from_secs_f64(handshaken.elapsed().as_secs_f64().round());
                    return Err(Error::ConnectTimeout {
                        provider,
                        address,
                        waited,
                        output,
                    });
                }
            };
        Ok((channel, handshake, mtls))
    }
}

/// What the monitored process printed on stdout before its handshake and the end of its
/// stderr, each after `; `, or nothing.
fn output_text(monitor: &Monitor) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = monitor.stdout_head().write(&mut text);
    let _ = write_stderr_tail(&mut text, &monitor.stderr_tail());
    text
}
