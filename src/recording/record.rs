//! `PULUMI_TF_DEBUG_GRPC=<file>`: every call through [`Client`](crate::host::Client) appends
//! one record to the file, in the Go binary's format (`transcript`), so that recordings made
//! by either binary replay with either.
//!
//! Invariants. A record is written with one `write` on a file opened for appending and synced
//! before the call returns to its caller, so a crash loses at most the call in flight, and
//! several providers (or processes) can share one file. Calls to protocol-5 providers are
//! recorded as the tfplugin6 calls the rest of the program made. Unless
//! `PULUMI_TF_DEBUG_GRPC_UNREDACTED=true` (which warns on stderr), secrets are redacted from
//! every message, request and response alike, in the one place every record is made: the values
//! the schema marks sensitive or write-only (`redact`), and every value known to be secret, that
//! is, what the engine sent as secret and the provider's credentials (`hide`, from
//! [`crate::secrets`]); so a new RPC cannot record a secret. The file is created readable by its
//! owner only. A failure to write is logged and does not fail the call:
//! a debugging aid must not break a deployment.
//!
//! Server-streaming calls are recorded once the stream ends (or is dropped), with the JSON array
//! of their events as the response; the Go binary records no streaming calls. The
//! client-streaming `WriteStateBytes` is not recorded.

use std::{
    fs::File,
    io::Write as _,
    path::{Path, PathBuf},
    pin::Pin,
    sync::{Arc, Mutex, OnceLock, RwLock},
    task::{Context as TaskContext, Poll},
};

use prost_reflect::DynamicMessage;
use tfp_secrets::Secrets;
use tokio_stream::Stream;

use tfp_recording::{
    Record, hide,
    redact::{self, Context, Schemas},
    transcript,
};

use crate::{
    host::{Error, ResponseStream},
    proto::tfplugin6 as v6,
    recording,
};

/// The variable naming the file to record to.
pub const ENV_FILE: &str = "PULUMI_TF_DEBUG_GRPC";
/// The variable that turns redaction off when `true`.
pub const ENV_UNREDACTED: &str = "PULUMI_TF_DEBUG_GRPC_UNREDACTED";

/// The `name` of our records: the text after the last `.` is the method.
const NAME_PREFIX: &str = "pulumi-terraform-provider/host.Client.";

/// A file that records are appended to, shared by every client recording to it.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    file: Mutex<File>,
    redact: bool,
}

impl Recorder {
    /// Opens (or creates) `path` for appending records; `redact` keeps secrets out.
    pub fn create(path: impl AsRef<Path>, redact: bool) -> std::io::Result<Arc<Recorder>> {
        use std::os::unix::fs::OpenOptionsExt as _;
        let path = path.as_ref().to_owned();
        let file = File::options()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)?;
        Ok(Arc::new(Recorder {
            path,
            file: Mutex::new(file),
            redact,
        }))
    }

    /// The recorder `PULUMI_TF_DEBUG_GRPC` asks for, read once per process.
    pub fn from_env() -> Option<Arc<Recorder>> {
        static FROM_ENV: OnceLock<Option<Arc<Recorder>>> = OnceLock::new();
        FROM_ENV
            .get_or_init(|| {
                let path = std::env::var_os(ENV_FILE).filter(|p| !p.is_empty())?;
                let unredacted = std::env::var(ENV_UNREDACTED)
                    .is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "1"));
                if unredacted {
                    eprintln!(
                        "warning: {ENV_UNREDACTED} is set: {} will hold provider credentials and \
                         sensitive values in plain text",
                        Path::new(&path).display()
                    );
                }
                match Recorder::create(&path, !unredacted) {
                    Ok(recorder) => Some(recorder),
                    Err(err) => {
                        tracing::warn!(
                            "cannot record to {ENV_FILE}={}: {err}",
                            Path::new(&path).display()
                        );
                        None
                    }
                }
            })
            .clone()
    }

    /// Whether sensitive values are redacted.
    pub fn redacts(&self) -> bool {
        self.redact
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn append(&self, record: &Record) {
        let line = record.to_line();
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let written = file
            .write_all(line.as_bytes())
            .and_then(|()| file.sync_data());
        if let Err(err) = written {
            tracing::warn!(
                "failed to record {} to {}: {err}",
                record.method(),
                self.path.display()
            );
        }
    }
}

/// One client's recording: the shared file and the schema of the client's provider, captured
/// from its `GetProviderSchema` answer.
#[derive(Debug)]
pub(crate) struct Recording {
    recorder: Arc<Recorder>,
    schemas: RwLock<Option<Arc<Schemas>>>,
}

impl Recording {
    pub(crate) fn new(recorder: Arc<Recorder>) -> Arc<Recording> {
        Arc::new(Recording {
            recorder,
            schemas: RwLock::new(None),
        })
    }

    /// Remembers the provider's schema, which redaction needs.
    pub(crate) fn capture_schema(&self, response: &v6::get_provider_schema::Response) {
        if !self.recorder.redact {
            return;
        }
        match crate::tfschema::provider_schema(response) {
            Ok(schema) => {
                let schemas = Arc::new(Schemas::new(schema));
                *self
                    .schemas
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(schemas);
            }
            Err(err) => tracing::warn!("recording without the provider's schema: {err}"),
        }
    }

