//! Errors of the Terraform host: launching, connecting to and calling a provider.
//!
//! Every message names the provider. When a call fails because the provider process died, the
//! error says how it died and quotes the end of its stderr, where a Go panic lands.

use std::time::Duration;

use crate::host::{child::ExitReport, handshake::HandshakeError};

/// A failure of the Terraform host.
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
    #[error("provider {provider} failed {method}: {}", status_text(.status))]
    Rpc {
        provider: String,
        method: &'static str,
        status: tonic::Status,
    },
    #[error("provider {provider} rejected our mTLS client certificate during {method}: {}", status_text(.status))]
    MtlsRejected {
        provider: String,
        method: &'static str,
        status: tonic::Status,
    },
    #[error("provider {provider} crashed during {method} ({exit})")]
    Crashed {
        provider: String,
        method: &'static str,
        exit: ExitReport,
    },
    #[error("provider {provider} does not implement {method} over protocol {protocol}")]
    Unsupported {
        provider: String,
        method: &'static str,
        protocol: u32,
    },
    #[error("failed to translate {method} between tfplugin5 and tfplugin6")]
    Translate {
        method: &'static str,
        #[source]
        source: prost::DecodeError,
    },
    #[error("invalid {variable}: {reason}")]
    Reattach {
        variable: &'static str,
        reason: String,
    },
}

impl Error {
    /// The gRPC status of a failed call, when the provider answered one.
    pub fn status(&self) -> Option<&tonic::Status> {
        match self {
            Error::Rpc { status, .. } | Error::MtlsRejected { status, .. } => Some(status),
            _ => None,
        }
    }
}

fn status_text(status: &tonic::Status) -> String {
    let mut text = format!("{:?}: {}", status.code(), status.message());
    let mut source = std::error::Error::source(status);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
