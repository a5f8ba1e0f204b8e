//! The plugin side of go-plugin: what a Terraform provider does for its host, so that this
//! binary can stand in for one (the `replay` and `record` subcommands).
//!
//! The contract (hashicorp/go-plugin `server.go`): refuse to run without the magic cookie; listen
//! on a fresh unix socket; under AutoMTLS (the host put its certificate in `PLUGIN_CLIENT_CERT`, as
//! Terraform, OpenTofu and our own launcher do) make a certificate of our own, accept only the
//! host's, and put ours in the handshake; print `1|<protocol>|unix|<socket>|grpc|<certificate>` as
//! the first and only stdout line; serve the provider and go-plugin's `GRPCController`, and stop
//! after its `Shutdown`. Like go-plugin plugins we ignore SIGINT (Ctrl-C reaches the whole process
//! group, and the host answers it with StopProvider and then Shutdown) and stop on SIGTERM. Unlike
//! them we also stop when the host dies without a word (our parent process changes), so that a
//! killed host leaves no plugin behind, nor what the plugin started. The socket is removed however
//! we stop.

use std::{
    convert::Infallible,
    io::Write as _,
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicU32, Ordering},
    },
};

use crate::{
    MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE,
    connect::BoxedIo,
    tls::{CertificateError, ClientIdentity},
};
use base64::Engine as _;
use rustls::pki_types::{CertificateDer, pem::PemObject as _};
use tokio::{
    net::UnixListener,
    signal::unix::{SignalKind, signal},
    sync::{Notify, mpsc},
};
use tonic::{
    Status,
    body::Body,
    codegen::{BoxFuture, http},
    server::NamedService,
    service::Routes,
    transport::Server,
};

/// The variable in which an AutoMTLS host hands its certificate to the plugin.
const CLIENT_CERT_KEY: &str = "PLUGIN_CLIENT_CERT";

/// How long the server keeps serving after `Shutdown`, so that its answer can leave; go-plugin
/// servers stop even if the host keeps its connection open.
const SHUTDOWN_LINGER: std::time::Duration = std::time::Duration::from_millis(500);

