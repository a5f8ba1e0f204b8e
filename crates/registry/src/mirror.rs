//! Mirrors: a filesystem mirror in the packed (`terraform-provider-<type>_<version>_<os>_<arch>.zip`)
//! or unpacked (`<version>/<os>_<arch>/`) layout (getproviders `SearchLocalDirectory`), and a
//! network mirror speaking the provider network mirror protocol (`index.json`, `<version>.json`;
//! getproviders `HTTPMirrorSource`).
//!
//! Invariants: a filesystem mirror is read, never written; entries with names that do not parse
//! are ignored, as OpenTofu ignores them; network mirror answers are bounded and must be
//! `application/json`; archive URLs are resolved against the answer's URL.

use std::{
    collections::BTreeMap,
    fs,
    path::{Path, PathBuf},
};

use reqwest::Url;
use serde::Deserialize;

use crate::{
    address::Provider,
    error::{Error, Result},
    http::{Http, describe_status, is_json, shown},
    platform::Platform,
    registry::unauthorized,
    version::Version,
};

const MAX_MIRROR_BODY: usize = 8 * 1024 * 1024;

/// Where a filesystem mirror keeps one package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LocalPackage {
    Unpacked(PathBuf),
    Packed(PathBuf),
}

/// The packages of `provider` in a filesystem mirror, by version and platform.
pub(crate) fn scan_filesystem(
    base: &Path,
    provider: &Provider,
) -> BTreeMap<Version, BTreeMap<Platform, LocalPackage>> {
    let mut found: BTreeMap<Version, BTreeMap<Platform, LocalPackage>> = BTreeMap::new();
    // OpenTofu resolves a symlinked base directory once and ignores symlinks below it; the host
    // directory is matched by its normalised name, so `Example.com` and `example.com` both work.
    let base = fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
    let Ok(hosts) = fs::read_dir(&base) else {
        return found;
    };
    for host in hosts.flatten() {
        let matches = host
            .file_name()
            .to_str()
            .and_then(crate::cache::hostname_from_dir)
            .is_some_and(|h| h == provider.hostname);
        if !matches {
            continue;
        }
        let dir = host.path().join(&provider.namespace).join(&provider.r#type);
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let Ok(version) = Version::parse(&name) else {
                    continue;
                };
                let Ok(platforms) = fs::read_dir(entry.path()) else {
                    continue;
                };
                for p in platforms.flatten() {
                    let is_dir = p.file_type().is_ok_and(|t| t.is_dir());
                    let platform = p.file_name().to_str().and_then(Platform::parse);
                    if let (true, Some(platform)) = (is_dir, platform) {
                        found
                            .entry(version.clone())
                            .or_default()
                            .insert(platform, LocalPackage::Unpacked(p.path()));
                    }
                }
            } else if kind.is_file() {
                let lower = name.to_lowercase();
                let prefix = format!("terraform-provider-{}_", provider.r#type);
                let Some(info) = lower
                    .strip_prefix(&prefix)
                    .and_then(|s| s.strip_suffix(".zip"))
                else {
                    continue;
                };
                let parts: Vec<&str> = info.split('_').collect();
                if parts.len() < 3 {
                    continue;
                }
                let (Ok(version), Some(platform)) = (
                    Version::parse(parts[0]),
                    Platform::parse(&format!("{}_{}", parts[1], parts[2])),
                ) else {
                    continue;
                };
                found
                    .entry(version)
                    .or_default()
                    .entry(platform)
                    .or_insert(LocalPackage::Packed(entry.path()));
            }
        }
    }
    found
}

/// How deep a package directory may nest; deeper means a symlink loop or a broken mirror.
const MAX_DEPTH: usize = 32;

/// Copies an unpacked package directory into `dest`, keeping permission bits and following
/// symbolic links.
pub(crate) fn copy_tree(from: &Path, dest: &Path) -> std::io::Result<()> {
    copy_tree_at(from, dest, 0)
}

fn copy_tree_at(from: &Path, dest: &Path, depth: usize) -> std::io::Result<()> {
    if depth > MAX_DEPTH {
        return Err(std::io::Error::other(format!(
            "{} is nested more than {MAX_DEPTH} directories deep",
            from.display()
        )));
    }
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = dest.join(entry.file_name());
        let meta = fs::metadata(entry.path())?;
        if meta.is_dir() {
            fs::create_dir_all(&target)?;
            copy_tree_at(&entry.path(), &target, depth + 1)?;
        } else if meta.is_file() {
            fs::copy(entry.path(), &target)?;
        } else {
            return Err(crate::hash::not_a_file(&entry.path()));
        }
    }
    Ok(())
}

/// The network mirror's `index.json`.
#[derive(Deserialize)]
struct Index {
    #[serde(default)]
    versions: BTreeMap<String, serde_json::Value>,
}

/// The network mirror's `<version>.json`.
#[derive(Deserialize)]
struct Archives {
    #[serde(default)]
    archives: BTreeMap<String, Archive>,
}

#[derive(Deserialize)]
struct Archive {
    #[serde(default)]
    url: String,
    #[serde(default)]
    hashes: Vec<String>,
}

/// A package offered by a network mirror.
#[derive(Clone, Debug)]
pub(crate) struct MirrorPackage {
    pub(crate) url: Url,
    pub(crate) hashes: Vec<String>,
}

fn mirror_failed(base: &Url, provider: &Provider, reason: impl Into<String>) -> Error {
    Error::QueryFailed {
        place: format!("provider mirror {}", shown(base)),
        provider: provider.to_string(),
        reason: reason.into(),
    }
}