    /// Records a unary call; `method` is our snake-case name of it.
    pub(crate) fn unary<Req: prost::Message, Resp: prost::Message>(
        &self,
        method: &str,
        call: &str,
        request: &Req,
        outcome: Result<&Resp, &Error>,
    ) {
        let method = camel_case(method);
        let Some((request_desc, response_desc)) = recording::method(&method) else {
            return;
        };
        let Some((text, context)) = self.request_text(&method, request_desc, request) else {
            return;
        };
        let (response, error) = match outcome {
            Ok(response) => (
                self.response_json(&context, &response_desc, response),
                vec![],
            ),
            Err(err) => (String::new(), vec![self.error_text(err)]),
        };
        self.recorder.append(&Record {
            name: format!("{NAME_PREFIX}{method}"),
            call: call.to_owned(),
            request: text,
            response,
            error,
        });
    }

    /// Wraps the event stream of a server-streaming call so that it is recorded when it ends.
    pub(crate) fn stream<Req: prost::Message, T: prost::Message + Clone + Unpin + 'static>(
        self: &Arc<Self>,
        method: &str,
        call: &str,
        request: &Req,
        stream: ResponseStream<T>,
    ) -> ResponseStream<T> {
        let method = camel_case(method);
        let Some((request_desc, event_desc)) = recording::method(&method) else {
            return stream;
        };
        let Some((text, context)) = self.request_text(&method, request_desc, request) else {
            return stream;
        };
        Box::pin(RecordedStream {
            inner: stream,
            log: Some(StreamLog {
                recording: self.clone(),
                method,
                call: call.to_owned(),
                request: text,
                context,
                event_desc,
                events: Vec::new(),
            }),
        })
    }

    fn schemas(&self) -> Option<Arc<Schemas>> {
        self.schemas
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn request_text<Req: prost::Message>(
        &self,
        method: &str,
        desc: prost_reflect::MessageDescriptor,
        request: &Req,
    ) -> Option<(String, Context)> {
        let mut message = transcript::to_dynamic(desc, request).ok()?;
        let context = Context::of(method, &message);
        if self.recorder.redact {
            self.redact(&context, &mut message);
        }
        Some((transcript::to_text(&message), context))
    }

    fn response_json<Resp: prost::Message>(
        &self,
        context: &Context,
        desc: &prost_reflect::MessageDescriptor,
        response: &Resp,
    ) -> String {
        let Ok(mut message) = transcript::to_dynamic(desc.clone(), response) else {
            return String::new();
        };
        if self.recorder.redact {
            self.redact(context, &mut message);
        }
        transcript::to_go_json(&message)
    }

    /// Redacts what the schema marks, then every value known to be secret.
    fn redact(&self, context: &Context, message: &mut DynamicMessage) {
        redact::redact_message(self.schemas().as_deref(), context, message);
        if context.has_values() {
            hide::hide_message(Secrets::global(), message);
        }
    }

    /// The text of a failed call, its secrets masked when redacting.
    fn error_text(&self, err: &Error) -> String {
        let text = error_text(err);
        if self.recorder.redact {
            Secrets::global().mask(&text).into_owned()
        } else {
            text
        }
    }
}

/// A failed call as Go's `err.Error()` prints a gRPC status, which the replayer turns back into
/// the same status; other failures as our message.
fn error_text(err: &Error) -> String {
    match err.status() {
        Some(status) => format!(
            "rpc error: code = {:?} desc = {}",
            status.code(),
            status.message()
        ),
        None => err.to_string(),
    }
}

/// `plan_resource_change` → `PlanResourceChange`.
fn camel_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

struct StreamLog<T> {
    recording: Arc<Recording>,
    method: String,
    call: String,
    request: String,
    context: Context,
    event_desc: prost_reflect::MessageDescriptor,
    events: Vec<T>,
}

impl<T: prost::Message> StreamLog<T> {
    fn finish(self, error: Option<&Error>) {
        let mut response = String::from("[");
        for (i, event) in self.events.iter().enumerate() {
            if i > 0 {
                response.push(',');
            }
            response.push_str(&self.recording.response_json(
                &self.context,
                &self.event_desc,
                event,
            ));
        }
        response.push(']');
        self.recording.recorder.append(&Record {
            name: format!("{NAME_PREFIX}{}", self.method),
            call: self.call,
            request: self.request,
            response,
            error: error
                .map(|err| self.recording.error_text(err))
                .into_iter()
                .collect(),
        });
    }
}

/// A stream that keeps a copy of its events and records the call when it ends.
struct RecordedStream<T: prost::Message> {
    inner: ResponseStream<T>,
    log: Option<StreamLog<T>>,
}

impl<T: prost::Message + Clone + Unpin> Stream for RecordedStream<T> {
    type Item = Result<T, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let polled = this.inner.as_mut().poll_next(cx);
        match &polled {
            Poll::Ready(Some(Ok(event))) => {
                if let Some(log) = &mut this.log {
                    log.events.push(event.clone());
                }
            }
            Poll::Ready(Some(Err(err))) => {
                if let Some(log) = this.log.take() {
                    log.finish(Some(err));
                }
            }
            Poll::Ready(None) => {
                if let Some(log) = this.log.take() {
                    log.finish(None);
                }
            }
            Poll::Pending => {}
        }
        polled
    }
}

impl<T: prost::Message> Drop for RecordedStream<T> {
    fn drop(&mut self) {
        // A caller that stops reading early still gets the events it saw recorded.
        if let Some(log) = self.log.take() {
            log.finish(None);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn camel_case() {
        assert_eq!(
            super::camel_case("plan_resource_change"),
            "PlanResourceChange"
        );
        assert_eq!(
            super::camel_case("get_resource_identity_schemas"),
            "GetResourceIdentitySchemas"
        );
    }
}
