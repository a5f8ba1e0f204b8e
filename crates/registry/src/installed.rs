//! The result of an install: where the provider is and what it is.

use std::path::PathBuf;

use crate::{address::Provider, platform::Platform, version::Version};

/// Where an installed package came from in this call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// It was already in the cache; nothing was fetched.
    Cache,
    /// It was copied from the Terraform plugin cache (`TF_PLUGIN_CACHE_DIR`, `plugin_cache_dir`).
    PluginCache(PathBuf),
    /// It was downloaded from the provider's registry.
    Registry(String),
    /// It was downloaded from a network mirror, at this URL (its user and password hidden).
    NetworkMirror(String),
    /// It was copied or extracted from a filesystem mirror.
    FilesystemMirror(PathBuf),
}

/// An installed provider package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// The provider's address.
    pub source: Provider,
    /// The version installed.
    pub version: Version,
    /// The platform of the package.
    pub platform: Platform,
    /// The unpacked package directory in the cache.
    pub dir: PathBuf,
    /// The provider executable inside `dir`.
    pub executable: PathBuf,
    /// Plugin protocol majors the registry said it speaks (5, 6); empty when the source did not
    /// say (mirrors, caches filled by other tools).
    pub protocols: Vec<u64>,
    /// The `h1:` hash of the package contents.
    pub h1: String,
    /// The `zh:` hash of the zip it came from, when it came from a zip.
    pub zh: Option<String>,
    /// Where the package came from in this call.
    pub origin: Origin,
    /// Warnings from the registry or about the package, for the user.
    pub warnings: Vec<String>,
}
