//! Pulumi names and shapes of properties, level by level: a block, the attributes of a nested
//! attribute object, or the attributes of an object type.
//!
//! Translation walks values with these, schema generation names properties with them, so
//! both agree by construction. Invariants: every Terraform key of a level has exactly one
//! [`Field`]; a Pulumi name that two keys share resolves to the last key in sorted order,
//! which is also the one the package schema shows (Go writes its properties map in that
//! order).

use std::borrow::Cow;
use std::collections::BTreeMap;

use tfp_cty::{
    Attribute, AttributeType, Block, NameMap, NestedBlock, NestedObject, NestingMode, Type,
};

use crate::naming::{Level, Overrides, camel_case_property, property_name};

/// The properties of one level, by Terraform key and by Pulumi name.
///
/// Kept as sorted slices rather than maps: a provider has tens of thousands of levels, most
/// with a handful of keys, and a map node per level cost more memory than the fields in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    by_tf: NameMap<Field>,
    /// Positions in `by_tf` (in key order), sorted by Pulumi name: for a name that several keys
    /// share, the last of those keys only.
    by_pulumi: Box<[u32]>,
}

/// One property: its Pulumi name and the shape of its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The Pulumi property name.
    pub name: String,
    /// Whether the Terraform value is a list or set of at most one element (a block with
    /// `max_items == 1`) that Pulumi shows as that element alone, or null when empty. When
    /// set, `shape` is [`Shape::List`] or [`Shape::Set`].
    pub flatten: bool,
    pub shape: Shape,
}

/// The structure of a value, as far as names are concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A string, number, bool or dynamic value: nothing inside is renamed.
    Scalar,
    List(Box<Shape>),
    Set(Box<Shape>),
    /// A map; its keys are data and are never renamed.
    Map(Box<Shape>),
    Tuple(Vec<Shape>),
    /// An object (block, nested attribute object or object type) with its own fields.
    Object(Fields),
}

impl Fields {
    /// The field of Terraform key `tf_name`.
    pub fn get(&self, tf_name: &str) -> Option<&Field> {
        self.by_tf.get(tf_name)
    }

    /// The Pulumi name of Terraform key `tf_name`: its field's name, or, for a key this level
    /// does not know, the bridge's default (`camelCase`, as Go's `PulumiName` without a
    /// `SchemaInfo`). Every place that names a Terraform key the Pulumi way asks here.
    pub fn pulumi_name(&self, tf_name: &str) -> Cow<'_, str> {
        match self.get(tf_name) {
            Some(field) => Cow::Borrowed(&field.name),
            None => Cow::Owned(camel_case_property(tf_name)),
        }
    }

    /// The Terraform key and field of Pulumi property `name`.
    pub fn by_pulumi(&self, name: &str) -> Option<(&str, &Field)> {
        let entries = self.by_tf.as_slice();
        let at = self
            .by_pulumi
            .binary_search_by(|&at| entries[at as usize].1.name.as_str().cmp(name))
            .ok()?;
        let (key, field) = &entries[self.by_pulumi[at] as usize];
        Some((key, field))
    }

    /// Every (Terraform key, field), in Terraform key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Field)> {
        self.by_tf.iter().map(|(k, f)| (k.as_str(), f))
    }

    pub fn len(&self) -> usize {
        self.by_tf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_tf.is_empty()
    }

    /// The fields of `entries`, each a key of one level and what its field is made from.
    fn build(entries: Vec<(&str, Entry)>, overrides: &Overrides) -> Fields {
        let level = Level::new(
            entries
                .iter()
                .map(|(key, entry)| (*key, entry.pluralizable)),
        );
        let by_tf: NameMap<Field> = entries
            .into_iter()
            .map(|(key, entry)| {
                let Entry {
                    pluralizable,
                    flatten,
                    shape,
                } = entry;
                let name = property_name(key, pluralizable, &level, overrides);
                let field = Field {
                    name,
                    flatten,
                    shape,
                };
                (key.to_owned(), field)
            })
            .collect();
        // Of two entries for one key (an attribute and a block) the later is kept.
        let entries = by_tf.as_slice();
        let name = |at: u32| entries[at as usize].1.name.as_str();
        let mut by_pulumi: Vec<u32> = (0..entries.len() as u32).collect();
        // By name, and for one name the last key first, which `dedup` then keeps.
        by_pulumi.sort_by(|&a, &b| name(a).cmp(name(b)).then(b.cmp(&a)));
        by_pulumi.dedup_by(|a, b| name(*a) == name(*b));
        Fields {
            by_tf,
            by_pulumi: by_pulumi.into_boxed_slice(),
        }
    }

    /// The fields of a block, with explicit names for some keys.
    pub(crate) fn of_block(block: &Block, overrides: &Overrides) -> Fields {
        let attributes = (block.attributes.iter()).map(|(k, a)| (k.as_str(), Entry::attribute(a)));
        let blocks = (block.block_types.iter()).map(|(k, b)| (k.as_str(), Entry::block(b)));
        Fields::build(attributes.chain(blocks).collect(), overrides)
    }

    fn of_nested(object: &NestedObject) -> Fields {
        let entries = (object.attributes.iter()).map(|(k, a)| (k.as_str(), Entry::attribute(a)));
        Fields::build(entries.collect(), &Overrides::new())
    }

    /// The fields of an object type's attributes.
    pub(crate) fn of_object_type(attributes: &BTreeMap<String, Type>) -> Fields {
        let entries = (attributes.iter()).map(|(k, t)| (k.as_str(), Entry::object_attribute(t)));
        Fields::build(entries.collect(), &Overrides::new())
    }
}

