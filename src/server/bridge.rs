//! A parameterized bridge: the package Parameterize made of one Terraform provider, and that
//! provider, running or started the moment an RPC needs it.
//!
//! Built by Parameterize (pulumi-terraform-bridge `dynamic/main.go`, `XParamaterize`): resolve
//! the provider, then either find its schemas in the schema cache (`tfp_schema_cache`) and
//! answer without launching it, or launch it, read its schema, build the mapping, and store the
//! schemas for the next process. The parameter value that SDKs embed is kept so that a later
//! process can start the very same provider again.
//!
//! A provider not launched at Parameterize is launched by the first RPC that needs it
//! ([`Parameterized::bridge`]); Cancel aborts a launch under way, and once the plugin shuts down
//! ([`Parameterized::close`]) none starts any more.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex, OnceLock, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use bytes::Bytes;
use tfp_echo::{plain, quoted};
use tfp_goplugin::{Launch, reattach};
use tfp_mapping::Mapping;
use tfp_registry::Stamp;
use tfp_schema::{
    ParameterValue, SchemaJson, Source,
    args::{Args, Target},
};
use tfp_schema_cache::{Content, Key, Parameters, Parts, SchemaCache};
use tokio::sync::{Notify, OnceCell};

use crate::{
    host::{self, Provider},
    proto::tfplugin6 as v6,
    recording::record,
    server::{
        ephemeral::Ephemerals, identity, lock, resource::Upgraded, session::Session,
        write_only::Held,
    },
    tfschema,
};

