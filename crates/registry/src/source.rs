//! Installation methods and the patterns that route providers to them (getproviders
//! `MultiSource` and `ParseMultiSourceMatchingPatterns`).
//!
//! Invariant: a [`Pattern`] with a wildcard hostname also has wildcard namespace and type, and
//! one with a wildcard namespace also has a wildcard type, as OpenTofu requires.

use std::{fmt, path::PathBuf};

use crate::{
    address::{DEFAULT_HOST, Provider},
    hostname::{Hostname, parse_part},
    http::shown,
};

/// Where a method finds packages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The provider's origin registry, found through service discovery.
    Direct,
    /// A local directory in the packed or unpacked mirror layout.
    FilesystemMirror(PathBuf),
    /// An HTTPS server speaking the provider network mirror protocol.
    NetworkMirror {
        /// The mirror's base URL.
        url: reqwest::Url,
        /// Whether the hashes it reports for other platforms are trusted too.
        trust_all_hashes: bool,
    },
}

/// One installation method with the providers it serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// Where the packages are.
    pub location: Location,
    /// Only these providers, when not empty.
    pub include: Vec<Pattern>,
    /// Never these providers.
    pub exclude: Vec<Pattern>,
}

/// A provider pattern such as `example.com/*/*` or `hashicorp/aws`; `None` is a wildcard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The hostname, or any.
    pub hostname: Option<Hostname>,
    /// The namespace, or any.
    pub namespace: Option<String>,
    /// The type, or any.
    pub r#type: Option<String>,
}

/// A pattern that could not be parsed; the texts are OpenTofu's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PatternError(String);

fn part_or_wildcard(s: &str) -> Result<Option<String>, ()> {
    if s == "*" {
        Ok(None)
    } else {
        parse_part(s).map(Some).map_err(|_| ())
    }
}

impl Pattern {
    /// Parses `[hostname/]namespace/type`, each part possibly `*`.
    pub fn parse(s: &str) -> Result<Self, PatternError> {
        let mut parts: Vec<&str> = s.split('/').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(PatternError(format!(
                "invalid provider matching pattern {s:?}: must have either two or three slash-separated segments"
            )));
        }
        let mut hostname = Some(Hostname::from_normalized(DEFAULT_HOST));
        if parts.len() == 3 {
            hostname = if parts[0] == "*" {
                None
            } else {
                Some(Hostname::parse(parts[0]).map_err(|e| {
                    PatternError(format!(
                        "invalid hostname in provider matching pattern {s:?}: {e}"
                    ))
                })?)
            };
            parts.remove(0);
        }
        let r#type = part_or_wildcard(parts[1]).map_err(|()| {
            PatternError(format!(
                "invalid provider type {:?} in provider matching pattern {s:?}: must either be the wildcard * or a provider type name",
                parts[1]
            ))
        })?;
        let namespace = part_or_wildcard(parts[0]).map_err(|()| {
            PatternError(format!(
                "invalid registry namespace {:?} in provider matching pattern {s:?}: must either be the wildcard * or a literal namespace",
                parts[0]
            ))
        })?;
        if hostname.is_none() && (namespace.is_some() || r#type.is_some()) {
            return Err(PatternError(format!(
                "invalid provider matching pattern {s:?}: hostname can be a wildcard only if both namespace and provider type are also wildcards"
            )));
        }
        if namespace.is_none() && r#type.is_some() {
            return Err(PatternError(format!(
                "invalid provider matching pattern {s:?}: namespace can be a wildcard only if the provider type is also a wildcard"
            )));
        }
        Ok(Pattern {
            hostname,
            namespace,
            r#type,
        })
    }

    /// A pattern matching exactly one provider.
    pub fn exact(p: &Provider) -> Self {
        Pattern {
            hostname: Some(p.hostname.clone()),
            namespace: Some(p.namespace.clone()),
            r#type: Some(p.r#type.clone()),
        }
    }

    /// Whether the pattern matches the provider.
    pub fn matches(&self, p: &Provider) -> bool {
        self.hostname.as_ref().is_none_or(|h| *h == p.hostname)
            && self.namespace.as_ref().is_none_or(|n| *n == p.namespace)
            && self.r#type.as_ref().is_none_or(|t| *t == p.r#type)
    }
}

impl Method {
    /// Whether this method may serve the provider: not excluded, and included when an include
    /// list is given.
    pub fn handles(&self, p: &Provider) -> bool {
        if self.exclude.iter().any(|x| x.matches(p)) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|x| x.matches(p))
    }
}

impl fmt::Display for Location {
    /// How OpenTofu names a source in messages, without a mirror URL's user and password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Direct => f.write_str("the provider's origin registry"),
            Location::FilesystemMirror(p) => write!(f, "{}", p.display()),
            Location::NetworkMirror { url, .. } => write!(f, "provider mirror at {}", shown(url)),
        }
    }
}
