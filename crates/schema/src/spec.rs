//! The Pulumi package schema types, serialised like Go's `pkg/codegen/schema` structs.
//!
//! Invariant: fields are declared in Go's struct order with Go's `omitempty` rules, and maps
//! are written in key order, as Go writes them (`BTreeMap`s, and [`Properties`], a vector sorted
//! once), so [`crate::to_go_json`] writes the bytes the Go binary writes. `FunctionSpec` is the
//! exception Go makes itself: it marshals through a map, so its keys are sorted, and so is
//! everything under a provider function's `outputs`.
//! [`PackageSpec`] holds its big maps written already ([`Members`]), and is written field by
//! field in `PackageSpec::to_json`, in this same order.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use tfp_cty::NameMap;

use crate::json::Members;

/// The whole package schema (`PackageSpec`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackageSpec {
    pub name: String,
    pub display_name: String,
    pub version: String,
    pub description: String,
    pub keywords: Vec<String>,
    pub license: String,
    pub attribution: String,
    pub repository: String,
    pub logo_url: String,
    pub publisher: String,
    pub meta: Option<MetadataSpec>,
    pub language: Option<Languages>,
    /// Always written, `{}` when empty (Go never omits a struct).
    pub config: ConfigSpec<'static>,
    pub types: Members,
    pub provider: Option<ResourceSpec<'static>>,
    pub resources: Members,
    pub functions: Members,
    pub parameterization: Option<ParameterizationSpec>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataSpec {
    pub module_format: String,
}

/// `config`: Go names its required list `defaults`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ConfigSpec<'a> {
    #[serde(skip_serializing_if = "Properties::is_empty")]
    pub variables: Properties<'a>,
    #[serde(rename = "defaults", skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<Name<'a>>,
}

impl ConfigSpec<'_> {
    /// The same config, owning its names.
    pub fn into_owned(self) -> ConfigSpec<'static> {
        ConfigSpec {
            variables: self.variables.into_owned(),
            required: owned_names(self.required),
        }
    }
}

/// A type reference or inline type (`TypeSpec`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeSpec {
    /// A primitive or `array`/`object` (a name from a fixed set, so never allocated).
    #[serde(rename = "type", skip_serializing_if = "is_empty")]
    pub ty: Cow<'static, str>,
    #[serde(rename = "$ref", skip_serializing_if = "String::is_empty")]
    pub reference: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<Box<TypeSpec>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<TypeSpec>>,
}

impl TypeSpec {
    pub(crate) fn primitive(ty: &'static str) -> TypeSpec {
        TypeSpec {
            ty: Cow::Borrowed(ty),
            ..TypeSpec::default()
        }
    }

    pub(crate) fn reference(reference: String) -> TypeSpec {
        TypeSpec {
            reference,
            ..TypeSpec::default()
        }
    }

    pub(crate) fn array(items: TypeSpec) -> TypeSpec {
        TypeSpec {
            ty: Cow::Borrowed("array"),
            items: Some(Box::new(items)),
            ..TypeSpec::default()
        }
    }

    pub(crate) fn map(values: TypeSpec) -> TypeSpec {
        TypeSpec {
            ty: Cow::Borrowed("object"),
            additional_properties: Some(Box::new(values)),
            ..TypeSpec::default()
        }
    }
}

/// A property (`PropertySpec`): a type plus documentation and flags. Go embeds the
/// `TypeSpec`, so its fields come first, at the same level.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PropertySpec {
    pub ty: TypeSpec,
    pub description: String,
    pub deprecation_message: String,
    pub secret: bool,
}

impl Serialize for PropertySpec {
    /// `TypeSpec`'s fields, then the property's, each under `omitempty`: written field by field
    /// rather than with serde's `flatten`, which writes them as a map's entries, keys escaped
    /// one by one, for the schema's most numerous object.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let ty = &self.ty;
        let (type_, reference) = (!ty.ty.is_empty(), !ty.reference.is_empty());
        let (description, deprecation) = (
            !self.description.is_empty(),
            !self.deprecation_message.is_empty(),
        );
        let (values, items) = (&ty.additional_properties, &ty.items);
        // The number of fields written, as serde's derive counts them.
        let written = [
            type_,
            reference,
            values.is_some(),
            items.is_some(),
            description,
            deprecation,
            self.secret,
        ];
        let len = written.into_iter().filter(|&field| field).count();
        let mut out = serializer.serialize_struct("PropertySpec", len)?;
        if type_ {
            out.serialize_field("type", &ty.ty)?;
        }
        if reference {
            out.serialize_field("$ref", &ty.reference)?;
        }
        if let Some(values) = values {
            out.serialize_field("additionalProperties", values)?;
        }
        if let Some(items) = items {
            out.serialize_field("items", items)?;
        }
        if description {
            out.serialize_field("description", &self.description)?;
        }
        if deprecation {
            out.serialize_field("deprecationMessage", &self.deprecation_message)?;
        }
        if self.secret {
            out.serialize_field("secret", &true)?;
        }
        out.end()
    }
}