/// Why a provider could not be parameterized or launched.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error(transparent)]
    LocalName(#[from] tfp_registry::LocalNameError),
    #[error("invalid provider name")]
    Address(#[source] Box<tfp_registry::Error>),
    #[error(
        "failed to install provider {source_address}{}",
        local_hint(source_address, std::path::Path::new(source_address).is_file())
    )]
    Install {
        source_address: String,
        #[source]
        source: Box<tfp_registry::Error>,
    },
    #[error("provider {}: version {} is not a semantic version", .0, quoted(.1))]
    Version(String, String),
    #[error(transparent)]
    Host(#[from] crate::host::Error),
    #[error("provider {provider} returned an error from GetProviderSchema: {}: {}", plain(.summary), plain(.detail))]
    SchemaDiagnostic {
        provider: String,
        summary: String,
        detail: String,
    },
    #[error(transparent)]
    Schema(#[from] tfschema::SchemaError),
    #[error(
        "the schema cache entry holds no valid GetProviderSchema answer; remove the plugin \
         cache's .schemas directory, or turn the cache off with {}=off",
        tfp_schema_cache::SWITCH
    )]
    CachedSchema(#[source] tfschema::SchemaError),
    #[error("failed to map the provider's schema")]
    Mapping(#[source] tfp_mapping::MappingError),
    #[error("failed to build the Pulumi schema")]
    PackageSchema(#[source] tfp_schema::SchemaError),
    /// A failure remembered for every later caller.
    #[error(transparent)]
    Again(Arc<BridgeError>),
    #[error("the provider's launch was cancelled")]
    Cancelled,
    #[error("the plugin is shutting down")]
    Stopped,
}

impl From<tfschema::MapError> for BridgeError {
    fn from(err: tfschema::MapError) -> BridgeError {
        match err {
            tfschema::MapError::Schema(err) => BridgeError::Schema(err),
            tfschema::MapError::Mapping(err) => BridgeError::Mapping(err),
        }
    }
}

/// Something made once and kept, or why it could not be made.
type Made<T> = Result<T, Arc<BridgeError>>;

/// What a kept result gives each caller.
fn again<T: Clone>(made: &Made<T>) -> Result<T, BridgeError> {
    made.clone().map_err(BridgeError::Again)
}

/// A running, mapped provider: what every provider RPC works with.
pub struct Bridge {
    pub provider: Provider,
    pub mapping: Arc<Mapping>,
    pub parameter: ParameterValue,
    /// The Pulumi package name.
    pub name: String,
    /// The provider's version; `0.0.0` for a local provider.
    pub version: String,
    /// What Configure and CheckConfig set for later RPCs.
    pub session: Session,
    /// What the provider's schema says it supports (`plan_destroy` among them).
    pub capabilities: v6::ServerCapabilities,
    /// The stored states already at the current schema version.
    pub upgraded: Upgraded,
    /// The ephemeral resources Invoke opened, until the plugin stops.
    pub ephemerals: Ephemerals,
    /// The write-only arguments Check took out of resources' inputs, until their Create or
    /// Update.
    pub write_only: Held,
    /// The resources the program named itself, for Diff's delete-before-replace.
    pub named: crate::server::check::Named,
    /// The resources' identity schemas, asked for on first use.
    pub identities: identity::Schemas,
}

impl Bridge {
    /// A bridge for the running `provider` of the package `name` at `version`.
    fn new(
        provider: Provider,
        mapping: Arc<Mapping>,
        parameter: ParameterValue,
        name: String,
        version: String,
        capabilities: v6::ServerCapabilities,
    ) -> Bridge {
        Bridge {
            provider,
            mapping,
            parameter,
            name,
            version,
            session: Session::default(),
            capabilities,
            upgraded: Upgraded::default(),
            ephemerals: Ephemerals::default(),
            write_only: Held::default(),
            named: Default::default(),
            identities: identity::Schemas::default(),
        }
    }

    /// Closes every ephemeral resource still open; returns how many it closed.
    pub async fn close_ephemerals(&self) -> usize {
        let closed = self.ephemerals.close_all(self.provider.client()).await;
        if closed > 0 {
            tracing::debug!("closed {closed} ephemeral resources");
        }
        closed
    }
}

impl std::fmt::Debug for Bridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bridge")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// What Parameterize made: the package, and its provider once launched.
pub struct Parameterized {
    /// The Pulumi package name.
    pub name: String,
    /// The provider's version; `0.0.0` for a local provider.
    pub version: String,
    schemas: Arc<Schemas>,
    /// The executable to launch when an RPC needs the provider; `None` when it was launched
    /// (or reattached) at Parameterize.
    executable: Option<PathBuf>,
    bridge: OnceCell<Arc<Bridge>>,
    gate: Gate,
    /// The last launch that failed, and when it ended: callers that were already waiting for it
    /// share its error instead of each launching again in turn.
    failed: Mutex<Option<(tokio::time::Instant, Arc<BridgeError>)>>,
}

impl std::fmt::Debug for Parameterized {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parameterized")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("running", &self.bridge.initialized())
            .finish_non_exhaustive()
    }
}

/// The schemas of one package, and how to make the ones not made yet.
struct Schemas {
    parameter: ParameterValue,
    provider_type: String,
    version: String,
    /// The provider's `GetProviderSchema` answer, protobuf-encoded, when the cache had it.
    cached: Option<Vec<u8>>,
    mapping: OnceLock<Made<Cached>>,
    /// The package schema: the engine asks for it once per process, so it is handed over whole
    /// rather than copied and kept (4 MiB for AWS 3.39.0), and made again should another
    /// GetSchema come.
    package: Mutex<Package>,
    /// Where the schemas go once the package schema is made, when the cache did not have them.
    store: Option<Store>,
    /// The thread writing them to the cache, which shutdown waits for.
    storing: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Where they came from, to forget them if the provider turns out to have changed.
    entry: Option<(Arc<SchemaCache>, Key)>,
    /// The mapping of the provider's own schema, once its live answer turned out to differ from
    /// the cached one: the package schema is made from it from then on.
    live: Mutex<Option<Arc<Mapping>>>,
}

/// A cache entry to write once the package schema is made: its key, and the provider's
/// `GetProviderSchema` answer as it was received (v6's wire form).
struct Store {
    cache: Arc<SchemaCache>,
    key: StoreKey,
    /// Taken by the one writer.
    answer: Mutex<Option<Bytes>>,
    /// Set once GetSchema's answer has been sent, or the process is ending: the writer waits
    /// for it.
    answered: Arc<Signal>,
    /// Set when the process is ending: the writer then stops leaving the client time to read
    /// the answer.
    ending: Signal,
}

/// The key of an entry to write.
enum StoreKey {
    /// Known before the provider was launched.
    Known(Key),
    /// A local provider's, made from the digest of its content when the entry is written: its
    /// path as given, the stamp the file had when it was launched, and the arguments.
    Local {
        path: String,
        stamp: Stamp,
        /// Boxed: the arguments are most of the key's size, and most keys are `Known`.
        args: Box<Args>,
    },
}

impl StoreKey {
    /// The key; `None` when there is none to trust (the local provider was replaced after it
    /// was launched, or cannot be read), and then nothing is stored.
    fn resolve(&self, cache: &SchemaCache) -> Option<Key> {
        let (path, stamp, args) = match self {
            StoreKey::Known(key) => return Some(key.clone()),
            StoreKey::Local { path, stamp, args } => (path, stamp, args),
        };
        match cache.digest_if_unchanged(Path::new(path), stamp) {
            Ok(Some(sha256)) => {
                let content = Content::Local {
                    path: path.clone(),
                    sha256,
                };
                cache.key(&content, &cache_parameters(args))
            }
            Ok(None) => {
                tracing::debug!(provider = %path, "not cached: the file changed after it was launched");
                None
            }
            Err(err) => {
                tracing::debug!(provider = %path, "not cached: {err}");
                None
            }
        }
    }
}

/// Where the package schema stands.
enum Package {
    /// Not made yet: the first to make it stores the schemas in the cache.
    NotMade,
    /// Made (or found in the cache) and not handed out yet; a failure stays for every caller.
    Made(Made<Arc<SchemaJson>>),
    /// Handed out to a GetSchema, and stored in the cache if it was to be.
    HandedOut,
}

/// The mapping made from a cached schema, and what the provider said it supports (whether the
/// schema may be used without asking for it again among them).
#[derive(Clone)]
struct Cached {
    mapping: Arc<Mapping>,
    capabilities: v6::ServerCapabilities,
}

impl Parameterized {
    /// Resolves the provider that `args` name, and answers from the schema cache or launches it.
    pub async fn start(args: Args) -> Result<Parameterized, BridgeError> {
        let cache = SchemaCache::from_env(crate::VERSION).map(Arc::new);
        match &args.target {
            Target::Local(path) => {
                let provider_type = match args.go_local_type {
                    true => tfp_registry::go_local_provider_type(path)?,
                    false => tfp_registry::local_provider_type(path)?,
                };
                let source = Source::Local { path: path.clone() };
                let plan = Plan::new(&args, source, provider_type, "0.0.0".to_owned());
                let executable = PathBuf::from(path);
                let Some(cache) = cache else {
                    return plan.run(executable, None, None).await;
                };
                if let Some((sha256, stamp)) = cache.remembered(&executable) {
                    let key = cache.key(
                        &Content::Local {
                            path: path.clone(),
                            sha256,
                        },
                        &cache_parameters(&args),
                    );
                    // On a miss, what the launch reads is stored only if the file still has the
                    // stamp its digest was remembered by: it may be replaced while it launches.
                    let keys = key.map(|key| {
                        let store = StoreKey::Local {
                            path: path.clone(),
                            stamp,
                            args: Box::new(args.clone()),
                        };
                        (key, store)
                    });
                    return plan.run(executable, Some(cache), keys).await;
                }
                // A file not seen before is most likely not in the cache either: it is launched
                // now and hashed only when its schemas are stored, once the package schema is
                // made, so that reading hundreds of MB never delays Parameterize. Its stamp,
                // taken before the launch, then tells whether it is still the file that ran.
                let stamp = std::fs::metadata(&executable).map(|meta| Stamp::of(&meta));
                let provider = launch_recorded(&executable).await?;
                let store = stamp.ok().map(|stamp| {
                    let key = StoreKey::Local {
                        path: path.clone(),
                        stamp,
                        args: Box::new(args.clone()),
                    };
                    (cache, key)
                });
                plan.cold(provider, store).await
            }
            Target::Remote { source, constraint } => {
                if let Some(provider) = reattached(source).await? {
                    let address = parse_source(source)?;
                    let source = Source::Remote {
                        url: address.to_string(),
                        version: "0.0.0".into(),
                    };
                    let plan = Plan::new(&args, source, address.r#type, "0.0.0".to_owned());
                    return plan.cold(provider, None).await;
                }
                let installed = install(&args, source, constraint).await?;
                let version = installed.version.to_string();
                if semver::Version::parse(&version).is_err() {
                    return Err(BridgeError::Version(installed.source.to_string(), version));
                }
                let keys = cache.as_ref().and_then(|cache| {
                    let content = Content::Installed {
                        source: installed.source.to_string(),
                        version: version.clone(),
                        platform: installed.platform.to_string(),
                        h1: installed.h1.clone(),
                    };
                    let key = cache.key(&content, &cache_parameters(&args))?;
                    Some((key.clone(), StoreKey::Known(key)))
                });
                let source = Source::Remote {
                    url: installed.source.to_string(),
                    version: version.clone(),
                };
                let plan = Plan::new(&args, source, installed.source.r#type.clone(), version);
                plan.run(installed.executable, cache, keys).await
            }
        }
    }

    /// The Pulumi package schema JSON: the one made at Parameterize or found in the cache, or
    /// made now.
    pub fn schema_json(&self) -> Result<HandedSchema, BridgeError> {
        self.schemas.take_package()
    }

    /// The mapping, without launching the provider: the running provider's, or one made from
    /// the cached schema.
    pub async fn mapping(&self) -> Result<Arc<Mapping>, BridgeError> {
        if let Some(bridge) = self.bridge.get() {
            return Ok(bridge.mapping.clone());
        }
        Ok(self.cached().await?.mapping)
    }

    /// The mapping of the cached schema, made on a blocking thread the first time.
    async fn cached(&self) -> Result<Cached, BridgeError> {
        let schemas = self.schemas.clone();
        match tokio::task::spawn_blocking(move || schemas.cached_mapping()).await {
            Ok(cached) => cached,
            // Nothing in the task panics; it ends early only when the runtime shuts down.
            Err(_) => Err(BridgeError::Stopped),
        }
    }

    /// The running provider, launched now if it is not running yet. Concurrent callers share
    /// one launch, and its failure; Cancel aborts it and [`Parameterized::close`] refuses any
    /// more.
    ///
    /// The launch runs in a task of its own: a caller that goes away (the engine gave up on its
    /// call) neither kills the provider half launched nor makes the callers waiting with it
    /// launch another.
    pub async fn bridge(self: &Arc<Self>) -> Result<Arc<Bridge>, BridgeError> {
        if let Some(bridge) = self.bridge.get() {
            return Ok(bridge.clone());
        }
        let asked = tokio::time::Instant::now();
        let this = self.clone();
        match tokio::spawn(async move { this.shared_launch(asked).await }).await {
            Ok(result) => result,
            // Nothing in the task panics; it ends early only when the runtime shuts down.
            Err(_) => Err(BridgeError::Stopped),
        }
    }

    /// The running provider, from the launch under way or from one started now: what
    /// [`Parameterized::bridge`] waits for on a caller's behalf (it asked at `asked`).
    async fn shared_launch(&self, asked: tokio::time::Instant) -> Result<Arc<Bridge>, BridgeError> {
        let launch = async {
            // A launch that failed after this caller asked was its launch too.
            if let Some((ended, err)) = lock(&self.failed).as_ref()
                && *ended >= asked
            {
                return Err(BridgeError::Again(err.clone()));
            }
            self.launch().await.map_err(|err| {
                let err = Arc::new(err);
                *lock(&self.failed) = Some((tokio::time::Instant::now(), err.clone()));
                BridgeError::Again(err)
            })
        };
        self.gate
            .guard(self.bridge.get_or_try_init(|| launch))
            .await
            .cloned()
    }

    /// The provider, if it is running.
    pub fn running(&self) -> Option<&Arc<Bridge>> {
        self.bridge.get()
    }

    /// Aborts a launch under way; a later RPC may launch again.
    pub fn cancel_launch(&self) {
        self.gate.cancel();
    }

    /// Aborts a launch under way and refuses any later one: the plugin is shutting down.
    pub fn close(&self) {
        self.gate.close();
    }

    /// Waits, for `grace` at most, until the schemas are stored in the cache, if they are
    /// being stored: the process is about to end.
    pub async fn stored(&self, grace: Duration) {
        self.schemas.stored(grace).await;
    }

    /// The running provider, for shutting it down.
    fn into_bridge(self) -> Option<Arc<Bridge>> {
        self.bridge.into_inner()
    }

    /// Shuts down the provider it launched, unless a call in flight still holds it: that one is
    /// killed when the last reference to it goes. Meanwhile the schemas being stored in the
    /// cache are written, for `grace` at most.
    pub async fn shutdown(self, grace: Duration) {
        let schemas = self.schemas.clone();
        let provider = async {
            if let Some(bridge) = self.into_bridge().and_then(Arc::into_inner) {
                bridge.provider.shutdown().await;
            }
        };
        tokio::join!(schemas.stored(grace), provider);
    }

    async fn launch(&self) -> Result<Arc<Bridge>, BridgeError> {
        let Some(executable) = &self.executable else {
            // A provider launched at Parameterize only stops running when the plugin shuts down.
            return Err(BridgeError::Stopped);
        };
        tracing::debug!(
            provider = %executable.display(),
            "launching the provider for the first RPC that needs it"
        );
        let (provider, cached) = tokio::join!(launch_recorded(executable), self.cached());
        let (provider, cached) = (provider?, cached?);
        let (mapping, capabilities) = if cached.capabilities.get_provider_schema_optional
            && !provider.client().is_observed()
        {
            (cached.mapping, cached.capabilities)
        } else {
            // As Terraform does, ask for the schema unless the provider says it need not be
            // asked; a recording needs the answer too, to redact what the schema marks
            // sensitive.
            let (live, capabilities) = fetch_schema(&provider).await?;
            if &live == cached.mapping.schema() {
                (cached.mapping, capabilities)
            } else {
                tracing::warn!(
                    provider = %executable.display(),
                    "the provider's schema differs from the cached one; using the provider's \
                     and forgetting the cached one"
                );
                if let Some((cache, key)) = &self.schemas.entry {
                    cache.evict(key);
                }
                let mapping = Arc::new(self.schemas.map(live)?);
                self.schemas.use_live(mapping.clone());
                (mapping, capabilities)
            }
        };
        Ok(Arc::new(Bridge::new(
            provider,
            mapping,
            self.schemas.parameter.clone(),
            self.name.clone(),
            self.version.clone(),
            capabilities,
        )))
    }
}

impl Schemas {
    fn map(&self, schema: tfp_cty::ProviderSchema) -> Result<Mapping, BridgeError> {
        Mapping::new(
            schema,
            &self.provider_type,
            &self.version,
            self.parameter.options(),
        )
        .map_err(BridgeError::Mapping)
    }

    /// The mapping of the cached schema (or, without one, the mapping made at Parameterize).
    fn cached_mapping(&self) -> Result<Cached, BridgeError> {
        again(self.mapping.get_or_init(|| {
            let bytes = self.cached.as_deref().unwrap_or_default();
            let answer = tfschema::SchemaAnswer::split(bytes).map_err(BridgeError::CachedSchema)?;
            let mapping =
                answer.mapping(&self.provider_type, &self.version, self.parameter.options());
            // A cached answer that does not convert is the cache's fault, not the provider's.
            let mapping = mapping.map_err(|err| match err {
                tfschema::MapError::Schema(err) => BridgeError::CachedSchema(err),
                err => err.into(),
            })?;
            let capabilities = answer.rest.server_capabilities.unwrap_or_default();
            Ok(Cached {
                mapping: Arc::new(mapping),
                capabilities,
            })
        }))
    }

    /// Makes the package schema from `mapping`, the provider's own, from now on: the one made
    /// from the cached schema, if not handed out yet, is dropped.
    fn use_live(&self, mapping: Arc<Mapping>) {
        *lock(&self.live) = Some(mapping);
        let mut slot = lock(&self.package);
        if matches!(*slot, Package::Made(_)) {
            *slot = Package::NotMade;
        }
    }

    /// The package schema, handed over to the caller: the one made already, or one made now.
    fn take_package(self: &Arc<Self>) -> Result<HandedSchema, BridgeError> {
        let mut slot = lock(&self.package);
        let made = match std::mem::replace(&mut *slot, Package::HandedOut) {
            Package::Made(made) => made,
            Package::NotMade => self.make_package(true),
            Package::HandedOut => self.make_package(false),
        };
        if let Err(failed) = &made {
            *slot = Package::Made(Err(failed.clone()));
        }
        let json = made.map_err(BridgeError::Again)?;
        let answered = self.store.as_ref().map(|store| store.answered.clone());
        Ok(HandedSchema { json, answered })
    }

    /// Makes the package schema (and stores the schemas in the cache) unless it was made
    /// already, keeping it for the GetSchema to come.
    fn prepare_package(self: &Arc<Self>) {
        let mut slot = lock(&self.package);
        if matches!(*slot, Package::NotMade) {
            *slot = Package::Made(self.make_package(true));
        }
    }

    /// Makes the package schema and, when `store` (the first time) and the cache did not have
    /// them, starts storing it in the cache with the Terraform schema, on a thread of its own:
    /// the caller holds the package's lock, so that whoever receives the schema can count on
    /// the thread being known to [`Schemas::stored`].
    fn make_package(self: &Arc<Self>, store: bool) -> Made<Arc<SchemaJson>> {
        let made = || {
            let live = lock(&self.live).clone();
            // The provider's own schema is never stored: its entry was evicted.
            let store = store && live.is_none();
            let mapping = match live {
                Some(mapping) => mapping,
                None => self.cached_mapping()?.mapping,
            };
            let json = tfp_schema::package_schema(&mapping, &self.parameter, crate::VERSION)
                .map_err(BridgeError::PackageSchema)?
                .into_json();
            let json = Arc::new(json);
            if store && self.store.is_some() {
                self.start_storing(mapping, json.clone());
            }
            Ok(json)
        };
        made().map_err(Arc::new)
    }

    /// Writes the cache entry on a new thread, unless it was written already.
    fn start_storing(self: &Arc<Self>, mapping: Arc<Mapping>, json: Arc<SchemaJson>) {
        let schemas = self.clone();
        let spawned = std::thread::Builder::new()
            .name("schema-store".into())
            .spawn(move || schemas.write_entry(&mapping, &json));
        match spawned {
            Ok(thread) => *lock(&self.storing) = Some(thread),
            Err(err) => tracing::warn!("cannot store the schemas: no thread: {err}"),
        }
    }

    fn write_entry(&self, mapping: &Mapping, json: &SchemaJson) {
        let Some(store) = &self.store else { return };
        store.answered.wait(ANSWER_WAIT);
        store.ending.wait(CLIENT_READ);
        let Some(answer) = lock(&store.answer).take() else {
            return;
        };
        let Some(key) = store.key.resolve(&store.cache) else {
            return;
        };
        let pieces: Vec<&[u8]> = json.pieces().collect();
        store.cache.store(
            &key,
            Parts {
                key: key.text(),
                name: mapping.package(),
                version: &self.version,
                tf_schema: &answer,
                package_schema: &pieces,
            },
        );
    }

    /// Waits until the package schema being made is made and the cache entry started is
    /// written, for `grace` at most: the process is about to end.
    async fn stored(self: &Arc<Self>, grace: Duration) {
        let schemas = self.clone();
        let joined = tokio::task::spawn_blocking(move || {
            drop(lock(&schemas.package));
            if let Some(store) = &schemas.store {
                store.answered.set();
                store.ending.set();
            }
            let thread = lock(&schemas.storing).take();
            thread.map(std::thread::JoinHandle::join)
        });
        if tokio::time::timeout(grace, joined).await.is_err() {
            tracing::warn!("the schemas were not stored in the cache within {grace:?}");
        }
    }
}

/// The package schema as handed to one GetSchema. Dropped once its answer is sent (or given
/// up), it lets the schema cache's writer start: hashing a provider of hundreds of MB while
/// megabytes of schema go to the engine slows the answer, on two cores, by a millisecond or
/// more.
pub struct HandedSchema {
    json: Arc<SchemaJson>,
    answered: Option<Arc<Signal>>,
}

impl HandedSchema {
    /// The text in one buffer; copied from the pieces when the cache's writer shares them.
    pub fn into_bytes(mut self) -> Vec<u8> {
        match Arc::try_unwrap(std::mem::take(&mut self.json)) {
            Ok(json) => json.into_bytes(),
            Err(shared) => shared.to_bytes(),
        }
    }
}

impl From<SchemaJson> for HandedSchema {
    /// A schema no cache entry waits for.
    fn from(json: SchemaJson) -> HandedSchema {
        HandedSchema {
            json: Arc::new(json),
            answered: None,
        }
    }
}

impl std::ops::Deref for HandedSchema {
    type Target = SchemaJson;

    fn deref(&self) -> &SchemaJson {
        &self.json
    }
}

impl Drop for HandedSchema {
    fn drop(&mut self) {
        if let Some(answered) = &self.answered {
            answered.set();
        }
    }
}

/// A flag one thread can wait for, for a while at most.
#[derive(Default)]
struct Signal {
    set: Mutex<bool>,
    changed: Condvar,
}

impl Signal {
    fn set(&self) {
        *lock(&self.set) = true;
        self.changed.notify_all();
    }

    fn wait(&self, at_most: Duration) {
        let set = lock(&self.set);
        let waited = self.changed.wait_timeout_while(set, at_most, |set| !*set);
        drop(waited.unwrap_or_else(PoisonError::into_inner));
    }
}

/// How long the schema cache's writer waits for GetSchema's answer to be sent before it writes
/// anyway: a `pulumi preview` never asks for the package schema.
const ANSWER_WAIT: Duration = Duration::from_secs(1);

/// How long a plugin's shutdown waits for the schema cache's entry to be written: milliseconds,
/// or for a local provider seen the first time, as long as hashing it takes. Shutdown waits for
/// this and the provider's stop at once, within `serve.rs`'s three seconds, before the engine's
/// SIGKILL five seconds after its SIGINT.
pub const STORE_GRACE: Duration = Duration::from_secs(2);

/// How long the schema cache's writer leaves the client to read GetSchema's answer once it
/// has been handed to HTTP/2 (AWS's 4.3 MB take it 4 to 8 ms), before hashing the provider and
/// writing the entry compete with it for two cores. The writer runs at the priority of every
/// other thread: at the lowest, a busy machine starved it past the grace a plugin has to end,
/// and the entry was lost (benches/README.md, "The cache's writer").
const CLIENT_READ: Duration = Duration::from_millis(100);

/// What a Parameterize needs to know of its package before it has a schema.
struct Plan {
    parameter: ParameterValue,
    provider_type: String,
    version: String,
}

impl Plan {
    fn new(args: &Args, source: Source, provider_type: String, version: String) -> Plan {
        Plan {
            parameter: tfp_schema::args::to_value(args, source),
            provider_type,
            version,
        }
    }

    /// The package from the cache entry under the first of `keys`, or from the provider at
    /// `executable`, whose schemas are then stored under the second.
    async fn run(
        self,
        executable: PathBuf,
        cache: Option<Arc<SchemaCache>>,
        keys: Option<(Key, StoreKey)>,
    ) -> Result<Parameterized, BridgeError> {
        let (Some(cache), Some((key, store))) = (cache, keys) else {
            let provider = launch_recorded(&executable).await?;
            return self.cold(provider, None).await;
        };
        let Some(entry) = cache.load(&key) else {
            let provider = launch_recorded(&executable).await?;
            return self.cold(provider, Some((cache, store))).await;
        };
        tracing::debug!(provider = %executable.display(), "schemas found in the schema cache");
        Ok(Parameterized {
            name: entry.name,
            version: self.version.clone(),
            schemas: Arc::new(Schemas {
                parameter: self.parameter,
                provider_type: self.provider_type,
                version: self.version,
                cached: Some(entry.tf_schema),
                mapping: OnceLock::new(),
                package: Mutex::new(Package::Made(Ok(Arc::new(entry.package_schema.into())))),
                store: None,
                storing: Mutex::default(),
                entry: Some((cache, key)),
                live: Mutex::default(),
            }),
            executable: Some(executable),
            bridge: OnceCell::new(),
            gate: Gate::default(),
            failed: Mutex::default(),
        })
    }

    /// The package from the running `provider`; its schemas go to `cache` (under their key)
    /// once the package schema is made, which starts now in the background.
    async fn cold(
        self,
        provider: Provider,
        cache: Option<(Arc<SchemaCache>, StoreKey)>,
    ) -> Result<Parameterized, BridgeError> {
        let bytes = provider.client().get_provider_schema_bytes().await?;
        let (mapping, capabilities) = read_answer(&provider, &bytes, |answer| {
            let options = self.parameter.options();
            Ok(answer.mapping(&self.provider_type, &self.version, options)?)
        })?;
        warn_of_unknown_includes(&mapping);
        let store = cache.map(|(cache, key)| Store {
            cache,
            key,
            answer: Mutex::new(Some(bytes)),
            answered: Arc::default(),
            ending: Signal::default(),
        });
        let schemas = Schemas {
            parameter: self.parameter,
            provider_type: self.provider_type,
            version: self.version,
            cached: None,
            mapping: OnceLock::new(),
            package: Mutex::new(Package::NotMade),
            store,
            storing: Mutex::default(),
            entry: None,
            live: Mutex::default(),
        };
        let mapping = Arc::new(mapping);
        let _ = schemas.mapping.set(Ok(Cached {
            mapping: mapping.clone(),
            capabilities,
        }));
        let schemas = Arc::new(schemas);
        if schemas.store.is_some() {
            // The next process finds the schemas even if this one never asks for the package
            // schema (a `pulumi preview` does not).
            let making = schemas.clone();
            tokio::task::spawn_blocking(move || {
                making.prepare_package();
            });
        }
        let name = mapping.package().to_owned();
        let bridge = Bridge::new(
            provider,
            mapping,
            schemas.parameter.clone(),
            name.clone(),
            schemas.version.clone(),
            capabilities,
        );
        Ok(Parameterized {
            name,
            version: schemas.version.clone(),
            schemas,
            executable: None,
            bridge: OnceCell::new_with(Some(Arc::new(bridge))),
            gate: Gate::default(),
            failed: Mutex::default(),
        })
    }
}

/// What of `args` shapes the package schema besides the provider, for the schema cache's key.
fn cache_parameters(args: &Args) -> Parameters<'_> {
    Parameters {
        includes: args.includes.as_deref(),
        excludes: &args.excludes,
        provider_name: args.provider_name.as_deref(),
        go_local_type: args.go_local_type,
        auto_names: &args.auto_names,
    }
}

/// The provider's schema and what it says it supports, asked of it; refused if the answer
/// carries an error.
async fn fetch_schema(
    provider: &Provider,
) -> Result<(tfp_cty::ProviderSchema, v6::ServerCapabilities), BridgeError> {
    let bytes = provider.client().get_provider_schema_bytes().await?;
    read_answer(provider, &bytes, |answer| Ok(answer.provider_schema()?))
}

/// What `read` makes of the provider's answer to GetProviderSchema (`bytes`, v6's wire form,
/// what the schema cache stores), and what the provider says it supports; refused if the
/// answer carries an error. The answer is read in parts: its schemas are decoded and converted
/// one by one, on all cores (`tfschema::SchemaAnswer`).
fn read_answer<T>(
    provider: &Provider,
    bytes: &[u8],
    read: impl FnOnce(&tfschema::SchemaAnswer<'_>) -> Result<T, BridgeError>,
) -> Result<(T, v6::ServerCapabilities), BridgeError> {
    let answer = tfschema::SchemaAnswer::split(bytes)?;
    if let Some(error) = answer.rest.diagnostics.iter().find(|d| d.severity == 1) {
        return Err(BridgeError::SchemaDiagnostic {
            provider: provider.name().to_owned(),
            summary: error.summary.clone(),
            detail: error.detail.clone(),
        });
    }
    let read = read(&answer)?;
    Ok((read, answer.rest.server_capabilities.unwrap_or_default()))
}

/// What to say when a registry source was most likely meant as a file: a bare
/// `terraform-provider-…` name or a file's path without `./` (`is_file`) reads as a registry
/// address, as in the Go binary, and so does a path whose `~` no shell expanded.
fn local_hint(source: &str, is_file: bool) -> String {
    if source.starts_with("~/") {
        return " (~ is not expanded here: give the full path)".to_owned();
    }
    let file = is_file || (!source.contains('/') && source.starts_with("terraform-provider-"));
    if file {
        format!(" (a provider on disk is given by its path: ./{source})")
    } else {
        String::new()
    }
}

/// Installs (or finds in the cache) the registry provider `source`.
async fn install(
    args: &Args,
    source: &str,
    constraint: &str,
) -> Result<tfp_registry::Installed, BridgeError> {
    let failed = |err| BridgeError::Install {
        source_address: args.target.to_string(),
        source: Box::new(err),
    };
    let installer = tfp_registry::Installer::from_env().map_err(failed)?;
    let installed = installer
        .install_str(source, constraint)
        .await
        .map_err(failed)?;
    for warning in &installed.warnings {
        tracing::warn!("registry: {warning}");
    }
    Ok(installed)
}

/// Cancel's and shutdown's hold on launches under way.
#[derive(Debug, Default)]
struct Gate {
    closed: AtomicBool,
    stop: Notify,
}

impl Gate {
    /// Runs `launch` unless the gate is closed, or until it is cancelled or closed.
    async fn guard<T>(
        &self,
        launch: impl Future<Output = Result<T, BridgeError>>,
    ) -> Result<T, BridgeError> {
        let stopped = self.stop.notified();
        tokio::pin!(stopped);
        // Registered before the check, so a close between the two still wakes it.
        stopped.as_mut().enable();
        if self.closed.load(Ordering::SeqCst) {
            return Err(BridgeError::Stopped);
        }
        tokio::select! {
            result = launch => result,
            () = stopped => Err(if self.closed.load(Ordering::SeqCst) {
                BridgeError::Stopped
            } else {
                BridgeError::Cancelled
            }),
        }
    }

    fn cancel(&self) {
        self.stop.notify_waiters();
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.stop.notify_waiters();
    }
}

/// The provider at `executable`, launched, its calls recorded when `PULUMI_TF_DEBUG_GRPC` asks.
async fn launch_recorded(executable: &Path) -> Result<Provider, host::Error> {
    prepare_while_launching();
    let provider = Provider::launch(Launch::new(executable)).await?;
    Ok(provider.observed(record::from_env()))
}

/// Starts, once per process and on a thread of its own, the work that mapping any provider's
/// schema waits for and that is the same for every provider: the patterns the mapping and the
/// package schema use (English inflection, descriptions) and the descriptor pool every large
/// message is checked against before it is decoded (`tfp_depth`) take milliseconds to build.
/// Called as a provider is launched or connected to, they are ready by the time its schema
/// arrives: a large provider's launch leaves part of a core idle, and a small one's is still
/// longer than this work. A plugin that answers from the schema cache and launches nothing
/// (a warm `package add` or `gen-sdk`) never builds them, and so does not compete with its
/// own answer for the cores.
fn prepare_while_launching() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("prepare".to_owned())
            .spawn(|| {
                std::sync::LazyLock::force(&crate::proto::DESCRIPTOR_POOL);
                tfp_schema::prepare();
            });
        // Without the thread, whatever needs them first builds them.
        if let Err(err) = spawned {
            tracing::debug!("no thread to prepare on: {err}");
        }
    });
}

