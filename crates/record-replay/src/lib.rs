//! A Terraform provider's calls recorded as they happen, and a recording replayed as a provider:
//!
//! - [`record`]: the recorder of `PULUMI_TF_DEBUG_GRPC`, which appends every call a client makes
//!   to a file, secrets redacted, as the [`Observer`] of that client;
//! - [`replay`]: a [`Replayer`](replay::Replayer) answers each call with the next recorded one of
//!   its method, once the request matches the recorded one by meaning;
//! - [`passthrough`]: the `record` subcommand's provider, which forwards a host's calls to the real
//!   provider as raw gRPC messages and records each.
//!
//! The record format, redaction, comparison and the readable view are `tfp_recording`'s, which
//! does no IO; this crate adds the file, the clock of a call and gRPC. Like every crate here it
//! never sees the generated tfplugin types: it works on `prost_reflect::DynamicMessage`s of the
//! descriptor pool the root package hands it in a [`Protocols`], with the two conversions that
//! only generated code makes.

use prost_reflect::DynamicMessage;
use tfp_cty::ProviderSchema;
use tfp_recording::Methods;

pub mod passthrough;
mod raw;
pub mod record;
pub mod replay;

/// What this crate needs of the generated tfplugin code: the root package fills it in once.
#[derive(Clone, Copy, Debug)]
pub struct Protocols {
    /// The methods of `tfplugin6.Provider`, in the pool that also describes `tfplugin5.Provider`.
    pub methods: &'static Methods,
    /// A tfplugin6 `GetProviderSchema` answer as our provider schema.
    pub provider_schema: fn(&DynamicMessage) -> Result<ProviderSchema, String>,
    /// A tfplugin5 `GetSchema` answer, encoded, as the tfplugin6 `GetProviderSchema` answer our
    /// client makes of it, encoded.
    pub upgrade_schema: fn(&[u8]) -> Result<Vec<u8>, String>,
}

/// What sees every call through an observed client. The messages are tfplugin6 ones, whatever
/// protocol the provider serves; `method` names the tfplugin6 method, as the client does in snake
/// case (`plan_resource_change`) or as the protocol does (`PlanResourceChange`).
pub trait Observer: Send + Sync {
    /// A unary call that finished.
    fn unary(
        &self,
        method: &str,
        request: DynamicMessage,
        outcome: Result<DynamicMessage, &dyn Failure>,
    );

    /// A server-streaming call that started: what is to see its events, if anything.
    fn stream(&self, method: &str, request: DynamicMessage) -> Option<Box<dyn StreamObserver>>;

    /// The provider's schema, from a `GetProviderSchema` answer, before that call is observed:
    /// `schema` converts the answer, for an observer that needs it.
    fn provider_schema(&self, schema: &dyn Fn() -> Result<ProviderSchema, String>);
}

/// What sees the events of one server-streaming call.
pub trait StreamObserver: Send {
    fn event(&mut self, event: DynamicMessage);

    /// The stream ended: with an error, or `None` when it finished or its reader dropped it.
    fn end(self: Box<Self>, error: Option<&dyn Failure>);
}

/// A failed call, as an observer sees it: its message, and the status the provider answered
/// when it answered one.
pub trait Failure: std::fmt::Display {
    fn status(&self) -> Option<&tonic::Status>;
}

impl Failure for tonic::Status {
    fn status(&self) -> Option<&tonic::Status> {
        Some(self)
    }
}
