//! `pulumirpc.ErrorResourceInitFailed`: how a Create or Update that failed after the resource
//! came to exist tells the engine to keep it.
//!
//! Terraform providers return the state they reached together with their error diagnostics
//! (an SDKv2 create that set the ID and then failed a later step). The Go binary drops that
//! state, so the engine forgets a resource that exists. We send it as a gRPC status detail,
//! a `google.rpc.Status` in the `grpc-status-details-bin` trailer whose one detail is the
//! `ErrorResourceInitFailed` message; the engine then records the resource as created but
//! failed, with this ID and these properties.

use prost::Message as _;
use prost_types::{Any, Struct};
use tonic::{Code, Status};

use crate::proto::pulumirpc::ErrorResourceInitFailed;

/// The type URL of the detail, as the engine looks it up.
const TYPE_URL: &str = "type.googleapis.com/pulumirpc.ErrorResourceInitFailed";

/// `google.rpc.Status`, the envelope of status details; our protos do not include it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RpcStatus {
    #[prost(int32, tag = "1")]
    pub code: i32,
    #[prost(string, tag = "2")]
    pub message: String,
    #[prost(message, repeated, tag = "3")]
    pub details: Vec<Any>,
}

/// What a partial failure reports.
#[derive(Clone, Debug)]
pub struct Partial {
    /// The error text the user sees.
    pub message: String,
    pub id: String,
    /// The state the provider reached, as outputs.
    pub properties: Struct,
    pub inputs: Struct,
}

impl Partial {
    /// The status carrying the detail.
    pub fn into_status(mut self, code: Code) -> Status {
        // As every status of ours: no message beyond `tfp_echo::MESSAGE_LIMIT`.
        self.message = tfp_echo::bounded(self.message);
        let detail = ErrorResourceInitFailed {
            id: self.id,
            properties: Some(self.properties),
            reasons: vec![self.message.clone()],
            inputs: Some(self.inputs),
            refresh_before_update: false,
        };
        let envelope = RpcStatus {
            code: code as i32,
            message: self.message.clone(),
            details: vec![Any {
                type_url: TYPE_URL.to_owned(),
                value: detail.encode_to_vec(),
            }],
        };
        Status::with_details(code, self.message, envelope.encode_to_vec().into())
    }
}

/// The `ErrorResourceInitFailed` detail of a status, if it has one (for tests and clients).
pub fn detail(status: &Status) -> Option<ErrorResourceInitFailed> {
    let envelope = RpcStatus::decode(status.details()).ok()?;
    envelope
        .details
        .iter()
        .find(|any| any.type_url == TYPE_URL)
        .and_then(|any| ErrorResourceInitFailed::decode(any.value.as_slice()).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_round_trips_through_a_status() {
        let partial = Partial {
            message: "creating: boom".into(),
            id: "bucket-1".into(),
            properties: Struct::default(),
            inputs: Struct::default(),
        };
        let status = partial.into_status(Code::Unknown);
        assert_eq!(status.code(), Code::Unknown);
        assert_eq!(status.message(), "creating: boom");
        let detail = detail(&status).expect("the detail is there");
        assert_eq!(detail.id, "bucket-1");
        assert_eq!(detail.reasons, vec!["creating: boom".to_owned()]);
    }

    #[test]
    fn a_long_message_is_cut_as_every_status_is() {
        let partial = Partial {
            message: "x".repeat(3 * tfp_echo::MESSAGE_LIMIT),
            id: "bucket-1".into(),
            properties: Struct::default(),
            inputs: Struct::default(),
        };
        let status = partial.into_status(Code::Unknown);
        assert!(status.message().len() < tfp_echo::MESSAGE_LIMIT + 64);
        assert!(
            status.message().contains(" bytes cut) …"),
            "says it was cut"
        );
        let detail = detail(&status).expect("the detail is there");
        assert_eq!(detail.reasons, [status.message()]);
    }
}
