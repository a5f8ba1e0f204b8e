//! The parameter value: the JSON a generated SDK embeds so that the engine can parameterize
//! the plugin again with the same provider (`dynamic/parameterize/value.go`).
//!
//! Invariants: [`ParameterValue::to_json`] writes Go's bytes exactly (compact, keys in the
//! order `remote`, `local`, `includes`, `excludes`, `providerName`, empty ones omitted, Go's
//! escaping), and [`ParameterValue::parse`] accepts what Go writes and rejects what Go rejects,
//! with Go's messages. Our one addition, `autoNames` (`--auto-name`), comes last and only when
//! given, so every value the Go binary could write is written as it writes it; the Go binary
//! ignores the key (`encoding/json` skips unknown fields).

use serde::{Deserialize, Serialize};

use crate::json::to_go_json;

/// Where the provider comes from, and the filters and package name the user chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterValue {
    pub source: Source,
    /// Terraform names to map; empty means all.
    pub includes: Vec<String>,
    /// Terraform names never to map.
    pub excludes: Vec<String>,
    /// The Pulumi package name; empty means the provider type.
    pub provider_name: String,
    /// The resource attributes to autoname besides `name`, as `<resource>.<attribute>`.
    pub auto_names: Vec<String>,
}

/// The provider's origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A registry provider: `url` is the normalised source address
    /// (`registry.opentofu.org/hashicorp/random`), `version` the exact version (`3.3.0`).
    Remote { url: String, version: String },
    /// A provider binary on disk, the path exactly as the user gave it.
    Local { path: String },
}

/// A parameter value that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ParameterError {
    #[error("failed to unmarshal")]
    Json(#[source] serde_json::Error),
    #[error("cannot specify both \"remote\" and \"local\"")]
    Both,
    #[error("must specify either \"remote\" or \"local\"")]
    Neither,
    #[error("remote.url cannot be empty")]
    EmptyUrl,
    #[error("remote.version cannot be empty")]
    EmptyVersion,
    #[error("local.path cannot be empty")]
    EmptyPath,
    #[error("autoNames")]
    AutoName(#[source] crate::args::ArgsError),
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    remote: Option<RemoteWire>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local: Option<LocalWire>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    includes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    excludes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    provider_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    auto_names: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
struct RemoteWire {
    #[serde(default)]
    url: String,
    #[serde(default)]
    version: String,
}

#[derive(Serialize, Deserialize)]
struct LocalWire {
    #[serde(default)]
    path: String,
}

fn non_empty<T>(items: &[T]) -> Option<&[T]> {
    (!items.is_empty()).then_some(items)
}

impl ParameterValue {
    /// Parses the bytes of a parameter value.
    pub fn parse(bytes: &[u8]) -> Result<ParameterValue, ParameterError> {
        let wire: Wire = serde_json::from_slice(bytes).map_err(ParameterError::Json)?;
        let source = match (wire.remote, wire.local) {
            (Some(_), Some(_)) => return Err(ParameterError::Both),
            (None, None) => return Err(ParameterError::Neither),
            (Some(remote), None) => {
                if remote.url.is_empty() {
                    return Err(ParameterError::EmptyUrl);
                }
                if remote.version.is_empty() {
                    return Err(ParameterError::EmptyVersion);
                }
                Source::Remote {
                    url: remote.url,
                    version: remote.version,
                }
            }
            (None, Some(local)) => {
                if local.path.is_empty() {
                    return Err(ParameterError::EmptyPath);
                }
                Source::Local { path: local.path }
            }
        };
        let mut auto_names = Vec::new();
        for given in wire.auto_names.unwrap_or_default() {
            crate::args::add_auto_name(&mut auto_names, given).map_err(ParameterError::AutoName)?;
        }
        Ok(ParameterValue {
            source,
            includes: wire.includes.unwrap_or_default(),
            excludes: wire.excludes.unwrap_or_default(),
            provider_name: wire.provider_name.unwrap_or_default(),
            auto_names,
        })
    }

    /// The JSON bytes Go writes for this value.
    pub fn to_json(&self) -> Vec<u8> {
        let (remote, local) = match &self.source {
            Source::Remote { url, version } => (
                Some(RemoteWire {
                    url: url.clone(),
                    version: version.clone(),
                }),
                None,
            ),
            Source::Local { path } => (None, Some(LocalWire { path: path.clone() })),
        };
        let wire = Wire {
            remote,
            local,
            includes: non_empty(&self.includes).map(<[String]>::to_vec),
            excludes: non_empty(&self.excludes).map(<[String]>::to_vec),
            provider_name: Some(self.provider_name.clone()).filter(|n| !n.is_empty()),
            auto_names: non_empty(&self.auto_names).map(<[String]>::to_vec),
        };
        to_go_json(&wire).expect("a parameter value is plain strings and always serialises")
    }

    /// The mapping options this value asks for.
    pub fn options(&self) -> tfp_mapping::Options {
        tfp_mapping::Options {
            provider_name: Some(self.provider_name.clone()).filter(|n| !n.is_empty()),
            includes: self.includes.clone(),
            excludes: self.excludes.clone(),
            auto_names: self.auto_names.clone(),
        }
    }

    /// The GitHub organisation and repository name the bridge guesses for a registry
    /// provider: the last two segments of the source address (opentofu/registry#1337).
    pub(crate) fn github(&self) -> Option<(&str, &str)> {
        let Source::Remote { url, .. } = &self.source else {
            return None;
        };
        let mut segments = url.rsplit('/');
        let name = segments.next()?;
        let org = segments.next()?;
        Some((org, name))
    }
}
