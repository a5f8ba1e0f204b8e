//! Walking a Terraform schema together with the Pulumi names the mapping gives it.
//!
//! [`ObjectSchema`] is the entry point: a block (resource, data source, provider configuration)
//! with its [`Fields`]. [`Node`] is one position inside it and [`Child`] one property of an
//! object position, with its Pulumi name, whether it is flattened (MaxItemsOne) and whether it
//! is sensitive. Every translation in this crate walks values with these, so names, flattening
//! and secrecy are decided in one place. Invariant: the mapping's fields were built from the same
//! schema; should a key be missing anyway, its name falls back to the bridge's default camel
//! case rather than failing.

use std::borrow::Cow;
use std::sync::LazyLock;

use tfp_cty::{Attribute, AttributeType, Block, NestedBlock, NestedObject, NestingMode, Type};
use tfp_mapping::{Fields, Mapping, Shape};

/// The fields of a level the mapping knows nothing about.
pub(crate) static NO_FIELDS: LazyLock<Fields> = LazyLock::new(Fields::default);
static SCALAR: Shape = Shape::Scalar;

/// The schema of a Terraform object and the Pulumi names of its properties: a resource, a data
/// source or the provider configuration (the Go bridge's `convert.ObjectSchema`).
#[derive(Clone, Copy, Debug)]
pub struct ObjectSchema<'a> {
    pub block: &'a Block,
    pub fields: &'a Fields,
}

impl<'a> ObjectSchema<'a> {
    pub fn new(block: &'a Block, fields: &'a Fields) -> ObjectSchema<'a> {
        ObjectSchema { block, fields }
    }

    /// The mapped resource of Terraform type `tf_name`.
    pub fn resource(mapping: &'a Mapping, tf_name: &str) -> Option<ObjectSchema<'a>> {
        let fields = &mapping.resource(tf_name)?.fields;
        let block = &mapping.schema().resources.get(tf_name)?.block;
        Some(ObjectSchema { block, fields })
    }

    /// The mapped data source of Terraform type `tf_name`.
    pub fn data_source(mapping: &'a Mapping, tf_name: &str) -> Option<ObjectSchema<'a>> {
        let fields = &mapping.data_source(tf_name)?.fields;
        let block = &mapping.schema().data_sources.get(tf_name)?.block;
        Some(ObjectSchema { block, fields })
    }

    /// The mapped ephemeral resource of Terraform type `tf_name`.
    pub fn ephemeral(mapping: &'a Mapping, tf_name: &str) -> Option<ObjectSchema<'a>> {
        let fields = &mapping.ephemeral_resource(tf_name)?.fields;
        let block = &mapping.schema().ephemeral_resources.get(tf_name)?.block;
        Some(ObjectSchema { block, fields })
    }

    /// The provider configuration.
    pub fn config(mapping: &'a Mapping) -> ObjectSchema<'a> {
        ObjectSchema {
            block: &mapping.schema().provider.block,
            fields: mapping.config(),
        }
    }

    /// Whether any attribute of the object, at any depth, is write-only.
    pub fn has_write_only(&self) -> bool {
        any_write_only(self.node())
    }

    /// The wire type of the object (the block's implied type).
    pub fn implied_type(&self) -> Type {
        self.block.implied_type()
    }

    pub(crate) fn node(&self) -> Node<'a> {
        Node::Block(self.block, self.fields)
    }
}

fn any_write_only(node: Node<'_>) -> bool {
    match node {
        Node::Blocks(..)
        | Node::Objects(..)
        | Node::Type(Type::List(_) | Type::Set(_) | Type::Map(_), _) => {
            any_write_only(node.element())
        }
        _ => node
            .children()
            .iter()
            .any(|child| child.write_only || any_write_only(child.node)),
    }
}

/// One position in a schema.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node<'a> {
    /// The object of a block.
    Block(&'a Block, &'a Fields),
    /// One object of nested attributes.
    Attributes(&'a tfp_cty::NameMap<Attribute>, &'a Fields),
    /// The value of a nested block type: one block, or a list, set or map of them.
    Blocks(&'a NestedBlock, &'a Fields),
    /// The value of a nested-attribute attribute: one object, or a list, set or map of them.
    Objects(&'a NestedObject, &'a Fields),
    /// A value of a cty type; the shape names the attributes of objects inside it.
    Type(&'a Type, &'a Shape),
}

/// One property of an object position.
#[derive(Clone, Debug)]
pub(crate) struct Child<'a> {
    pub(crate) tf_name: &'a str,
    pub(crate) name: Cow<'a, str>,
    pub(crate) node: Node<'a>,
    /// A list or set of at most one element that Pulumi shows as that element.
    pub(crate) flatten: bool,
    pub(crate) sensitive: bool,
    pub(crate) write_only: bool,
}

/// The fields of the objects a shape holds (itself, or the elements of a collection of objects).
fn fields_in(shape: &Shape) -> &Fields {
    fields_of(shape).unwrap_or(&NO_FIELDS)
}

/// [`fields_in`], `None` when the shape holds no objects.
pub(crate) fn fields_of(shape: &Shape) -> Option<&Fields> {
    match shape {
        Shape::Object(fields) => Some(fields),
        Shape::List(inner) | Shape::Set(inner) | Shape::Map(inner) => match &**inner {
            Shape::Object(fields) => Some(fields),
            _ => None,
        },
        _ => None,
    }
}

