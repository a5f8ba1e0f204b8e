//! `replay <recording>`: a recording served as a Terraform provider, behaving as a go-plugin
//! plugin, so that the bridge (ours or the Go one) or Terraform can run it in place of the real
//! provider through a `terraform-provider-<name>` wrapper script that executes this command.
//!
//! It serves protocol 6, which recordings speak, through [`PluginServer`] (go-plugin's plugin
//! side: handshake, AutoMTLS, `Shutdown`, signals), and says at the end which recorded calls were
//! never made.

use std::{path::Path, sync::Arc};

use tfp_goplugin::serve::PluginServer;

use crate::recording::{
    protocols,
    replay::{self, Replayer},
};

/// Serves the recording at `recording` until the host shuts us down.
pub async fn run(recording: &Path) -> anyhow::Result<()> {
    let server = PluginServer::bind()?;
    let replayer = Arc::new(Replayer::from_file(protocols(), recording)?);
    let result = server.serve(6, replay::routes(replayer.clone())).await;
    let left = replayer.remaining();
    if !left.is_empty() {
        let calls: Vec<String> = left.iter().map(|(m, n)| format!("{m} ×{n}")).collect();
        eprintln!(
            "replay: recorded calls that were never made: {}",
            calls.join(", ")
        );
    }
    Ok(result?)
}
