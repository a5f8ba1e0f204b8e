//! Dialling a provider's gRPC server over a unix socket or TCP, with or without TLS.
//!
//! tonic's own TLS cannot be used: it refuses TLS on unix sockets and verifies certificates
//! with WebPKI, which rejects go-plugin's CA-as-leaf certificate. So we connect the stream
//! ourselves and wrap it in tokio-rustls inside a custom connector; the endpoint URI is a
//! placeholder and must be `http://`: with `https://` tonic tries to add its own TLS layer and the
//! dial fails ("Connecting to HTTPS without TLS enabled").

use std::{pin::Pin, sync::Arc};

use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tonic::transport::{Channel, Endpoint, Uri};

use crate::handshake::Address;

/// A byte stream between a host and a plugin: plain or TLS, unix or TCP.
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// One connection, whichever kind of stream it is; a plugin server serves these too.
pub struct BoxedIo(pub Pin<Box<dyn Io>>);

impl tonic::transport::server::Connected for BoxedIo {
    type ConnectInfo = ();

    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for BoxedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.0.as_mut().poll_read(cx, buf)
    }
}

impl AsyncWrite for BoxedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        self.0.as_mut().poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.0.as_mut().poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.0.as_mut().poll_shutdown(cx)
    }
}

/// Opens a gRPC channel to `address`, through TLS when `tls` is given.
pub async fn channel(
    address: &Address,
    tls: Option<rustls::ClientConfig>,
) -> Result<Channel, tonic::transport::Error> {
    let address = address.clone();
    let tls = tls.map(|config| tokio_rustls::TlsConnector::from(Arc::new(config)));
    Endpoint::from_static("http://localhost")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let (address, tls) = (address.clone(), tls.clone());
            async move {
                let stream: Pin<Box<dyn Io>> = match &address {
                    Address::Unix(path) => Box::pin(tokio::net::UnixStream::connect(path).await?),
                    Address::Tcp(addr) => Box::pin(tokio::net::TcpStream::connect(addr).await?),
                };
                let stream: Pin<Box<dyn Io>> = match tls {
                    Some(tls) => {
                        // go-plugin's certificates name only localhost.
                        let name = ServerName::try_from("localhost").expect("a valid DNS name");
                        Box::pin(tls.connect(name, stream).await?)
                    }
                    None => stream,
                };
                Ok::<_, std::io::Error>(TokioIo::new(BoxedIo(stream)))
            }
        }))
        .await
}