fn attribute_child<'a>(tf_name: &'a str, attr: &'a Attribute, fields: &'a Fields) -> Child<'a> {
    let field = fields.get(tf_name);
    let shape = field.map_or(&SCALAR, |f| &f.shape);
    let node = match &attr.ty {
        AttributeType::Type(ty) => Node::Type(ty, shape),
        AttributeType::Nested(object) => Node::Objects(object, fields_in(shape)),
    };
    Child {
        tf_name,
        name: fields.pulumi_name(tf_name),
        node,
        flatten: false,
        sensitive: attr.sensitive,
        write_only: attr.write_only,
    }
}

fn block_child<'a>(tf_name: &'a str, nested: &'a NestedBlock, fields: &'a Fields) -> Child<'a> {
    let field = fields.get(tf_name);
    let shape = field.map_or(&SCALAR, |f| &f.shape);
    Child {
        tf_name,
        name: fields.pulumi_name(tf_name),
        node: Node::Blocks(nested, fields_in(shape)),
        flatten: field.map_or_else(|| tfp_mapping::block_flattened(nested), |f| f.flatten),
        sensitive: false,
        write_only: false,
    }
}

impl<'a> Node<'a> {
    /// The properties of an object position, in Terraform key order; nothing for other
    /// positions. A block type that shares its name with an attribute is skipped, as Terraform
    /// skips it in the implied type.
    pub(crate) fn children(&self) -> Vec<Child<'a>> {
        match *self {
            Node::Block(block, fields) => {
                let mut out: Vec<Child<'a>> = block
                    .attributes
                    .iter()
                    .map(|(k, a)| attribute_child(k, a, fields))
                    .collect();
                out.extend(
                    block
                        .block_types
                        .iter()
                        .filter(|(k, _)| !block.attributes.contains_key(*k))
                        .map(|(k, b)| block_child(k, b, fields)),
                );
                out
            }
            Node::Attributes(attributes, fields) => attributes
                .iter()
                .map(|(k, a)| attribute_child(k, a, fields))
                .collect(),
            Node::Type(Type::Object { attributes, .. }, shape) => {
                let fields = fields_in(shape);
                attributes
                    .iter()
                    .map(|(k, t)| {
                        let shape = fields.get(k).map_or(&SCALAR, |f| &f.shape);
                        Child {
                            tf_name: k,
                            name: fields.pulumi_name(k),
                            node: Node::Type(t, shape),
                            flatten: false,
                            sensitive: false,
                            write_only: false,
                        }
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The property of an object position with Terraform key `tf_name`.
    pub(crate) fn child(&self, tf_name: &str) -> Option<Child<'a>> {
        match *self {
            Node::Block(block, fields) => {
                if let Some((k, a)) = block.attributes.get_key_value(tf_name) {
                    return Some(attribute_child(k, a, fields));
                }
                let (k, b) = block.block_types.get_key_value(tf_name)?;
                Some(block_child(k, b, fields))
            }
            Node::Attributes(attributes, fields) => {
                let (k, a) = attributes.get_key_value(tf_name)?;
                Some(attribute_child(k, a, fields))
            }
            Node::Type(Type::Object { .. }, _) => {
                self.children().into_iter().find(|c| c.tf_name == tf_name)
            }
            _ => None,
        }
    }

    /// The position of one element of a collection position (for single blocks and nested
    /// objects, the object itself).
    pub(crate) fn element(&self) -> Node<'a> {
        match *self {
            Node::Blocks(nested, fields) => Node::Block(&nested.block, fields),
            Node::Objects(object, fields) => Node::Attributes(&object.attributes, fields),
            Node::Type(Type::List(e) | Type::Set(e) | Type::Map(e), shape) => {
                let inner = match shape {
                    Shape::List(s) | Shape::Set(s) | Shape::Map(s) => &**s,
                    _ => &SCALAR,
                };
                Node::Type(e, inner)
            }
            other => other,
        }
    }

    /// For a single or group block or a single nested object, the object position itself;
    /// other positions unchanged.
    pub(crate) fn unwrap_single(&self) -> Node<'a> {
        match self.nesting() {
            Some(NestingMode::Single | NestingMode::Group) => self.element(),
            _ => *self,
        }
    }

    /// Whether the position holds one object with named attributes.
    pub(crate) fn is_object(&self) -> bool {
        matches!(
            self,
            Node::Block(..) | Node::Attributes(..) | Node::Type(Type::Object { .. }, _)
        )
    }

    /// Whether the position holds a map (of blocks, nested objects or values).
    pub(crate) fn is_map(&self) -> bool {
        matches!(self.nesting(), Some(NestingMode::Map))
            || matches!(self, Node::Type(Type::Map(_), _))
    }

    /// The nesting of a block or nested-attribute position.
    pub(crate) fn nesting(&self) -> Option<NestingMode> {
        match self {
            Node::Blocks(nested, _) => Some(nested.nesting),
            Node::Objects(object, _) => Some(object.nesting),
            _ => None,
        }
    }

    /// The cty type of values at this position on the wire.
    pub(crate) fn wire_type(&self) -> Type {
        match self {
            Node::Block(block, _) => block.implied_type(),
            Node::Attributes(attributes, _) => Type::object(
                attributes
                    .iter()
                    .map(|(k, a)| (k.clone(), a.implied_type())),
            ),
            Node::Blocks(nested, _) => nested.implied_type(),
            Node::Objects(object, _) => object.implied_type(),
            Node::Type(ty, _) => (*ty).clone(),
        }
    }

    /// Whether the position holds values of any type (`dynamic`).
    pub(crate) fn is_dynamic(&self) -> bool {
        matches!(self, Node::Type(Type::Dynamic, _))
            || matches!(self, Node::Blocks(nested, _) if nested.is_dynamic_pair())
    }
}
