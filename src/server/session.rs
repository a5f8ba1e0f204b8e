//! What one parameterized provider remembers between RPCs: how the engine wants values back
//! (Configure's `acceptSecrets` and `acceptResources`), the last provider configuration, which
//! the `terraformConfig` method returns, and the last configuration the provider validated, so
//! that Configure validates only what CheckConfig did not.
//!
//! Before Configure, responses carry no secrets and no resource references, as in the Go
//! bridge; CheckConfig and Call always keep secrets.

use std::sync::{
    Mutex,
    atomic::{AtomicBool, Ordering},
};

use tfp_values::PropertyMap;

use crate::server::wire::Output;

/// Per-provider state set by CheckConfig and Configure.
#[derive(Debug, Default)]
pub struct Session {
    secrets: AtomicBool,
    resources: AtomicBool,
    config: Mutex<Option<PropertyMap>>,
    /// The wire form of the last configuration ValidateProviderConfig accepted.
    validated: Mutex<Option<Vec<u8>>>,
}

impl Session {
    /// How responses write properties.
    pub fn output(&self) -> Output {
        Output {
            secrets: self.secrets.load(Ordering::Relaxed),
            resources: self.resources.load(Ordering::Relaxed),
        }
    }

    /// Records what Configure's request accepts.
    pub fn accept(&self, secrets: bool, resources: bool) {
        self.secrets.store(secrets, Ordering::Relaxed);
        self.resources.store(resources, Ordering::Relaxed);
    }

    /// Remembers the provider configuration last checked or configured.
    pub fn set_config(&self, config: PropertyMap) {
        *self
            .config
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(config);
    }

    /// Remembers that the provider accepted the configuration whose wire form is `msgpack`.
    pub fn set_validated(&self, msgpack: Vec<u8>) {
        *self
            .validated
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(msgpack);
    }

    /// Whether the provider accepted the configuration whose wire form is `msgpack`, the last
    /// time it validated one.
    pub fn validated(&self, msgpack: &[u8]) -> bool {
        self.validated
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_deref()
            == Some(msgpack)
    }

    /// The provider configuration last checked or configured; empty before either.
    pub fn config(&self) -> PropertyMap {
        self.config
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .unwrap_or_default()
    }
}
