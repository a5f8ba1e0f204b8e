//! `PULUMI_TF_DEBUG_GRPC=<file>`: every call through a client observed by a [`Recording`] appends one record to the file, in the Go binary's format
//! ([`tfp_recording::transcript`]), so that recordings made by either binary replay with either.
//!
//! Invariants. A record is written with one `write` on a file opened for appending and synced
//! before the call returns to its caller, so a crash loses at most the call in flight, and
//! several providers (or processes) can share one file. Calls to protocol-5 providers are
//! recorded as the tfplugin6 calls the rest of the program made. Unless
//! `PULUMI_TF_DEBUG_GRPC_UNREDACTED=true` (which warns on stderr), secrets are redacted from
//! every message, request and response alike, in the one place every record is made: the values
//! the schema marks sensitive or write-only (`redact`), and every value known to be secret, that
//! is, what the engine sent as secret and the provider's credentials (`hide`, from
//! [`tfp_secrets`]); so a new RPC cannot record a secret. The file is created readable by its
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
    sync::{Arc, Mutex, OnceLock, RwLock},
};

use prost_reflect::DynamicMessage;
use tfp_cty::ProviderSchema;
use tfp_recording::{
    Record, hide,
    redact::{self, Context, Schemas},
    transcript,
};
use tfp_secrets::Secrets;

use crate::{Failure, Observer, StreamObserver};

/// The variable naming the file to record to.
pub const ENV_FILE: &str = "PULUMI_TF_DEBUG_GRPC";
/// The variable that turns redaction off when `true`.
pub const ENV_UNREDACTED: &str = "PULUMI_TF_DEBUG_GRPC_UNREDACTED";

/// The `name` of our records: the text after the last `.` is the method.
const NAME_PREFIX: &str = "pulumi-terraform-provider/host.Client.";

/// The `call` of our records: where they are made.
const CALL_SITE: &str = concat!(file!(), ":", line!());

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

/// The recorder `PULUMI_TF_DEBUG_GRPC` asks for, as the observer of one provider's client; `None`
/// when not recording.
pub fn from_env() -> Option<Arc<dyn Observer>> {
    Recorder::from_env().map(|recorder| Recording::new(recorder) as Arc<dyn Observer>)
}

/// One client's recording: the shared file and the schema of the client's provider, captured
/// from its `GetProviderSchema` answer.
#[derive(Debug)]
pub struct Recording {
    recorder: Arc<Recorder>,
    schemas: RwLock<Option<Arc<Schemas>>>,
}

impl Recording {
    /// A recording to `recorder`, for one provider: a client records through it once
    /// observed by it.
    pub fn new(recorder: Arc<Recorder>) -> Arc<Recording> {
        Arc::new(Recording {
            recorder,
            schemas: RwLock::new(None),
        })
    }

    fn schemas(&self) -> Option<Arc<Schemas>> {
        self.schemas
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// What the request says about the values in the call, after redacting the request.
    fn request_context(&self, method: &str, request: &mut DynamicMessage) -> Context {
        let context = Context::of(method, request);
        if self.recorder.redact && self.redact(&context, request) {
            return context.with_secret_inputs();
        }
        context
    }

    fn response_json(&self, context: &Context, mut response: DynamicMessage) -> String {
        if self.recorder.redact {
            self.redact(context, &mut response);
        }
        transcript::to_go_json(&response)
    }

    /// Redacts what the schema marks, then every value known to be secret; whether a known
    /// secret was found.
    fn redact(&self, context: &Context, message: &mut DynamicMessage) -> bool {
        redact::redact_message(self.schemas().as_deref(), context, message);
        context.has_values() && hide::hide_message(Secrets::global(), message)
    }

    /// The text of a failed call, its secrets masked when redacting.
    fn error_text(&self, err: &dyn Failure) -> String {
        let text = error_text(err);
        if self.recorder.redact {
            Secrets::global().mask(&text).into_owned()
        } else {
            text
        }
    }
}

impl Observer for Recording {
    /// Records a unary call; `method` is its tfplugin6 name, or our snake-case name of it.
    fn unary(
        &self,
        method: &str,
        mut request: DynamicMessage,
        outcome: Result<DynamicMessage, &dyn Failure>,
    ) {
        let method = transcript::go_name(method);
        let context = self.request_context(&method, &mut request);
        let (response, error) = match outcome {
            Ok(response) => (self.response_json(&context, response), vec![]),
            Err(err) => (String::new(), vec![self.error_text(err)]),
        };
        self.recorder.append(&Record {
            name: format!("{NAME_PREFIX}{method}"),
            call: CALL_SITE.to_owned(),
            request: transcript::to_text(&request),
            response,
            error,
        });
    }

    /// Starts recording a server-streaming call, which is recorded when it ends, its events
    /// redacted with the schema known when it started.
    fn stream(&self, method: &str, mut request: DynamicMessage) -> Option<Box<dyn StreamObserver>> {
        let method = transcript::go_name(method);
        let context = self.request_context(&method, &mut request);
        Some(Box::new(StreamLog {
            recording: Recording {
                recorder: self.recorder.clone(),
                schemas: RwLock::new(self.schemas()),
            },
            method,
            request: transcript::to_text(&request),
            context,
            events: Vec::new(),
            ended: false,
        }))
    }

    /// Remembers the provider's schema, which redaction needs.
    fn provider_schema(&self, schema: &dyn Fn() -> Result<ProviderSchema, String>) {
        if !self.recorder.redact {
            return;
        }
        match schema() {
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
}

/// A failed call as Go's `err.Error()` prints a gRPC status, which the replayer turns back into
/// the same status; other failures as our message.
fn error_text(err: &dyn Failure) -> String {
    match err.status() {
        Some(status) => format!(
            "rpc error: code = {:?} desc = {}",
            status.code(),
            status.message()
        ),
        None => err.to_string(),
    }
}

/// A server-streaming call being recorded: its request, and its events as they came, redacted
/// and written as Go's JSON. It is recorded when it ends, or when it is dropped unended.
struct StreamLog {
    recording: Recording,
    method: String,
    request: String,
    context: Context,
    events: Vec<String>,
    ended: bool,
}

impl StreamLog {
    fn finish(&mut self, error: Option<&dyn Failure>) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let response = format!("[{}]", self.events.join(","));
        self.recording.recorder.append(&Record {
            name: format!("{NAME_PREFIX}{}", self.method),
            call: CALL_SITE.to_owned(),
            request: std::mem::take(&mut self.request),
            response,
            error: error
                .map(|err| self.recording.error_text(err))
                .into_iter()
                .collect(),
        });
    }
}

impl StreamObserver for StreamLog {
    fn event(&mut self, event: DynamicMessage) {
        let json = self.recording.response_json(&self.context, event);
        self.events.push(json);
    }

    fn end(mut self: Box<Self>, error: Option<&dyn Failure>) {
        self.finish(error);
    }
}

impl Drop for StreamLog {
    fn drop(&mut self) {
        // A reader that stops early still gets the events it saw recorded.
        self.finish(None);
    }
}