/// A property's name: borrowed from the mapping's fields, as nearly every name is, or made here
/// (a provider function's arguments, the `terraformConfig` function's).
pub type Name<'a> = Cow<'a, str>;

/// Properties by name, written as a JSON object in bytewise key order, as Go writes a map.
///
/// A [`NameMap`] (a vector sorted once) rather than a B-tree built entry by entry: most are made
/// in one go from a list of properties, already nearly in order, written once and dropped. The
/// names are borrowed from the mapping, which outlives the package schema's writing, so a
/// property listed in several maps (a resource's outputs, inputs and state) costs no copy of its
/// name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Properties<'a>(NameMap<Arc<PropertySpec>, Name<'a>>);

impl<'a> Properties<'a> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Adds (or replaces) the property `name`.
    pub fn insert(&mut self, name: impl Into<Name<'a>>, spec: Arc<PropertySpec>) {
        self.0.insert(name.into(), spec);
    }

    /// The same properties, owning their names.
    pub fn into_owned(self) -> Properties<'static> {
        (self.0.into_iter())
            .map(|(name, spec)| (Cow::Owned(name.into_owned()), spec))
            .collect()
    }
}

impl<'a> FromIterator<(Name<'a>, Arc<PropertySpec>)> for Properties<'a> {
    /// Like a map collected: of properties with the same name, the last one stays.
    fn from_iter<I: IntoIterator<Item = (Name<'a>, Arc<PropertySpec>)>>(properties: I) -> Self {
        Properties(properties.into_iter().collect())
    }
}

impl<'a, const N: usize> From<[(Name<'a>, Arc<PropertySpec>); N]> for Properties<'a> {
    fn from(properties: [(Name<'a>, Arc<PropertySpec>); N]) -> Self {
        Properties(NameMap::from(properties))
    }
}

impl Serialize for Properties<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(&self.0)
    }
}

/// Names owned, for the few specs kept past the mapping's lifetime.
fn owned_names(names: Vec<Name<'_>>) -> Vec<Name<'static>> {
    names
        .into_iter()
        .map(|name| Cow::Owned(name.into_owned()))
        .collect()
}

/// An object type, a resource's state inputs or a function's inputs (`ObjectTypeSpec`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectTypeSpec<'a> {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Properties::is_empty")]
    pub properties: Properties<'a>,
    #[serde(rename = "type", skip_serializing_if = "is_empty")]
    pub ty: Cow<'static, str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<Name<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<TypeLanguage<'a>>,
}

impl ObjectTypeSpec<'_> {
    /// The same type, owning its names.
    pub fn into_owned(self) -> ObjectTypeSpec<'static> {
        ObjectTypeSpec {
            description: self.description,
            properties: self.properties.into_owned(),
            ty: self.ty,
            required: owned_names(self.required),
            language: self.language.map(|language| TypeLanguage {
                nodejs: NodeRequired {
                    required_inputs: language.nodejs.required_inputs.map(owned_names),
                    required_outputs: language.nodejs.required_outputs.map(owned_names),
                },
            }),
        }
    }
}

/// `language` of a nested type: only the Node.js required lists, when input and output
/// uses of a shared type disagree.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TypeLanguage<'a> {
    pub nodejs: NodeRequired<'a>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRequired<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_inputs: Option<Vec<Name<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_outputs: Option<Vec<Name<'a>>>,
}

/// A resource or the provider (`ResourceSpec`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpec<'a> {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Properties::is_empty")]
    pub properties: Properties<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<Name<'a>>,
    #[serde(skip_serializing_if = "Properties::is_empty")]
    pub input_properties: Properties<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required_inputs: Vec<Name<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_inputs: Option<ObjectTypeSpec<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_inputs: Option<ObjectTypeSpec<'a>>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub methods: BTreeMap<String, String>,
}