/// How often [`parent_gone`] checks that the process that started us is still our parent.
const PARENT_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// Why we cannot serve as a plugin.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "this command must be started by a plugin host (Terraform, OpenTofu, or this bridge \
         through a terraform-provider-<name> launcher), which sets {MAGIC_COOKIE_KEY}"
    )]
    NotStartedByAHost,
    #[error("failed to listen on {path}")]
    Listen {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{CLIENT_CERT_KEY} does not hold a PEM certificate")]
    ClientCertificate(#[source] rustls::pki_types::pem::Error),
    #[error("failed to make the mTLS server certificate")]
    Certificate(#[source] CertificateError),
    #[error("failed to configure TLS")]
    Tls(#[source] rustls::Error),
    #[error("failed to print the go-plugin handshake")]
    Handshake(#[source] std::io::Error),
    #[error("failed to watch for signals")]
    Signals(#[source] std::io::Error),
    #[error("the plugin server failed")]
    Serve(#[source] tonic::transport::Error),
}

/// A plugin that is listening but has not announced itself yet.
pub struct PluginServer {
    socket: Socket,
    listener: UnixListener,
    tls: Option<Tls>,
    /// The process that started us, read before the handshake: a host that dies right after
    /// reading it must still be seen to have died.
    host: u32,
}

/// Our side of AutoMTLS.
struct Tls {
    acceptor: tokio_rustls::TlsAcceptor,
    /// Our certificate as the handshake carries it: DER in base64 without padding.
    cert: String,
}

impl std::fmt::Debug for PluginServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginServer")
            .field("socket", &self.socket.path)
            .field("mtls", &self.tls.is_some())
            .finish_non_exhaustive()
    }
}

impl PluginServer {
    /// Checks that a plugin host started us, sets up AutoMTLS if it asked for it, and listens on a
    /// fresh unix socket.
    pub fn bind() -> Result<PluginServer, ServeError> {
        if std::env::var(MAGIC_COOKIE_KEY).ok().as_deref() != Some(MAGIC_COOKIE_VALUE) {
            return Err(ServeError::NotStartedByAHost);
        }
        let tls = match std::env::var(CLIENT_CERT_KEY) {
            Ok(pem) if !pem.is_empty() => Some(Tls::new(&pem)?),
            _ => None,
        };
        let (socket, listener) = Socket::bind()?;
        Ok(PluginServer {
            socket,
            listener,
            tls,
            host: std::os::unix::process::parent_id(),
        })
    }

    /// The handshake line announcing `protocol` (go-plugin `server.go` prints it with `%d|%d|%s|%s|%s|%s`).
    fn handshake(&self, protocol: u32) -> String {
        let cert = self.tls.as_ref().map_or("", |tls| tls.cert.as_str());
        format!(
            "1|{protocol}|unix|{}|grpc|{cert}",
            self.socket.path.display()
        )
    }

    /// Announces `protocol` on stdout and serves `routes`, with go-plugin's controller beside them,
    /// until the host calls `Shutdown` or we get SIGTERM.
    pub async fn serve(self, protocol: u32, routes: Routes) -> Result<(), ServeError> {
        let handshake = self.handshake(protocol);
        let PluginServer {
            socket,
            listener,
            tls,
            host,
        } = self;
        let mut interrupt = signal(SignalKind::interrupt()).map_err(ServeError::Signals)?;
        let mut terminate = signal(SignalKind::terminate()).map_err(ServeError::Signals)?;
        {
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{handshake}")
                .and_then(|()| stdout.flush())
                .map_err(ServeError::Handshake)?;
        }
        let (connections, incoming) = mpsc::channel(4);
        let accepting = tokio::spawn(accept(listener, tls, connections));
        let shutdown = Arc::new(Notify::new());
        let controller = Controller {
            shutdown: shutdown.clone(),
        };
        let stop = shutdown.clone();
        let server = Server::builder()
            .add_routes(routes)
            .add_service(controller)
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::ReceiverStream::new(incoming),
                async move { stop.notified().await },
            );
        let mut server = std::pin::pin!(server);
        let mut host_gone = std::pin::pin!(parent_gone(host));
        let result = loop {
            tokio::select! {
                () = &mut host_gone => {
                    tracing::warn!("the plugin host that started us is gone; stopping");
                    break Ok(());
                }
                result = &mut server => break result.map_err(ServeError::Serve),
                () = shutdown.notified() => {
                    let _ = tokio::time::timeout(SHUTDOWN_LINGER, &mut server).await;
                    break Ok(());
                }
                _ = interrupt.recv() => {
                    tracing::info!("ignoring SIGINT; the plugin host decides when we stop");
                }
                _ = terminate.recv() => break Ok(()),
            }
        };
        accepting.abort();
        drop(socket);
        result
    }
}

impl Tls {
    fn new(client_pem: &str) -> Result<Tls, ServeError> {
        let client = CertificateDer::from_pem_slice(client_pem.as_bytes())
            .map_err(ServeError::ClientCertificate)?;
        let identity = ClientIdentity::generate().map_err(ServeError::Certificate)?;
        let config = identity.server_config(client).map_err(ServeError::Tls)?;
        Ok(Tls {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            cert: base64::engine::general_purpose::STANDARD_NO_PAD.encode(identity.cert_der()),
        })
    }
}

/// Resolves when `parent`, the process that started us (a plugin host, or the engine), is no
/// longer our parent: it died, and the kernel handed us to init or a subreaper. Polling is the
/// portable way: a pidfd needs unsafe code, and PR_SET_PDEATHSIG fires when the parent's spawning
/// thread ends, not the parent.
pub async fn parent_gone(parent: u32) {
    while std::os::unix::process::parent_id() == parent {
        tokio::time::sleep(PARENT_POLL).await;
    }
}

/// Accepts connections for as long as the server runs, each through TLS when AutoMTLS is on. A
/// connection whose TLS handshake fails (a host without the pinned certificate) is logged and
/// dropped, and the others carry on.
async fn accept(
    listener: UnixListener,
    tls: Option<Tls>,
    connections: mpsc::Sender<std::io::Result<BoxedIo>>,
) {
    let acceptor = tls.map(|tls| tls.acceptor);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(err) => {
                let _ = connections.send(Err(err)).await;
                return;
            }
        };
        let Some(acceptor) = acceptor.clone() else {
            if connections
                .send(Ok(BoxedIo(Box::pin(stream))))
                .await
                .is_err()
            {
                return;
            }
            continue;
        };
        let connections = connections.clone();
        tokio::spawn(async move {
            match acceptor.accept(stream).await {
                Ok(stream) => {
                    let _ = connections.send(Ok(BoxedIo(Box::pin(stream)))).await;
                }
                Err(err) => tracing::warn!("refused a connection: TLS handshake failed: {err}"),
            }
        });
    }
}

/// go-plugin's controller service (`plugin.GRPCController` in go-plugin's
/// `internal/plugin/grpc_controller.proto`), whose one method, `Shutdown(Empty) returns (Empty)`,
/// stops the server. An empty message each way needs no generated code: `()` is prost's
/// `google.protobuf.Empty`.
#[derive(Clone)]
struct Controller {
    shutdown: Arc<Notify>,
}

impl NamedService for Controller {
    const NAME: &'static str = "plugin.GRPCController";
}

impl tower::Service<http::Request<Body>> for Controller {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let shutdown = self.shutdown.clone();
        Box::pin(async move {
            if request.uri().path() != "/plugin.GRPCController/Shutdown" {
                let path = request.uri().path();
                return Ok(Status::unimplemented(format!("{path} is not a method")).into_http());
            }
            let stop = tower::service_fn(move |_: tonic::Request<()>| {
                // `notify_one` keeps a permit, so the server stops even if it is not waiting yet.
                shutdown.notify_one();
                shutdown.notify_waiters();
                std::future::ready(Ok::<_, Status>(tonic::Response::new(())))
            });
            let mut grpc = tonic::server::Grpc::new(tonic_prost::ProstCodec::<(), ()>::default());
            Ok(grpc.unary(stop, request).await)
        })
    }
}

