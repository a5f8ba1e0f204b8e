//! Provider installation at OpenTofu parity: source addresses, version constraints, registry
//! discovery and download, checksum and signature verification, the local cache, mirrors and
//! credentials.
//!
//! The binary calls [`Installer::from_env`] and then [`Installer::install`] (or
//! [`Installer::install_str`] with the user's strings):
//!
//! ```ignore
//! let installer = tfp_registry::Installer::from_env()?;
//! let got = installer.install_str("hashicorp/random", "~> 3.6").await?;
//! println!("{} {} {} {:?}", got.executable.display(), got.version, got.h1, got.zh);
//! ```
//!
//! Tests build [`Settings`] from an explicit [`Environment`] instead, and may adjust its fields.
//! This file only declares modules and re-exports the public API.

mod address;
mod cache;
mod cliconfig;
mod constraint;
mod credentials;
mod discovery;
mod env;
mod error;
mod hash;
mod hcl;
mod hostname;
mod http;
mod identity;
mod installed;
mod installer;
mod local;
mod lock;
mod mirror;
mod platform;
mod progress;
mod registry;
mod settings;
mod signature;
mod source;
mod unzip;
mod verify;
mod version;

pub use address::{AddressError, DEFAULT_HOST, Provider};
pub use cliconfig::{CliConfig, ConfigError};
pub use constraint::{ConstraintError, Constraints};
pub use credentials::Credentials;
pub use env::Environment;
pub use error::{Error, Result};
pub use hash::{EMPTY_H1, h1_dir, zh_file};
pub use hostname::{Hostname, HostnameError, PartError};
pub use identity::{Digests, SETTLE, Stamp};
pub use installed::{Installed, Origin};
pub use installer::Installer;
pub use local::{LocalNameError, go_local_provider_type, local_provider_type};
pub use platform::Platform;
pub use progress::ProgressMode;
pub use settings::{Settings, TERRAFORM_VERSION, cache_dir};
pub use signature::SignatureError;
pub use source::{Location, Method, Pattern, PatternError};
pub use unzip::{ExtractError, Limits};
pub use version::{Version, VersionError};
