//! One tfplugin6 client for every provider, whatever protocol it serves.
//!
//! The rest of the program only ever sees tfplugin6 messages. For a protocol-5 provider each call
//! is translated to its tfplugin5 twin and the answer back, as hashicorp/terraform-plugin-mux's
//! `tf5to6server/tf5to6server.go` does. The two protocols share their field numbers and types
//! message for message, with one exception: `Schema.Attribute`, whose v5 fields 10 and 11 are v6
//! fields 11 and 12 (v6 uses 10 for nested attributes). So schemas are converted field by field
//! ([`crate::host::upgrade`]), and every other message is translated through its wire encoding,
//! which the `v5_and_v6_messages_agree` test proves lossless by comparing the two descriptor sets.
//!
//! A client may be observed ([`Observer`]): every call is then shown, as tfplugin6 messages, to
//! whatever watches it (the recorder of `PULUMI_TF_DEBUG_GRPC`, `tfp_record_replay::record`),
//! which the host knows nothing more of.

use std::{
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use bytes::{Bytes, BytesMut};
use prost_reflect::{DynamicMessage, ReflectMessage};
use tokio_stream::{Stream, StreamExt as _};
use tonic::{Code, Status, transport::Channel};

use tfp_goplugin::Monitor;
use tfp_record_replay::{Failure, Observer, StreamObserver};

use crate::{
    host::{Error, upgrade},
    proto::{tfplugin5 as v5, tfplugin6 as v6},
};

/// The largest message we send or accept: as large as grpc-go allows (go-plugin dials with
/// `MaxInt32`); terraform-plugin-go servers accept 256 MiB.
const MAX_MESSAGE_BYTES: usize = i32::MAX as usize;

/// How long a failed call waits to learn whether the provider died.
const CRASH_GRACE: Duration = Duration::from_millis(500);

/// A stream of messages from a server-streaming call.
pub type ResponseStream<T> = Pin<Box<dyn Stream<Item = Result<T, Error>> + Send>>;

/// A tfplugin6 client of one provider process.
#[derive(Clone)]
pub struct Client {
    inner: Inner,
    /// The connection, for the one call the generated client does not make (v5's `GetSchema`).
    channel: Channel,
    provider: Arc<str>,
    monitor: Option<Arc<Monitor>>,
    /// What sees every call, if anything.
    observer: Option<Arc<dyn Observer>>,
}

#[derive(Clone)]
enum Inner {
    V6(v6::provider_client::ProviderClient<Channel>),
    V5(v5::provider_client::ProviderClient<Channel>),
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("provider", &self.provider)
            .field("protocol", &self.protocol())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client whose calls fail at once, since nothing listens where it connects: for unit
    /// tests of code that holds a client but must not reach a provider.
    #[cfg(test)]
    pub(crate) fn unreachable() -> Client {
        let address = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port");
        Client::at(address)
    }

    /// A tfplugin6 client of whatever listens at `address`, connecting on its first call: for
    /// unit tests.
    #[cfg(test)]
    pub(crate) fn at(address: std::net::SocketAddr) -> Client {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{address}"))
            .expect("a valid endpoint")
            .connect_lazy();
        Client::new(channel, 6, "test", None)
    }

    /// A client for a provider serving `protocol` (5 or 6) on `channel`.
    pub(crate) fn new(
        channel: Channel,
        protocol: u32,
        provider: &str,
        monitor: Option<Arc<Monitor>>,
    ) -> Client {
        let inner = if protocol == 5 {
            Inner::V5(
                v5::provider_client::ProviderClient::new(channel.clone())
                    .max_decoding_message_size(MAX_MESSAGE_BYTES)
                    .max_encoding_message_size(MAX_MESSAGE_BYTES),
            )
        } else {
            Inner::V6(
                v6::provider_client::ProviderClient::new(channel.clone())
                    .max_decoding_message_size(MAX_MESSAGE_BYTES)
                    .max_encoding_message_size(MAX_MESSAGE_BYTES),
            )
        };
        Client {
            inner,
            channel,
            provider: provider.into(),
            monitor,
            observer: None,
        }
    }

    /// This client (and its clones) showing every call to `observer`, instead of to whatever
    /// observed it before. The observer gets the provider's schema from the `GetProviderSchema`
    /// answers the client sees (the bridge asks for it first).
    #[must_use]
    pub fn observed(mut self, observer: Arc<dyn Observer>) -> Client {
        self.observer = Some(observer);
        self
    }

    /// Shows a finished unary call to the observer, if any.
    fn observe<Req: ReflectMessage, Resp: ReflectMessage>(
        &self,
        method: &str,
        request: Option<&Req>,
        outcome: &Result<Resp, Error>,
    ) {
        let (Some(observer), Some(request)) = (&self.observer, request) else {
            return;
        };
        let Some(request) = dynamic(request) else {
            return;
        };
        let outcome = match outcome {
            Ok(response) => match dynamic(response) {
                Some(response) => Ok(response),
                None => return,
            },
            Err(err) => Err(err as &dyn Failure),
        };
        observer.unary(method, request, outcome);
    }

    /// Shows a server-streaming call to the observer, if any, its events as they come.
    fn observe_stream<Req: ReflectMessage, T: ReflectMessage + 'static>(
        &self,
        method: &str,
        request: Option<&Req>,
        outcome: Result<ResponseStream<T>, Error>,
    ) -> Result<ResponseStream<T>, Error> {
        let (Some(observer), Some(request)) = (&self.observer, request.and_then(dynamic)) else {
            return outcome;
        };
        match outcome {
            Ok(stream) => match observer.stream(method, request) {
                Some(events) => Ok(Box::pin(ObservedStream {
                    inner: stream,
                    observer: Some(events),
                })),
                None => Ok(stream),
            },
            Err(err) => {
                observer.unary(method, request, Err(&err as &dyn Failure));
                Err(err)
            }
        }
    }

    /// Whether every call is shown to an observer (`PULUMI_TF_DEBUG_GRPC` records them).
    pub fn is_observed(&self) -> bool {
        self.observer.is_some()
    }

    /// The protocol the provider serves: 5 or 6.
    pub fn protocol(&self) -> u32 {
        match self.inner {
            Inner::V6(_) => 6,
            Inner::V5(_) => 5,
        }
    }

    /// The provider's name, as used in messages.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// Turns a failed call into an error that says, when it did, how the provider died.
    async fn fail(&self, method: &'static str, status: Status) -> Error {
        let provider = self.provider.to_string();
        let transport_failure = matches!(
            status.code(),
            Code::Unavailable | Code::Unknown | Code::Cancelled
        );
        if transport_failure {
            if let Some(monitor) = &self.monitor
                && let Some(exit) = monitor.exited_within(CRASH_GRACE).await
            {
                return Error::Crashed {
                    provider,
                    method,
                    exit,
                };
            }
            let text = format!("{status:?}").to_ascii_lowercase();
            if text.contains("badcertificate") || text.contains("bad certificate") {
                return Error::MtlsRejected {
                    provider,
                    method,
                    status,
                };
            }
        }
        Error::Rpc {
            provider,
            method,
            status,
        }
    }

    fn unsupported(&self, method: &'static str) -> Error {
        Error::Unsupported {
            provider: self.provider.to_string(),
            method,
            protocol: self.protocol(),
        }
    }
}

