//! Terraform's value system, as go-cty defines it, and our model of a Terraform provider schema.
//!
//! Architecture invariant: this crate is pure. It does no IO, is not async, spawns nothing and
//! knows nothing about gRPC or protobuf; the root package converts wire types into these types
//! in one place.

mod schema;
mod ty;

pub use schema::{
    Attribute, AttributeType, Block, Function, NestedBlock, NestedObject, NestingMode, Parameter,
    ProviderSchema, Schema, StringKind,
};
pub use ty::{Type, TypeError};
