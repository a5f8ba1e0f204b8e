//! A [`Replayer`] behind a tonic tfplugin6 server: in process, over an in-memory stream that
//! a [`Client`] dials ([`client`]), or as the routes a go-plugin plugin serves ([`routes`], for
//! the `replay` subcommand, which serves them with [`crate::host::goplugin`]).
//!
//! Replay errors reach the caller as gRPC statuses, so a mismatch surfaces exactly as a
//! provider's failure would, naming the method and the differing field.

use std::{pin::Pin, sync::Arc};

use hyper_util::rt::TokioIo;
use tokio_stream::Stream;
use tonic::{
    Request, Response, Status,
    service::Routes,
    transport::{Endpoint, Server, Uri},
};

use crate::{
    host::{Client, Error},
    proto::tfplugin6::{self as v6, provider_server::ProviderServer},
    recording::replay::Replayer,
};

/// As large as the client accepts (see `host/client.rs`).
const MAX_MESSAGE_BYTES: usize = i32::MAX as usize;

/// A replayed provider in this process: its client, and the replayer to ask what is left.
/// Dropping it stops the server.
#[derive(Debug)]
pub struct Replayed {
    client: Client,
    replayer: Arc<Replayer>,
    server: tokio::task::JoinHandle<()>,
}

impl Replayed {
    /// The tfplugin6 client of the replayed provider (protocol 6).
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn replayer(&self) -> &Replayer {
        &self.replayer
    }
}

impl Drop for Replayed {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// Serves `replayer` in this process and connects a [`Client`] named `name` to it.
pub async fn client(replayer: Replayer, name: &str) -> Result<Replayed, Error> {
    let replayer = Arc::new(replayer);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let service = provider_service(replayer.clone());
    let server = tokio::spawn(async move {
        let incoming = tokio_stream::once(Ok::<_, std::io::Error>(theirs));
        if let Err(err) = Server::builder()
            .add_service(service)
            .serve_with_incoming(incoming)
            .await
        {
            tracing::warn!("replay server failed: {err}");
        }
    });
    let mut ours = Some(ours);
    let channel = Endpoint::from_static("http://replay")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let io = ours.take();
            async move {
                io.map(TokioIo::new).ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::ConnectionRefused,
                        "the in-process replay connection cannot be reopened",
                    )
                })
            }
        }))
        .await
        .map_err(|source| tfp_goplugin::Error::Connect {
            provider: name.to_owned(),
            address: "in-process replay".into(),
            source,
        })?;
    Ok(Replayed {
        client: Client::new(channel, 6, name, None),
        replayer,
        server,
    })
}

/// The routes of the replayed provider, for a go-plugin plugin to serve.
pub fn routes(replayer: Arc<Replayer>) -> Routes {
    Routes::new(provider_service(replayer))
}

fn provider_service(replayer: Arc<Replayer>) -> ProviderServer<Service> {
    ProviderServer::new(Service(replayer))
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

struct Service(Arc<Replayer>);

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

impl Service {
    fn unary<Req: prost::Message, Resp: prost::Message + Default>(
        &self,
        method: &str,
        request: Request<Req>,
    ) -> Result<Response<Resp>, Status> {
        let answer = self.0.unary(method, request.get_ref());
        // UNIMPLEMENTED is how a replay says the recorded provider was never asked: no mismatch.
        if let Err(status) = &answer
            && status.code() != tonic::Code::Unimplemented
        {
            tracing::warn!("{}", status.message());
        }
        answer.map(Response::new)
    }

    fn stream<Req: prost::Message, T: prost::Message + Default + 'static>(
        &self,
        method: &str,
        request: Request<Req>,
    ) -> Result<Response<EventStream<T>>, Status> {
        let answers = self.0.stream(method, request.get_ref());
        if let Err(status) = &answers {
            tracing::warn!("{}", status.message());
        }
        let stream: EventStream<T> = Box::pin(tokio_stream::iter(answers?));
        Ok(Response::new(stream))
    }
}

