//! Integration tests of tfp-mapping: table tests for every naming rule of
//! bridge-behaviour.md §4, with the examples it gives.

mod fields;
mod fixups;
mod inflector;
mod names;
mod support;
mod tokens;
