//! Fetching one package into a staging directory: from the Terraform plugin cache, the origin
//! registry (checksums and signature verified before and after the download), a network mirror
//! (its reported hashes checked) or a filesystem mirror.
//!
//! Invariant: everything a fetch writes is inside the staging directory or a temporary file in
//! the cache, both removed on drop, so a failed fetch leaves nothing behind.

use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::Url;

use super::{Fetched, Installer};
use crate::{
    address::{DEFAULT_HOST, Provider},
    cache::{Cache, Lookup},
    error::{Error, Result},
    hash,
    http::shown,
    installed::Origin,
    mirror::{self, LocalPackage},
    progress::Progress,
    registry::{self, Listed},
    signature,
    source::Location,
    unzip, verify,
    version::Version,
};

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Looks a package up in the Terraform plugin cache. The cache is shared with other tools and
/// only read here, so an entry we cannot read (no permission, a file name that is not UTF-8, a
/// symbolic link to a directory) is skipped with a warning, as if missing: the installation
/// methods can still provide the package.
fn plugin_cache_lookup(pc: &Cache, provider: &Provider, version: &Version) -> Lookup {
    match pc.lookup(provider, version) {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!(
                path = %pc.entry_dir(provider, version).display(),
                error = %tfp_echo::chain(&e),
                "cannot read this entry of the plugin cache; skipping it"
            );
            Lookup::Missing
        }
    }
}

impl Installer {
    /// Tries the plugin cache, then each method in order, until one has the package.
    pub(super) async fn fetch_any(
        &self,
        provider: &Provider,
        version: &Version,
        listed: &[Listed],
        staged: &tempfile::TempDir,
    ) -> Result<Fetched> {
        if let Some(pc) = &self.plugin_cache
            && let Lookup::Valid(found) = plugin_cache_lookup(pc, provider, version)
        {
            mirror::copy_tree(&found.dir, staged.path())
                .map_err(|e| Error::io("cannot copy", &found.dir, e))?;
            self.check_executable(provider, version, staged)?;
            return Ok(Fetched {
                zh: None,
                h1: Some(found.h1),
                protocols: Vec::new(),
                origin: Origin::PluginCache(pc.root().to_path_buf()),
            });
        }
        let mut last_not_found = None;
        for method in self.methods_for(provider) {
            let attempt = match &method.location {
                Location::Direct => self.fetch_registry(provider, version, listed, staged).await,
                Location::FilesystemMirror(dir) => {
                    self.fetch_filesystem(dir, provider, version, staged).await
                }
                Location::NetworkMirror {
                    url,
                    trust_all_hashes,
                } => {
                    self.fetch_network(url, *trust_all_hashes, provider, version, staged)
                        .await
                }
            };
            match attempt {
                Err(e) if e.is_not_found() => last_not_found = Some(e),
                other => return other,
            }
        }
        Err(
            last_not_found.unwrap_or_else(|| Error::PlatformNotSupported {
                provider: provider.to_string(),
                version: version.to_string(),
                platform: self.settings.platform.to_string(),
            }),
        )
    }

