//! Our model of a Terraform provider schema: what `GetProviderSchema` describes, free of
//! protobuf types.
//!
//! The root package fills it from tfplugin6 messages (tfplugin5 ones are upgraded first);
//! the mapping, package-schema and translation crates read it. Attributes and nested blocks
//! are kept by name in name order ([`NameMap`]), so everything derived from a schema is
//! deterministic whatever order the provider sent.

use std::collections::BTreeMap;

use crate::Type;
use crate::name_map::NameMap;

/// Everything a provider declares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderSchema {
    pub provider: Schema,
    pub provider_meta: Option<Schema>,
    pub resources: BTreeMap<String, Schema>,
    pub data_sources: BTreeMap<String, Schema>,
    pub ephemeral_resources: BTreeMap<String, Schema>,
    pub list_resources: BTreeMap<String, Schema>,
    pub functions: BTreeMap<String, Function>,
}

/// The schema of a provider configuration, resource, data source or ephemeral resource.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// The schema version; stored with state so that the provider can upgrade it.
    pub version: i64,
    pub block: Block,
}

/// How descriptions are formatted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StringKind {
    #[default]
    Plain,
    Markdown,
}

/// A configuration block: attributes and nested blocks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub attributes: NameMap<Attribute>,
    pub block_types: NameMap<NestedBlock>,
    pub description: String,
    pub description_kind: StringKind,
    pub deprecated: bool,
    pub deprecation_message: String,
}

impl Block {
    /// How many attributes and nested blocks the block holds, at every depth: an estimate of
    /// the work it takes to map and to write, so that the largest are started first.
    pub fn size(&self) -> usize {
        let attributes: usize = self.attributes.values().map(Attribute::size).sum();
        let blocks: usize = self.block_types.values().map(|b| 1 + b.block.size()).sum();
        attributes + blocks
    }
}

/// The type of an attribute: a cty type, or (protocol 6 only) nested attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeType {
    Type(Type),
    Nested(NestedObject),
}

impl Default for AttributeType {
    fn default() -> Self {
        AttributeType::Type(Type::Dynamic)
    }
}

/// One attribute of a block or nested object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attribute {
    pub ty: AttributeType,
    pub description: String,
    pub description_kind: StringKind,
    pub required: bool,
    pub optional: bool,
    pub computed: bool,
    pub sensitive: bool,
    pub deprecated: bool,
    pub deprecation_message: String,
    /// Present in configuration only; always null in plans and state (protocol 6.8).
    pub write_only: bool,
}

impl Attribute {
    /// The attribute and its nested attributes, at every depth (see [`Block::size`]).
    fn size(&self) -> usize {
        1 + match &self.ty {
            AttributeType::Type(_) => 0,
            AttributeType::Nested(object) => object.attributes.values().map(Attribute::size).sum(),
        }
    }
}

/// Nested attributes (protocol 6 `Schema.Object`).
#[derive(Clone, Debug, PartialEq)]
pub struct NestedObject {
    pub attributes: NameMap<Attribute>,
    /// Never [`NestingMode::Group`], which only blocks have.
    pub nesting: NestingMode,
}

/// A nested block type.
#[derive(Clone, Debug, PartialEq)]
pub struct NestedBlock {
    pub block: Block,
    pub nesting: NestingMode,
    pub min_items: i64,
    pub max_items: i64,
}

/// How a nested block or nested object repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NestingMode {
    /// At most one, null when absent.
    Single,
    /// Exactly one, never null: absent means all its attributes are null.
    Group,
    List,
    Set,
    /// Keyed by the block label.
    Map,
}

/// A provider-defined function (protocol 5.5 and 6.5).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub parameters: Vec<Parameter>,
    pub variadic_parameter: Option<Parameter>,
    pub return_type: Type,
    pub summary: String,
    pub description: String,
    pub description_kind: StringKind,
    pub deprecation_message: String,
}

/// One function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub ty: Type,
    pub allow_null_value: bool,
    pub allow_unknown_values: bool,
    pub description: String,
    pub description_kind: StringKind,
}

/// The identity of a managed resource (protocol 5.9 and 6.9): a flat object of attributes,
/// versioned apart from the resource's schema (`GetResourceIdentitySchemas`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdentitySchema {
    /// Stored with the identity, so that the provider can upgrade it.
    pub version: i64,
    pub attributes: BTreeMap<String, IdentityAttribute>,
}

/// One attribute of a resource identity.
#[derive(Clone, Debug, PartialEq)]
pub struct IdentityAttribute {
    pub ty: Type,
    /// An import by identity must give it.
    pub required_for_import: bool,
    /// An import by identity may give it.
    pub optional_for_import: bool,
    pub description: String,
}

impl IdentitySchema {
    /// The object type of an identity.
    pub fn implied_type(&self) -> Type {
        Type::object(
            self.attributes
                .iter()
                .map(|(name, attribute)| (name.clone(), attribute.ty.clone())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute(ty: AttributeType) -> Attribute {
        Attribute {
            ty,
            ..Attribute::default()
        }
    }

    #[test]
    fn a_blocks_size_counts_attributes_and_blocks_at_every_depth() {
        let nested_object = AttributeType::Nested(NestedObject {
            attributes: [("a", Type::String), ("b", Type::Number)]
                .into_iter()
                .map(|(name, ty)| (name.to_owned(), attribute(AttributeType::Type(ty))))
                .collect(),
            nesting: NestingMode::List,
        });
        let inner = Block {
            attributes: [("x".to_owned(), attribute(AttributeType::Type(Type::Bool)))]
                .into_iter()
                .collect(),
            ..Block::default()
        };
        let block = Block {
            attributes: [
                (
                    "plain".to_owned(),
                    attribute(AttributeType::Type(Type::String)),
                ),
                ("object".to_owned(), attribute(nested_object)),
            ]
            .into_iter()
            .collect(),
            block_types: [(
                "inner".to_owned(),
                NestedBlock {
                    block: inner,
                    nesting: NestingMode::Set,
                    min_items: 0,
                    max_items: 0,
                },
            )]
            .into_iter()
            .collect(),
            ..Block::default()
        };
        // plain 1, object 1 + its 2, inner 1 + its 1.
        assert_eq!(block.size(), 6);
        assert_eq!(Block::default().size(), 0);
    }
}
