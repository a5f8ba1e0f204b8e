//! A [`Replayer`] as the `tfplugin6.Provider` service of a tonic server ([`routes`]), for a client
//! in this process or a host on a unix socket (the `replay` subcommand).
//!
//! Every unary and server-streaming method of our descriptors is served, whatever its messages
//! (a client-streaming or bidirectional one answers UNIMPLEMENTED): a request is decoded by its
//! method's descriptor and the recorded answer encoded, so the service needs no generated code
//! and no list of methods to keep up with the protocol. Replay errors reach the caller as gRPC
//! statuses, so a mismatch surfaces exactly as a provider's failure would, naming the method and
//! the differing field; they are logged too, for the `replay` subcommand's user.

use std::sync::Arc;

use bytes::Bytes;
use prost::Message as _;
use prost_reflect::{DynamicMessage, MethodDescriptor};
use tonic::{Status, body::Body, codegen::http, service::Routes};

use super::Replayer;
use crate::raw::{self, Handler, MAX_MESSAGE_BYTES, RawCodec, V6};

/// The served service.
const SERVICE: &str = "tfplugin6.Provider";

/// The routes of a replayed provider, for a tonic server in process or a go-plugin plugin.
pub fn routes(replayer: Arc<Replayer>) -> Routes {
    raw::routes::<_, V6>(replayer)
}

impl Handler for Replayer {
    fn handle(
        self: Arc<Self>,
        request: http::Request<Body>,
    ) -> impl Future<Output = http::Response<Body>> + Send {
        dispatch(self, request)
    }
}

/// Serves one call as its method's streaming shape requires.
async fn dispatch(replayer: Arc<Replayer>, request: http::Request<Body>) -> http::Response<Body> {
    let path = request.uri().path();
    let method = path
        .strip_prefix('/')
        .and_then(|rest| rest.strip_prefix(SERVICE))
        .and_then(|rest| rest.strip_prefix('/'))
        .and_then(|name| {
            let service = replayer
                .protocols
                .methods
                .pool()
                .get_service_by_name(SERVICE)?;
            service.methods().find(|method| method.name() == name)
        });
    let Some(method) = method else {
        return Status::unimplemented(format!("replay: {path} is not a tfplugin6 method"))
            .into_http();
    };
    let mut grpc = tonic::server::Grpc::new(RawCodec)
        .apply_max_message_size_config(Some(MAX_MESSAGE_BYTES), Some(MAX_MESSAGE_BYTES));
    match (method.is_client_streaming(), method.is_server_streaming()) {
        (false, false) => {
            let answer = tower::service_fn(move |request: tonic::Request<Bytes>| {
                std::future::ready(unary(&replayer, &method, request.get_ref()))
            });
            grpc.unary(answer, request).await
        }
        (false, true) => {
            let answer = tower::service_fn(move |request: tonic::Request<Bytes>| {
                std::future::ready(stream(&replayer, &method, request.get_ref()))
            });
            grpc.server_streaming(answer, request).await
        }
        _ => Status::unimplemented(format!(
            "replay: {} is never recorded, so it cannot be replayed",
            method.name()
        ))
        .into_http(),
    }
}

type Events = tokio_stream::Iter<std::vec::IntoIter<Result<Bytes, Status>>>;

fn unary(
    replayer: &Replayer,
    method: &MethodDescriptor,
    request: &[u8],
) -> Result<tonic::Response<Bytes>, Status> {
    let answer =
        decode(method, request).and_then(|request| replayer.unary(method.name(), &request));
    // UNIMPLEMENTED is how a replay says the recorded provider was never asked: no mismatch.
    if let Err(status) = &answer
        && status.code() != tonic::Code::Unimplemented
    {
        tracing::warn!("{}", status.message());
    }
    answer.map(|response| tonic::Response::new(response.encode_to_vec().into()))
}

fn stream(
    replayer: &Replayer,
    method: &MethodDescriptor,
    request: &[u8],
) -> Result<tonic::Response<Events>, Status> {
    let answers =
        decode(method, request).and_then(|request| replayer.stream(method.name(), &request));
    if let Err(status) = &answers {
        tracing::warn!("{}", status.message());
    }
    let events: Vec<Result<Bytes, Status>> = answers?
        .into_iter()
        .map(|event| event.map(|event| event.encode_to_vec().into()))
        .collect();
    Ok(tonic::Response::new(tokio_stream::iter(events)))
}

fn decode(method: &MethodDescriptor, request: &[u8]) -> Result<DynamicMessage, Status> {
    tfp_depth::check(&method.input(), request)
        .map_err(|err| Status::invalid_argument(format!("replay: {err}")))?;
    DynamicMessage::decode(method.input(), request).map_err(|err| {
        Status::invalid_argument(format!(
            "replay: the {} request does not decode: {err}",
            method.name()
        ))
    })
}