/// A provider named in `PULUMI_BRIDGE_REATTACH_PROVIDERS` or `TF_REATTACH_PROVIDERS`, connected
/// instead of installed (pulumi-terraform-bridge `dynamic/internal/shim/run/reattach.go`).
async fn reattached(source: &str) -> Result<Option<Provider>, BridgeError> {
    for variable in reattach::VARIABLES {
        let Ok(value) = std::env::var(variable) else {
            continue;
        };
        if value.is_empty() {
            continue;
        }
        let normalize = |s: &str| {
            tfp_registry::Provider::parse(s)
                .map(|p| p.to_string())
                .map_err(|e| tfp_echo::chain(&e))
        };
        let entry =
            reattach::lookup(variable, &value, source, normalize).map_err(host::Error::from)?;
        if let Some(entry) = entry {
            prepare_while_launching();
            let provider = Provider::reattach(source, variable, &entry).await?;
            return Ok(Some(provider.observed(record::from_env())));
        }
    }
    Ok(None)
}

fn parse_source(source: &str) -> Result<tfp_registry::Provider, BridgeError> {
    tfp_registry::Provider::parse(source).map_err(|err| {
        BridgeError::Address(Box::new(tfp_registry::Error::Address {
            input: source.to_owned(),
            source: err,
        }))
    })
}

