//! The Pulumi provider server: serve mode, Parameterize and the provider RPCs.

pub mod bridge;
pub mod check;
pub mod config;
pub mod diagnostics;
pub mod diff;
pub mod engine;
pub mod ephemeral;
pub mod error;
pub mod identity;
pub mod invoke;
pub mod lifecycle;
pub mod list;
pub mod mapping_info;
pub mod partial;
pub mod read;
pub mod resource;
pub mod schema;
pub mod serve;
pub mod service;
pub mod session;
pub mod wire;
pub mod write_only;

/// The data behind `mutex`. Nothing in the plugin panics while holding one of its locks, and the
/// data is valid after every statement, so a poisoned lock is used as it is.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
