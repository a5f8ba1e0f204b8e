//! How a Terraform provider maps onto a Pulumi package, exactly as the Go dynamic bridge maps
//! it: package name, tokens, property names, MaxItemsOne flattening, resource IDs and
//! autonaming. Translation, the server and the package schema all read this one mapping.
//!
//! Architecture invariant: this crate is pure (no IO, no async, no processes) and knows
//! nothing about protobuf, serde or the package-schema JSON.
//!
//! API tour:
//! - [`Mapping::new`]`(schema, provider_type, version, options)` builds the mapping at
//!   Parameterize; it fails with the problems Go's `ComputeTokens` would report (a resource
//!   without the prefix, a reserved name with no free replacement…).
//! - [`Mapper`] makes the same mapping in steps, for a caller that holds the blocks one at a
//!   time on several threads: the names first ([`Mapper::new`], [`Mapper::tokens`]), each
//!   block on any thread ([`Mapper::block`]), then the whole ([`Mapper::finish`]). The plugin
//!   maps each block of a provider's answer on the thread that converted it.
//! - Lookups by Terraform name ([`Mapping::resource`], [`Mapping::data_source`],
//!   [`Mapping::function`], [`Mapping::ephemeral_resource`]) and by Pulumi token
//!   ([`Mapping::resource_by_token`], [`Mapping::invoke_by_token`]). Ephemeral resources are
//!   ours: each becomes a function `<pkg>:ephemeral/openX:openX` (see `tokens.rs`).
//! - Per level of properties, [`Fields`] gives each Terraform key's [`Field`] (Pulumi name,
//!   `flatten` for MaxItemsOne blocks, and the [`Shape`] of its value with nested
//!   [`Fields`]), and [`Fields::by_pulumi`] the reverse.
//! - [`ResourceMapping::id`] says where the Pulumi ID comes from ([`IdStrategy`]) and
//!   [`ResourceMapping::autoname`] whether `name` is autonamed.
//! - The naming rules themselves are public for the schema's docs and type names:
//!   [`camel_case_property`], [`camel_case_token`], [`upper_camel_case_token`], and
//!   [`inflector`].
//! - [`parallel::map_with_weights`] spreads a loop over independent members across the cores,
//!   the heaviest first (the mapping's fields, the package schema's modules, the conversion of
//!   the provider's schemas).

pub mod inflector;
pub mod parallel;

mod fields;
mod fixups;
mod mapping;
mod naming;
mod tokens;

pub use fields::{Field, Fields, Shape, block_flattened, type_shape};
pub use fixups::{FixupError, IdStrategy, MISSING_ID, REPORT_URL};
pub use mapping::{
    Argument, AutoName, BlockKind, DataSourceMapping, EphemeralMapping, FunctionMapping, Invoke,
    MappedBlock, MappedBlocks, Mapper, Mapping, MappingError, Options, Problem, ResourceMapping,
    Tokens,
};
pub use naming::{
    camel_case_property, camel_case_token, did_you_mean, edit_distance, upper_camel_case_token,
};
pub use tokens::{EPHEMERAL_MODULE, MODULE, TokenError, infer_prefix};
