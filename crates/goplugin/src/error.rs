//! Why a plugin could not be launched, reattached or connected to.
//!
//! Every message names the provider. A plugin that exits or stalls before its handshake is
//! reported with the end of its stderr, where a Go panic lands.

use std::time::Duration;

use crate::{child::ExitReport, handshake::HandshakeError};

/// A failure to start or reach a plugin.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("failed to start provider {provider}")]
    Spawn {
        provider: String,
        #[source]
        source: std::io::Error,
    },
    #[error("provider {provider} exec failed with ETXTBSY after {attempts} attempts")]
    TextFileBusy {
        provider: String,
        attempts: u32,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "provider {provider} exited before completing the go-plugin handshake ({exit}); \
         is it a Terraform provider?"
    )]
    ExitedBeforeHandshake { provider: String, exit: ExitReport },
    #[error(
        "provider {provider} printed no go-plugin handshake within {timeout:?}; \
         is it a Terraform provider?{stderr}"
    )]
    StartTimeout {
        provider: String,
        timeout: Duration,
        stderr: String,
    },
    #[error("provider {provider} printed an invalid handshake line {}", tfp_echo::quoted(.line))]
    Handshake {
        provider: String,
        line: String,
        #[source]
        source: HandshakeError,
    },
    #[error("failed to make the mTLS client certificate")]
    Certificate(#[source] rcgen::Error),
    #[error("failed to configure TLS for provider {provider}")]
    Tls {
        provider: String,
        #[source]
        source: rustls::Error,
    },
    #[error("failed to connect to provider {provider} at {address}")]
    Connect {
        provider: String,
        address: String,
        #[source]
        source: tonic::transport::Error,
    },
    #[error("invalid {variable}: {reason}")]
    Reattach {
        variable: &'static str,
        reason: String,
    },
}
