//! A recording pass-through: a go-plugin provider that forwards every call, message by message,
//! to the real provider behind it, and records each in the `PULUMI_TF_DEBUG_GRPC` format (the
//! `record` subcommand).
//!
//! Design. The pass-through serves the protocol the real provider chose, so its host sees exactly
//! what it would see without it: the real provider is launched with the protocol versions the
//! host offered, and its answer is announced to the host. Calls are forwarded as raw gRPC
//! messages, never decoded and encoded again, with the request's metadata and the provider's
//! status as they were, so nothing is lost or changed in translation, including fields and
//! methods newer than our protos (a method our protos lack is refused with UNIMPLEMENTED, as a
//! generated server would refuse it, because its streaming shape is unknown; tfplugin has no
//! bidirectional method, and one would be refused the same way). Server-streaming
//! calls (ListResource, InvokeAction, ReadStateBytes) are forwarded event by event, and the
//! client-streaming WriteStateBytes chunk by chunk.
//!
//! Recording happens beside the forwarding, from copies of the messages, through
//! [`Recording`], so that the recording is the one our bridge writes: tfplugin6 names and
//! messages (a protocol-5 call is recorded as its tfplugin6 twin, the schema upgraded as our
//! client upgrades it), redacted unless asked otherwise. Redaction needs the provider's schema,
//! and a host may not ask for it (OpenTofu caches schemas between the provider processes of one
//! command), so when redacting we ask the provider for it once before serving; that call is
//! neither forwarded nor recorded.

use std::{borrow::Cow, str::FromStr as _, sync::Arc};

use bytes::Bytes;
use prost_reflect::{DynamicMessage, MessageDescriptor};
use tokio_stream::{Stream, StreamExt as _};
// The http types of tonic's own version, through the re-exports its generated servers use.
use tonic::codegen::http::{self, uri::PathAndQuery};
use tonic::{Status, body::Body, service::Routes, transport::Channel};

use crate::{
    Observer as _, Protocols, StreamObserver,
    raw::{self, Handler, MAX_MESSAGE_BYTES, RawCodec, V5, V6},
    record::{Recorder, Recording},
};

/// tfplugin5 methods whose tfplugin6 twin has another name; the others share theirs.
const V5_RENAMES: &[(&str, &str)] = &[
    ("GetSchema", "GetProviderSchema"),
    ("PrepareProviderConfig", "ValidateProviderConfig"),
    ("Configure", "ConfigureProvider"),
    ("ValidateResourceTypeConfig", "ValidateResourceConfig"),
    ("ValidateDataSourceConfig", "ValidateDataResourceConfig"),
    ("Stop", "StopProvider"),
];

/// The routes that serve the protocol (5 or 6) of the real provider on `channel` and forward
/// every call to it, recording each to `recorder`.
pub async fn routes(
    protocols: Protocols,
    channel: Channel,
    protocol: u32,
    recorder: Arc<Recorder>,
) -> Routes {
    let redacts = recorder.redacts();
    let forward = Arc::new(Forwarder {
        channel,
        recording: Recording::new(recorder),
        methods: methods(protocols, protocol)
            .into_iter()
            .map(Arc::new)
            .collect(),
        protocols,
        protocol,
    });
    if redacts {
        forward.learn_schema().await;
    }
    if forward.protocol == 5 {
        raw::routes::<_, V5>(forward)
    } else {
        raw::routes::<_, V6>(forward)
    }
}

/// What every forwarded call shares.
struct Forwarder {
    channel: Channel,
    recording: Arc<Recording>,
    /// The methods of the served service.
    methods: Vec<Arc<Method>>,
    protocols: Protocols,
    protocol: u32,
}

/// How a method streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Unary,
    ServerStreaming,
    ClientStreaming,
    Bidirectional,
}

/// A method of the served service.
#[derive(Debug)]
pub struct Method {
    /// Its name in the served protocol.
    pub name: String,
    pub path: PathAndQuery,
    pub kind: Kind,
    /// Its tfplugin6 twin, under which it is recorded; `None` for a v5 method without one
    /// (protocol 5's `Provisioner` service is not served, so there is none today).
    pub recorded: Option<String>,
}

