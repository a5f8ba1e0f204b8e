//! Integration tests of tfp-schema: conformance with the Go binary's schemas, metaschema
//! validation, and table tests for the naming and description rules of the Go bridge's schema
//! generator (pulumi-terraform-bridge `pkg/tfgen/generate_schema.go` and `pkg/tfgen/docs.go`).

mod conformance;
mod docs;
mod functions;
mod metaschema;
mod nesting;
mod parameter;
mod provider_info;
mod support;
