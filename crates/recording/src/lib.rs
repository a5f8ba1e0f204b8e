//! The recording format of `PULUMI_TF_DEBUG_GRPC`, the Go binary's, and what works on recorded
//! messages without knowing their generated types.
//!
//! - [`transcript`]: a [`Record`] and the file of them ([`parse_recording`], [`Record::to_line`]),
//!   a request in Go's protobuf text format ([`transcript::to_text`], [`transcript::from_text`]),
//!   a response as Go's `encoding/json` writes the generated struct
//!   ([`transcript::to_go_json`], [`transcript::from_go_json`]). [`Methods`] finds a method's
//!   message types in the descriptor pool the caller hands in.
//! - [`redact`]: what the provider's schema marks sensitive or write-only, and credential-like
//!   provider settings ([`looks_secret`]), become [`REDACTED`].
//! - [`hide`]: every value the session knows to be secret ([`tfp_secrets::Secrets`]), wherever
//!   it appears, becomes [`REDACTED`].
//! - [`compare`]: whether a request equals a recorded one by meaning, a redacted value matching
//!   the value it replaced, and if not, where they first differ.
//! - [`show`]: a record as readable JSON, every value decoded.
//!
//! Messages are `prost_reflect::DynamicMessage`s of the tfplugin6 descriptors: the root package,
//! the only code that sees generated types, converts them and hands the pool in.

pub mod compare;
pub mod hide;
pub mod redact;
pub mod show;
pub mod transcript;

pub use redact::{REDACTED, looks_secret, sensitive_leaves};

/// The messages that carry values: msgpack or JSON (`DynamicValue`), and a stored state as JSON or
/// flatmap (`RawState`).
const DYNAMIC_VALUE: &str = "tfplugin6.DynamicValue";
const RAW_STATE: &str = "tfplugin6.RawState";
pub use transcript::{Methods, ParseError, Record, parse_recording};
