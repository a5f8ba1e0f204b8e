//! Errors of the Terraform host: launching, connecting to (both `tfp-goplugin`'s) and calling a
//! provider.
//!
//! Every message about a provider or a call to it names the provider. When a call fails because
//! the provider process died, the error says how it died and quotes the end of its stderr, where
//! a Go panic lands.

use tfp_goplugin::ExitReport;

/// A failure of the Terraform host.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The provider could not be launched, reattached or connected to.
    #[error(transparent)]
    Launch(#[from] tfp_goplugin::Error),
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

/// How a recording shows a failed call.
impl tfp_record_replay::Failure for Error {
    fn status(&self) -> Option<&tonic::Status> {
        Error::status(self)
    }
}

fn status_text(status: &tonic::Status) -> String {
    let causes = std::iter::successors(std::error::Error::source(status), |cause| cause.source());
    crate::with_causes(format!("{:?}: {}", status.code(), status.message()), causes)
}
