//! Translation between Pulumi property values and Terraform's cty values, guided by the
//! mapping; Terraform's proposed new state; the bridge's `__meta` and raw-state delta.
//!
//! API tour:
//! - [`ObjectSchema`] names what is translated: a resource, a data source, an ephemeral
//!   resource or the provider configuration (a schema block with the mapping's [`tfp_mapping::Fields`]).
//! - [`properties_to_cty`] and [`cty_to_properties`] translate whole objects both ways
//!   (names, MaxItemsOne, secrets, unknowns, coercions, dynamic values; the rules are in
//!   `src/encode.rs` and `src/decode.rs`); [`Mode`] says what the encoding is for (configuration,
//!   an apply or a state: the last two refuse unknowns), and an error quotes [`REDACTED`] where
//!   the value is secret; [`mark_secrets`] marks sensitive inputs secret;
//!   [`property_path`] names a Terraform attribute path the Pulumi way for check failures,
//!   which [`failures`] words as the Go bridge does.
//! - Provider configuration: [`unfold_config`] and [`fold_config`] (the JSON-in-strings
//!   config encoding), [`terraform_config`] (the `terraformConfig` method's result),
//!   [`legacy_config`] (Configure's deprecated `variables`), [`config_key_renames`] (Pulumi names
//!   for Terraform's in a provider's messages).
//! - Provider functions: [`function_call`] and [`function_result`].
//! - [`proposed_new_state`] computes PlanResourceChange's proposed new state; [`detailed`]
//!   names every change between the prior and the planned state the Pulumi way.
//! - Write-only arguments: [`take_write_only`] takes their values out of properties and
//!   [`WriteOnly::restore`] puts them back, so that they reach the provider but never state.
//! - [`autoname`] fills in a resource's `name` as the Go bridge does, random suffix included.
//! - What Read and the RPCs answer besides the translation: [`refreshed_inputs`] and
//!   [`imported_inputs`] (the inputs next to the outputs), [`annotate_secrets`] and
//!   [`all_secret`] (secrets marked as the engine would mark a plugin's answers).
//! - [`resource_id`] computes a resource's Pulumi ID from its outputs; [`ListPage`] says which
//!   listed resources one List call returns.
//! - [`Meta`] reads and writes `__meta`, with the identity [`stored_identity`] makes;
//!   [`import_identity`] reads an import ID that is an identity; [`raw_state_delta`] computes
//!   `__pulumi_raw_state_delta` and [`recover_raw_state`] rebuilds the raw state from it.
//!
//! Architecture invariant: this crate is pure. It does no IO, is not async, spawns nothing and
//! knows nothing about protobuf. Nothing it is given can make it panic; errors name the Pulumi
//! property path.

mod annotate;
mod autoname;
mod config;
mod decode;
pub mod detailed;
mod dynamic;
mod encode;
mod error;
pub mod failures;
mod function;
mod identity;
mod inputs;
mod list_page;
mod meta;
mod number;
mod paths;
mod proposed;
mod rawstate;
mod resource_id;
mod schema;
mod secrets;
mod write_only;

pub use annotate::{all_secret, annotate_secrets};
pub use autoname::{AutonameError, Autonaming, autoname, seed_key};
pub use config::{config_key_renames, fold_config, legacy_config, terraform_config, unfold_config};
pub use decode::cty_to_properties;
pub use encode::{Mode, REDACTED, properties_to_cty};
pub use error::{Error, Result};
pub use function::{Failure, FunctionCall, RESULT_PROPERTY, function_call, function_result};
pub use identity::{ImportIdentityError, import_identity, stored_identity};
pub use inputs::{imported_inputs, refreshed_inputs};
pub use list_page::{ContinuationTokenError, ListPage};
pub use meta::{META_KEY, Meta, StoredIdentity};
pub use paths::property_path;
pub use proposed::proposed_new_state;
pub use rawstate::{
    RAW_STATE_DELTA_KEY, raw_state_delta, raw_state_delta_and_raw, raw_state_from_properties,
    recover_raw_state,
};
pub use resource_id::{ResourceId, ResourceIdError, resource_id};
pub use schema::ObjectSchema;
pub use secrets::mark_secrets;
pub use write_only::{WriteOnly, null_write_only, take_write_only};
