//! A Terraform provider served from a recording (ours or the Go binary's), so that a bug can be
//! reproduced without the user's provider, credentials or cloud.
//!
//! Calls are matched per method in the order they were recorded, as the Go binary's replayer
//! matches them (pulumi-terraform-bridge `dynamic/internal/shim/grpcutil/replay.go`): each request
//! must equal the recorded one by meaning (`compare`), and the recorded response (or error) is the
//! answer. A mismatch, or a call the recording has no more of, fails that call with an error that
//! names the method and the first differing field. The discovery calls (`GetProviderSchema`,
//! `GetMetadata`, `GetFunctions`, `GetResourceIdentitySchemas`) are stateless, so once their
//! records run out the last one answers again, and one the recording never made answers
//! UNIMPLEMENTED, as a provider without it would.
//!
//! The recorded `GetProviderSchema` answer types the `DynamicValue`s, so they compare as values
//! (sets in any order, numbers by value), and a recording whose secrets were redacted still
//! matches requests that carry the real ones.
//!
//! One call may be missing from a recording without failing the replay: an UpgradeResourceState
//! of a state already at the resource's current schema version, which the Go binary does not make
//! before a destroy and we do, as Terraform does. It is answered as providers answer it, with the
//! state itself.
//!
//! [`routes`] serve a [`Replayer`] as a tfplugin6 provider.

mod service;

use std::{
    collections::{BTreeMap, VecDeque},
    path::Path,
    sync::Mutex,
};

use prost_reflect::{DynamicMessage, MessageDescriptor};
use tonic::{Code, Status};

use tfp_recording::{
    ParseError, Record, compare,
    redact::{Context, Schemas},
    transcript,
};

use crate::Protocols;

pub use service::routes;

/// The largest recording we read (the AWS schema alone is about 1 MiB).
pub const MAX_RECORDING_BYTES: u64 = 1 << 30;

/// The records of the recording file at `path`: the Go binary's `,\n`-separated records or a
/// JSON array, refused unread over [`MAX_RECORDING_BYTES`].
pub fn read_recording(path: &Path) -> Result<Vec<Record>, Error> {
    let shown = path.display().to_string();
    let read = |source| Error::Read {
        path: shown.clone(),
        source,
    };
    let size = std::fs::metadata(path).map_err(read)?.len();
    if size > MAX_RECORDING_BYTES {
        return Err(Error::TooLarge { path: shown });
    }
    let text = std::fs::read_to_string(path).map_err(read)?;
    tfp_recording::parse_recording(&text).map_err(|source| Error::Parse {
        path: shown.clone(),
        source,
    })
}

/// Calls whose answer never depends on what happened before.
const STATELESS: &[&str] = &[
    "GetProviderSchema",
    "GetMetadata",
    "GetFunctions",
    "GetResourceIdentitySchemas",
];

/// Why a recording cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("failed to read recording {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("recording {path} is larger than {MAX_RECORDING_BYTES} bytes")]
    TooLarge { path: String },
    #[error("failed to parse recording {path}")]
    Parse {
        path: String,
        #[source]
        source: ParseError,
    },
    #[error("record {index} ({method}) is not a tfplugin6 call")]
    UnknownMethod { index: usize, method: String },
    #[error("failed to decode the {what} of record {index} ({method}): {reason}")]
    Decode {
        index: usize,
        method: String,
        what: &'static str,
        reason: String,
    },
}

/// A recording being replayed.
#[derive(Debug)]
pub struct Replayer {
    protocols: Protocols,
    queues: Mutex<BTreeMap<String, VecDeque<Record>>>,
    last: Mutex<BTreeMap<String, Record>>,
    /// The recorded schema: for redaction, and for the resources' current versions and types.
    schemas: Option<Schemas>,
}

impl Replayer {
    /// A replayer of `records`. Every record must name a tfplugin6 method.
    pub fn new(protocols: Protocols, records: Vec<Record>) -> Result<Replayer, Error> {
        let mut schema = None;
        let mut queues: BTreeMap<String, VecDeque<Record>> = BTreeMap::new();
        for (index, record) in records.into_iter().enumerate() {
            let method = record.method().to_owned();
            let Some((_, response_desc)) = protocols.methods.method(&method) else {
                return Err(Error::UnknownMethod { index, method });
            };
            if method == "GetProviderSchema" && schema.is_none() && record.error.is_empty() {
                let response =
                    transcript::from_go_json(&response_desc, &record.response).map_err(|err| {
                        Error::Decode {
                            index,
                            method: method.clone(),
                            what: "response",
                            reason: err.to_string(),
                        }
                    })?;
                schema = (protocols.provider_schema)(&response).ok();
            }
            queues.entry(method).or_default().push_back(record);
        }
        Ok(Replayer {
            protocols,
            queues: Mutex::new(queues),
            last: Mutex::new(BTreeMap::new()),
            schemas: schema.map(Schemas::new),
        })
    }

    /// Reads a recording file ([`read_recording`]).
    pub fn from_file(protocols: Protocols, path: &Path) -> Result<Replayer, Error> {
        Replayer::new(protocols, read_recording(path)?)
    }

    /// How many records of each method have not been replayed yet.
    pub fn remaining(&self) -> BTreeMap<String, usize> {
        lock(&self.queues)
            .iter()
            .filter(|(_, queue)| !queue.is_empty())
            .map(|(method, queue)| (method.clone(), queue.len()))
            .collect()
    }

