//! The Pulumi provider server: serve mode, Parameterize and the provider RPCs.

pub mod args;
pub mod bridge;
pub mod engine;
pub mod serve;
pub mod service;
