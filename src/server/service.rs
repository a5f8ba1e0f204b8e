//! `pulumirpc.ResourceProvider`: what the Pulumi engine calls.
//!
//! Before Parameterize the server is the bare `terraform-provider` plugin; Parameterize turns
//! it, once, into a bridge for one Terraform provider (pulumi-terraform-bridge `dynamic/main.go`).

use std::sync::Arc;

use tokio::sync::RwLock;
use tonic::{Request, Response, Status};

use crate::{
    proto::pulumirpc::{self as rpc, resource_provider_server::ResourceProvider},
    server::{
        args::{self, ArgsError},
        bridge::{Bridge, BridgeError},
        check, config, diff,
        engine::EngineLog,
        invoke, lifecycle,
        mapping_info::{self, Mappings},
        read,
    },
};

/// The provider server.
pub struct Server {
    bridge: RwLock<Option<Arc<Bridge>>>,
    engine: EngineLog,
    mappings: Mappings,
}

impl Server {
    pub fn new(engine: EngineLog) -> Server {
        Server {
            bridge: RwLock::new(None),
            engine,
            mappings: Mappings::default(),
        }
    }

    /// The bridge, or the error every provider RPC gets before Parameterize.
    async fn bridge(&self) -> Result<Arc<Bridge>, Status> {
        self.bridge.read().await.clone().ok_or_else(|| {
            Status::failed_precondition(
                "the terraform-provider plugin must be parameterized first: \
                 use `pulumi package add terraform-provider <provider>` or a generated SDK",
            )
        })
    }

    /// Shuts down the Terraform provider, if one runs.
    pub async fn shutdown(&self) {
        if let Some(bridge) = self.bridge.write().await.take() {
            match Arc::try_unwrap(bridge) {
                Ok(bridge) => {
                    bridge.provider.shutdown().await;
                }
                // Still in use by a call in flight: dropping our reference kills it when the
                // last one goes.
                Err(shared) => drop(shared),
            }
        }
    }
}

/// Masks every secret of the session in the check failures of an answer: a provider's
/// diagnostic may quote a value it was given.
fn masked(mut failures: Vec<rpc::CheckFailure>) -> Vec<rpc::CheckFailure> {
    let secrets = crate::secrets::Secrets::global();
    for failure in &mut failures {
        secrets.mask_in_place(&mut failure.reason);
    }
    failures
}

impl From<BridgeError> for Status {
    fn from(err: BridgeError) -> Status {
        let text = format!("{:#}", anyhow::Error::new(err));
        Status::unknown(text)
    }
}

#[tonic::async_trait]
impl ResourceProvider for Server {
    async fn handshake(
        &self,
        _: Request<rpc::ProviderHandshakeRequest>,
    ) -> Result<Response<rpc::ProviderHandshakeResponse>, Status> {
        // The Go binary answers UNIMPLEMENTED, and the engine then keeps its legacy behaviour;
        // answering the same keeps the engine's behaviour identical.
        Err(Status::unimplemented("Handshake is not yet implemented"))
    }

    async fn parameterize(
        &self,
        request: Request<rpc::ParameterizeRequest>,
    ) -> Result<Response<rpc::ParameterizeResponse>, Status> {
        use rpc::parameterize_request::Parameters;
        let mut slot = self.bridge.write().await;
        if let Some(bridge) = slot.as_ref() {
            return Err(Status::unknown(format!(
                "provider is already parameterized to ({}, {})",
                bridge.name, bridge.version
            )));
        }
        let args = match request.into_inner().parameters {
            Some(Parameters::Args(a)) => match args::parse(&a.args) {
                Ok(args) => args,
                Err(ArgsError::Help) => {
                    self.engine.info(args::USAGE);
                    return Err(Status::invalid_argument(ArgsError::Help.to_string()));
                }
                Err(err) => return Err(Status::invalid_argument(err.to_string())),
            },
            Some(Parameters::Value(v)) => {
                let value = tfp_schema::ParameterValue::parse(&v.value).map_err(|err| {
                    self.engine.error(
                        "failed to parse the parameter value embedded in this SDK; this is a bug, \
                         please report it",
                    );
                    Status::invalid_argument(format!("failed to parse parameterized value: {err}"))
                })?;
                args::from_value(&value)
            }
            None => {
                return Err(Status::invalid_argument(
                    "Parameterize needs either args or a value",
                ));
            }
        };
        let bridge = Bridge::start(args).await?;
        let response = rpc::ParameterizeResponse {
            name: bridge.name.clone(),
            version: bridge.version.clone(),
        };
        *slot = Some(Arc::new(bridge));
        Ok(Response::new(response))
    }

