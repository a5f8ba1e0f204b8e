//! Write-only arguments, held in memory from Check to the Create or Update of the same resource.
//!
//! What the engine does (pulumi v3.255.0 `pkg/resource/deploy/step_generator.go`, seen with
//! `PULUMI_DEBUG_GRPC` for up, preview, `up --skip-preview`, refresh, update, both kinds of
//! replace and destroy; README "Write-only arguments" has the table): it stores the inputs Check
//! returns, and sends exactly those as `news` to the Diff, Create and Update of the resource that
//! follow in the same plugin process (a replacement calls Check again, with no old inputs, before
//! its Create). Refresh sends the stored inputs to Read, then diffs the state Read returned
//! against them with no Check; Delete gets the stored state.
//!
//! So Check validates with every value the program gave, takes the write-only ones out of what
//! it returns, and keeps them here by URN; Diff, Create and Update put them back into the
//! configuration the provider plans and applies (a refresh's Diff has none and needs none: it
//! applies nothing). The values never reach the engine's state, and
//! as in Terraform a new write-only value alone changes no plan: the provider plans null for
//! it. A process keeps only the latest values Check saw for each URN, and forgets them after
//! their Create or Update.

use std::{
    collections::HashMap,
    sync::{Mutex, MutexGuard},
};

use tfp_translate::WriteOnly;
use tfp_values::PropertyMap;

use crate::server::resource::Resource;

/// The write-only values Check took out, by URN.
#[derive(Debug, Default)]
pub struct Held {
    by_urn: Mutex<HashMap<String, WriteOnly>>,
}

impl Held {
    /// Checked inputs without their write-only values, which are kept for the resource's URN.
    pub fn take(&self, resource: &Resource<'_>, checked: PropertyMap) -> PropertyMap {
        let (kept, taken) = tfp_translate::take_write_only(&resource.object, checked);
        if !taken.is_empty() {
            tracing::debug!(
                urn = resource.urn,
                "holding write-only arguments {} until the resource is created or updated",
                taken.paths().join(", ")
            );
        }
        self.lock().insert(resource.urn.to_owned(), taken);
        kept
    }

    /// `inputs` with the write-only values Check kept for the resource put back, if it kept any.
    /// Refresh diffs without a Check, and plans rightly without them: nothing to apply.
    pub fn restore(&self, resource: &Resource<'_>, inputs: PropertyMap) -> PropertyMap {
        match self.lock().get(resource.urn) {
            Some(held) => held.restore(inputs),
            None => inputs,
        }
    }

    /// Warns, before a Create or Update, when this plugin never checked the resource: its
    /// write-only arguments then reach the provider as null.
    pub fn warn_unless_checked(&self, resource: &Resource<'_>) {
        if !self.lock().contains_key(resource.urn) && resource.object.has_write_only() {
            tracing::warn!(
                urn = resource.urn,
                "this plugin did not check the resource, so its write-only arguments are sent \
                 to the provider as null"
            );
        }
    }

    /// Drops what was kept for the resource, once it was created or updated.
    pub fn forget(&self, resource: &Resource<'_>) {
        self.lock().remove(resource.urn);
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, WriteOnly>> {
        // Nothing panics while holding the lock, and the map is valid after every statement.
        self.by_urn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
