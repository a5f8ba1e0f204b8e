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

use std::{
    convert::Infallible,
    marker::PhantomData,
    str::FromStr as _,
    sync::{Arc, OnceLock},
};

use bytes::{Buf as _, BufMut as _, Bytes};
use prost::Message as _;
use prost_reflect::{DynamicMessage, MessageDescriptor};
use tokio_stream::{Stream, StreamExt as _};
// The http types of tonic's own version, through the re-exports its generated servers use.
use tonic::codegen::http::{self, uri::PathAndQuery};
use tonic::{
    Status,
    body::Body,
    codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
    server::NamedService,
    service::Routes,
    transport::Channel,
};

use crate::{
    host::{Error, Observer as _, Provider, StreamObserver, upgrade},
    proto::{tfplugin5 as v5, tfplugin6 as v6},
    recording::record::{Recorder, Recording},
};

/// As large as our client accepts and grpc-go allows (go-plugin dials with `MaxInt32`).
const MAX_MESSAGE_BYTES: usize = i32::MAX as usize;

/// tfplugin5 methods whose tfplugin6 twin has another name; the others share theirs.
const V5_RENAMES: &[(&str, &str)] = &[
    ("GetSchema", "GetProviderSchema"),
    ("PrepareProviderConfig", "ValidateProviderConfig"),
    ("Configure", "ConfigureProvider"),
    ("ValidateResourceTypeConfig", "ValidateResourceConfig"),
    ("ValidateDataSourceConfig", "ValidateDataResourceConfig"),
    ("Stop", "StopProvider"),
];

/// The routes that serve `provider`'s protocol and forward every call to it, recording each to
/// `recorder`.
pub async fn routes(provider: &Provider, recorder: Arc<Recorder>) -> Routes {
    let redacts = recorder.redacts();
    let forward = Arc::new(Forwarder {
        channel: provider.channel(),
        recording: Recording::new(recorder),
        provider: provider.name().to_owned(),
        protocol: provider.protocol(),
    });
    if redacts {
        forward.learn_schema().await;
    }
    if forward.protocol == 5 {
        Routes::new(Forward::<V5>::new(forward))
    } else {
        Routes::new(Forward::<V6>::new(forward))
    }
}

/// What every forwarded call shares.
struct Forwarder {
    channel: Channel,
    recording: Arc<Recording>,
    provider: String,
    protocol: u32,
}

/// How a method streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unary,
    ServerStreaming,
    ClientStreaming,
    Bidirectional,
}

/// A method of the served service.
struct Method {
    /// Its name in the served protocol.
    name: String,
    path: PathAndQuery,
    kind: Kind,
    /// Its tfplugin6 twin, under which it is recorded; `None` for a v5 method without one
    /// (protocol 5's `Provisioner` service is not served, so there is none today).
    recorded: Option<String>,
}

/// The methods of `service` (`tfplugin5.Provider` or `tfplugin6.Provider`), from our descriptors.
fn methods(service: &str) -> &'static [Method] {
    static V5_METHODS: OnceLock<Vec<Method>> = OnceLock::new();
    static V6_METHODS: OnceLock<Vec<Method>> = OnceLock::new();
    let cell = if service.starts_with("tfplugin5") {
        &V5_METHODS
    } else {
        &V6_METHODS
    };
    cell.get_or_init(|| {
        let Some(descriptor) = crate::proto::DESCRIPTOR_POOL.get_service_by_name(service) else {
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
                let recorded = crate::recording::method(twin).map(|_| twin.to_owned());
                Some(Method {
                    name,
                    path,
                    kind,
                    recorded,
                })
            })
            .collect()
    })
}