    async fn get_schema(
        &self,
        request: Request<rpc::GetSchemaRequest>,
    ) -> Result<Response<rpc::GetSchemaResponse>, Status> {
        let request = request.into_inner();
        if !request.subpackage_version.is_empty()
            && semver::Version::parse(&request.subpackage_version).is_err()
        {
            return Err(Status::invalid_argument(format!(
                "invalid SubpackageVersion: {:?} is not a semantic version",
                request.subpackage_version
            )));
        }
        let schema = match self.bridge.read().await.clone() {
            Some(bridge) => String::from_utf8_lossy(bridge.schema_json()?).into_owned(),
            None => String::from_utf8_lossy(
                &tfp_schema::unparameterized_schema(crate::VERSION).to_json(),
            )
            .into_owned(),
        };
        Ok(Response::new(rpc::GetSchemaResponse { schema }))
    }

    async fn get_plugin_info(&self, _: Request<()>) -> Result<Response<rpc::PluginInfo>, Status> {
        let version = match self.bridge.read().await.as_ref() {
            Some(bridge) => bridge.version.clone(),
            None => crate::VERSION.to_owned(),
        };
        Ok(Response::new(rpc::PluginInfo { version }))
    }

    async fn attach(&self, request: Request<rpc::PluginAttach>) -> Result<Response<()>, Status> {
        self.engine
            .connect(&request.into_inner().address)
            .await
            .map_err(|err| Status::unavailable(format!("{err:#}")))?;
        Ok(Response::new(()))
    }

    async fn cancel(&self, _: Request<()>) -> Result<Response<()>, Status> {
        // Unlike the Go binary, ask the provider to stop what it is doing.
        if let Some(bridge) = self.bridge.read().await.clone()
            && let Err(err) = bridge
                .provider
                .client()
                .stop_provider(Default::default())
                .await
        {
            tracing::warn!("StopProvider failed: {err}");
        }
        Ok(Response::new(()))
    }

    async fn get_mapping(
        &self,
        request: Request<rpc::GetMappingRequest>,
    ) -> Result<Response<rpc::GetMappingResponse>, Status> {
        // Like the Go binary, answer before Parameterize too, for the base provider.
        let bridge = self.bridge.read().await.clone();
        Ok(Response::new(
            self.mappings
                .get_mapping(bridge.as_deref(), request.get_ref())?,
        ))
    }

    async fn get_mappings(
        &self,
        request: Request<rpc::GetMappingsRequest>,
    ) -> Result<Response<rpc::GetMappingsResponse>, Status> {
        let bridge = self.bridge.read().await.clone();
        Ok(Response::new(mapping_info::get_mappings(
            bridge.as_deref(),
            request.get_ref(),
        )))
    }

    async fn check_config(
        &self,
        request: Request<rpc::CheckRequest>,
    ) -> Result<Response<rpc::CheckResponse>, Status> {
        let bridge = self.bridge().await?;
        let mut response = config::check_config(&bridge, request.into_inner()).await?;
        response.failures = masked(response.failures);
        Ok(Response::new(response))
    }

    async fn diff_config(
        &self,
        request: Request<rpc::DiffRequest>,
    ) -> Result<Response<rpc::DiffResponse>, Status> {
        let bridge = self.bridge().await?;
        Ok(Response::new(config::diff_config(
            &bridge,
            request.into_inner(),
        )?))
    }