/// The methods the pass-through serves for a provider of `protocol` (5 or 6), from our
/// descriptors of `tfplugin5.Provider` or `tfplugin6.Provider`.
pub fn methods(protocols: Protocols, protocol: u32) -> Vec<Method> {
    let service = service(protocol);
    let Some(descriptor) = protocols.methods.pool().get_service_by_name(service) else {
        return Vec::new();
    };
    descriptor
        .methods()
        .filter_map(|method| {
            let name = method.name().to_owned();
            let path = format!("/{service}/{name}");
            let path = PathAndQuery::from_str(&path).ok()?;
            let kind = match (method.is_client_streaming(), method.is_server_streaming()) {
                (false, false) => Kind::Unary,
                (false, true) => Kind::ServerStreaming,
                (true, false) => Kind::ClientStreaming,
                (true, true) => Kind::Bidirectional,
            };
            let twin = V5_RENAMES
                .iter()
                .find(|(v5, _)| service.starts_with("tfplugin5") && *v5 == name)
                .map_or(name.as_str(), |(_, v6)| v6);
            let recorded = protocols.methods.method(twin).map(|_| twin.to_owned());
            Some(Method {
                name,
                path,
                kind,
                recorded,
            })
        })
        .collect()
}

/// The provider service of `protocol`.
fn service(protocol: u32) -> &'static str {
    if protocol == 5 {
        "tfplugin5.Provider"
    } else {
        "tfplugin6.Provider"
    }
}

