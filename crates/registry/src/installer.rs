//! The installer: cache first, then the installation methods in order, with one download per
//! package across tasks and processes.
//!
//! Invariants: a cache hit touches no network; a package is fetched, verified and extracted only
//! while its lock is held, into a staging directory that is renamed into place at the end, so a
//! failed install leaves nothing behind and a concurrent reader never sees a partial package.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{Mutex, PoisonError},
};

use reqwest::Url;

use crate::{
    address::Provider,
    cache::{Cache, Lookup},
    constraint::Constraints,
    discovery,
    env::Environment,
    error::{Error, Result},
    hostname::Hostname,
    http::{Http, HttpOptions},
    installed::{Installed, Origin},
    mirror,
    registry::{self, Listed},
    settings::Settings,
    source::{Location, Method},
    unzip,
    version::Version,
};

mod fetch;

/// Installs providers into the cache.
#[derive(Debug)]
pub struct Installer {
    settings: Settings,
    http: Http,
    cache: Cache,
    plugin_cache: Option<Cache>,
    discovered: Mutex<BTreeMap<Hostname, Url>>,
}

/// What one method can offer for a provider.
enum Offer {
    Registry(Vec<Listed>, Vec<String>),
    Versions(Vec<Version>),
}

/// What a fetch produced in the staging directory.
struct Fetched {
    zh: Option<String>,
    h1: Option<String>,
    protocols: Vec<u64>,
    origin: Origin,
}

/// The newest ten versions, newest first, and how many more there are.
fn summarize(all: &BTreeSet<Version>) -> String {
    let shown: Vec<String> = all.iter().rev().take(10).map(ToString::to_string).collect();
    let more = all.len().saturating_sub(shown.len());
    if more == 0 {
        shown.join(", ")
    } else {
        format!("{}, and {more} older", shown.join(", "))
    }
}

impl Installer {
    /// The production constructor: settings from the process environment and CLI configuration.
    pub fn from_env() -> Result<Self> {
        Self::new(Settings::from_environment(&Environment::from_process())?)
    }

