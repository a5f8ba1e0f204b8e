//! The Terraform host: launches a Terraform provider the way Terraform does and talks
//! tfplugin6 to it, whatever protocol it serves.
//!
//! Architecture invariant: this is the only module that spawns processes. Every child is
//! watched by [`child`], drained continuously, and shut down (go-plugin `Shutdown`, then kill)
//! when its [`Provider`] is shut down or dropped.

mod child;
mod client;
mod connect;
mod error;
pub mod goplugin;
pub mod handshake;
mod launch;
pub mod logs;
mod provider;
pub mod reattach;
mod tls;
pub(crate) mod upgrade;

pub use child::{ExitReport, kill_all};
pub use client::{Client, Observer, ResponseStream, StreamObserver};
pub use error::Error;
pub use launch::Launch;
pub(crate) use launch::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
pub use provider::Provider;
