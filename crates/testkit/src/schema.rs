//! Terraform schemas in a line each, so that a test says only what matters to it.

use std::{
    collections::BTreeMap,
    ops::{Bound, RangeBounds},
};

use tfp_cty::{
    Attribute, AttributeType, Block, NestedBlock, NestedObject, NestingMode, ProviderSchema,
    Schema, Type, Value,
};

/// What an attribute is besides its type; combine them with `|`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

/// Neither required, optional nor computed: what an attribute is only inside some tests.
pub const NONE: Flags = Flags(0);
pub const REQUIRED: Flags = Flags(1);
pub const OPTIONAL: Flags = Flags(1 << 1);
pub const COMPUTED: Flags = Flags(1 << 2);
pub const SENSITIVE: Flags = Flags(1 << 3);
pub const DEPRECATED: Flags = Flags(1 << 4);
pub const WRITE_ONLY: Flags = Flags(1 << 5);

impl Flags {
    fn has(self, flag: Flags) -> bool {
        self.0 & flag.0 == flag.0
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;

    fn bitor(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

/// An attribute of type `ty`.
pub fn attr(ty: Type, flags: Flags) -> Attribute {
    Attribute {
        ty: AttributeType::Type(ty),
        required: flags.has(REQUIRED),
        optional: flags.has(OPTIONAL),
        computed: flags.has(COMPUTED),
        sensitive: flags.has(SENSITIVE),
        deprecated: flags.has(DEPRECATED),
        write_only: flags.has(WRITE_ONLY),
        ..Attribute::default()
    }
}

/// An attribute of type `ty` with a description.
pub fn documented(ty: Type, flags: Flags, description: &str) -> Attribute {
    Attribute {
        description: description.to_owned(),
        ..attr(ty, flags)
    }
}

/// A nested attribute (protocol 6) whose object has the attributes of `inner`.
pub fn nested_attr(nesting: NestingMode, inner: Block, flags: Flags) -> Attribute {
    Attribute {
        ty: AttributeType::Nested(NestedObject {
            attributes: inner.attributes,
            nesting,
        }),
        ..attr(Type::String, flags)
    }
}

/// A block with these attributes and nested blocks.
pub fn block(attributes: &[(&str, Attribute)], blocks: &[(&str, NestedBlock)]) -> Block {
    Block {
        attributes: entries(attributes),
        block_types: entries(blocks),
        ..Block::default()
    }
}

/// A nested block of `inner`, with as many items as `items` allows: `..` any number, `..=1` at
/// most one, `1..=1` exactly one, `1..` at least one.
pub fn nested_block(
    nesting: NestingMode,
    items: impl RangeBounds<i64>,
    inner: Block,
) -> NestedBlock {
    // Terraform writes "no bound" as 0 on both ends.
    let min_items = match items.start_bound() {
        Bound::Included(&min) => min,
        Bound::Excluded(&min) => min + 1,
        Bound::Unbounded => 0,
    };
    let max_items = match items.end_bound() {
        Bound::Included(&max) => max,
        Bound::Excluded(&max) => max - 1,
        Bound::Unbounded => 0,
    };
    NestedBlock {
        block: inner,
        nesting,
        min_items,
        max_items,
    }
}

/// A computed-only string `id`, which every protocol-6 resource has, added to `block`.
pub fn with_id(mut block: Block) -> Block {
    if !block.attributes.contains_key("id") {
        block
            .attributes
            .insert("id".to_owned(), attr(Type::String, COMPUTED));
    }
    block
}

/// A provider with these resources and data sources, and an empty configuration.
pub fn provider(resources: &[(&str, Block)], data_sources: &[(&str, Block)]) -> ProviderSchema {
    let schemas = |items: &[(&str, Block)]| {
        items
            .iter()
            .map(|(name, block)| {
                let schema = Schema {
                    version: 0,
                    block: block.clone(),
                };
                ((*name).to_owned(), schema)
            })
            .collect()
    };
    ProviderSchema {
        resources: schemas(resources),
        data_sources: schemas(data_sources),
        ..ProviderSchema::default()
    }
}

/// A value of `block`'s implied type with `attrs` set and everything else absent: null
/// attributes, empty list, set and map blocks, null single blocks.
///
/// # Panics
///
/// If `attrs` names an attribute the block does not have.
pub fn object(block: &Block, attrs: Vec<(&str, Value)>) -> Value {
    let mut values: BTreeMap<String, Value> = BTreeMap::new();
    for (name, attribute) in &block.attributes {
        let ty = match &attribute.ty {
            AttributeType::Type(ty) => ty.clone(),
            AttributeType::Nested(nested) => nested.implied_type(),
        };
        values.insert(name.clone(), Value::null(ty));
    }
    for (name, nested) in &block.block_types {
        let element = nested.block.implied_type();
        let absent = match nested.nesting {
            NestingMode::List => Value::list(element, vec![]),
            NestingMode::Set => Value::set(element, vec![]),
            NestingMode::Map => Value::map(element, BTreeMap::new()),
            NestingMode::Single => Value::null(element),
            NestingMode::Group => object(&nested.block, vec![]),
        };
        values.insert(name.clone(), absent);
    }
    for (name, value) in attrs {
        assert!(values.contains_key(name), "{name} is not in the schema");
        values.insert(name.to_owned(), value);
    }
    Value::object(values)
}

fn entries<T: Clone, M: FromIterator<(String, T)>>(items: &[(&str, T)]) -> M {
    items
        .iter()
        .map(|(name, item)| ((*name).to_owned(), item.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_combine_and_item_ranges_become_terraform_bounds() {
        let a = attr(Type::String, OPTIONAL | COMPUTED | SENSITIVE);
        assert!(a.optional && a.computed && a.sensitive);
        assert!(!a.required && !a.deprecated && !a.write_only);
        let bounds = |b: NestedBlock| (b.min_items, b.max_items);
        let inner = Block::default;
        assert_eq!(bounds(nested_block(NestingMode::List, .., inner())), (0, 0));
        assert_eq!(
            bounds(nested_block(NestingMode::List, ..=1, inner())),
            (0, 1)
        );
        assert_eq!(
            bounds(nested_block(NestingMode::List, 1..=1, inner())),
            (1, 1)
        );
        assert_eq!(
            bounds(nested_block(NestingMode::List, 1.., inner())),
            (1, 0)
        );
        assert_eq!(
            bounds(nested_block(NestingMode::List, 2..5, inner())),
            (2, 4)
        );
    }
}