/// A generated message as a dynamic one, for an observer.
fn dynamic(message: &impl ReflectMessage) -> Option<DynamicMessage> {
    let mut dynamic = DynamicMessage::new(message.descriptor());
    dynamic.transcode_from(message).ok()?;
    Some(dynamic)
}

/// A stream whose events an observer sees as they pass, and whose end it is told of.
struct ObservedStream<T> {
    inner: ResponseStream<T>,
    observer: Option<Box<dyn StreamObserver>>,
}

impl<T: ReflectMessage> Stream for ObservedStream<T> {
    type Item = Result<T, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let polled = this.inner.as_mut().poll_next(cx);
        match &polled {
            Poll::Ready(Some(Ok(event))) => {
                if let (Some(observer), Some(event)) = (&mut this.observer, dynamic(event)) {
                    observer.event(event);
                }
            }
            Poll::Ready(Some(Err(err))) => {
                if let Some(observer) = this.observer.take() {
                    observer.end(Some(err));
                }
            }
            Poll::Ready(None) => {
                if let Some(observer) = this.observer.take() {
                    observer.end(None);
                }
            }
            Poll::Pending => {}
        }
        polled
    }
}

impl<T> Drop for ObservedStream<T> {
    fn drop(&mut self) {
        // A caller that stops reading early still has the events it saw observed.
        if let Some(observer) = self.observer.take() {
            observer.end(None);
        }
    }
}

