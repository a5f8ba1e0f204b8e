//! Integration tests of tfp-mapping: table tests for every naming rule of the Go bridge
//! (pulumi-terraform-bridge `pkg/tfbridge/tokens/`, `pkg/tfbridge/internal/naming/naming.go` and
//! `dynamic/info.go`), with the examples its own tests give.

mod fields;
mod fixups;
mod inflector;
mod names;
mod support;
mod tokens;