/// A unix socket path we bound, removed when dropped.
struct Socket {
    path: PathBuf,
}

impl Socket {
    fn bind() -> Result<(Socket, UnixListener), ServeError> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "plugin-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        // go-plugin honours PLUGIN_UNIX_SOCKET_DIR, where a host wants its plugins' sockets.
        let dir = std::env::var_os("PLUGIN_UNIX_SOCKET_DIR")
            .filter(|dir| !dir.is_empty())
            .map_or_else(std::env::temp_dir, PathBuf::from);
        let path = dir.join(name);
        let listener = UnixListener::bind(&path).map_err(|source| ServeError::Listen {
            path: path.display().to_string(),
            source,
        })?;
        Ok((Socket { path }, listener))
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_automtls_certificate_is_announced_in_base64_without_padding() {
        let host = ClientIdentity::generate().expect("certificate generation");
        let tls = Tls::new(host.cert_pem()).expect("a PEM certificate");
        // go-plugin's host loads it only when the field is longer than 50 characters.
        assert!(
            !tls.cert.contains('=') && tls.cert.len() > 50,
            "{}",
            tls.cert
        );
        let der = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(&tls.cert)
            .expect("base64");
        assert!(
            crate::handshake::parse(&format!("1|6|unix|/s|grpc|{}", tls.cert))
                .is_ok_and(|h| h.server_cert == Some(der))
        );
        assert!(matches!(
            Tls::new("not a certificate"),
            Err(ServeError::ClientCertificate(_))
        ));
    }
}
