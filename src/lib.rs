//! The Pulumi resource provider that runs Terraform and OpenTofu providers.
//!
//! See `ARCHITECTURE.md` for the map of this crate and the workspace.

pub mod cli;
pub mod host;
pub mod proto;
pub mod recording;
pub mod server;
pub mod tfschema;

/// Our version, as `GetPluginInfo` reports it before Parameterize.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
