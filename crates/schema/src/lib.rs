//! The Pulumi package schema of a Terraform provider, byte for byte as the Go dynamic bridge
//! writes it, plus the parameter value that generated SDKs embed.
//!
//! Architecture invariant: pure (no IO, no async). Its types derive `Serialize` with their fields
//! in Go's order, so [`to_go_json`] writes the Go binary's bytes. It reads names, tokens and
//! shapes from [`tfp_mapping::Mapping`] and never re-derives them.
//!
//! API:
//! - [`package_schema`]`(&Mapping, &ParameterValue, bridge_version) -> Result<PackageSpec, _>`,
//!   then [`PackageSpec::to_json`] for Go's exact compact bytes (what `GetSchema` returns) or
//!   [`PackageSpec::to_value`].
//! - [`unparameterized_schema`]`(bridge_version) -> PackageSpec` before any Parameterize.
//! - [`ParameterValue::parse`] / [`ParameterValue::to_json`] / [`ParameterValue::options`].
//! - [`provider_info::provider_info_json`]`(&Mapping)`: GetMapping's data, the Go bridge's
//!   marshallable ProviderInfo.

pub mod args;
mod docs;
mod error;
mod functions;
mod json;
mod members;
mod package;
mod parameter;
mod props;
pub mod provider_info;
mod spec;
mod text;
mod types;

pub use error::SchemaError;
pub use json::{Sorted, to_go_json};
pub use package::{BASE_PROVIDER, package_schema, unparameterized_schema};
pub use parameter::{ParameterError, ParameterValue, Source};
pub use spec::{
    BaseProviderSpec, CSharpLanguage, ConfigSpec, FunctionOutputs, FunctionSpec, GoLanguage,
    JavaLanguage, Languages, MetadataSpec, NodeLanguage, NodeRequired, ObjectTypeSpec, PackageSpec,
    ParameterizationSpec, PropertySpec, PyProject, PythonLanguage, ResourceSpec, TypeLanguage,
    TypeSpec,
};

impl PackageSpec {
    /// The compact JSON bytes Go's `json.Marshal` writes for this schema.
    pub fn to_json(&self) -> Vec<u8> {
        to_go_json(self).expect("schema types hold only strings, bools, maps and lists")
    }

    /// The schema as a JSON value (object key order is lost).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("schema types hold only strings, bools, maps and lists")
    }
}
