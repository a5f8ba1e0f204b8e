//! The provider registry protocol (getproviders `registryClient`): the version list and the
//! package metadata for one platform, with OpenTofu's checks on the answer.
//!
//! Invariants: every URL in a package answer is absolute (relative ones are resolved against the
//! answer's URL) and http or https; `shasum` is 64 hex digits; the package's protocols include 5
//! or 6 when it names any; response bodies are bounded.

use std::collections::BTreeMap;

use reqwest::Url;
use serde::Deserialize;

use crate::{
    address::Provider,
    credentials::env_name_for,
    error::{Error, Result},
    hostname::Hostname,
    http::{Http, describe_status, is_json, shown},
    platform::Platform,
    version::Version,
};

/// The largest registry answer we read.
const MAX_API_BODY: usize = 8 * 1024 * 1024;

/// The plugin protocol majors we can run.
pub(crate) const SUPPORTED_PROTOCOLS: [u64; 2] = [5, 6];

/// The error for 401 and 403.
pub(crate) fn unauthorized(host: &Hostname, had_token: bool) -> Error {
    if had_token {
        Error::CredentialsRejected {
            host: host.for_display(),
        }
    } else {
        Error::CredentialsRequired {
            host: host.for_display(),
            env_name: env_name_for(host),
        }
    }
}

fn query_failed(provider: &Provider, reason: impl Into<String>) -> Error {
    Error::QueryFailed {
        place: "provider registry".into(),
        provider: provider.to_string(),
        reason: reason.into(),
    }
}

/// One entry of the version list.
#[derive(Clone, Debug)]
pub(crate) struct Listed {
    pub(crate) version: Version,
    pub(crate) protocols: Vec<String>,
}

#[derive(Deserialize)]
struct VersionsBody {
    #[serde(default)]
    versions: Vec<VersionEntry>,
    #[serde(default)]
    warnings: Vec<String>,
}

#[derive(Deserialize)]
struct VersionEntry {
    version: String,
    #[serde(default)]
    protocols: Vec<String>,
}

/// Joins path segments under the base URL.
fn endpoint(base: &Url, segments: &[&str]) -> Result<Url, String> {
    let mut url = base.clone();
    url.path_segments_mut()
        .map_err(|()| format!("registry base URL {} cannot have a path", shown(base)))?
        .pop_if_empty()
        .extend(segments);
    Ok(url)
}