/// Warns of each `--include` name the provider does not have: the package has nothing for it,
/// which a misspelt name would otherwise leave unseen (the warning reaches the engine).
fn warn_of_unknown_includes(mapping: &Mapping) {
    for (name, near) in mapping.unknown_includes() {
        let hint = tfp_mapping::did_you_mean(&near);
        tracing::warn!(
            "provider {} has no resource, data source or function named {} (given to \
             --include), so the package has nothing for it{hint}",
            mapping.provider_type(),
            tfp_echo::quoted(name),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::Arc,
        time::{Duration, Instant},
    };

    use tfp_schema::SchemaJson;

    use super::{HandedSchema, Signal, local_hint};

    #[test]
    fn the_cache_writer_waits_until_the_answer_is_dropped() {
        let answered = Arc::new(Signal::default());
        let handed = HandedSchema {
            json: Arc::new(SchemaJson::from("{}".to_owned())),
            answered: Some(answered.clone()),
        };
        let waiter = {
            let answered = answered.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                answered.wait(Duration::from_secs(60));
                started.elapsed()
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "the writer started with the answer unsent"
        );
        assert_eq!(handed.into_bytes(), b"{}");
        let waited = waiter.join().expect("the waiter does not panic");
        assert!(waited < Duration::from_secs(60), "waited {waited:?}");
        // Once set, it stays set: a later wait returns at once.
        answered.wait(Duration::from_secs(60));
    }

    #[test]
    fn the_cache_writer_waits_for_a_while_at_most() {
        // Unsignalled, the wait ends at its limit: not before it, and not never (the join
        // below is bounded by far more than the limit, against a wait that ignores it).
        let (done, ended) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let started = Instant::now();
            Signal::default().wait(Duration::from_millis(20));
            let _ = done.send(started.elapsed());
        });
        let waited = ended
            .recv_timeout(Duration::from_secs(30))
            .expect("the wait ends at its limit");
        assert!(waited >= Duration::from_millis(20), "waited {waited:?}");
    }

    #[test]
    fn a_source_meant_as_a_file_gets_a_hint() {
        assert_eq!(
            local_hint("terraform-provider-foo", false),
            " (a provider on disk is given by its path: ./terraform-provider-foo)"
        );
        assert!(local_hint("~/terraform-provider-foo", false).contains("give the full path"));
        assert!(local_hint("foo", true).contains("./foo"));
        // A relative path without `./` reads as a registry address too.
        assert!(
            local_hint("bin/terraform-provider-foo", true).contains("./bin/terraform-provider-foo")
        );
        // Registry addresses get none.
        assert_eq!(local_hint("hashicorp/random", false), "");
        assert_eq!(local_hint("random", false), "");
    }
}
