//! Terraform's value system, as go-cty defines it, and our model of a Terraform provider schema.
//!
//! Types ([`Type`]) and values ([`Value`]) with their msgpack ([`to_msgpack`], [`from_msgpack`])
//! and JSON ([`to_json`], [`from_json`]) wire forms, byte-compatible with go-cty; the implied type
//! of a schema block ([`Block::implied_type`]); a provider schema in the JSON shape of
//! `terraform providers schema -json` ([`ProviderSchema::to_terraform_json`]).
//!
//! Architecture invariant: this crate is pure. It does no IO, is not async, spawns nothing and
//! knows nothing about gRPC or protobuf; the root package converts wire types into these types
//! in one place. Nothing it decodes can make it panic or allocate without bound.

mod equality;
mod implied;
mod json;
pub mod msgpack;
pub mod name_map;
mod number;
mod path;
mod refinement;
mod schema;
mod schema_json;
mod set_order;
mod ty;
mod type_cache;
mod value;

pub use equality::elements_not_in;
pub use json::{JsonOptions, from_json, from_json_with, to_json};
pub use msgpack::{from_msgpack, from_msgpack_untyped, to_msgpack};
pub use name_map::NameMap;
pub use number::{Number, NumberError};
pub use path::{Error, Path, PathStep};
pub use refinement::{NumberBound, Refinement, RefinementError};
pub use schema::{
    Attribute, AttributeType, Block, Function, IdentityAttribute, IdentitySchema, NestedBlock,
    NestedObject, NestingMode, Parameter, ProviderSchema, Schema, StringKind,
};
pub use ty::{Type, TypeError};
pub use value::{Kind, Value};
