//! A [`Replayer`] served (`tfp_record_replay::replay::routes`): in process, over an in-memory
//! stream that our [`Client`] dials ([`client`]), or as the routes a go-plugin plugin serves
//! ([`routes`], for the `replay` subcommand, which serves them with `tfp_goplugin::serve`).

use std::sync::Arc;

use hyper_util::rt::TokioIo;
use tonic::transport::{Endpoint, Server, Uri};

pub use tfp_record_replay::replay::{Error, Replayer, routes};

use crate::host::{self, Client};

/// A replayed provider in this process: its client, and the replayer to ask what is left.
/// Dropping it stops the server.
#[derive(Debug)]
pub struct Replayed {
    client: Client,
    replayer: Arc<Replayer>,
    server: tokio::task::JoinHandle<()>,
}

impl Replayed {
    /// The tfplugin6 client of the replayed provider (protocol 6).
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn replayer(&self) -> &Replayer {
        &self.replayer
    }
}

impl Drop for Replayed {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// Serves `replayer` in this process and connects a [`Client`] named `name` to it.
pub async fn client(replayer: Replayer, name: &str) -> Result<Replayed, host::Error> {
    let replayer = Arc::new(replayer);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let routes = routes(replayer.clone());
    let server = tokio::spawn(async move {
        let incoming = tokio_stream::once(Ok::<_, std::io::Error>(theirs));
        if let Err(err) = Server::builder()
            .add_routes(routes)
            .serve_with_incoming(incoming)
            .await
        {
            tracing::warn!("replay server failed: {err}");
        }
    });
    let mut ours = Some(ours);
    let channel = Endpoint::from_static("http://replay")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let io = ours.take();
            async move {
                io.map(TokioIo::new).ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::ConnectionRefused,
                        "the in-process replay connection cannot be reopened",
                    )
                })
            }
        }))
        .await
        .map_err(|source| tfp_goplugin::Error::Connect {
            provider: name.to_owned(),
            address: "in-process replay".into(),
            source,
        })?;
    Ok(Replayed {
        client: Client::new(channel, 6, name, None),
        replayer,
        server,
    })
}