    /// Answers a unary call of `method` with its next record.
    pub fn unary(&self, method: &str, request: &DynamicMessage) -> Result<DynamicMessage, Status> {
        if method == "UpgradeResourceState"
            && lock(&self.queues)
                .get(method)
                .is_none_or(VecDeque::is_empty)
            && let Some(answer) = self.current_upgrade(request)
        {
            return Ok(answer);
        }
        let record = self.take(method, request)?;
        if !record.error.is_empty() {
            return Err(recorded_error(&record.error));
        }
        let (_, desc) = self.method(method)?;
        transcript::from_go_json(&desc, &record.response)
            .map_err(|err| replay_status(method, &format!("unusable recorded response: {err}")))
    }

    /// The answer to an unrecorded UpgradeResourceState of a state at its resource's current
    /// schema version: the state itself. `None` for any other upgrade.
    fn current_upgrade(&self, request: &DynamicMessage) -> Option<DynamicMessage> {
        let (_, response_desc) = self.method("UpgradeResourceState").ok()?;
        let type_name = request.get_field_by_name("type_name")?;
        let schemas = self.schemas.as_ref()?;
        let resource = schemas.schema().resources.get(type_name.as_str()?)?;
        if request.get_field_by_name("version")?.as_i64() != Some(resource.version) {
            return None;
        }
        let ty = resource.block.implied_type();
        let raw_state = request.get_field_by_name("raw_state")?;
        let json = raw_state.as_message()?.get_field_by_name("json")?;
        let value = tfp_cty::from_json(json.as_bytes()?, &ty).ok()?;
        let state_desc = response_desc
            .get_field_by_name("upgraded_state")?
            .kind()
            .as_message()?
            .clone();
        let mut state = DynamicMessage::new(state_desc);
        let msgpack = tfp_cty::to_msgpack(&value, &ty).ok()?;
        state.set_field_by_name("msgpack", prost_reflect::Value::Bytes(msgpack.into()));
        let mut response = DynamicMessage::new(response_desc);
        response.set_field_by_name("upgraded_state", prost_reflect::Value::Message(state));
        Some(response)
    }

    /// The request and response types of `method`.
    fn method(&self, method: &str) -> Result<(MessageDescriptor, MessageDescriptor), Status> {
        self.protocols
            .methods
            .method(method)
            .ok_or_else(|| unknown(method))
    }

    /// Answers a server-streaming call of `method`: the recorded events, then the recorded error.
    pub fn stream(
        &self,
        method: &str,
        request: &DynamicMessage,
    ) -> Result<Vec<Result<DynamicMessage, Status>>, Status> {
        let record = self.take(method, request)?;
        let events: Vec<serde_json::Value> = match record.response.trim() {
            "" => Vec::new(),
            text => serde_json::from_str(text).map_err(|err| {
                replay_status(
                    method,
                    &format!("recorded events are not a JSON array: {err}"),
                )
            })?,
        };
        let (_, desc) = self.method(method)?;
        let mut answers = Vec::with_capacity(events.len() + 1);
        for event in &events {
            let text = event.to_string();
            let message = transcript::from_go_json(&desc, &text)
                .map_err(|err| replay_status(method, &format!("unusable recorded event: {err}")))?;
            answers.push(Ok(message));
        }
        if !record.error.is_empty() {
            answers.push(Err(recorded_error(&record.error)));
        }
        Ok(answers)
    }

    /// Takes the next record of `method` and checks `request` against it.
    fn take(&self, method: &str, actual: &DynamicMessage) -> Result<Record, Status> {
        let next = lock(&self.queues)
            .get_mut(method)
            .and_then(VecDeque::pop_front);
        let record = match next {
            Some(record) => {
                if STATELESS.contains(&method) {
                    lock(&self.last).insert(method.to_owned(), record.clone());
                }
                record
            }
            None => match lock(&self.last).get(method) {
                Some(record) => record.clone(),
                // A discovery call the recorded session never made (the Go binary never asks
                // for identity schemas) answers as a provider without it.
                None if STATELESS.contains(&method) => {
                    return Err(Status::unimplemented(format!(
                        "replay: the recording has no {method} call"
                    )));
                }
                None => {
                    return Err(Status::failed_precondition(format!(
                        "replay: {method} was called more often than the recording has calls of it"
                    )));
                }
            },
        };
        let (request_desc, _) = self.method(method)?;
        let recorded = transcript::from_text(request_desc, &record.request)
            .map_err(|err| replay_status(method, &format!("unusable recorded request: {err}")))?;
        let context = Context::of(method, actual);
        if let Some(difference) =
            compare::first_difference(self.schemas.as_ref(), &context, &recorded, actual)
        {
            return Err(Status::invalid_argument(format!(
                "replay: {method} request differs from the recording at {difference}"
            )));
        }
        Ok(record)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn unknown(method: &str) -> Status {
    Status::unimplemented(format!("replay: {method} is not a tfplugin6 method"))
}

fn replay_status(method: &str, reason: &str) -> Status {
    Status::failed_precondition(format!("replay: {method}: {reason}"))
}

/// A recorded failure as the status it was: `rpc error: code = X desc = Y` is how Go prints a
/// gRPC status, and how we record one.
fn recorded_error(errors: &[String]) -> Status {
    let text = errors.join("; ");
    if let Some(rest) = text.strip_prefix("rpc error: code = ")
        && let Some((code, desc)) = rest.split_once(" desc = ")
        && let Some(code) = (0..=16)
            .map(Code::from_i32)
            .find(|c| format!("{c:?}") == code)
    {
        return Status::new(code, desc);
    }
    Status::unknown(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_errors_come_back_as_their_status() {
        let status = recorded_error(&["rpc error: code = Unavailable desc = gone away".into()]);
        assert_eq!(status.code(), Code::Unavailable);
        assert_eq!(status.message(), "gone away");
        assert_eq!(recorded_error(&["boom".into()]).code(), Code::Unknown);
    }
}
