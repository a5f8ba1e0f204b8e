//! The Terraform host: launches a Terraform provider the way Terraform does (through
//! `tfp-goplugin`) and talks tfplugin6 to it, whatever protocol it serves.
//!
//! Architecture invariant: with `tfp-goplugin`, this is the only code that spawns processes.
//! Every child is watched by the crate's `Monitor`, drained continuously, shut down (go-plugin
//! `Shutdown`, then kill) by [`Provider::shutdown`], and killed when its [`Provider`] is
//! dropped.

mod client;
mod error;
mod provider;
pub(crate) mod upgrade;

pub use client::{Client, ResponseStream};
pub use error::Error;
pub use provider::Provider;
