//! Integration tests of tfp-schema: conformance with the Go binary's schemas, metaschema
//! validation, and table tests for the naming and description rules of
//! bridge-behaviour.md §4.

mod conformance;
mod docs;
mod functions;
mod metaschema;
mod nesting;
mod parameter;
mod support;
