//! `pulumirpc.ResourceProvider`: what the Pulumi engine calls.
//!
//! Before Parameterize the server is the bare `terraform-provider` plugin; Parameterize turns
//! it, once, into a bridge for one Terraform provider (pulumi-terraform-bridge `dynamic/main.go`).
//!
//! No lock is held while Parameterize installs and launches the provider, which can take
//! minutes (a download, another installer's lock, a provider slow to handshake). Meanwhile
//! GetPluginInfo answers the bare plugin's version, Cancel aborts the Parameterize, and every
//! RPC that needs the provider (GetSchema and GetMapping too) answers UNAVAILABLE at once,
//! saying that Parameterize is in progress: the engine sends nothing else before Parameterize
//! returns, so a caller that does may retry.
//!
//! When the schema cache had the provider's schemas, Parameterize returns without launching
//! it: GetSchema and GetMapping(s) answer from the cache, and the first other RPC
//! launches it (`Parameterized::bridge`). Cancel aborts that launch too.

use std::{
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use tfp_mapping::Mapping;
use tfp_schema::args::{self, ArgsError};
use tokio::sync::oneshot;
use tonic::{Request, Response, Status};

use crate::{
    proto::pulumirpc::{self as rpc, resource_provider_server::ResourceProvider},
    server::{
        bridge::{Bridge, HandedSchema, Parameterized, STORE_GRACE},
        check, config, diff,
        engine::EngineLog,
        invoke, lifecycle, list,
        mapping_info::{self, Mappings},
        read,
    },
};

/// How long Cancel waits for the provider to answer StopProvider. The engine gives up on Cancel
/// after 20 seconds; a wedged provider must not make it.
const STOP_PROVIDER_TIMEOUT: Duration = Duration::from_secs(5);

/// The provider server.
pub struct Server {
    state: Mutex<State>,
    engine: EngineLog,
    mappings: Mappings,
}

/// What Parameterize has made of the plugin so far.
enum State {
    /// The bare `terraform-provider` plugin.
    Bare,
    /// Parameterize is under way for `target`; dropping `cancel` aborts it.
    Starting {
        target: String,
        cancel: Option<oneshot::Sender<()>>,
    },
    /// Parameterized; the provider may not be running yet.
    Ready(Arc<Parameterized>),
    /// Shut down: no provider may start any more.
    Stopped,
}

/// Parameterize's claim on the state while it starts a bridge: the state goes back to `Bare`
/// unless the bridge is installed, also when the Parameterize future is dropped.
struct Claim<'a> {
    server: &'a Server,
    done: bool,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if !self.done {
            let mut state = self.server.state();
            if matches!(*state, State::Starting { .. }) {
                *state = State::Bare;
            }
        }
    }
}