/// GETs `<base><host>/<ns>/<type>/<last>` and checks the status and content type.
async fn get_json(
    http: &Http,
    base: &Url,
    provider: &Provider,
    last: &str,
    token: Option<&str>,
) -> Result<Option<(Url, Vec<u8>)>> {
    let mut url = base.clone();
    url.path_segments_mut()
        .map_err(|()| mirror_failed(base, provider, "the mirror URL cannot have a path"))?
        .pop_if_empty()
        .extend([
            provider.hostname.as_str(),
            &provider.namespace,
            &provider.r#type,
            last,
        ]);
    let fetched = http
        .get(&url, token, true, MAX_MIRROR_BODY)
        .await
        .map_err(|e| mirror_failed(base, provider, e.to_string()))?;
    match fetched.status.as_u16() {
        200 => {}
        404 => return Ok(None),
        401 | 403 => {
            let host = crate::hostname::Hostname::parse(&fetched.url.host_str().map_or_else(
                String::new,
                |h| match fetched.url.port() {
                    Some(p) => format!("{h}:{p}"),
                    None => h.to_owned(),
                },
            ))
            .unwrap_or_else(|_| provider.hostname.clone());
            return Err(unauthorized(&host, token.is_some()));
        }
        _ => {
            return Err(mirror_failed(
                base,
                provider,
                format!(
                    "server returned unsuccessful status {}",
                    describe_status(fetched.status)
                ),
            ));
        }
    }
    if !is_json(fetched.content_type.as_deref()) {
        return Err(mirror_failed(
            base,
            provider,
            "response has invalid Content-Type: must be application/json",
        ));
    }
    Ok(Some((with_login(fetched.url, base), fetched.body)))
}

/// The URL a mirror answered from, with the mirror URL's user and password put back: reqwest
/// takes them out of a request's URL to send them as basic authentication, and a package named
/// relative to the answer is fetched with them, as Terraform fetches it (Go's `ResolveReference`
/// keeps them). Only on the mirror's own host: a redirect elsewhere does not get them.
fn with_login(mut answered: Url, base: &Url) -> Url {
    let has_login = !base.username().is_empty() || base.password().is_some();
    if has_login && answered.origin() == base.origin() {
        // Setting a user or password fails only on URLs without a host, which an answer's is not.
        let _ = answered.set_username(base.username());
        let _ = answered.set_password(base.password());
    }
    answered
}

/// The versions a network mirror offers; `ProviderNotFound` when it has none of them.
pub(crate) async fn network_versions(
    http: &Http,
    base: &Url,
    provider: &Provider,
    token: Option<&str>,
) -> Result<Vec<Version>> {
    let Some((_, body)) = get_json(http, base, provider, "index.json", token).await? else {
        return Err(Error::ProviderNotFound {
            provider: provider.to_string(),
            locations: format!("provider mirror at {}", shown(base)),
        });
    };
    let index: Index = serde_json::from_slice(&body).map_err(|e| {
        mirror_failed(
            base,
            provider,
            format!("invalid response content from mirror server: {e}"),
        )
    })?;
    Ok(index
        .versions
        .keys()
        .filter_map(|v| match Version::parse(v) {
            Ok(v) => Some(v),
            Err(_) => {
                tracing::warn!(provider = %provider, version = %v, "ignoring invalid version string in provider mirror response");
                None
            }
        })
        .collect())
}

/// The archive of one version and platform from a network mirror.
pub(crate) async fn network_package(
    http: &Http,
    base: &Url,
    provider: &Provider,
    version: &Version,
    platform: &Platform,
    token: Option<&str>,
    trust_all_hashes: bool,
) -> Result<MirrorPackage> {
    let last = format!("{version}.json");
    let Some((answer_url, body)) = get_json(http, base, provider, &last, token).await? else {
        return Err(mirror_failed(
            base,
            provider,
            format!(
                "provider mirror does not have archive index for previously-reported {provider} version {version}"
            ),
        ));
    };
    let archives: Archives = serde_json::from_slice(&body).map_err(|e| {
        mirror_failed(
            base,
            provider,
            format!("invalid response content from mirror server: {e}"),
        )
    })?;
    let key = platform.to_string();
    let Some(archive) = archives.archives.get(&key) else {
        return Err(Error::PlatformNotSupported {
            provider: provider.to_string(),
            version: version.to_string(),
            platform: platform.to_string(),
        });
    };
    let url = answer_url.join(&archive.url).map_err(|e| {
        mirror_failed(
            base,
            provider,
            format!(
                "provider mirror returned invalid URL {:?}: {e}",
                archive.url
            ),
        )
    })?;
    let mut hashes = Vec::new();
    for (p, a) in &archives.archives {
        if trust_all_hashes || *p == key {
            for h in &a.hashes {
                if !h.contains(':') || h.starts_with(':') {
                    return Err(mirror_failed(
                        base,
                        provider,
                        format!(
                            "provider mirror returned invalid provider hash {h:?}: hash string must start with a scheme keyword followed by a colon"
                        ),
                    ));
                }
                hashes.push(h.clone());
            }
        }
    }
    Ok(MirrorPackage { url, hashes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_in_an_unpacked_package_is_an_error_not_a_wait() {
        let (from, dest) = (tempfile::tempdir(), tempfile::tempdir());
        let (from, dest) = (from.expect("temp dir"), dest.expect("temp dir"));
        let made = std::process::Command::new("mkfifo")
            .arg(from.path().join("pipe"))
            .status();
        assert!(made.expect("mkfifo runs").success());
        let err = copy_tree(from.path(), dest.path()).expect_err("a FIFO is no file");
        assert!(err.to_string().contains("is not a regular file"), "{err}");
        assert!(!dest.path().join("pipe").exists());
    }
}