/// Lists the versions of `provider` (`GET <base><ns>/<type>/versions`).
pub(crate) async fn versions(
    http: &Http,
    base: &Url,
    provider: &Provider,
    token: Option<&str>,
) -> Result<(Vec<Listed>, Vec<String>)> {
    let url = endpoint(base, &[&provider.namespace, &provider.r#type, "versions"])
        .map_err(|e| query_failed(provider, e))?;
    let fetched = http
        .get(&url, token, true, MAX_API_BODY)
        .await
        .map_err(|e| query_failed(provider, e.to_string()))?;
    match fetched.status.as_u16() {
        200 => {}
        404 => {
            return Err(Error::ProviderNotKnown {
                host: provider.hostname.for_display(),
                provider: provider.to_string(),
            });
        }
        401 | 403 => return Err(unauthorized(&provider.hostname, token.is_some())),
        _ => return Err(query_failed(provider, describe_status(fetched.status))),
    }
    let body: VersionsBody =
        serde_json::from_slice(&fetched.body).map_err(|e| query_failed(provider, e.to_string()))?;
    let mut listed = Vec::with_capacity(body.versions.len());
    for entry in body.versions {
        let version = Version::parse(&entry.version).map_err(|e| {
            query_failed(
                provider,
                format!(
                    "registry response includes invalid version string {:?}: {e}",
                    entry.version
                ),
            )
        })?;
        listed.push(Listed {
            version,
            protocols: entry.protocols,
        });
    }
    listed.sort_by(|a, b| a.version.cmp(&b.version));
    Ok((listed, body.warnings))
}

/// The registry's description of one package.
#[derive(Clone, Debug)]
pub(crate) struct Package {
    pub(crate) filename: String,
    pub(crate) download_url: Url,
    pub(crate) shasum: [u8; 32],
    pub(crate) shasums_url: Url,
    pub(crate) signature_url: Url,
    pub(crate) keys: Vec<String>,
    pub(crate) protocols: Vec<u64>,
    pub(crate) platforms: BTreeMap<String, PlatformData>,
}

/// OpenTofu's `packages` extension: the hashes and size of each platform's package.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct PlatformData {
    #[serde(default)]
    pub(crate) hashes: Vec<String>,
    #[serde(default)]
    pub(crate) package_size: i64,
}

#[derive(Deserialize)]
struct PackageBody {
    #[serde(default)]
    protocols: Vec<String>,
    #[serde(default)]
    os: String,
    #[serde(default)]
    arch: String,
    #[serde(default)]
    filename: String,
    #[serde(default)]
    download_url: String,
    #[serde(default)]
    shasum: String,
    #[serde(default)]
    shasums_url: String,
    #[serde(default)]
    shasums_signature_url: String,
    #[serde(default)]
    signing_keys: SigningKeys,
    #[serde(default)]
    packages: BTreeMap<String, PlatformData>,
}

#[derive(Deserialize, Default)]
struct SigningKeys {
    #[serde(default)]
    gpg_public_keys: Vec<GpgKey>,
}

#[derive(Deserialize)]
struct GpgKey {
    #[serde(default)]
    ascii_armor: String,
}

/// The major number of a protocol version string such as `5.0`.
fn protocol_major(s: &str) -> Option<u64> {
    Version::parse(s).ok().map(|v| v.major)
}

/// Fetches the package metadata for one platform (`GET <base><ns>/<type>/<version>/download/<os>/<arch>`).
pub(crate) async fn package(
    http: &Http,
    base: &Url,
    provider: &Provider,
    version: &Version,
    platform: &Platform,
    token: Option<&str>,
    listed: &[Listed],
) -> Result<Package> {
    let v = version.to_string();
    let url = endpoint(
        base,
        &[
            &provider.namespace,
            &provider.r#type,
            &v,
            "download",
            &platform.os,
            &platform.arch,
        ],
    )
    .map_err(|e| query_failed(provider, e))?;
    let fetched = http
        .get(&url, token, true, MAX_API_BODY)
        .await
        .map_err(|e| query_failed(provider, e.to_string()))?;
    match fetched.status.as_u16() {
        200 => {}
        404 => {
            return Err(Error::PlatformNotSupported {
                provider: provider.to_string(),
                version: version.to_string(),
                platform: platform.to_string(),
            });
        }
        401 | 403 => return Err(unauthorized(&provider.hostname, token.is_some())),
        _ => return Err(query_failed(provider, describe_status(fetched.status))),
    }
    if !fetched.body.is_empty() && !is_json(fetched.content_type.as_deref()) {
        tracing::debug!(content_type = ?fetched.content_type, "registry answered without a JSON content type");
    }
    let body: PackageBody =
        serde_json::from_slice(&fetched.body).map_err(|e| query_failed(provider, e.to_string()))?;
    let mut protocols = Vec::new();
    for p in &body.protocols {
        let major = protocol_major(p).ok_or_else(|| {
            query_failed(
                provider,
                format!("registry response includes invalid version string {p:?}"),
            )
        })?;
        protocols.push(major);
    }
    protocols.sort_unstable();
    protocols.dedup();
    if !protocols.is_empty() && !protocols.iter().any(|p| SUPPORTED_PROTOCOLS.contains(p)) {
        return Err(protocol_error(provider, version, &protocols, listed));
    }
    if body.os != platform.os || body.arch != platform.arch {
        return Err(query_failed(
            provider,
            format!(
                "registry response to request for {platform} archive has incorrect target {}_{}",
                body.os, body.arch
            ),
        ));
    }
    let resolve = |raw: &str, what: &str| -> Result<Url> {
        let u = fetched.url.join(raw).map_err(|e| {
            query_failed(
                provider,
                format!("registry response includes invalid {what} URL: {e}"),
            )
        })?;
        if u.scheme() != "http" && u.scheme() != "https" {
            return Err(query_failed(
                provider,
                format!(
                    "registry response includes invalid {what} URL: must use http or https scheme"
                ),
            ));
        }
        Ok(u)
    };
    let download_url = resolve(&body.download_url, "download")?;
    let mut shasum = [0u8; 32];
    if body.shasum.len() != 64 || hex::decode_to_slice(&body.shasum, &mut shasum).is_err() {
        return Err(query_failed(
            provider,
            format!(
                "registry response includes invalid SHA256 hash {:?}",
                body.shasum
            ),
        ));
    }
    let shasums_url = resolve(&body.shasums_url, "SHASUMS")?;
    let signature_url = resolve(&body.shasums_signature_url, "SHASUMS signature")?;
    Ok(Package {
        filename: body.filename,
        download_url,
        shasum,
        shasums_url,
        signature_url,
        keys: body
            .signing_keys
            .gpg_public_keys
            .into_iter()
            .map(|k| k.ascii_armor)
            .collect(),
        protocols,
        platforms: body.packages,
    })
}

/// The "unsupported protocol" error, naming the newest version that would work.
fn protocol_error(
    provider: &Provider,
    version: &Version,
    protocols: &[u64],
    listed: &[Listed],
) -> Error {
    let closest = listed.iter().rev().find(|l| {
        l.protocols
            .iter()
            .filter_map(|p| protocol_major(p))
            .any(|p| SUPPORTED_PROTOCOLS.contains(&p))
    });
    Error::ProtocolNotSupported {
        provider: provider.to_string(),
        version: version.to_string(),
        protocols: protocols
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        suggestion: closest.map_or_else(String::new, |l| {
            format!("; the newest version that supports them is {}", l.version)
        }),
    }
}

/// Fetches a small file named by the package metadata (SHA256SUMS or its signature).
pub(crate) async fn fetch_file(
    http: &Http,
    url: &Url,
    token: Option<&str>,
) -> std::result::Result<Vec<u8>, String> {
    let fetched = http
        .get(url, token, false, MAX_API_BODY)
        .await
        .map_err(|e| e.to_string())?;
    if fetched.status.as_u16() != 200 {
        return Err(format!(
            "{} returned from {}",
            describe_status(fetched.status),
            url.host_str().unwrap_or_default()
        ));
    }
    Ok(fetched.body)
}
