//! `record <recording> <provider>`: a recording pass-through. Started by a plugin host (Terraform,
//! OpenTofu, or our bridge) through a `terraform-provider-<name>` launcher in place of the real
//! provider, it launches the real provider as its own child, serves the host the protocol the
//! real provider chose, forwards every call to it and appends each to the recording, in the format
//! of `PULUMI_TF_DEBUG_GRPC` (see `tfp_record_replay::passthrough` for the design).
//!
//! The real provider gets the protocol versions the host offered, and our environment otherwise,
//! as it would have had from the host; its log lines follow `TF_LOG` as the bridge's do, but never
//! go to `TF_LOG_PATH`, where the host writes its own log. It stops when we stop: after the host's
//! `Shutdown`, after SIGTERM, and if launching it fails halfway; and it is in our process group, so
//! a host that kills the group (our bridge does, when a provider does not stop in time) kills it
//! with us.

use std::{ffi::OsString, path::Path};

use anyhow::Context as _;

use tfp_goplugin::{Launch, serve::PluginServer};

use crate::{
    host::Provider,
    recording::{passthrough, protocols, record::Recorder},
};

/// Passes the host's calls through to `provider`, recording them to `recording`; `redact` keeps
/// secrets out of the recording.
pub async fn run(recording: &Path, provider: &Path, redact: bool) -> anyhow::Result<()> {
    let server = PluginServer::bind()?;
    if !redact {
        eprintln!(
            "warning: recording without redaction: {} will hold provider credentials and \
             sensitive values in plain text",
            recording.display()
        );
    }
    let existed = recording.symlink_metadata().is_ok();
    let recorder = Recorder::create(recording, redact)
        .with_context(|| format!("failed to open the recording {}", recording.display()))?;
    let mut launch = Launch::new(provider);
    if let Some(offered) = std::env::var_os("PLUGIN_PROTOCOL_VERSIONS").filter(|v| !v.is_empty()) {
        launch
            .env
            .push((OsString::from("PLUGIN_PROTOCOL_VERSIONS"), offered));
    }
    launch.log.path = None;
    // In our process group: if the host kills the group, the real provider goes with us.
    launch.own_group = false;
    let real = match Provider::launch(launch).await {
        Ok(real) => real,
        Err(err) => {
            // Nothing was recorded: a recording this run made is not left behind, empty.
            if !existed && recording.metadata().is_ok_and(|m| m.len() == 0) {
                let _ = std::fs::remove_file(recording);
            }
            return Err(err.into());
        }
    };
    let routes = passthrough::routes(protocols(), real.channel(), real.protocol(), recorder).await;
    let served = server.serve(real.protocol(), routes).await;
    real.shutdown().await;
    Ok(served?)
}
