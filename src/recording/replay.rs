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
//! `serve` puts a [`Replayer`] behind a tonic tfplugin6 server, in process ([`client`]) or on a
//! unix socket (the `replay` subcommand).

mod serve;

use std::{
    collections::{BTreeMap, VecDeque},
    path::Path,
    sync::Mutex,
};

use tonic::{Code, Status};

pub use serve::{Replayed, client, routes};

use tfp_recording::{
    ParseError, Record, compare,
    redact::{Context, Schemas},
    transcript,
};

use crate::{
    proto::tfplugin6 as v6,
    recording::{self, Messages as _},
};

/// The largest recording we read (the AWS schema alone is about 1 MiB).
const MAX_RECORDING_BYTES: u64 = 1 << 30;

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
    queues: Mutex<BTreeMap<String, VecDeque<Record>>>,
    last: Mutex<BTreeMap<String, Record>>,
    /// The recorded schema: for redaction, and for the resources' current versions and types.
    schemas: Option<Schemas>,
}

impl Replayer {
    /// A replayer of `records`. Every record must name a tfplugin6 method.
    pub fn new(records: Vec<Record>) -> Result<Replayer, Error> {
        let mut schema = None;
        let mut queues: BTreeMap<String, VecDeque<Record>> = BTreeMap::new();
        for (index, record) in records.into_iter().enumerate() {
            let method = record.method().to_owned();
            if recording::method(&method).is_none() {
                return Err(Error::UnknownMethod { index, method });
            }
            if method == "GetProviderSchema" && schema.is_none() && record.error.is_empty() {
                let response: v6::get_provider_schema::Response =
                    record.response_message().map_err(|reason| Error::Decode {
                        index,
                        method: method.clone(),
                        what: "response",
                        reason,
                    })?;
                schema = crate::tfschema::provider_schema(&response).ok();
            }
            queues.entry(method).or_default().push_back(record);
        }
        Ok(Replayer {
            queues: Mutex::new(queues),
            last: Mutex::new(BTreeMap::new()),
            schemas: schema.map(Schemas::new),
        })
    }