/// What a key's field is made from, besides the key.
struct Entry {
    /// Whether the key is a list or set that the bridge pluralises (see `property_name`).
    pluralizable: bool,
    /// [`Field::flatten`].
    flatten: bool,
    shape: Shape,
}

impl Entry {
    /// The entry of an attribute: never flattened.
    fn attribute(attribute: &Attribute) -> Entry {
        Entry {
            pluralizable: attribute_pluralizable(attribute),
            flatten: false,
            shape: attribute_shape(attribute),
        }
    }

    /// The entry of an object type's attribute of type `ty`: never flattened.
    fn object_attribute(ty: &Type) -> Entry {
        Entry {
            pluralizable: type_pluralizable(ty),
            flatten: false,
            shape: type_shape(ty),
        }
    }

    fn block(block: &NestedBlock) -> Entry {
        let (flatten, shape) = block_shape(block);
        Entry {
            pluralizable: block_pluralizable(block),
            flatten,
            shape,
        }
    }
}

/// Lists and sets are pluralised: list and set types and list and set nested attributes
/// (attributes never have `max_items`).
fn attribute_pluralizable(attribute: &Attribute) -> bool {
    match &attribute.ty {
        AttributeType::Type(ty) => type_pluralizable(ty),
        AttributeType::Nested(object) => {
            matches!(object.nesting, NestingMode::List | NestingMode::Set)
        }
    }
}

fn type_pluralizable(ty: &Type) -> bool {
    matches!(ty, Type::List(_) | Type::Set(_))
}

/// List and set blocks are pluralised unless they hold at most one element.
fn block_pluralizable(block: &NestedBlock) -> bool {
    matches!(block.nesting, NestingMode::List | NestingMode::Set) && block.max_items != 1
}

/// The shape of values of type `ty`.
pub fn type_shape(ty: &Type) -> Shape {
    match ty {
        Type::String | Type::Number | Type::Bool | Type::Dynamic => Shape::Scalar,
        Type::List(e) => Shape::List(Box::new(type_shape(e))),
        Type::Set(e) => Shape::Set(Box::new(type_shape(e))),
        Type::Map(e) => Shape::Map(Box::new(type_shape(e))),
        Type::Tuple(es) => Shape::Tuple(es.iter().map(type_shape).collect()),
        Type::Object { attributes, .. } => Shape::Object(Fields::of_object_type(attributes)),
    }
}

fn attribute_shape(attribute: &Attribute) -> Shape {
    match &attribute.ty {
        AttributeType::Type(ty) => type_shape(ty),
        AttributeType::Nested(object) => {
            let element = Shape::Object(Fields::of_nested(object));
            wrap(object.nesting, element)
        }
    }
}

fn block_shape(block: &NestedBlock) -> (bool, Shape) {
    let element = Shape::Object(Fields::of_block(&block.block, &Overrides::new()));
    let flatten = block_flattened(block);
    (flatten, wrap(block.nesting, element))
}

/// Whether a block is shown as its only element (`IsMaxItemsOne`).
pub fn block_flattened(block: &NestedBlock) -> bool {
    matches!(block.nesting, NestingMode::List | NestingMode::Set) && block.max_items == 1
}

fn wrap(nesting: NestingMode, element: Shape) -> Shape {
    match nesting {
        NestingMode::Single | NestingMode::Group => element,
        NestingMode::List => Shape::List(Box::new(element)),
        NestingMode::Set => Shape::Set(Box::new(element)),
        NestingMode::Map => Shape::Map(Box::new(element)),
    }
}
