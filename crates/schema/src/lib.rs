//! The Pulumi package schema of a Terraform provider, byte for byte as the Go dynamic bridge
//! writes it, plus the parameter value that generated SDKs embed.
//!
//! Architecture invariant: pure (no IO, no async). Its types derive `Serialize` with their fields
//! in Go's order, so [`to_go_json`] writes the Go binary's bytes; [`PackageSpec`] holds its big
//! maps as members written the moment they were made ([`Members`]) and writes its own fields in
//! that order around them. It reads names, tokens and shapes from [`tfp_mapping::Mapping`] and
//! never re-derives them.
//!
//! API:
//! - [`package_schema`]`(&Mapping, &ParameterValue, bridge_version) -> Result<PackageSpec, _>`,
//!   then [`PackageSpec::to_json`] for Go's exact compact bytes, [`PackageSpec::into_json`] for
//!   the same bytes in the pieces they were written in ([`SchemaJson`], what `GetSchema` sends), or
//!   [`PackageSpec::to_value`].
//! - [`unparameterized_schema`]`(bridge_version) -> PackageSpec` before any Parameterize.
//! - [`prepare`]`()`: compiles the patterns generation uses, ahead of the first schema.
//! - [`ParameterValue::parse`] / [`ParameterValue::to_json`] / [`ParameterValue::options`].
//! - [`provider_info::provider_info_json`]`(&Mapping)`: GetMapping's data, the Go bridge's
//!   marshallable ProviderInfo.

use std::borrow::Cow;

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
mod serializer;
mod spec;
mod text;
mod types;

pub use error::SchemaError;
pub use json::{Members, SchemaJson, Sorted, Written, to_go_json};
pub use package::{BASE_PROVIDER, package_schema, unparameterized_schema};
pub use parameter::{ParameterError, ParameterValue, Source};
pub use spec::{
    BaseProviderSpec, CSharpLanguage, ConfigSpec, FunctionOutputs, FunctionSpec, GoLanguage,
    JavaLanguage, Languages, MetadataSpec, Name, NodeLanguage, NodeRequired, ObjectTypeSpec,
    PackageSpec, ParameterizationSpec, Properties, PropertySpec, PyProject, PythonLanguage,
    ResourceSpec, TypeLanguage, TypeSpec,
};

/// Compiles, now, the patterns that making a package schema and its mapping use (the
/// inflector's and the descriptions'), which would otherwise be compiled by the first
/// Parameterize and GetSchema while their callers wait: a few milliseconds of work that the
/// plugin does on a thread of its own while the provider starts. Calling it again costs
/// nothing.
pub fn prepare() {
    tfp_mapping::inflector::prepare();
    docs::prepare();
}

impl PackageSpec {
    /// The compact JSON bytes Go's `json.Marshal` writes for this schema: its fields in Go's
    /// struct order, each omitted where Go's `omitempty` omits it.
    pub fn to_json(&self) -> Vec<u8> {
        let maps = [&self.types, &self.resources, &self.functions].map(Cow::Borrowed);
        self.write(maps).into_bytes()
    }

    /// [`PackageSpec::to_json`]'s bytes as the pieces they are made of: the members written
    /// already are handed over, not copied.
    pub fn into_json(mut self) -> SchemaJson {
        let maps = [&mut self.types, &mut self.resources, &mut self.functions]
            .map(|members| Cow::Owned(std::mem::take(members)));
        self.write(maps)
    }

    /// The schema, with its `types`, `resources` and `functions` taken from `maps`.
    fn write(&self, maps: [Cow<'_, Members>; 3]) -> SchemaJson {
        self.try_write(maps)
            .expect("schema types hold only strings, bools, maps and lists")
    }

    fn try_write(&self, maps: [Cow<'_, Members>; 3]) -> Result<SchemaJson, serde_json::Error> {
        let mut out = json::ObjectWriter::for_maps(&maps);
        let [types, resources, functions] = maps;
        out.field("name", &self.name)?;
        out.text("displayName", &self.display_name)?;
        out.text("version", &self.version)?;
        out.text("description", &self.description)?;
        if !self.keywords.is_empty() {
            out.field("keywords", &self.keywords)?;
        }
        out.text("license", &self.license)?;
        out.text("attribution", &self.attribution)?;
        out.text("repository", &self.repository)?;
        out.text("logoUrl", &self.logo_url)?;
        out.text("publisher", &self.publisher)?;
        if let Some(meta) = &self.meta {
            out.field("meta", meta)?;
        }
        if let Some(language) = &self.language {
            out.field("language", language)?;
        }
        out.field("config", &self.config)?;
        out.members("types", types);
        if let Some(provider) = &self.provider {
            out.field("provider", provider)?;
        }
        out.members("resources", resources);
        out.members("functions", functions);
        if let Some(parameterization) = &self.parameterization {
            out.field("parameterization", parameterization)?;
        }
        Ok(out.finish())
    }

    /// The schema as a JSON value (object key order is lost).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::from_slice(&self.to_json()).expect("the schema writer writes JSON")
    }
}
