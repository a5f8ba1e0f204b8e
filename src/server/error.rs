//! Why a provider RPC failed, and the one conversion of those reasons to gRPC statuses.
//!
//! Codes: input the engine or the user got wrong is `INVALID_ARGUMENT` (nothing happened);
//! a provider's error or crash is `UNKNOWN`, as the Go bridge's plain errors arrive, so the
//! engine treats the resource's state as unknown; a create or update that left a resource
//! behind carries `pulumirpc.ErrorResourceInitFailed` ([`crate::server::partial`]). Messages
//! print the whole cause chain, with every secret of the session masked ([`tfp_secrets`]):
//! a provider's diagnostic may quote a value it was given.

use tonic::{Code, Status};

use crate::server::{bridge::BridgeError, partial::Partial};

/// A failed provider RPC.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("failed to read the {what} the engine sent")]
    Properties {
        what: &'static str,
        #[source]
        source: tfp_values::Error,
    },
    #[error("failed to encode a value for the Terraform provider")]
    Encode {
        #[source]
        source: tfp_cty::Error,
    },
    #[error("the Terraform provider returned an invalid value from {method}")]
    Decode {
        method: &'static str,
        #[source]
        source: tfp_cty::Error,
    },
    #[error(transparent)]
    Host(#[from] crate::host::Error),
    #[error(transparent)]
    Translate(#[from] tfp_translate::Error),
    /// A schema the provider sent after Parameterize (identity schemas) that we cannot use.
    #[error(transparent)]
    Schema(#[from] crate::tfschema::SchemaError),
    /// The Go bridge's wording, which users search for.
    #[error("[pf/tfbridge] unknown resource token: {0}")]
    UnknownResource(String),
    #[error("[pf/tfbridge] unknown datasource token: {0}")]
    UnknownInvoke(String),
    #[error("unknown method {0}")]
    UnknownMethod(String),
    /// Error diagnostics of the provider, already worded for the user.
    #[error("{0}")]
    Provider(String),
    #[error(transparent)]
    IgnoreChanges(#[from] tfp_values::IgnoreChangesError),
    /// Input that cannot be used, worded for the user.
    #[error("{0}")]
    Invalid(String),
    /// A failure of the bridge itself, worded for the user.
    #[error("{0}")]
    Failed(String),
    /// What the Terraform provider cannot do, worded for the user.
    #[error("{0}")]
    Unsupported(String),
    /// A create or update failed after the resource came to exist.
    #[error("{}", .0.message)]
    Partial(Box<Partial>),
    /// The provider could not be resolved, launched or mapped (Parameterize, GetSchema, or the
    /// first RPC that launches it).
    #[error(transparent)]
    Bridge(#[from] BridgeError),
}

impl Error {
    fn code(&self) -> Code {
        match self {
            Error::Properties { .. }
            | Error::Encode { .. }
            | Error::Translate(_)
            | Error::UnknownResource(_)
            | Error::UnknownInvoke(_)
            | Error::UnknownMethod(_)
            | Error::IgnoreChanges(_)
            | Error::Invalid(_) => Code::InvalidArgument,
            Error::Decode { .. }
            | Error::Schema(_)
            | Error::Host(_)
            | Error::Provider(_)
            | Error::Failed(_)
            | Error::Partial(_) => Code::Unknown,
            Error::Unsupported(_) => Code::Unimplemented,
            Error::Bridge(err) => bridge_code(err),
        }
    }
}

/// A cancelled or refused launch says so; any other failure is UNKNOWN, as in the Go binary.
fn bridge_code(err: &BridgeError) -> Code {
    match err {
        BridgeError::Cancelled => Code::Cancelled,
        BridgeError::Stopped => Code::Unavailable,
        BridgeError::Again(err) => bridge_code(err),
        _ => Code::Unknown,
    }
}

/// `?` on a bridge failure in an RPC handler goes through [`Error`], the one conversion.
impl From<BridgeError> for Status {
    fn from(err: BridgeError) -> Status {
        Error::Bridge(err).into()
    }
}

impl From<Error> for Status {
    fn from(err: Error) -> Status {
        let code = err.code();
        let secrets = tfp_secrets::Secrets::global();
        if let Error::Partial(mut partial) = err {
            secrets.mask_in_place(&mut partial.message);
            return partial.into_status(code);
        }
        let mut message = crate::error_text(&anyhow::Error::new(err));
        secrets.mask_in_place(&mut message);
        Status::new(code, tfp_echo::bounded(message))
    }
}