    fn check_executable(
        &self,
        provider: &Provider,
        version: &Version,
        staged: &tempfile::TempDir,
    ) -> Result<()> {
        match unzip::find_executable(staged.path(), &provider.r#type) {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(Error::NoExecutable {
                provider: provider.to_string(),
                version: version.to_string(),
                kind: provider.r#type.clone(),
            }),
            Err(e) => Err(Error::io("cannot read", staged.path(), e)),
        }
    }

    /// Extracts a zip into the staging directory, off the async threads.
    async fn extract(
        &self,
        provider: &Provider,
        version: &Version,
        zip: std::path::PathBuf,
        staged: &tempfile::TempDir,
    ) -> Result<String> {
        let dest = staged.path().to_path_buf();
        let limits = self.settings.limits;
        // Dropping this future (a signal, a Cancel) cannot end the thread, but tells it to stop
        // before the staging directory is removed.
        let stop = StopOnDrop::default();
        let stopped = stop.0.clone();
        let files =
            tokio::task::spawn_blocking(move || unzip::extract(&zip, &dest, limits, &stopped))
                .await
                .map_err(|e| {
                    Error::io(
                        "cannot extract into",
                        staged.path(),
                        std::io::Error::other(e.to_string()),
                    )
                })?
                .map_err(|source| Error::Extract {
                    provider: provider.to_string(),
                    version: version.to_string(),
                    source,
                })?;
        self.check_executable(provider, version, staged)?;
        let h1 = hash::h1_from_entries(files.into_iter().map(|f| (f.name, f.sha256)).collect())
            .map_err(|e| Error::io("cannot hash", staged.path(), e))?;
        Ok(h1)
    }

    /// Downloads `url` into a temporary file in the cache and returns it with its size and hash.
    async fn download(
        &self,
        provider: &Provider,
        version: &Version,
        url: &Url,
        token: Option<&str>,
    ) -> Result<(tempfile::NamedTempFile, u64, [u8; 32])> {
        let tmp = self.cache.temp_file(provider, version)?;
        let std_file = tmp
            .reopen()
            .map_err(|e| Error::io("cannot open", tmp.path(), e))?;
        let mut file = tokio::fs::File::from_std(std_file);
        let progress = Progress::new(
            self.settings.progress,
            format!("{} {version}", provider.for_display()),
        );
        let done = self
            .http
            .download(url, token, &mut file, &progress)
            .await
            .map_err(|e| Error::Download {
                url: shown(url),
                reason: e.to_string(),
            })?;
        progress.finish("downloaded");
        Ok((tmp, done.size, done.sha256))
    }

    async fn fetch_registry(
        &self,
        provider: &Provider,
        version: &Version,
        listed: &[Listed],
        staged: &tempfile::TempDir,
    ) -> Result<Fetched> {
        let base = self.registry_base(&provider.hostname).await?;
        let token = self.settings.credentials.token(&provider.hostname);
        let platform = &self.settings.platform;
        let pkg = match registry::package(
            &self.http, &base, provider, version, platform, token, listed,
        )
        .await
        {
            // The version list names a compatible version for the message; fetch it only now.
            Err(Error::ProtocolNotSupported { .. }) if listed.is_empty() => {
                let (listed, _) = registry::versions(&self.http, &base, provider, token).await?;
                registry::package(
                    &self.http, &base, provider, version, platform, token, &listed,
                )
                .await?
            }
            other => other?,
        };
        let query_failed = |reason: String| Error::QueryFailed {
            place: "provider registry".into(),
            provider: provider.to_string(),
            reason,
        };
        let document = registry::fetch_file(
            &self.http,
            &pkg.shasums_url,
            self.token_for_url(&pkg.shasums_url),
        )
        .await
        .map_err(|e| {
            query_failed(format!(
                "failed to retrieve authentication checksums for provider: {e}"
            ))
        })?;
        let sig = registry::fetch_file(
            &self.http,
            &pkg.signature_url,
            self.token_for_url(&pkg.signature_url),
        )
        .await
        .map_err(|e| {
            query_failed(format!(
                "failed to retrieve cryptographic signature for provider: {e}"
            ))
        })?;
        let checksum_error = |reason: String| Error::Checksum {
            provider: provider.to_string(),
            version: version.to_string(),
            reason,
        };
        // The document and signature do not depend on the archive, so they are checked before
        // a possibly large download.
        verify::matching_checksum(&document, &pkg.filename, &pkg.shasum).map_err(checksum_error)?;
        let required = !pkg.keys.is_empty()
            || provider.hostname.as_str() != DEFAULT_HOST
            || self.settings.enforce_gpg_validation;
        let signer = signature::verify(
            &document,
            &sig,
            &pkg.keys,
            required,
            self.settings.enforce_gpg_expiration,
            now_secs(),
        )
        .map_err(|source| Error::Signature {
            provider: provider.to_string(),
            version: version.to_string(),
            source,
        })?;
        match &signer {
            Some(s) if s.expired => tracing::warn!(
                "Provider {}/{} ({}) gpg key expired, this will fail in future versions of OpenTofu",
                provider.namespace,
                provider.r#type,
                provider.hostname
            ),
            Some(s) => tracing::debug!(key = %s.key_id, "provider signed"),
            None => tracing::warn!(
                "Skipping GPG validation of provider package {} as no keys were provided by the registry.",
                shown(&pkg.download_url)
            ),
        }
        let (tmp, size, sha) = self
            .download(
                provider,
                version,
                &pkg.download_url,
                self.token_for_url(&pkg.download_url),
            )
            .await?;
        verify::registry_packages(
            &pkg.platforms,
            &platform.to_string(),
            &hex::encode(pkg.shasum),
            size,
        )
        .map_err(checksum_error)?;
        verify::archive_checksum(&sha, &pkg.shasum).map_err(checksum_error)?;
        let h1 = self
            .extract(provider, version, tmp.path().to_path_buf(), staged)
            .await?;
        drop(tmp);
        Ok(Fetched {
            zh: Some(hash::zh(&sha)),
            h1: Some(h1),
            protocols: pkg.protocols,
            origin: Origin::Registry(provider.hostname.for_display()),
        })
    }

    async fn fetch_network(
        &self,
        base: &Url,
        trust_all_hashes: bool,
        provider: &Provider,
        version: &Version,
        staged: &tempfile::TempDir,
    ) -> Result<Fetched> {
        let token = self.token_for_url(base);
        let pkg = mirror::network_package(
            &self.http,
            base,
            provider,
            version,
            &self.settings.platform,
            token,
            trust_all_hashes,
        )
        .await?;
        let (tmp, _size, sha) = self
            .download(provider, version, &pkg.url, self.token_for_url(&pkg.url))
            .await?;
        let h1 = self
            .extract(provider, version, tmp.path().to_path_buf(), staged)
            .await?;
        drop(tmp);
        let zh = hash::zh(&sha);
        if !pkg.hashes.is_empty() {
            verify::mirror_hashes(&pkg.hashes, &h1, Some(&zh)).map_err(|reason| {
                Error::Checksum {
                    provider: provider.to_string(),
                    version: version.to_string(),
                    reason,
                }
            })?;
        }
        Ok(Fetched {
            zh: Some(zh),
            h1: Some(h1),
            protocols: Vec::new(),
            origin: Origin::NetworkMirror(shown(base)),
        })
    }

    async fn fetch_filesystem(
        &self,
        dir: &std::path::Path,
        provider: &Provider,
        version: &Version,
        staged: &tempfile::TempDir,
    ) -> Result<Fetched> {
        let platform = &self.settings.platform;
        let found = mirror::scan_filesystem(dir, provider);
        let Some(package) = found.get(version).and_then(|p| p.get(platform)) else {
            return Err(Error::PlatformNotSupported {
                provider: provider.to_string(),
                version: version.to_string(),
                platform: platform.to_string(),
            });
        };
        let origin = Origin::FilesystemMirror(dir.to_path_buf());
        match package {
            LocalPackage::Unpacked(from) => {
                mirror::copy_tree(from, staged.path())
                    .map_err(|e| Error::io("cannot copy", from, e))?;
                self.check_executable(provider, version, staged)?;
                Ok(Fetched {
                    zh: None,
                    h1: None,
                    protocols: Vec::new(),
                    origin,
                })
            }
            LocalPackage::Packed(zip) => {
                let zh = hash::zh_file(zip).map_err(|e| Error::io("cannot read", zip, e))?;
                let h1 = self.extract(provider, version, zip.clone(), staged).await?;
                Ok(Fetched {
                    zh: Some(zh),
                    h1: Some(h1),
                    protocols: Vec::new(),
                    origin,
                })
            }
        }
    }
}

/// A flag set when it is dropped: tells a blocking thread that its caller is gone.
#[derive(Default)]
struct StopOnDrop(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
