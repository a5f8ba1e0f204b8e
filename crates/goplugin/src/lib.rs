//! hashicorp/go-plugin, as Terraform runs its providers. The host side: [`Launch`] spawns a
//! plugin with go-plugin's contract, waits for its handshake line ([`handshake`]), and connects
//! to where it listens ([`connect`]) through AutoMTLS ([`tls`]), giving a gRPC channel, the
//! protocol the plugin chose, and the [`Monitor`] of its process (`child.rs`: drained, watched,
//! reaped, its process group ended with it). [`logs`] turns a plugin's hclog lines into `tracing`
//! events; [`reattach`] reads the variables that point at a plugin someone else runs.
//!
//! [`serve`] is the other side, what a plugin does for its host (handshake, AutoMTLS, go-plugin's
//! `Shutdown`, signals), so that this binary can stand in for a provider (the `replay` and
//! `record` subcommands).
//!
//! Architecture invariant: this crate never sees generated protobuf types; what is said over the
//! channel (tfplugin5 or 6, go-plugin's controller and stdio services) is the caller's. Besides
//! the caller's host module, it is the only code that spawns processes, and no process it spawns
//! outlives the last handle on its [`Monitor`], nor, once [`guard`] is enabled, our own death.

mod child;
pub mod connect;
mod error;
pub mod guard;
pub mod handshake;
mod launch;
pub mod logs;
pub mod reattach;
pub mod serve;
pub mod tls;

pub use child::{ExitReport, Monitor, StdoutHead, kill_all};
pub use error::Error;
pub use launch::{Launch, Launched, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
