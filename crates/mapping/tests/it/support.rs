//! Small builders for Terraform schemas, so that tests say only what matters.

use std::collections::BTreeMap;

use tfp_cty::{
    Attribute, AttributeType, Block, NestedBlock, NestedObject, NestingMode, ProviderSchema,
    Schema, Type,
};
use tfp_mapping::{Mapping, Options};

pub(crate) fn attr(ty: Type, flags: &str) -> Attribute {
    Attribute {
        ty: AttributeType::Type(ty),
        required: flags.contains('r'),
        optional: flags.contains('o'),
        computed: flags.contains('c'),
        sensitive: flags.contains('s'),
        ..Attribute::default()
    }
}

pub(crate) fn nested(nesting: NestingMode, attributes: Block, flags: &str) -> Attribute {
    Attribute {
        ty: AttributeType::Nested(NestedObject {
            attributes: attributes.attributes,
            nesting,
        }),
        ..attr(Type::String, flags)
    }
}

pub(crate) fn block(attributes: &[(&str, Attribute)], blocks: &[(&str, NestedBlock)]) -> Block {
    Block {
        attributes: attributes
            .iter()
            .map(|(k, a)| ((*k).to_owned(), a.clone()))
            .collect(),
        block_types: blocks
            .iter()
            .map(|(k, b)| ((*k).to_owned(), b.clone()))
            .collect(),
        ..Block::default()
    }
}

pub(crate) fn nested_block(nesting: NestingMode, max_items: i64, inner: Block) -> NestedBlock {
    NestedBlock {
        block: inner,
        nesting,
        min_items: 0,
        max_items,
    }
}

/// A computed-only string `id`, which every protocol-6 test resource has.
pub(crate) fn with_id(mut b: Block) -> Block {
    b.attributes
        .entry("id".to_owned())
        .or_insert_with(|| attr(Type::String, "c"));
    b
}

pub(crate) fn provider(
    resources: &[(&str, Block)],
    data_sources: &[(&str, Block)],
) -> ProviderSchema {
    let schemas = |items: &[(&str, Block)]| -> BTreeMap<String, Schema> {
        items
            .iter()
            .map(|(k, b)| {
                (
                    (*k).to_owned(),
                    Schema {
                        version: 0,
                        block: b.clone(),
                    },
                )
            })
            .collect()
    };
    ProviderSchema {
        resources: schemas(resources),
        data_sources: schemas(data_sources),
        ..ProviderSchema::default()
    }
}

pub(crate) fn map(schema: ProviderSchema, provider_type: &str, options: Options) -> Mapping {
    Mapping::new(schema, provider_type, "1.0.0", options).expect("the mapping builds")
}