impl Server {
    pub fn new(engine: EngineLog) -> Server {
        Server {
            state: Mutex::new(State::Bare),
            engine,
            mappings: Mappings::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // No code panics while holding the lock, and the state is valid after every statement.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What Parameterize made if it has finished, `None` before it started, and UNAVAILABLE
    /// while it runs.
    fn parameterized(&self) -> Result<Option<Arc<Parameterized>>, Status> {
        match &*self.state() {
            State::Bare | State::Stopped => Ok(None),
            State::Ready(parameterized) => Ok(Some(parameterized.clone())),
            State::Starting { target, .. } => Err(in_progress(target)),
        }
    }

    /// What Parameterize made, or the error every provider RPC gets before Parameterize.
    fn package(&self) -> Result<Arc<Parameterized>, Status> {
        self.parameterized()?.ok_or_else(|| {
            Status::failed_precondition(
                "the terraform-provider plugin must be parameterized first: \
                 use `pulumi package add terraform-provider <provider>` or a generated SDK",
            )
        })
    }

    /// The running provider, launched now if the schema cache let Parameterize do without it.
    async fn bridge(&self) -> Result<Arc<Bridge>, Status> {
        Ok(self.package()?.bridge().await?)
    }

    /// The mapping, if parameterized, without launching the provider.
    async fn mapping(&self) -> Result<Option<Arc<Mapping>>, Status> {
        match self.parameterized()? {
            Some(parameterized) => Ok(Some(parameterized.mapping().await?)),
            None => Ok(None),
        }
    }

    /// Closes the ephemeral resources still open, then shuts down the Terraform provider, if
    /// one runs, and aborts a Parameterize or a launch under way.
    pub async fn shutdown(&self) {
        let state = std::mem::replace(&mut *self.state(), State::Stopped);
        if let State::Ready(parameterized) = state {
            parameterized.close();
            if let Some(bridge) = parameterized.running() {
                bridge.close_ephemerals().await;
            }
            match Arc::try_unwrap(parameterized) {
                Ok(parameterized) => parameterized.shutdown(STORE_GRACE).await,
                // A provider still in use by a call in flight is killed when the last
                // reference to it goes.
                Err(shared) => shared.stored(STORE_GRACE).await,
            }
        }
        // A `Starting` state went with its cancel sender, which aborts that Parameterize.
    }

    /// Aborts a Parameterize or a launch under way, and refuses any later one; a provider
    /// already running is left to [`Server::shutdown`].
    pub fn abort_parameterize(&self) {
        let mut state = self.state();
        match &*state {
            // Dropping the `Starting` state's sender aborts its Parameterize.
            State::Starting { .. } | State::Bare => *state = State::Stopped,
            State::Ready(parameterized) => parameterized.close(),
            State::Stopped => {}
        }
    }

    /// GetSchema: the package schema, or the bare plugin's before Parameterize.
    pub fn schema(&self, request: rpc::GetSchemaRequest) -> Result<HandedSchema, Status> {
        if !request.subpackage_version.is_empty()
            && semver::Version::parse(&request.subpackage_version).is_err()
        {
            return Err(Status::invalid_argument(format!(
                "invalid SubpackageVersion: {} is not a semantic version",
                tfp_echo::quoted(&request.subpackage_version)
            )));
        }
        Ok(match self.parameterized()? {
            Some(parameterized) => parameterized.schema_json()?,
            None => tfp_schema::unparameterized_schema(crate::VERSION)
                .into_json()
                .into(),
        })
    }

    /// Claims the state for a Parameterize of `target`, unless the plugin is already
    /// parameterized or being parameterized.
    fn claim(&self, target: String) -> Result<(Claim<'_>, oneshot::Receiver<()>), Status> {
        let mut state = self.state();
        refuse_second_parameterize(&state)?;
        let (cancel, cancelled) = oneshot::channel();
        *state = State::Starting {
            target,
            cancel: Some(cancel),
        };
        Ok((
            Claim {
                server: self,
                done: false,
            },
            cancelled,
        ))
    }
}

/// Whether the engine asks, by name, for the package the Go binary made from a local release
/// binary (`terraform-provider-aws_v3.39.0_x5` gives it `aws_v3.39.0_x5`, us `aws`): a program or
/// SDK it made holds that name, and the engine refuses an answer of another. Answering with its
/// name, tokens and properties keeps such programs and their states running.
fn named_by_the_go_binary(args: &args::Args, name: &str) -> bool {
    let args::Target::Local(path) = &args.target else {
        return false;
    };
    args.provider_name.is_none()
        && tfp_registry::local_provider_type(path).is_ok_and(|ours| ours != name)
        && tfp_registry::go_local_provider_type(path).is_ok_and(|go| go == name)
}

fn refuse_second_parameterize(state: &State) -> Result<(), Status> {
    match state {
        State::Bare => Ok(()),
        State::Ready(parameterized) => Err(Status::unknown(format!(
            "provider is already parameterized to ({}, {})",
            parameterized.name, parameterized.version
        ))),
        State::Starting { target, .. } => Err(Status::failed_precondition(format!(
            "Parameterize is already in progress for {target}"
        ))),
        State::Stopped => Err(Status::unavailable("the plugin is shutting down")),
    }
}

fn in_progress(target: &str) -> Status {
    Status::unavailable(format!(
        "Parameterize is in progress for {target}; call again once it has returned"
    ))
}

/// Masks every secret of the session in the check failures of an answer: a provider's
/// diagnostic may quote a value it was given.
fn masked(mut failures: Vec<rpc::CheckFailure>) -> Vec<rpc::CheckFailure> {
    let secrets = tfp_secrets::Secrets::global();
    for failure in &mut failures {
        secrets.mask_in_place(&mut failure.reason);
    }
    failures
}

#[tonic::async_trait]
impl ResourceProvider for Server {
    async fn handshake(
        &self,
        _: Request<rpc::ProviderHandshakeRequest>,
    ) -> Result<Response<rpc::ProviderHandshakeResponse>, Status> {
        // The Go binary answers UNIMPLEMENTED, and the engine then keeps its legacy behaviour;
        // answering the same keeps the engine's behaviour identical. Nothing the request carries
        // is needed: the engine sets Invoke's `preview` whether or not Handshake succeeds, and
        // ephemeral resources open in a preview anyway (README "Handshake").
        Err(Status::unimplemented("Handshake is not yet implemented"))
    }

    async fn parameterize(
        &self,
        request: Request<rpc::ParameterizeRequest>,
    ) -> Result<Response<rpc::ParameterizeResponse>, Status> {
        use rpc::parameterize_request::Parameters;
        refuse_second_parameterize(&self.state())?;
        let args = match request.into_inner().parameters {
            Some(Parameters::Args(a)) => match args::parse(&a.args) {
                Ok(args) => args,
                Err(ArgsError::Help) => {
                    self.engine.info(args::USAGE);
                    return Err(Status::invalid_argument(ArgsError::Help.to_string()));
                }
                Err(err) => {
                    return Err(Status::invalid_argument(tfp_echo::bounded(err.to_string())));
                }
            },
            Some(Parameters::Value(v)) => {
                let value = tfp_schema::ParameterValue::parse(&v.value).map_err(|err| {
                    self.engine.error(
                        "failed to parse the parameter value embedded in this SDK; this is a bug, \
                         please report it",
                    );
                    Status::invalid_argument(tfp_echo::bounded(format!(
                        "failed to parse parameterized value: {}",
                        tfp_echo::chain(&err)
                    )))
                })?;
                let mut args = args::from_value(&value);
                args.go_local_type = named_by_the_go_binary(&args, &v.name);
                args
            }
            None => {
                return Err(Status::invalid_argument(
                    "Parameterize needs either args or a value",
                ));
            }
        };
        let (mut claim, cancelled) = self.claim(args.target.to_string())?;
        // Dropping `Parameterized::start` stops the install (its lock wait, its download, its
        // staging directory) and kills a provider still starting.
        let parameterized = tokio::select! {
            parameterized = Parameterized::start(args) => parameterized?,
            _ = cancelled => return Err(Status::cancelled("Parameterize was cancelled")),
        };
        let response = rpc::ParameterizeResponse {
            name: parameterized.name.clone(),
            version: parameterized.version.clone(),
        };
        let mut state = self.state();
        if !matches!(*state, State::Starting { .. }) {
            // Shut down while the provider started: it goes with `parameterized`.
            return Err(Status::unavailable("the plugin is shutting down"));
        }
        *state = State::Ready(Arc::new(parameterized));
        claim.done = true;
        Ok(Response::new(response))
    }

    /// Answered by `crate::server::schema` when served; this is for a caller of the
    /// generated service alone.
    async fn get_schema(
        &self,
        request: Request<rpc::GetSchemaRequest>,
    ) -> Result<Response<rpc::GetSchemaResponse>, Status> {
        let json = self.schema(request.into_inner())?.into_bytes();
        // The schema writer writes UTF-8; a lossy copy costs nothing when it does.
        let schema = String::from_utf8(json)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Ok(Response::new(rpc::GetSchemaResponse { schema }))
    }

    async fn get_plugin_info(&self, _: Request<()>) -> Result<Response<rpc::PluginInfo>, Status> {
        let version = match &*self.state() {
            State::Ready(parameterized) => parameterized.version.clone(),
            _ => crate::VERSION.to_owned(),
        };
        Ok(Response::new(rpc::PluginInfo { version }))
    }

    async fn attach(&self, request: Request<rpc::PluginAttach>) -> Result<Response<()>, Status> {
        self.engine
            .connect(&request.into_inner().address)
            .await
            .map_err(|err| Status::unavailable(tfp_echo::bounded(format!("{err:#}"))))?;
        Ok(Response::new(()))
    }

    async fn cancel(&self, _: Request<()>) -> Result<Response<()>, Status> {
        let bridge = match &mut *self.state() {
            State::Starting { cancel, .. } => {
                // Dropping the sender aborts the Parameterize.
                cancel.take();
                None
            }
            State::Ready(parameterized) => {
                parameterized.cancel_launch();
                parameterized.running().cloned()
            }
            State::Bare | State::Stopped => None,
        };
        if let Some(bridge) = bridge {
            // The engine sends Cancel as every deployment ends, and on Ctrl-C: close the
            // ephemeral resources while the provider still serves.
            if tokio::time::timeout(STOP_PROVIDER_TIMEOUT, bridge.close_ephemerals())
                .await
                .is_err()
            {
                tracing::warn!(
                    "the provider did not close its ephemeral resources within \
                     {STOP_PROVIDER_TIMEOUT:?}"
                );
            }
            // Unlike the Go binary, ask the provider to stop what it is doing, within a bound.
            let stop = bridge.provider.client().stop_provider(Default::default());
            match tokio::time::timeout(STOP_PROVIDER_TIMEOUT, stop).await {
                Ok(Ok(_)) => {}
                Ok(Err(err)) => tracing::warn!("StopProvider failed: {err}"),
                Err(_) => tracing::warn!(
                    "the provider did not answer StopProvider within {STOP_PROVIDER_TIMEOUT:?}"
                ),
            }
        }
        Ok(Response::new(()))
    }

    async fn get_mapping(
        &self,
        request: Request<rpc::GetMappingRequest>,
    ) -> Result<Response<rpc::GetMappingResponse>, Status> {
        // Like the Go binary, answer before Parameterize too, for the base provider.
        let mapping = self.mapping().await?;
        Ok(Response::new(
            self.mappings
                .get_mapping(mapping.as_deref(), request.get_ref())?,
        ))
    }

    async fn get_mappings(
        &self,
        request: Request<rpc::GetMappingsRequest>,
    ) -> Result<Response<rpc::GetMappingsResponse>, Status> {
        let mapping = self.mapping().await?;
        Ok(Response::new(mapping_info::get_mappings(
            mapping.as_deref(),
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

    type ListStream = list::Answers;

    async fn list(
        &self,
        request: Request<rpc::ListRequest>,
    ) -> Result<Response<Self::ListStream>, Status> {
        let bridge = self.bridge().await?;
        Ok(Response::new(
            list::list(bridge, request.into_inner()).await?,
        ))
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
