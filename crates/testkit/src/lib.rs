//! What the tests of every crate share, so that each exists once: a dev-dependency only.
//!
//! - [`schema`] builds Terraform schemas in a line each: `attr(Type::String, OPTIONAL | COMPUTED)`,
//!   `block(&[("name", attr(..))], &[("rule", nested_block(NestingMode::List, ..=1, inner))])`,
//!   and [`schema::object`] a value of a block's type with only some attributes set.
//! - [`schema_json`] reads a provider schema written as JSON (the Go recorder's form of a
//!   `GetProviderSchema` response, or our fixtures with readable types).
//! - [`fixtures`] finds the real peers that `cargo xtask fixtures` installed.
//! - [`moto`] runs moto, the AWS API, on a port the kernel picked, and configures the AWS
//!   provider for it.
//! - [`processes`] reads what `/proc` tells of processes and connections, and polls for a change
//!   in bounded loops ([`processes::wait_for`], and [`processes::poll_for`] in async tests).
//! - [`gone`] checks that a process has been reaped and a socket removed.
//! - [`files`] waits until files have not changed for a while, as a cache of settled stamps
//!   needs.
//! - [`protobuf`] writes deeply nested protobuf messages byte by byte.
//!
//! It never sees the generated protobuf types: what needs them (launching a provider, plan and
//! apply over its client) stays in the root package's `tests/it/support/`.

pub mod files;
pub mod fixtures;
pub mod gone;
pub mod moto;
pub mod processes;
pub mod protobuf;
pub mod schema;
pub mod schema_json;