/// The service: each unary method (its name in recordings, our handler and the module of its
/// messages) answered by [`Service::unary`], plus the hand-written streaming ones. The whole
/// impl is generated because `async_trait` must see the methods the macro writes.
macro_rules! replay_service {
    ($($method:literal fn $name:ident($module:ident);)* { $($rest:tt)* }) => {
        #[tonic::async_trait]
        impl v6::provider_server::Provider for Service {
            $(
                async fn $name(
                    &self,
                    request: Request<v6::$module::Request>,
                ) -> Result<Response<v6::$module::Response>, Status> {
                    self.unary($method, request)
                }
            )*
            $($rest)*
        }
    };
}

replay_service! {
        "GetMetadata" fn get_metadata(get_metadata);
        "GetProviderSchema" fn get_provider_schema(get_provider_schema);
        "GetResourceIdentitySchemas" fn get_resource_identity_schemas(get_resource_identity_schemas);
        "ValidateProviderConfig" fn validate_provider_config(validate_provider_config);
        "ConfigureProvider" fn configure_provider(configure_provider);
        "ValidateResourceConfig" fn validate_resource_config(validate_resource_config);
        "UpgradeResourceState" fn upgrade_resource_state(upgrade_resource_state);
        "UpgradeResourceIdentity" fn upgrade_resource_identity(upgrade_resource_identity);
        "ReadResource" fn read_resource(read_resource);
        "PlanResourceChange" fn plan_resource_change(plan_resource_change);
        "ApplyResourceChange" fn apply_resource_change(apply_resource_change);
        "ImportResourceState" fn import_resource_state(import_resource_state);
        "MoveResourceState" fn move_resource_state(move_resource_state);
        "GenerateResourceConfig" fn generate_resource_config(generate_resource_config);
        "ValidateDataResourceConfig" fn validate_data_resource_config(validate_data_resource_config);
        "ReadDataSource" fn read_data_source(read_data_source);
        "ValidateEphemeralResourceConfig"
            fn validate_ephemeral_resource_config(validate_ephemeral_resource_config);
        "OpenEphemeralResource" fn open_ephemeral_resource(open_ephemeral_resource);
        "RenewEphemeralResource" fn renew_ephemeral_resource(renew_ephemeral_resource);
        "CloseEphemeralResource" fn close_ephemeral_resource(close_ephemeral_resource);
        "ValidateListResourceConfig" fn validate_list_resource_config(validate_list_resource_config);
        "GetFunctions" fn get_functions(get_functions);
        "CallFunction" fn call_function(call_function);
        "ValidateActionConfig" fn validate_action_config(validate_action_config);
        "PlanAction" fn plan_action(plan_action);
        "ValidateStateStoreConfig" fn validate_state_store_config(validate_state_store_config);
        "ConfigureStateStore" fn configure_state_store(configure_state_store);
        "LockState" fn lock_state(lock_state);
        "UnlockState" fn unlock_state(unlock_state);
        "GetStates" fn get_states(get_states);
        "DeleteState" fn delete_state(delete_state);
        "StopProvider" fn stop_provider(stop_provider);
{
    type ListResourceStream = EventStream<v6::list_resource::Event>;
    type InvokeActionStream = EventStream<v6::invoke_action::Event>;
    type ReadStateBytesStream = EventStream<v6::read_state_bytes::ResponseChunk>;

    async fn list_resource(
        &self,
        request: Request<v6::list_resource::Request>,
    ) -> Result<Response<Self::ListResourceStream>, Status> {
        self.stream("ListResource", request)
    }

    async fn invoke_action(
        &self,
        request: Request<v6::invoke_action::Request>,
    ) -> Result<Response<Self::InvokeActionStream>, Status> {
        self.stream("InvokeAction", request)
    }

    async fn read_state_bytes(
        &self,
        request: Request<v6::read_state_bytes::Request>,
    ) -> Result<Response<Self::ReadStateBytesStream>, Status> {
        self.stream("ReadStateBytes", request)
    }

    async fn write_state_bytes(
        &self,
        _: Request<tonic::Streaming<v6::write_state_bytes::RequestChunk>>,
    ) -> Result<Response<v6::write_state_bytes::Response>, Status> {
        Err(Status::unimplemented(
            "replay: WriteStateBytes is never recorded, so it cannot be replayed",
        ))
    }
}
}