    /// Reads a recording file: the Go binary's `,\n`-separated records or a JSON array.
    pub fn from_file(path: &Path) -> Result<Replayer, Error> {
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
        let records = tfp_recording::parse_recording(&text).map_err(|source| Error::Parse {
            path: shown.clone(),
            source,
        })?;
        Replayer::new(records)
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
    pub(crate) fn unary<Req: prost::Message, Resp: prost::Message + Default>(
        &self,
        method: &str,
        request: &Req,
    ) -> Result<Resp, Status> {
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
        record.response_message().map_err(|reason| {
            replay_status(method, &format!("unusable recorded response: {reason}"))
        })
    }

    /// The answer to an unrecorded UpgradeResourceState of a state at its resource's current
    /// schema version: the state itself. `None` for any other upgrade.
    fn current_upgrade<Req: prost::Message, Resp: prost::Message + Default>(
        &self,
        request: &Req,
    ) -> Option<Resp> {
        use prost::Message as _;
        let request =
            v6::upgrade_resource_state::Request::decode(request.encode_to_vec().as_slice()).ok()?;
        let resource = self
            .schemas
            .as_ref()?
            .schema()
            .resources
            .get(&request.type_name)?;
        if resource.version != request.version {
            return None;
        }
        let ty = resource.block.implied_type();
        let json = request.raw_state.as_ref().map(|raw| raw.json.as_slice())?;
        let value = tfp_cty::from_json(json, &ty).ok()?;
        let response = v6::upgrade_resource_state::Response {
            upgraded_state: Some(v6::DynamicValue {
                msgpack: tfp_cty::to_msgpack(&value, &ty).ok()?,
                json: Vec::new(),
            }),
            diagnostics: Vec::new(),
        };
        Resp::decode(response.encode_to_vec().as_slice()).ok()
    }

    /// Answers a server-streaming call of `method`: the recorded events, then the recorded error.
    pub(crate) fn stream<Req: prost::Message, T: prost::Message + Default>(
        &self,
        method: &str,
        request: &Req,
    ) -> Result<Vec<Result<T, Status>>, Status> {
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
        let (_, desc) = recording::method(method).ok_or_else(|| unknown(method))?;
        let mut answers = Vec::with_capacity(events.len() + 1);
        for event in &events {
            let text = event.to_string();
            let message = transcript::from_go_json(&desc, &text)
                .map_err(|err| replay_status(method, &format!("unusable recorded event: {err}")))?;
            answers.push(
                message
                    .transcode_to::<T>()
                    .map_err(|err| replay_status(method, &err.to_string())),
            );
        }
        if !record.error.is_empty() {
            answers.push(Err(recorded_error(&record.error)));
        }
        Ok(answers)
    }

    /// Takes the next record of `method` and checks `request` against it.
    fn take<Req: prost::Message>(&self, method: &str, request: &Req) -> Result<Record, Status> {
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
        let (request_desc, _) = recording::method(method).ok_or_else(|| unknown(method))?;
        let recorded = transcript::from_text(request_desc.clone(), &record.request)
            .map_err(|err| replay_status(method, &format!("unusable recorded request: {err}")))?;
        let actual = transcript::to_dynamic(request_desc, request)
            .map_err(|err| replay_status(method, &err.to_string()))?;
        let context = Context::of(method, &actual);
        if let Some(difference) =
            compare::first_difference(self.schemas.as_ref(), &context, &recorded, &actual)
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
    use tfp_cty::{Type, Value};

    use super::*;
    use tfp_recording::{REDACTED, transcript::to_dynamic};

    const TAGS: &str = "[\"set\",\"string\"]";

    /// A provider with one resource `thing {name, tags: set(string), secret (sensitive)}`.
    fn schema_record() -> Record {
        let attribute = |name: &str, ty: &str, sensitive: bool| v6::schema::Attribute {
            name: name.into(),
            r#type: ty.as_bytes().to_vec(),
            optional: true,
            sensitive,
            ..Default::default()
        };
        let mut response = v6::get_provider_schema::Response::default();
        response.resource_schemas.insert(
            "thing".into(),
            v6::Schema {
                version: 0,
                block: Some(v6::schema::Block {
                    attributes: vec![
                        attribute("name", "\"string\"", false),
                        attribute("tags", TAGS, false),
                        attribute("secret", "\"string\"", true),
                    ],
                    ..Default::default()
                }),
            },
        );
        let (_, desc) = recording::method("GetProviderSchema").expect("a method");
        Record {
            name: "x.GetProviderSchema".into(),
            response: transcript::to_go_json(&to_dynamic(desc, &response).expect("decodes")),
            ..Record::default()
        }
    }

    /// A ValidateResourceConfig request of `thing` whose set is written in the order given.
    fn request(tags: &[&str], secret: &str) -> v6::validate_resource_config::Request {
        let ty = Type::object([
            ("name".to_owned(), Type::String),
            ("secret".to_owned(), Type::String),
            ("tags".to_owned(), Type::Set(Type::String.into())),
        ]);
        let tags = tags.iter().map(|t| Value::string(*t)).collect();
        let value = Value::object([
            ("name", Value::string("a")),
            ("secret", Value::string(secret)),
            ("tags", Value::set_in_order(Type::String, tags)),
        ]);
        v6::validate_resource_config::Request {
            type_name: "thing".into(),
            config: Some(v6::DynamicValue {
                msgpack: tfp_cty::to_msgpack(&value, &ty).expect("encodes"),
                json: vec![],
            }),
            client_capabilities: None,
        }
    }

    fn replayer(recorded: &v6::validate_resource_config::Request) -> Replayer {
        let (desc, _) = recording::method("ValidateResourceConfig").expect("a method");
        let record = Record {
            name: "x.ValidateResourceConfig".into(),
            request: transcript::to_text(&to_dynamic(desc, recorded).expect("decodes")),
            response: "{}".into(),
            ..Record::default()
        };
        Replayer::new(vec![schema_record(), record]).expect("a valid recording")
    }

    fn check(
        recorded: &v6::validate_resource_config::Request,
        actual: &v6::validate_resource_config::Request,
    ) -> Result<(), String> {
        replayer(recorded)
            .unary::<_, v6::validate_resource_config::Response>("ValidateResourceConfig", actual)
            .map(|_| ())
            .map_err(|status| status.message().to_owned())
    }

    #[test]
    fn values_compare_by_meaning() {
        let recorded = request(&["x", "y"], "pw");
        // The same set in another order is the same value.
        assert_eq!(check(&recorded, &request(&["y", "x"], "pw")), Ok(()));
        // A redacted recording matches the real secret.
        assert_eq!(check(&request(&["x", "y"], REDACTED), &recorded), Ok(()));
        let err = check(&recorded, &request(&["x", "z"], "pw")).expect_err("differs");
        assert!(
            err.contains(
                "config.msgpack (attribute .tags): the recorded set has \"y\", this one does not"
            ),
            "{err}"
        );
        // A different secret is reported without showing either value.
        let err = check(&recorded, &request(&["x", "y"], "other")).expect_err("differs");
        assert!(
            err.contains("(attribute .secret): sensitive values differ"),
            "{err}"
        );
        assert!(!err.contains("pw") && !err.contains("other"), "{err}");
    }

    #[test]
    fn recorded_errors_come_back_as_their_status() {
        let status = recorded_error(&["rpc error: code = Unavailable desc = gone away".into()]);
        assert_eq!(status.code(), Code::Unavailable);
        assert_eq!(status.message(), "gone away");
        assert_eq!(recorded_error(&["boom".into()]).code(), Code::Unknown);
    }
}