impl Forwarder {
    fn service(&self) -> &'static str {
        if self.protocol == 5 {
            "tfplugin5.Provider"
        } else {
            "tfplugin6.Provider"
        }
    }

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
        let Some(method) = methods(self.service()).iter().find(|m| m.name == name) else {
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
                Ok(schema) => self.recording.provider_schema(&schema),
                Err(err) => tracing::warn!("recording without the provider's schema: {err}"),
            },
            Err(status) => tracing::warn!(
                "recording without the provider's schema: {}",
                status.message()
            ),
        }
    }

    /// A `GetProviderSchema` (or v5 `GetSchema`) answer as tfplugin6.
    fn schema(
        &self,
        bytes: &[u8],
    ) -> Result<v6::get_provider_schema::Response, prost::DecodeError> {
        if self.protocol == 5 {
            v5::get_provider_schema::Response::decode(bytes).map(upgrade::provider_schema)
        } else {
            v6::get_provider_schema::Response::decode(bytes)
        }
    }

    /// The error a failed call is recorded with: the provider's status, as our client records it.
    fn error(&self, method: &'static Method, status: Status) -> Error {
        Error::Rpc {
            provider: self.provider.clone(),
            method: method.recorded.as_deref().unwrap_or(&method.name),
            status,
        }
    }

    /// Forwards one unary call and records it.
    async fn unary(
        self: Arc<Self>,
        method: &'static Method,
        request: tonic::Request<Bytes>,
    ) -> Result<tonic::Response<Bytes>, Status> {
        let body = request.get_ref().clone();
        let answer = self
            .ready()
            .await?
            .unary(forwarded(request), method.path.clone(), RawCodec)
            .await;
        self.record_unary(method, &body, &answer);
        answer
    }

    fn record_unary(
        &self,
        method: &'static Method,
        request: &Bytes,
        answer: &Result<tonic::Response<Bytes>, Status>,
    ) {
        let Some(twin) = method.recorded.as_deref() else {
            return;
        };
        let Some((request_desc, response_desc)) = crate::recording::method(twin) else {
            return;
        };
        let Some(request) = decode(request_desc, request) else {
            tracing::warn!("cannot record {twin}: its request does not decode");
            return;
        };
        match answer {
            Ok(response) if twin == "GetProviderSchema" => {
                // A protocol-5 schema is recorded upgraded, as our client upgrades it.
                let upgraded = self.schema(response.get_ref()).ok().and_then(|schema| {
                    self.recording.provider_schema(&schema);
                    decode(response_desc, &schema.encode_to_vec())
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
            Err(status) => {
                let error = self.error(method, status.clone());
                self.recording.unary(twin, request, Err(&error));
            }
        }
    }

    /// Forwards a server-streaming call event by event; the recording gets copies of the events
    /// and records the call when the stream ends.
    async fn server_streaming(
        self: Arc<Self>,
        method: &'static Method,
        request: tonic::Request<Bytes>,
    ) -> Result<tonic::Response<EventStream>, Status> {
        let body = request.get_ref().clone();
        let answer = self
            .ready()
            .await?
            .server_streaming(forwarded(request), method.path.clone(), RawCodec)
            .await;
        let mut recording = self.record_stream(method, &body, &answer);
        let response = answer?;
        let (metadata, events, extensions) = response.into_parts();
        let forwarder = self.clone();
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
                        observer.end(Some(&forwarder.error(method, status.clone())));
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
        method: &'static Method,
        request: &Bytes,
        answer: &Result<tonic::Response<tonic::Streaming<Bytes>>, Status>,
    ) -> Option<(Box<dyn StreamObserver>, MessageDescriptor)> {
        let twin = method.recorded.as_deref()?;
        let (request_desc, event_desc) = crate::recording::method(twin)?;
        let request = decode(request_desc, request)?;
        if let Err(status) = answer {
            let error = self.error(method, status.clone());
            self.recording.unary(twin, request, Err(&error));
            return None;
        }
        Some((self.recording.stream(twin, request)?, event_desc))
    }

    /// Forwards a client-streaming call (WriteStateBytes) chunk by chunk. Like our client, the
    /// pass-through does not record it.
    async fn client_streaming(
        self: Arc<Self>,
        method: &'static Method,
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

/// A message as tfplugin6's `desc` reads it, for the recording.
fn decode(desc: MessageDescriptor, bytes: &[u8]) -> Option<DynamicMessage> {
    DynamicMessage::decode(desc, bytes).ok()
}

/// Protocol 5, as a type.
enum V5 {}
/// Protocol 6, as a type.
enum V6 {}

/// The provider service of one protocol, forwarding to the real provider.
struct Forward<P> {
    forwarder: Arc<Forwarder>,
    protocol: PhantomData<fn() -> P>,
}

impl<P> Forward<P> {
    fn new(forwarder: Arc<Forwarder>) -> Forward<P> {
        Forward {
            forwarder,
            protocol: PhantomData,
        }
    }
}

impl<P> Clone for Forward<P> {
    fn clone(&self) -> Self {
        Forward::new(self.forwarder.clone())
    }
}

impl NamedService for Forward<V5> {
    const NAME: &'static str = "tfplugin5.Provider";
}

impl NamedService for Forward<V6> {
    const NAME: &'static str = "tfplugin6.Provider";
}

impl<P> tower::Service<http::Request<Body>> for Forward<P> {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = tonic::codegen::BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let forwarder = self.forwarder.clone();
        Box::pin(async move { Ok(dispatch(forwarder, request).await) })
    }
}

/// Serves one call: finds its method and forwards it as its streaming shape requires.
async fn dispatch(forwarder: Arc<Forwarder>, request: http::Request<Body>) -> http::Response<Body> {
    let path = request.uri().path();
    let name = path.rsplit('/').next().unwrap_or(path);
    let method = methods(forwarder.service())
        .iter()
        .find(|method| method.name == name);
    let mut grpc = tonic::server::Grpc::new(RawCodec)
        .apply_max_message_size_config(Some(MAX_MESSAGE_BYTES), Some(MAX_MESSAGE_BYTES));
    match method {
        Some(method) if method.kind == Kind::Unary => {
            let service =
                tower::service_fn(move |request| forwarder.clone().unary(method, request));
            grpc.unary(service, request).await
        }
        Some(method) if method.kind == Kind::ServerStreaming => {
            let service = tower::service_fn(move |request| {
                forwarder.clone().server_streaming(method, request)
            });
            grpc.server_streaming(service, request).await
        }
        Some(method) if method.kind == Kind::ClientStreaming => {
            let service = tower::service_fn(move |request| {
                forwarder.clone().client_streaming(method, request)
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

/// A codec that passes messages through as their bytes.
#[derive(Clone, Copy, Debug, Default)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_of_both_protocols_is_known_with_its_tfplugin6_twin() {
        let v5 = methods("tfplugin5.Provider");
        let v6 = methods("tfplugin6.Provider");
        assert!(
            v5.len() >= 28 && v6.len() >= 36,
            "{} {}",
            v5.len(),
            v6.len()
        );
        // Every v5 method has a v6 twin to be recorded as.
        for method in v5 {
            assert!(method.recorded.is_some(), "{}", method.name);
        }
        let twin = |name: &str| {
            v5.iter()
                .find(|m| m.name == name)
                .and_then(|m| m.recorded.clone())
        };
        assert_eq!(twin("GetSchema").as_deref(), Some("GetProviderSchema"));
        assert_eq!(twin("Configure").as_deref(), Some("ConfigureProvider"));
        assert_eq!(twin("Stop").as_deref(), Some("StopProvider"));
        let kind = |name: &str| v6.iter().find(|m| m.name == name).map(|m| m.kind);
        assert_eq!(kind("ListResource"), Some(Kind::ServerStreaming));
        assert_eq!(kind("WriteStateBytes"), Some(Kind::ClientStreaming));
        assert_eq!(kind("PlanResourceChange"), Some(Kind::Unary));
    }
}