impl Forwarder {
    fn client(&self) -> tonic::client::Grpc<Channel> {
        tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES)
    }

    /// A client of the real provider, ready for a call.
    async fn ready(&self) -> Result<tonic::client::Grpc<Channel>, Status> {
        let mut client = self.client();
        client.ready().await.map_err(unavailable)?;
        Ok(client)
    }

    /// Asks the provider for its schema, for redaction only.
    async fn learn_schema(&self) {
        let name = if self.protocol == 5 {
            "GetSchema"
        } else {
            "GetProviderSchema"
        };
        let Some(method) = self.methods.iter().find(|m| m.name == name) else {
            return;
        };
        let Ok(mut client) = self.ready().await else {
            return;
        };
        let answer = client
            .unary(
                tonic::Request::new(Bytes::new()),
                method.path.clone(),
                RawCodec,
            )
            .await;
        match answer {
            Ok(response) => match self.schema(response.get_ref()) {
                Ok(schema) => self
                    .recording
                    .provider_schema(&|| (self.protocols.provider_schema)(&schema)),
                Err(err) => tracing::warn!("recording without the provider's schema: {err}"),
            },
            Err(status) => tracing::warn!(
                "recording without the provider's schema: {}",
                status.message()
            ),
        }
    }

    /// A `GetProviderSchema` (or v5 `GetSchema`) answer as tfplugin6.
    fn schema(&self, bytes: &[u8]) -> Result<DynamicMessage, String> {
        let (_, desc) = (self.protocols.methods)
            .method("GetProviderSchema")
            .ok_or("our protos have no GetProviderSchema")?;
        let bytes = if self.protocol == 5 {
            Cow::Owned((self.protocols.upgrade_schema)(bytes)?)
        } else {
            Cow::Borrowed(bytes)
        };
        decoded(desc, &bytes)
    }

    /// Forwards one unary call and records it.
    async fn unary(
        self: Arc<Self>,
        method: Arc<Method>,
        request: tonic::Request<Bytes>,
    ) -> Result<tonic::Response<Bytes>, Status> {
        let body = request.get_ref().clone();
        let answer = self
            .ready()
            .await?
            .unary(forwarded(request), method.path.clone(), RawCodec)
            .await;
        self.record_unary(&method, &body, &answer);
        answer
    }

    fn record_unary(
        &self,
        method: &Method,
        request: &Bytes,
        answer: &Result<tonic::Response<Bytes>, Status>,
    ) {
        let Some(twin) = method.recorded.as_deref() else {
            return;
        };
        let Some((request_desc, response_desc)) = self.protocols.methods.method(twin) else {
            return;
        };
        let Some(request) = decode(request_desc, request) else {
            tracing::warn!("cannot record {twin}: its request does not decode");
            return;
        };
        match answer {
            Ok(response) if twin == "GetProviderSchema" => {
                // A protocol-5 schema is recorded upgraded, as our client upgrades it.
                let upgraded = self.schema(response.get_ref()).ok().inspect(|schema| {
                    (self.recording).provider_schema(&|| (self.protocols.provider_schema)(schema));
                });
                match upgraded {
                    Some(schema) => self.recording.unary(twin, request, Ok(schema)),
                    None => tracing::warn!("cannot record {twin}: its answer does not decode"),
                }
            }
            Ok(response) => match decode(response_desc, response.get_ref()) {
                Some(response) => self.recording.unary(twin, request, Ok(response)),
                None => tracing::warn!("cannot record {twin}: its answer does not decode"),
            },
            Err(status) => self.recording.unary(twin, request, Err(status)),
        }
    }

    /// Forwards a server-streaming call event by event; the recording gets copies of the events
    /// and records the call when the stream ends.
    async fn server_streaming(
        self: Arc<Self>,
        method: Arc<Method>,
        request: tonic::Request<Bytes>,
    ) -> Result<tonic::Response<EventStream>, Status> {
        let body = request.get_ref().clone();
        let answer = self
            .ready()
            .await?
            .server_streaming(forwarded(request), method.path.clone(), RawCodec)
            .await;
        let mut recording = self.record_stream(&method, &body, &answer);
        let response = answer?;
        let (metadata, events, extensions) = response.into_parts();
        // The recording sees each event as it passes; when the forwarded stream fails, or ends
        // and is dropped, so is the recording, which records the call.
        let events: EventStream = Box::pin(events.map(move |event| {
            match &event {
                Ok(bytes) => {
                    if let Some((observer, desc)) = &mut recording
                        && let Some(event) = decode(desc.clone(), bytes)
                    {
                        observer.event(event);
                    }
                }
                Err(status) => {
                    if let Some((observer, _)) = recording.take() {
                        observer.end(Some(status));
                    }
                }
            }
            event
        }));
        Ok(tonic::Response::from_parts(metadata, events, extensions))
    }

    /// Starts recording a server-streaming call; returns what is to see its events and their
    /// type. A call refused outright is recorded at once, as our client records it.
    fn record_stream(
        &self,
        method: &Method,
        request: &Bytes,
        answer: &Result<tonic::Response<tonic::Streaming<Bytes>>, Status>,
    ) -> Option<(Box<dyn StreamObserver>, MessageDescriptor)> {
        let twin = method.recorded.as_deref()?;
        let (request_desc, event_desc) = self.protocols.methods.method(twin)?;
        let request = decode(request_desc, request)?;
        if let Err(status) = answer {
            self.recording.unary(twin, request, Err(status));
            return None;
        }
        Some((self.recording.stream(twin, request)?, event_desc))
    }

    /// Forwards a client-streaming call (WriteStateBytes) chunk by chunk. Like our client, the
    /// pass-through does not record it.
    async fn client_streaming(
        self: Arc<Self>,
        method: Arc<Method>,
        request: tonic::Request<tonic::Streaming<Bytes>>,
    ) -> Result<tonic::Response<Bytes>, Status> {
        let mut client = self.ready().await?;
        let (metadata, extensions, chunks) = request.into_parts();
        // A chunk the host fails to send ends the forwarded stream; the provider sees it cut.
        let chunks = chunks.map_while(Result::ok);
        let request = tonic::Request::from_parts(metadata, extensions, chunks);
        client
            .client_streaming(request, method.path.clone(), RawCodec)
            .await
    }
}