    async fn configure(
        &self,
        request: Request<rpc::ConfigureRequest>,
    ) -> Result<Response<rpc::ConfigureResponse>, Status> {
        let bridge = self.bridge().await?;
        Ok(Response::new(
            config::configure(&bridge, request.into_inner()).await?,
        ))
    }

    async fn invoke(
        &self,
        request: Request<rpc::InvokeRequest>,
    ) -> Result<Response<rpc::InvokeResponse>, Status> {
        let bridge = self.bridge().await?;
        let mut response = invoke::invoke(&bridge, request.into_inner()).await?;
        response.failures = masked(response.failures);
        Ok(Response::new(response))
    }

    async fn call(
        &self,
        request: Request<rpc::CallRequest>,
    ) -> Result<Response<rpc::CallResponse>, Status> {
        let bridge = self.bridge().await?;
        let mut response = config::call(&bridge, request.into_inner())?;
        response.failures = masked(response.failures);
        Ok(Response::new(response))
    }

    async fn check(
        &self,
        request: Request<rpc::CheckRequest>,
    ) -> Result<Response<rpc::CheckResponse>, Status> {
        let bridge = self.bridge().await?;
        let mut response = check::check(&bridge, request.into_inner()).await?;
        response.failures = masked(response.failures);
        Ok(Response::new(response))
    }

    async fn diff(
        &self,
        request: Request<rpc::DiffRequest>,
    ) -> Result<Response<rpc::DiffResponse>, Status> {
        let bridge = self.bridge().await?;
        Ok(Response::new(
            diff::diff(&bridge, request.into_inner()).await?,
        ))
    }

    async fn create(
        &self,
        request: Request<rpc::CreateRequest>,
    ) -> Result<Response<rpc::CreateResponse>, Status> {
        let bridge = self.bridge().await?;
        Ok(Response::new(
            lifecycle::create(&bridge, request.into_inner()).await?,
        ))
    }

    async fn read(
        &self,
        request: Request<rpc::ReadRequest>,
    ) -> Result<Response<rpc::ReadResponse>, Status> {
        let bridge = self.bridge().await?;
        Ok(Response::new(
            read::read(&bridge, request.into_inner()).await?,
        ))
    }

    type ListStream = std::pin::Pin<
        Box<dyn tokio_stream::Stream<Item = Result<rpc::ListResponse, Status>> + Send>,
    >;

    async fn list(
        &self,
        request: Request<rpc::ListRequest>,
    ) -> Result<Response<Self::ListStream>, Status> {
        let bridge = self.bridge().await?;
        let provider = bridge.mapping.provider_type();
        let listable: Vec<&str> = bridge
            .mapping
            .schema()
            .list_resources
            .keys()
            .map(String::as_str)
            .collect();
        // The Go binary answers "terraform provider does not expose list schemas" whatever the
        // provider; say which case this is.
        let message = if listable.is_empty() {
            format!(
                "List is not supported: the Terraform provider {provider} exposes no list resources"
            )
        } else {
            format!(
                "List is not supported yet: the Terraform provider {provider} has list resources \
                 ({}), but this plugin cannot list them through Pulumi (asked for {:?})",
                listable.join(", "),
                request.get_ref().token
            )
        };
        Err(Status::unimplemented(message))
    }

    async fn update(
        &self,
        request: Request<rpc::UpdateRequest>,
    ) -> Result<Response<rpc::UpdateResponse>, Status> {
        let bridge = self.bridge().await?;
        Ok(Response::new(
            lifecycle::update(&bridge, request.into_inner()).await?,
        ))
    }

    async fn delete(&self, request: Request<rpc::DeleteRequest>) -> Result<Response<()>, Status> {
        let bridge = self.bridge().await?;
        lifecycle::delete(&bridge, request.into_inner()).await?;
        Ok(Response::new(()))
    }

    async fn construct(
        &self,
        _: Request<rpc::ConstructRequest>,
    ) -> Result<Response<rpc::ConstructResponse>, Status> {
        Err(Status::unimplemented(
            "Construct is not implemented for Terraform Plugin Framework bridged providers",
        ))
    }
}