    /// An installer with explicit settings.
    pub fn new(settings: Settings) -> Result<Self> {
        let http = Http::new(HttpOptions {
            user_agent: settings.user_agent.clone(),
            terraform_version: settings.terraform_version.clone(),
            extra_roots_pem: settings.extra_ca_pem.clone(),
            request_timeout: settings.request_timeout,
            api_retries: settings.registry_retries,
            download_retries: settings.download_retries,
            retry_wait: settings.retry_wait,
        })
        .map_err(|reason| Error::HttpSetup { reason })?;
        for w in &settings.warnings {
            tracing::warn!("{w}");
        }
        Ok(Installer {
            cache: Cache::new(settings.cache_dir.clone(), settings.platform.clone()),
            plugin_cache: settings
                .plugin_cache_dir
                .clone()
                .map(|d| Cache::read_only(d, settings.platform.clone())),
            settings,
            http,
            discovered: Mutex::new(BTreeMap::new()),
        })
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Parses a source address and a constraint, then installs.
    pub async fn install_str(&self, source: &str, constraint: &str) -> Result<Installed> {
        let provider = Provider::parse(source).map_err(|e| Error::Address {
            input: source.to_owned(),
            source: e,
        })?;
        let constraints = Constraints::parse(constraint)?;
        self.install(&provider, &constraints).await
    }

    /// Installs the newest version of `provider` allowed by `constraints`, preferring what is
    /// already cached, and returns where it is.
    pub async fn install(
        &self,
        provider: &Provider,
        constraints: &Constraints,
    ) -> Result<Installed> {
        if let Some(found) = self.cached(provider, constraints).await? {
            return Ok(found);
        }
        let (version, listed, warnings) = self.resolve(provider, constraints).await?;
        for w in &warnings {
            tracing::warn!(provider = %provider, "{w}");
        }
        let mut installed = self.install_version(provider, &version, &listed).await?;
        installed.warnings.extend(warnings);
        Ok(installed)
    }

    /// Cache-first resolution: the newest cached version (ours or the plugin cache) that the
    /// constraints allow wins, without contacting any registry.
    async fn cached(
        &self,
        provider: &Provider,
        constraints: &Constraints,
    ) -> Result<Option<Installed>> {
        let mut versions: BTreeSet<Version> = self.cache.versions(provider).into_iter().collect();
        if let Some(pc) = &self.plugin_cache {
            versions.extend(pc.versions(provider));
        }
        let Some(version) = constraints.newest(versions.iter()).cloned() else {
            return Ok(None);
        };
        match self.cache.lookup(provider, &version)? {
            Lookup::Valid(found) => {
                tracing::info!(addr = %provider, version = %version, "Found cached provider");
                return Ok(Some(*found));
            }
            Lookup::Damaged(reason) => {
                tracing::warn!(addr = %provider, version = %version, "cached package is damaged ({reason}); installing it again");
                return self
                    .install_version(provider, &version, &[])
                    .await
                    .map(Some);
            }
            Lookup::Missing => {}
        }
        // Only the plugin cache has it: copy it into ours under the lock.
        self.install_version(provider, &version, &[])
            .await
            .map(Some)
    }

    /// Lists versions from every method that handles the provider and picks the newest allowed.
    async fn resolve(
        &self,
        provider: &Provider,
        constraints: &Constraints,
    ) -> Result<(Version, Vec<Listed>, Vec<String>)> {
        let mut all: BTreeSet<Version> = BTreeSet::new();
        let mut listed = Vec::new();
        let mut warnings = Vec::new();
        let mut registry_said_unknown = None;
        let mut locations = Vec::new();
        for method in self.methods_for(provider) {
            locations.push(method.location.to_string());
            match self.offer(method, provider).await {
                Ok(Offer::Registry(l, w)) => {
                    all.extend(l.iter().map(|x| x.version.clone()));
                    listed = l;
                    warnings.extend(w);
                }
                Ok(Offer::Versions(v)) => all.extend(v),
                Err(e @ Error::ProviderNotKnown { .. }) => registry_said_unknown = Some(e),
                Err(Error::ProviderNotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if all.is_empty() {
            return Err(
                registry_said_unknown.unwrap_or_else(|| Error::ProviderNotFound {
                    provider: provider.to_string(),
                    locations: if locations.is_empty() {
                        "no installation method handles it".into()
                    } else {
                        locations.join(", ")
                    },
                }),
            );
        }
        let Some(version) = constraints.newest(all.iter()).cloned() else {
            return Err(Error::NoMatchingVersion {
                provider: provider.to_string(),
                constraint: constraints.to_string(),
                available: summarize(&all),
            });
        };
        Ok((version, listed, warnings))
    }

    fn methods_for<'a>(&'a self, provider: &'a Provider) -> impl Iterator<Item = &'a Method> + 'a {
        self.settings
            .methods
            .iter()
            .filter(move |m| m.handles(provider))
    }

    /// A token for `url` when it is on `host` (registries often serve packages from elsewhere,
    /// and a token must not leak there).
    fn token_for_url(&self, url: &Url) -> Option<&str> {
        let host = url.host_str()?;
        let with_port = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_owned(),
        };
        // A URL's host is in Punycode (svchost `ForComparison` after `ForDisplay`, as OpenTofu's
        // `svchostFromURL` does).
        let h = Hostname::parse_ascii_or_unicode(&with_port).ok()?;
        self.settings.credentials.token(&h)
    }

    async fn registry_base(&self, host: &Hostname) -> Result<Url> {
        if let Some(url) = self
            .discovered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(host)
        {
            return Ok(url.clone());
        }
        let token = self.settings.credentials.token(host);
        let url = discovery::providers_base(&self.http, host, token, &self.settings.host_services)
            .await?;
        self.discovered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(host.clone(), url.clone());
        Ok(url)
    }

    async fn offer(&self, method: &Method, provider: &Provider) -> Result<Offer> {
        match &method.location {
            Location::Direct => {
                let base = self.registry_base(&provider.hostname).await?;
                let token = self.settings.credentials.token(&provider.hostname);
                let (listed, warnings) =
                    registry::versions(&self.http, &base, provider, token).await?;
                Ok(Offer::Registry(listed, warnings))
            }
            Location::FilesystemMirror(dir) => {
                let found = mirror::scan_filesystem(dir, provider);
                if found.is_empty() {
                    return Err(Error::ProviderNotFound {
                        provider: provider.to_string(),
                        locations: dir.display().to_string(),
                    });
                }
                Ok(Offer::Versions(found.into_keys().collect()))
            }
            Location::NetworkMirror { url, .. } => {
                let token = self.token_for_url(url);
                Ok(Offer::Versions(
                    mirror::network_versions(&self.http, url, provider, token).await?,
                ))
            }
        }
    }

    /// Installs one version under its lock; a failure leaves no trace in the cache.
    async fn install_version(
        &self,
        provider: &Provider,
        version: &Version,
        listed: &[Listed],
    ) -> Result<Installed> {
        let guard = self.cache.lock(provider, version).await?;
        let result = self.install_locked(provider, version, listed).await;
        drop(guard);
        if result.is_err() {
            self.cache.prune(provider, version);
        }
        result
    }

    async fn install_locked(
        &self,
        provider: &Provider,
        version: &Version,
        listed: &[Listed],
    ) -> Result<Installed> {
        // Another task or process may have installed it while we waited for the lock.
        if let Lookup::Valid(found) = self.cache.lookup(provider, version)? {
            return Ok(*found);
        }
        self.cache.sweep(provider, version);
        let staged = self.cache.stage(provider, version)?;
        let fetched = self.fetch_any(provider, version, listed, &staged).await?;
        let (dir, h1) = self.cache.commit(
            provider,
            version,
            staged,
            fetched.zh.as_deref(),
            &fetched.protocols,
            fetched.h1.as_deref(),
        )?;
        let executable = unzip::find_executable(&dir, &provider.r#type)
            .map_err(|e| Error::io("cannot read", &dir, e))?
            .ok_or_else(|| Error::NoExecutable {
                provider: provider.to_string(),
                version: version.to_string(),
                kind: provider.r#type.clone(),
            })?;
        tracing::info!(addr = %provider, version = %version, dir = %dir.display(), "installed provider");
        Ok(Installed {
            source: provider.clone(),
            version: version.clone(),
            platform: self.settings.platform.clone(),
            dir,
            executable,
            protocols: fetched.protocols,
            h1,
            zh: fetched.zh,
            origin: fetched.origin,
            warnings: Vec::new(),
        })
    }
}