/// Translates a message into its twin of the other protocol through the wire encoding.
fn transcode<A: prost::Message, B: prost::Message + Default>(
    method: &'static str,
    message: &A,
) -> Result<B, Error> {
    B::decode(message.encode_to_vec().as_slice())
        .map_err(|source| Error::Translate { method, source })
}

/// Unary calls whose v5 twin differs from the v6 one in name only (or not at all).
macro_rules! unary {
    ($(
        $(#[$doc:meta])*
        fn $name:ident($req:ty) -> $resp:ty, v5 $v5name:ident($v5req:ty);
    )*) => {
        impl Client {
            $(
                $(#[$doc])*
                pub async fn $name(&self, request: $req) -> Result<$resp, Error> {
                    let method = stringify!($name);
                    let observed = self.observer.as_ref().map(|_| request.clone());
                    let result = match &self.inner {
                        Inner::V6(client) => {
                            client.clone().$name(request).await.map(tonic::Response::into_inner)
                        }
                        Inner::V5(client) => {
                            let request: $v5req = transcode(method, &request)?;
                            match client.clone().$v5name(request).await {
                                Ok(response) => Ok(transcode(method, &response.into_inner())?),
                                Err(status) => Err(status),
                            }
                        }
                    };
                    let outcome = match result {
                        Ok(response) => Ok(response),
                        Err(status) => Err(self.fail(method, status).await),
                    };
                    self.observe(method, observed.as_ref(), &outcome);
                    outcome
                }
            )*
        }
    };
}

unary! {
    /// Which resources, data sources and functions the provider has (6.5+).
    fn get_metadata(v6::get_metadata::Request) -> v6::get_metadata::Response,
        v5 get_metadata(v5::get_metadata::Request);
    /// The identity schemas of resources (6.9+).
    fn get_resource_identity_schemas(v6::get_resource_identity_schemas::Request)
        -> v6::get_resource_identity_schemas::Response,
        v5 get_resource_identity_schemas(v5::get_resource_identity_schemas::Request);
    /// Validates the provider configuration; for v5 the prepared config is dropped.
    fn validate_provider_config(v6::validate_provider_config::Request)
        -> v6::validate_provider_config::Response,
        v5 prepare_provider_config(v5::prepare_provider_config::Request);
    fn configure_provider(v6::configure_provider::Request) -> v6::configure_provider::Response,
        v5 configure(v5::configure::Request);
    fn validate_resource_config(v6::validate_resource_config::Request)
        -> v6::validate_resource_config::Response,
        v5 validate_resource_type_config(v5::validate_resource_type_config::Request);
    fn upgrade_resource_state(v6::upgrade_resource_state::Request)
        -> v6::upgrade_resource_state::Response,
        v5 upgrade_resource_state(v5::upgrade_resource_state::Request);
    fn upgrade_resource_identity(v6::upgrade_resource_identity::Request)
        -> v6::upgrade_resource_identity::Response,
        v5 upgrade_resource_identity(v5::upgrade_resource_identity::Request);
    fn read_resource(v6::read_resource::Request) -> v6::read_resource::Response,
        v5 read_resource(v5::read_resource::Request);
    fn plan_resource_change(v6::plan_resource_change::Request)
        -> v6::plan_resource_change::Response,
        v5 plan_resource_change(v5::plan_resource_change::Request);
    fn apply_resource_change(v6::apply_resource_change::Request)
        -> v6::apply_resource_change::Response,
        v5 apply_resource_change(v5::apply_resource_change::Request);
    fn import_resource_state(v6::import_resource_state::Request)
        -> v6::import_resource_state::Response,
        v5 import_resource_state(v5::import_resource_state::Request);
    fn move_resource_state(v6::move_resource_state::Request) -> v6::move_resource_state::Response,
        v5 move_resource_state(v5::move_resource_state::Request);
    fn generate_resource_config(v6::generate_resource_config::Request)
        -> v6::generate_resource_config::Response,
        v5 generate_resource_config(v5::generate_resource_config::Request);
    fn validate_data_resource_config(v6::validate_data_resource_config::Request)
        -> v6::validate_data_resource_config::Response,
        v5 validate_data_source_config(v5::validate_data_source_config::Request);
    fn read_data_source(v6::read_data_source::Request) -> v6::read_data_source::Response,
        v5 read_data_source(v5::read_data_source::Request);
    fn validate_ephemeral_resource_config(v6::validate_ephemeral_resource_config::Request)
        -> v6::validate_ephemeral_resource_config::Response,
        v5 validate_ephemeral_resource_config(v5::validate_ephemeral_resource_config::Request);
    fn open_ephemeral_resource(v6::open_ephemeral_resource::Request)
        -> v6::open_ephemeral_resource::Response,
        v5 open_ephemeral_resource(v5::open_ephemeral_resource::Request);
    fn renew_ephemeral_resource(v6::renew_ephemeral_resource::Request)
        -> v6::renew_ephemeral_resource::Response,
        v5 renew_ephemeral_resource(v5::renew_ephemeral_resource::Request);
    fn close_ephemeral_resource(v6::close_ephemeral_resource::Request)
        -> v6::close_ephemeral_resource::Response,
        v5 close_ephemeral_resource(v5::close_ephemeral_resource::Request);
    fn validate_list_resource_config(v6::validate_list_resource_config::Request)
        -> v6::validate_list_resource_config::Response,
        v5 validate_list_resource_config(v5::validate_list_resource_config::Request);
    fn get_functions(v6::get_functions::Request) -> v6::get_functions::Response,
        v5 get_functions(v5::get_functions::Request);
    fn call_function(v6::call_function::Request) -> v6::call_function::Response,
        v5 call_function(v5::call_function::Request);
    fn validate_action_config(v6::validate_action_config::Request)
        -> v6::validate_action_config::Response,
        v5 validate_action_config(v5::validate_action_config::Request);
    fn plan_action(v6::plan_action::Request) -> v6::plan_action::Response,
        v5 plan_action(v5::plan_action::Request);
    /// Asks the provider to cancel what it is doing; it keeps running.
    fn stop_provider(v6::stop_provider::Request) -> v6::stop_provider::Response,
        v5 stop(v5::stop::Request);
}

/// State-store calls, which only protocol 6 has.
macro_rules! v6_only {
    ($(fn $name:ident($req:ty) -> $resp:ty;)*) => {
        impl Client {
            $(
                pub async fn $name(&self, request: $req) -> Result<$resp, Error> {
                    let method = stringify!($name);
                    let Inner::V6(client) = &self.inner else {
                        return Err(self.unsupported(method));
                    };
                    let observed = self.observer.as_ref().map(|_| request.clone());
                    let outcome = match client.clone().$name(request).await {
                        Ok(response) => Ok(response.into_inner()),
                        Err(status) => Err(self.fail(method, status).await),
                    };
                    self.observe(method, observed.as_ref(), &outcome);
                    outcome
                }
            )*
        }
    };
}

v6_only! {
    fn validate_state_store_config(v6::validate_state_store_config::Request)
        -> v6::validate_state_store_config::Response;
    fn configure_state_store(v6::configure_state_store::Request) -> v6::configure_state_store::Response;
    fn lock_state(v6::lock_state::Request) -> v6::lock_state::Response;
    fn unlock_state(v6::unlock_state::Request) -> v6::unlock_state::Response;
    fn get_states(v6::get_states::Request) -> v6::get_states::Response;
    fn delete_state(v6::delete_state::Request) -> v6::delete_state::Response;
}

impl Client {
    /// The provider's full schema answer as the bytes of a v6 `GetProviderSchema` answer (a v5
    /// answer renumbered as [`Client::get_provider_schema`] reads it), for a caller that decodes
    /// it in parts (`tfschema::SchemaAnswer`): a v6 answer bounded in depth whole, a v5
    /// answer's schemas by the renumbering walk, whose rest `SchemaAnswer::split` checks. An
    /// observed client decodes the answer to show it, and encodes it again.
    pub async fn get_provider_schema_bytes(&self) -> Result<Bytes, Error> {
        use prost::Message as _;
        if self.is_observed() {
            return Ok(self.get_provider_schema().await?.encode_to_vec().into());
        }
        match self.schema_bytes().await {
            Ok(bytes) => Ok(bytes),
            Err(status) => Err(self.fail("get_provider_schema", status).await),
        }
    }

    /// The schema call of the provider's protocol, its answer as [`SchemaBytes`] reads it: the
    /// buffer tonic received it in, not copied into one of ours (for AWS 3.39.0, 615 KB of
    /// memory the process had never touched), a v5 answer renumbered into v6's wire form in
    /// place.
    async fn schema_bytes(&self) -> Result<Bytes, Status> {
        let (service, method, path) = match self.inner {
            Inner::V6(_) => (
                "tfplugin6.Provider",
                "GetProviderSchema",
                "/tfplugin6.Provider/GetProviderSchema",
            ),
            Inner::V5(_) => (
                "tfplugin5.Provider",
                "GetSchema",
                "/tfplugin5.Provider/GetSchema",
            ),
        };
        let mut grpc = tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        grpc.ready()
            .await
            .map_err(|err| Status::unknown(format!("Service was not ready: {err}")))?;
        // Both protocols' requests are empty messages: the same (no) bytes.
        let mut request = tonic::Request::new(v6::get_provider_schema::Request {});
        (request.extensions_mut()).insert(tonic::GrpcMethod::new(service, method));
        let path = tonic::codegen::http::uri::PathAndQuery::from_static(path);
        let bytes = grpc.unary(request, path, SchemaBytes).await?.into_inner();
        if self.protocol() != 5 {
            tfp_depth::check_as::<v6::get_provider_schema::Response>(&bytes)
                .map_err(|err| Status::invalid_argument(err.to_string()))?;
            return Ok(bytes);
        }
        // The call has ended and tonic has let go of its buffer, so the answer's bytes are
        // ours alone and can be renumbered where they are; were they still shared, they are
        // copied first. Renumbering bounds the depth of what the schemas' reader recurses
        // through (`upgrade`'s walk refuses groups and blocks nested too deeply where it goes,
        // and nested attributes cannot occur in v5); the rest of the answer is checked when it
        // is decoded (`tfschema::SchemaAnswer`), which spares checking AWS's 615 KB whole.
        let mut bytes = bytes
            .try_into_mut()
            .unwrap_or_else(|shared| BytesMut::from(&shared[..]));
        upgrade::provider_schema_bytes(&mut bytes)
            .map_err(|err| Status::internal(err.to_string()))?;
        Ok(bytes.freeze())
    }

    /// The provider's full schema. A v5 answer is read as v6 (`upgrade::provider_schema_bytes`).
    pub async fn get_provider_schema(&self) -> Result<v6::get_provider_schema::Response, Error> {
        const METHOD: &str = "get_provider_schema";
        let result = match &self.inner {
            Inner::V6(client) => client
                .clone()
                .get_provider_schema(v6::get_provider_schema::Request {})
                .await
                .map(tonic::Response::into_inner),
            Inner::V5(_) => self.schema_bytes().await.and_then(|bytes| {
                use prost::Message as _;
                // Decoded whole, so bounded whole first.
                tfp_depth::check_as::<v6::get_provider_schema::Response>(&bytes)
                    .map_err(|err| Status::invalid_argument(err.to_string()))?;
                v6::get_provider_schema::Response::decode(bytes)
                    .map_err(|err| Status::internal(err.to_string()))
            }),
        };
        let outcome = match result {
            Ok(response) => Ok(response),
            Err(status) => Err(self.fail(METHOD, status).await),
        };
        if let (Ok(response), Some(observer)) = (&outcome, &self.observer) {
            observer.provider_schema(&|| {
                crate::tfschema::provider_schema(response).map_err(|err| err.to_string())
            });
        }
        self.observe(METHOD, Some(&v6::get_provider_schema::Request {}), &outcome);
        outcome
    }

    /// Lists instances of a list resource (6.10+).
    pub async fn list_resource(
        &self,
        request: v6::list_resource::Request,
    ) -> Result<ResponseStream<v6::list_resource::Event>, Error> {
        const METHOD: &str = "list_resource";
        let observed = self.observer.as_ref().map(|_| request.clone());
        let outcome = match &self.inner {
            Inner::V6(client) => match client.clone().list_resource(request).await {
                Ok(stream) => Ok(self.stream(METHOD, stream.into_inner(), Ok)),
                Err(status) => Err(self.fail(METHOD, status).await),
            },
            Inner::V5(client) => {
                let request: v5::list_resource::Request = transcode(METHOD, &request)?;
                match client.clone().list_resource(request).await {
                    Ok(stream) => {
                        Ok(self.stream(METHOD, stream.into_inner(), |e| transcode(METHOD, &e)))
                    }
                    Err(status) => Err(self.fail(METHOD, status).await),
                }
            }
        };
        self.observe_stream(METHOD, observed.as_ref(), outcome)
    }

    /// Runs an action, streaming its progress (6.10+).
    pub async fn invoke_action(
        &self,
        request: v6::invoke_action::Request,
    ) -> Result<ResponseStream<v6::invoke_action::Event>, Error> {
        const METHOD: &str = "invoke_action";
        let observed = self.observer.as_ref().map(|_| request.clone());
        let outcome = match &self.inner {
            Inner::V6(client) => match client.clone().invoke_action(request).await {
                Ok(stream) => Ok(self.stream(METHOD, stream.into_inner(), Ok)),
                Err(status) => Err(self.fail(METHOD, status).await),
            },
            Inner::V5(client) => {
                let request: v5::invoke_action::Request = transcode(METHOD, &request)?;
                match client.clone().invoke_action(request).await {
                    Ok(stream) => {
                        Ok(self.stream(METHOD, stream.into_inner(), |e| transcode(METHOD, &e)))
                    }
                    Err(status) => Err(self.fail(METHOD, status).await),
                }
            }
        };
        self.observe_stream(METHOD, observed.as_ref(), outcome)
    }

    /// Reads a stored state in chunks (state stores, v6 only).
    pub async fn read_state_bytes(
        &self,
        request: v6::read_state_bytes::Request,
    ) -> Result<ResponseStream<v6::read_state_bytes::ResponseChunk>, Error> {
        const METHOD: &str = "read_state_bytes";
        let Inner::V6(client) = &self.inner else {
            return Err(self.unsupported(METHOD));
        };
        let observed = self.observer.as_ref().map(|_| request.clone());
        let outcome = match client.clone().read_state_bytes(request).await {
            Ok(stream) => Ok(self.stream(METHOD, stream.into_inner(), Ok)),
            Err(status) => Err(self.fail(METHOD, status).await),
        };
        self.observe_stream(METHOD, observed.as_ref(), outcome)
    }

    /// Writes a state in chunks (state stores, v6 only).
    pub async fn write_state_bytes(
        &self,
        chunks: impl Stream<Item = v6::write_state_bytes::RequestChunk> + Send + 'static,
    ) -> Result<v6::write_state_bytes::Response, Error> {
        const METHOD: &str = "write_state_bytes";
        let Inner::V6(client) = &self.inner else {
            return Err(self.unsupported(METHOD));
        };
        match client.clone().write_state_bytes(chunks).await {
            Ok(response) => Ok(response.into_inner()),
            Err(status) => Err(self.fail(METHOD, status).await),
        }
    }

    fn stream<T: Send + 'static, U: Send + 'static>(
        &self,
        method: &'static str,
        stream: tonic::Streaming<T>,
        convert: impl Fn(T) -> Result<U, Error> + Send + 'static,
    ) -> ResponseStream<U> {
        let provider = self.provider.to_string();
        Box::pin(stream.map(move |item| match item {
            Ok(message) => convert(message),
            Err(status) => Err(Error::Rpc {
                provider: provider.clone(),
                method,
                status,
            }),
        }))
    }
}

/// The codec of the schema's answer as bytes (`Client::get_provider_schema_bytes`): the empty
/// request, and the answer's bytes as received, which [`Client::schema_bytes`] checks (v6) or
/// renumbers (v5) once the call has ended.
#[derive(Clone, Copy, Debug)]
struct SchemaBytes;

impl tonic::codec::Codec for SchemaBytes {
    type Encode = v6::get_provider_schema::Request;
    type Decode = Bytes;
    type Encoder = tonic_prost::ProstEncoder<v6::get_provider_schema::Request>;
    type Decoder = SchemaBytes;

    fn encoder(&mut self) -> Self::Encoder {
        tonic_prost::ProstEncoder::default()
    }

    fn decoder(&mut self) -> SchemaBytes {
        SchemaBytes
    }
}

impl tonic::codec::Decoder for SchemaBytes {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        use bytes::Buf as _;
        // Split off tonic's buffer, not copied.
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}
