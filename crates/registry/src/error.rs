//! The errors of provider installation.
//!
//! Invariant: every variant says what was being done, on which provider, host or file, and, where
//! the user can act, what to do; causes are chained through `#[source]`, never repeated in the
//! message.

use std::{io, path::PathBuf};

use tfp_echo::quoted;

use crate::{
    address::AddressError, cliconfig::ConfigError, constraint::ConstraintError,
    signature::SignatureError, unzip::ExtractError,
};

/// A failure to resolve, download, verify or install a provider.
///
/// Providers, versions and hosts are carried in their display form, which keeps the type small
/// enough to return by value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The source address could not be parsed.
    #[error("invalid provider source {}", quoted(.input))]
    Address {
        /// What was given.
        input: String,
        /// OpenTofu's explanation.
        #[source]
        source: AddressError,
    },
    /// The version constraint could not be parsed.
    #[error(transparent)]
    Constraint(#[from] ConstraintError),
    /// The CLI configuration could not be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The home directory is needed and unknown.
    #[error("cannot find the home directory; set HOME or PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR")]
    NoHome,
    /// The plugin cache's path names something that is not a directory.
    #[error(
        "the plugin cache {} is not a directory; move it away, or point \
         PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR at a directory",
        path.display()
    )]
    CacheNotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// The HTTP client could not be built (for example, a bad CA certificate).
    #[error("cannot set up the HTTPS client: {reason}")]
    HttpSetup {
        /// What went wrong.
        reason: String,
    },
    /// Service discovery on the host failed at the network level.
    #[error("could not connect to {host}: {reason}")]
    HostUnreachable {
        /// The registry host.
        host: String,
        /// What went wrong.
        reason: String,
    },
    /// The host answers but offers no provider registry.
    #[error("host {host} does not offer a OpenTofu provider registry")]
    NoProviderRegistry {
        /// The registry host.
        host: String,
    },
    /// The host offers only another version of the provider registry protocol.
    #[error(
        "host {host} does not support the provider registry protocol required by this OpenTofu version, but may be compatible with a different OpenTofu version"
    )]
    OtherRegistryVersion {
        /// The registry host.
        host: String,
    },
    /// The server refused us without credentials.
    #[error(
        "host {host} requires authentication credentials; set TF_TOKEN_{env_name} or add a credentials block for it to the CLI configuration"
    )]
    CredentialsRequired {
        /// The host that refused.
        host: String,
        /// The environment variable name suffix for the host.
        env_name: String,
    },
    /// The server refused the credentials we sent.
    #[error("host {host} rejected the given authentication credentials")]
    CredentialsRejected {
        /// The host that refused.
        host: String,
    },
    /// The registry does not know the provider (404 on the version list).
    #[error("provider registry {host} does not have a provider named {provider}")]
    ProviderNotKnown {
        /// The registry host, for display.
        host: String,
        /// The provider.
        provider: String,
    },
    /// No installation method has the provider.
    #[error("provider {provider} was not found in any of the search locations: {locations}")]
    ProviderNotFound {
        /// The provider.
        provider: String,
        /// The places that were searched, for display.
        locations: String,
    },
    /// No available version meets the constraint.
    #[error(
        "no available version of {provider} matches the constraint {} (available: {available})",
        quoted(.constraint)
    )]
    NoMatchingVersion {
        /// The provider.
        provider: String,
        /// The constraint as written.
        constraint: String,
        /// The versions that exist, newest first, for display.
        available: String,
    },
    /// The version exists but not for this platform.
    #[error(
        "provider {provider} {version} is not available for {platform}; an earlier version may be: \
         ask for one with a version constraint"
    )]
    PlatformNotSupported {
        /// The provider.
        provider: String,
        /// The version.
        version: String,
        /// The platform asked for.
        platform: String,
    },
    /// The package speaks only plugin protocols we cannot run.
    #[error(
        "provider {provider} {version} is not supported by this version of OpenTofu: it offers plugin protocols {protocols} and only 5 and 6 are supported{suggestion}"
    )]
    ProtocolNotSupported {
        /// The provider.
        provider: String,
        /// The version.
        version: String,
        /// The protocols it offers, for display.
        protocols: String,
        /// A hint naming a newer compatible version, or empty.
        suggestion: String,
    },
    /// A registry or mirror query failed (bad status, bad JSON, bad URL).
    #[error("could not query {place} for {provider}: {reason}")]
    QueryFailed {
        /// `"provider registry"` or `"provider mirror <url>"`.
        place: String,
        /// The provider.
        provider: String,
        /// What went wrong.
        reason: String,
    },
    /// The package download failed.
    #[error("failed to download {url}: {reason}")]
    Download {
        /// The package URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The package failed a checksum check.
    #[error("provider {provider} {version} failed verification: {reason}")]
    Checksum {
        /// The provider.
        provider: String,
        /// The version.
        version: String,
        /// What did not match.
        reason: String,
    },
    /// The signature over SHA256SUMS did not verify.
    #[error("provider {provider} {version} failed signature verification")]
    Signature {
        /// The provider.
        provider: String,
        /// The version.
        version: String,
        /// OpenTofu's explanation.
        #[source]
        source: SignatureError,
    },
    /// The zip could not be extracted.
    #[error("cannot extract the package of {provider} {version}")]
    Extract {
        /// The provider.
        provider: String,
        /// The version.
        version: String,
        /// What was wrong with the archive.
        #[source]
        source: ExtractError,
    },
    /// The package has no `terraform-provider-<type>` file.
    #[error(
        "the package of {provider} {version} has no executable: could not find executable file starting with terraform-provider-{kind}"
    )]
    NoExecutable {
        /// The provider.
        provider: String,
        /// The version.
        version: String,
        /// The provider type.
        kind: String,
    },
    /// A file operation in the cache or a mirror failed.
    #[error("{action} {path}")]
    Io {
        /// What was being done, for example "cannot create".
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
}

impl Error {
    /// Builds an [`Error::Io`].
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// Whether this error means "this source does not have it", so that the next source may be
    /// asked (getproviders `MultiSource`).
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(
            self,
            Error::ProviderNotKnown { .. }
                | Error::ProviderNotFound { .. }
                | Error::PlatformNotSupported { .. }
        )
    }
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
