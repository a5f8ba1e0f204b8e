//! A running (or reattached) provider: its client and the means to stop it.
//!
//! `tfp-goplugin` launches the process and connects to it; what is said on the connection is
//! ours: the tfplugin6 [`Client`], and go-plugin's `GRPCController` and `GRPCStdio` services.

use std::{sync::Arc, time::Duration};

use tfp_goplugin::{
    ExitReport, Launch, Launched, Monitor, handshake::Address, logs::LogSink, reattach,
};
use tfp_record_replay::Observer;
use tonic::transport::Channel;

use crate::{
    host::{Client, Error},
    proto::plugin,
};

/// How long a provider has to exit after go-plugin's `Shutdown` before it is killed (go-plugin
/// waits 2 seconds too).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// A provider we talk to. Dropping it kills a launched provider; [`Provider::shutdown`] asks it
/// to stop first.
#[derive(Debug)]
pub struct Provider {
    name: String,
    client: Client,
    channel: Channel,
    monitor: Option<Arc<Monitor>>,
    mtls: bool,
    address: Option<Address>,
    stdio: Option<tokio::task::JoinHandle<()>>,
}

impl Provider {
    /// Starts the provider `launch` describes and connects to it.
    pub async fn launch(launch: Launch) -> Result<Provider, Error> {
        let Launched {
            name,
            channel,
            protocol,
            address,
            mtls,
            monitor,
            sink,
        } = launch.start().await?;
        tracing::debug!(provider = name, protocol, %address, mtls, "provider handshake");
        let client = Client::new(channel.clone(), protocol, &name, Some(monitor.clone()));
        let stdio = tokio::spawn(drain_stdio(channel.clone(), sink));
        Ok(Provider {
            name,
            client,
            channel,
            monitor: Some(monitor),
            mtls,
            address: Some(address),
            stdio: Some(stdio),
        })
    }

    /// Connects to the provider someone else runs, as `entry` of the reattach variable
    /// `variable` says; `name` is the one used in messages.
    pub async fn reattach(
        name: &str,
        variable: &'static str,
        entry: &reattach::Entry,
    ) -> Result<Provider, Error> {
        let reattach::Reattached {
            channel,
            protocol,
            address,
        } = entry.connect(name, variable).await?;
        Ok(Provider {
            name: name.to_owned(),
            client: Client::new(channel.clone(), protocol, name, None),
            channel,
            monitor: None,
            mtls: false,
            address: Some(address),
            stdio: None,
        })
    }

    /// This provider with every call through its client shown to `observer`, if there is one
    /// (the recorder of `PULUMI_TF_DEBUG_GRPC`).
    #[must_use]
    pub fn observed(mut self, observer: Option<Arc<dyn Observer>>) -> Provider {
        if let Some(observer) = observer {
            self.client = self.client.clone().observed(observer);
        }
        self
    }

    /// The tfplugin6 client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The gRPC channel to the provider, for callers that speak its protocol themselves (the
    /// recording pass-through forwards raw messages on it).
    pub(crate) fn channel(&self) -> Channel {
        self.channel.clone()
    }

    /// The protocol the provider serves: 5 or 6.
    pub fn protocol(&self) -> u32 {
        self.client.protocol()
    }

    /// Whether the connection uses go-plugin AutoMTLS.
    pub fn mtls(&self) -> bool {
        self.mtls
    }

    /// Where the provider listens.
    pub fn address(&self) -> Option<&Address> {
        self.address.as_ref()
    }

    /// The provider's process id, unless it was reattached.
    pub fn pid(&self) -> Option<u32> {
        self.monitor.as_ref().and_then(|m| m.pid())
    }

    /// Stops the provider: go-plugin `Shutdown`, then a kill if it has not exited within two
    /// seconds of asking, answer or not (a wedged provider never answers). What it started is
    /// ended with it (see `tfp_goplugin::Monitor`). A reattached provider is only disconnected,
    /// never stopped. Returns how the process ended.
    pub async fn shutdown(mut self) -> Option<ExitReport> {
        if let Some(stdio) = self.stdio.take() {
            stdio.abort();
        }
        let monitor = self.monitor.take()?;
        let mut controller =
            plugin::grpc_controller_client::GrpcControllerClient::new(self.channel.clone());
        let stopped = tokio::time::timeout(SHUTDOWN_GRACE, async {
            // Go servers stop before they answer, so an error here is normal.
            let _ = controller.shutdown(plugin::Empty {}).await;
            monitor.wait().await
        })
        .await;
        if let Ok(report) = stopped {
            return Some(report);
        }
        tracing::warn!(
            provider = self.name,
            "provider did not exit within {SHUTDOWN_GRACE:?} of Shutdown; killing it"
        );
        monitor.kill();
        Some(monitor.wait().await)
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        if let Some(stdio) = self.stdio.take() {
            stdio.abort();
        }
        if let Some(monitor) = self.monitor.take() {
            monitor.kill();
        }
    }
}

/// Reads go-plugin's stdio stream for as long as the provider serves it: a plugin's writes to
/// its redirected stdout and stderr block until someone reads them.
async fn drain_stdio(channel: Channel, sink: LogSink) {
    let mut client = plugin::grpc_stdio_client::GrpcStdioClient::new(channel);
    let Ok(response) = client.stream_stdio(()).await else {
        // Older plugins do not have the service; that is fine.
        return;
    };
    let mut stream = response.into_inner();
    while let Ok(Some(data)) = stream.message().await {
        let channel = match plugin::stdio_data::Channel::try_from(data.channel) {
            Ok(plugin::stdio_data::Channel::Stdout) => "stdout",
            Ok(plugin::stdio_data::Channel::Stderr) => "stderr",
            _ => "unknown",
        };
        sink.stdio(channel, &data.data);
    }
}
