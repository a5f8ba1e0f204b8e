//! Logs to the Pulumi engine through its `Engine/Log` RPC, which is how a plugin's messages
//! reach the user (the engine hides a plugin's stderr unless asked to show it).
//!
//! Messages are queued and sent by one task, so logging never blocks a request. Only our own
//! events and the providers' are forwarded: the gRPC client's own events would loop. Every
//! message is masked of the session's secrets ([`tfp_secrets`]) on its way in.

use std::{fmt::Write as _, io::Write as _, sync::Arc};

use tokio::sync::{Mutex, mpsc};
use tonic::transport::{Channel, Endpoint};
use tracing::{Event, Subscriber};
use tracing_subscriber::{Layer, layer::Context};

use tfp_goplugin::logs::TARGET as PROVIDER_TARGET;

use crate::proto::pulumirpc::{LogRequest, LogSeverity, engine_client::EngineClient};

/// How many messages may wait for the engine before new ones are dropped.
const QUEUE: usize = 4096;

/// A handle for sending log messages to the engine.
#[derive(Clone)]
pub struct EngineLog {
    queue: mpsc::Sender<LogRequest>,
    client: Arc<Mutex<Option<EngineClient<Channel>>>>,
}

impl EngineLog {
    /// Starts the sending task; messages are dropped until [`EngineLog::connect`] is called.
    pub fn start() -> EngineLog {
        let (queue, mut receiver) = mpsc::channel::<LogRequest>(QUEUE);
        let client: Arc<Mutex<Option<EngineClient<Channel>>>> = Arc::new(Mutex::new(None));
        let sender = client.clone();
        tokio::spawn(async move {
            while let Some(message) = receiver.recv().await {
                let client = sender.lock().await.clone();
                if let Some(mut client) = client {
                    // A failed log must not become another log: report it on stderr only.
                    // The engine may be gone, and stderr with it: a failed write is ignored
                    // (`eprintln!` would panic).
                    if let Err(status) = client.log(message).await {
                        let _ = writeln!(
                            std::io::stderr(),
                            "could not send a log message to the Pulumi engine: {}",
                            status.message()
                        );
                    }
                }
            }
        });
        EngineLog { queue, client }
    }

    /// Sends future messages to the engine at `address` (`host:port`).
    pub async fn connect(&self, address: &str) -> anyhow::Result<()> {
        let endpoint = Endpoint::from_shared(format!("http://{address}")).map_err(|err| {
            anyhow::anyhow!(
                "invalid engine address {}: {err}",
                tfp_echo::quoted(address)
            )
        })?;
        *self.client.lock().await = Some(EngineClient::new(endpoint.connect_lazy()));
        Ok(())
    }

    pub fn info(&self, message: &str) {
        self.send(LogSeverity::Info, message.to_owned(), String::new());
    }

    pub fn error(&self, message: &str) {
        self.send(LogSeverity::Error, message.to_owned(), String::new());
    }

    /// Queues a message, with every secret of the session masked.
    fn send(&self, severity: LogSeverity, mut message: String, urn: String) {
        tfp_secrets::Secrets::global().mask_in_place(&mut message);
        let request = LogRequest {
            severity: severity as i32,
            message,
            urn,
            stream_id: 0,
            ephemeral: false,
        };
        let _ = self.queue.try_send(request);
    }

    /// A `tracing` layer that forwards our events and the providers' to the engine.
    pub fn layer(&self) -> EngineLayer {
        EngineLayer { log: self.clone() }
    }
}

/// Forwards `tracing` events to the engine.
pub struct EngineLayer {
    log: EngineLog,
}

impl<S: Subscriber> Layer<S> for EngineLayer {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let target = event.metadata().target();
        if !(target.starts_with(env!("CARGO_CRATE_NAME")) || target == PROVIDER_TARGET) {
            return;
        }
        let severity = match *event.metadata().level() {
            tracing::Level::ERROR => LogSeverity::Error,
            tracing::Level::WARN => LogSeverity::Warning,
            tracing::Level::INFO => LogSeverity::Info,
            _ => LogSeverity::Debug,
        };
        let mut visitor = Message::default();
        event.record(&mut visitor);
        self.log.send(severity, visitor.text, visitor.urn);
    }
}

/// The text of an event: its message, then its other fields; `urn` is sent apart.
#[derive(Default)]
struct Message {
    text: String,
    urn: String,
}

impl tracing::field::Visit for Message {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        match field.name() {
            "urn" => self.urn = value.to_owned(),
            "message" => self.text.insert_str(0, value),
            name => {
                let _ = write!(self.text, " {name}={value}");
            }
        }
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => self.text.insert_str(0, &format!("{value:?}")),
            name => {
                let _ = write!(self.text, " {name}={value:?}");
            }
        }
    }
}
