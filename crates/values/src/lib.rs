//! Pulumi property values and their `google.protobuf.Struct` codec.
//!
//! The engine sends and receives resource properties as Structs in which secrets, unknowns,
//! assets, archives, resource references and output values are encoded with magic strings
//! ([`sig`]). This crate models those values ([`PropertyValue`]) and converts both ways under
//! [`Options`] that mirror Pulumi's `MarshalOptions`. What the engine's Diff needs of them lives
//! here too: [`detailed_diff`] of two property maps (with [`DiffKind`], the engine's kinds of
//! change) and [`apply_ignore_changes`]. [`Urn`] splits a resource URN into its type token and name.
//!
//! Architecture invariant: this crate is pure. It does no IO, is not async, and depends only on
//! `prost-types` for the two well-known types it converts and `base64` for byte strings. No input can make it panic, recursion
//! is bounded by [`Options::max_depth`], and errors name the property path.

mod asset;
mod decode;
mod diff;
mod encode;
mod error;
mod ignore;
mod options;
pub mod property_path;
pub mod sig;
mod special;
mod urn;
mod value;

pub use asset::{Archive, ArchiveMember, ArchiveSource, Asset, AssetSource};
pub use decode::{struct_to_properties, value_to_property};
pub use diff::{DetailedDiff, DiffKind, detailed_diff};
pub use encode::{properties_to_struct, property_to_value};
pub use error::{Error, ErrorKind, Result};
pub use ignore::{IgnoreChangesError, apply_ignore_changes};
pub use options::{DEFAULT_MAX_DEPTH, Options};
pub use urn::Urn;
pub use value::{
    OutputValue, PropertyMap, PropertyValue, ReferenceId, ResourceReference, UnknownKind,
};