impl ResourceSpec<'_> {
    /// The same resource, owning its names.
    pub fn into_owned(self) -> ResourceSpec<'static> {
        ResourceSpec {
            description: self.description,
            properties: self.properties.into_owned(),
            required: owned_names(self.required),
            input_properties: self.input_properties.into_owned(),
            required_inputs: owned_names(self.required_inputs),
            state_inputs: self.state_inputs.map(ObjectTypeSpec::into_owned),
            list_inputs: self.list_inputs.map(ObjectTypeSpec::into_owned),
            deprecation_message: self.deprecation_message,
            methods: self.methods,
        }
    }
}

/// A function (`FunctionSpec`), with its keys in sorted order as Go writes them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionSpec<'a> {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<ObjectTypeSpec<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub multi_argument_inputs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<FunctionOutputs<'a>>,
}

/// `outputs` of a function: a data source's result object, or a provider function's return
/// type (an inline object or a plain type), which Go writes with every key sorted.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FunctionOutputs<'a> {
    Object(ObjectTypeSpec<'a>),
    ReturnType(crate::json::Sorted),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParameterizationSpec {
    pub base_provider: BaseProviderSpec,
    /// The parameter value's JSON bytes, base64 (Go's encoding of `[]byte`).
    pub parameter: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BaseProviderSpec {
    pub name: String,
    pub version: String,
}

/// `language`, keyed by language in sorted order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Languages {
    pub csharp: CSharpLanguage,
    pub go: GoLanguage,
    pub java: JavaLanguage,
    pub nodejs: NodeLanguage,
    pub python: PythonLanguage,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CSharpLanguage {
    pub compatibility: String,
    pub lift_single_value_method_returns: bool,
    pub respect_schema_version: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GoLanguage {
    pub import_base_path: String,
    pub root_package_name: String,
    pub lift_single_value_method_returns: bool,
    pub generate_extra_input_types: bool,
    pub respect_schema_version: bool,
}

/// Java's settings are all empty strings, which Go writes anyway.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JavaLanguage {
    pub base_package: String,
    pub build_files: String,
    pub gradle_nexus_publish_plugin_version: String,
    pub gradle_test: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeLanguage {
    pub package_description: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub readme: String,
    pub compatibility: String,
    pub disable_union_output_types: bool,
    pub lift_single_value_method_returns: bool,
    pub respect_schema_version: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PythonLanguage {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub readme: String,
    pub compatibility: String,
    pub respect_schema_version: bool,
    pub pyproject: PyProject,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PyProject {
    pub enabled: bool,
}

#[expect(
    clippy::ptr_arg,
    reason = "serde's skip_serializing_if hands over a reference to the field"
)]
fn is_empty(text: &Cow<'static, str>) -> bool {
    text.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(text: &str) -> Arc<PropertySpec> {
        Arc::new(PropertySpec {
            description: text.to_owned(),
            ..PropertySpec::default()
        })
    }

    #[test]
    fn properties_are_written_in_key_order_the_last_of_a_name_kept() {
        let mut properties: Properties = [
            ("b".into(), described("first b")),
            ("a".into(), described("a")),
            ("b".into(), described("last b")),
        ]
        .into();
        properties.insert("B", described("upper"));
        properties.insert("a", described("a again"));
        assert!(properties.contains_key("B") && !properties.contains_key("c"));
        let json = crate::to_go_json(&properties).unwrap();
        assert_eq!(
            String::from_utf8(json).unwrap(),
            r#"{"B":{"description":"upper"},"a":{"description":"a again"},"b":{"description":"last b"}}"#
        );
    }

    #[test]
    fn a_property_writes_its_type_fields_first_and_omits_empty_ones() {
        let property = PropertySpec {
            ty: TypeSpec::array(TypeSpec::reference("#/types/x".to_owned())),
            description: "d".to_owned(),
            deprecation_message: "Deprecated".to_owned(),
            secret: true,
        };
        let json = String::from_utf8(crate::to_go_json(&property).unwrap()).unwrap();
        assert_eq!(
            json,
            r##"{"type":"array","items":{"$ref":"#/types/x"},"description":"d","deprecationMessage":"Deprecated","secret":true}"##
        );
        let plain =
            String::from_utf8(crate::to_go_json(&PropertySpec::default()).unwrap()).unwrap();
        assert_eq!(plain, "{}");
    }
}