/// The events of a forwarded server-streaming call.
type EventStream = std::pin::Pin<Box<dyn Stream<Item = Result<Bytes, Status>> + Send>>;

/// A request as it goes on to the provider: the host's metadata and message, without what
/// tonic's server attached for itself.
fn forwarded<T>(request: tonic::Request<T>) -> tonic::Request<T> {
    let (metadata, _, message) = request.into_parts();
    tonic::Request::from_parts(metadata, tonic::Extensions::default(), message)
}

fn unavailable(err: tonic::transport::Error) -> Status {
    Status::unavailable(format!("the real provider cannot be reached: {err}"))
}

/// A message as tfplugin6's `desc` reads it, for the recording; `None` if it does not decode
/// or nests deeper than Go's protobuf decodes (the message is forwarded all the same, and
/// whoever receives it refuses it).
fn decode(desc: MessageDescriptor, bytes: &[u8]) -> Option<DynamicMessage> {
    decoded(desc, bytes).ok()
}

/// [`decode`], saying why not.
fn decoded(desc: MessageDescriptor, bytes: &[u8]) -> Result<DynamicMessage, String> {
    tfp_depth::check(&desc, bytes).map_err(|err| err.to_string())?;
    DynamicMessage::decode(desc, bytes).map_err(|err| err.to_string())
}

impl Handler for Forwarder {
    fn handle(
        self: Arc<Self>,
        request: http::Request<Body>,
    ) -> impl Future<Output = http::Response<Body>> + Send {
        dispatch(self, request)
    }
}

/// Serves one call: finds its method and forwards it as its streaming shape requires.
async fn dispatch(forwarder: Arc<Forwarder>, request: http::Request<Body>) -> http::Response<Body> {
    let path = request.uri().path();
    let name = path.rsplit('/').next().unwrap_or(path);
    let method = (forwarder.methods.iter())
        .find(|method| method.name == name)
        .cloned();
    let mut grpc = tonic::server::Grpc::new(RawCodec)
        .apply_max_message_size_config(Some(MAX_MESSAGE_BYTES), Some(MAX_MESSAGE_BYTES));
    match method {
        Some(method) if method.kind == Kind::Unary => {
            let service =
                tower::service_fn(move |request| forwarder.clone().unary(method.clone(), request));
            grpc.unary(service, request).await
        }
        Some(method) if method.kind == Kind::ServerStreaming => {
            let service = tower::service_fn(move |request| {
                forwarder.clone().server_streaming(method.clone(), request)
            });
            grpc.server_streaming(service, request).await
        }
        Some(method) if method.kind == Kind::ClientStreaming => {
            let service = tower::service_fn(move |request| {
                forwarder.clone().client_streaming(method.clone(), request)
            });
            grpc.client_streaming(service, request).await
        }
        _ => {
            let status =
                Status::unimplemented(format!("{path} is not a method this pass-through knows"));
            status.into_http()
        }
    }
}

#[cfg(test)]
mod tests {
    use prost_reflect::DescriptorPool;
    use tfp_testkit::protobuf::nested_lists;

    /// What the recorder decodes may nest as deep as Go's protobuf decodes, on a thread of the
    /// plugin's stack, and deeper input is left undecoded instead of overflowing that stack.
    #[test]
    fn decodes_input_as_deep_as_go_does_and_no_deeper() {
        let value = DescriptorPool::global()
            .get_message_by_name("google.protobuf.Value")
            .expect("Value is compiled in");
        // The top Value, then a ListValue and a Value per level.
        let deepest = (tfp_depth::MAX_DEPTH - 1) / 2;
        std::thread::Builder::new()
            .stack_size(tfp_depth::STACK_BYTES)
            .spawn(move || {
                assert!(super::decode(value.clone(), &nested_lists(deepest)).is_some());
                assert!(super::decode(value, &nested_lists(deepest + 1)).is_none());
            })
            .expect("a thread")
            .join()
            .expect("decoded without overflowing the stack");
    }
}
