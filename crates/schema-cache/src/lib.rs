//! The persistent schema cache: a provider's Terraform schema and the package schema made from
//! it, kept on disk after the first Parameterize so that later ones answer Parameterize and
//! GetSchema without launching the provider.
//!
//! `key` says what an entry is valid for, `entry` is its byte layout, `store` the files.

mod entry;
mod key;
mod store;

pub use entry::{Entry, EntryError, Parts};
pub use key::{Content, Key, Parameters, Plugin};
pub use store::{SWITCH, SchemaCache};
