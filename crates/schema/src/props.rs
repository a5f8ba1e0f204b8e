//! Properties as the bridge's generator models them (`variable` and `propertyType` in
//! `pkg/tfgen/generate.go`): one per Terraform attribute or block, with its Pulumi name,
//! description, flags for its input and output uses, and type tree. Go builds one per use;
//! the uses differ only in which properties are optional, so one value carries both.
//!
//! Invariants: names come from the mapping's [`Fields`], so the schema and translation agree;
//! nested object types are named `<prefix><Title(name)>` where `name` is the property name,
//! singularised when the property is a list or set, and `prefix` the resource, function or
//! enclosing type name (`declareType`).

use std::rc::Rc;
use std::sync::Arc;

use tfp_cty::{Attribute, AttributeType, Block, NestedBlock, NestingMode, Type};
use tfp_mapping::{Field, Fields, Shape, inflector::singularize};

use crate::SchemaError;
use crate::docs::Docs;
use crate::spec::{PropertySpec, TypeSpec};
use crate::text::{doc_comment, title};

/// The note Go puts before the description of a write-only attribute.
const WRITE_ONLY_NOTE: &str = "**NOTE:** This field is write-only and its value will not be updated in state as part of read operations.\n";

/// A property. Its input and output uses differ only in whether it is optional, so one
/// value serves both.
#[derive(Clone, Debug)]
pub(crate) struct Var<'m> {
    /// The Pulumi name, borrowed from the mapping's fields.
    pub(crate) name: &'m str,
    /// Optional as an input: optional, computed or autonamed (`isOptional`, `out` false).
    pub(crate) optional_in: bool,
    /// Optional as an output: optional and neither computed nor autonamed.
    pub(crate) optional_out: bool,
    /// Shared by every map the property is written in (a resource's outputs, inputs and
    /// state, a type's), rather than copied into each.
    pub(crate) spec: Arc<PropertySpec>,
    pub(crate) ty: Ty<'m>,
}

impl Var<'_> {
    pub(crate) fn optional(&self, use_: Use) -> bool {
        match use_ {
            Use::Input => self.optional_in,
            Use::Output => self.optional_out,
        }
    }
}

/// The type tree of a property, down to the nested object types it declares.
#[derive(Clone, Debug)]
pub(crate) enum Ty<'m> {
    /// `pulumi.json#/Any`.
    Any,
    Primitive(&'static str),
    /// A list or set.
    Array(Box<Ty<'m>>),
    Map(Box<Ty<'m>>),
    Object(Rc<Object<'m>>),
}

/// A nested object type.
#[derive(Clone, Debug)]
pub(crate) struct Object<'m> {
    pub(crate) name: String,
    pub(crate) props: Vec<Var<'m>>,
}

/// Which description a property gets (`doc` versus `rawdoc` in the Go generator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DocStyle {
    /// Top-level resource, provider and config properties: the rewritten description as is.
    Raw,
    /// Top-level data-source properties: none (there are no upstream docs).
    Empty,
    /// Properties of nested types: the rewritten description, each line ending in `\n`.
    Nested,
}

/// The use of a property, which decides which of its properties are optional.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    Input,
    Output,
}

/// Builds [`Var`]s for one package.
pub(crate) struct Props<'m, 'd> {
    pub(crate) docs: &'d mut Docs<'m>,
    /// The module types are placed in (`<pkg>:index`, or `<pkg>:config`).
    pub(crate) module: String,
}

/// How a Terraform key of a block is defined.
pub(crate) enum Member<'s> {
    Attribute(&'s Attribute),
    Block(&'s NestedBlock),
}

/// The Terraform keys of a block with their definitions and fields, in sorted key order.
pub(crate) fn members<'s>(
    block: &'s Block,
    fields: &'s Fields,
) -> impl Iterator<Item = (&'s str, Member<'s>, &'s Field)> {
    // Fields and both maps are in key order: walked side by side, not searched.
    let mut attributes = block.attributes.iter().peekable();
    let mut blocks = block.block_types.iter().peekable();
    fields.iter().filter_map(move |(key, field)| {
        let member = match (next_at(&mut attributes, key), next_at(&mut blocks, key)) {
            (Some(a), _) => Member::Attribute(a),
            (None, Some(b)) => Member::Block(b),
            (None, None) => return None,
        };
        Some((key, member, field))
    })
}

/// The value under `key` of a map walked in key order, passing the keys before it.
fn next_at<'s, V: 's>(
    entries: &mut std::iter::Peekable<impl Iterator<Item = (&'s String, &'s V)>>,
    key: &str,
) -> Option<&'s V> {
    while entries.next_if(|(k, _)| k.as_str() < key).is_some() {}
    entries.next_if(|(k, _)| k.as_str() == key).map(|(_, v)| v)
}

impl Member<'_> {
    /// Whether the user may set it (`input`): blocks always, attributes when optional or
    /// required.
    pub(crate) fn is_input(&self) -> bool {
        match self {
            Member::Attribute(a) => a.optional || a.required,
            Member::Block(_) => true,
        }
    }
}

/// The type name for property `name` under `prefix`.
fn type_name(prefix: &str, name: &str, collection: bool) -> String {
    let mut out = String::with_capacity(prefix.len() + name.len());
    out.push_str(prefix);
    if collection {
        title(&mut out, &singularize(name));
    } else {
        title(&mut out, name);
    }
    out
}

impl<'m> Props<'m, '_> {
    /// The property for `key` of a block, named by `field`. `prefix` names nested types;
    /// `type_name_override` replaces the computed type name (config variables use their own
    /// name). `custom_default` marks an autonamed property.
    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the Go generator's inputs one to one"
    )]
    pub(crate) fn member(
        &mut self,
        key: &str,
        member: &Member<'m>,
        field: &'m Field,
        style: DocStyle,
        prefix: &str,
        type_name_override: Option<&str>,
        custom_default: bool,
    ) -> Result<Var<'m>, SchemaError> {
        let (description, deprecated, secret, write_only, optional, computed) = match member {
            Member::Attribute(a) => (
                a.description.as_str(),
                a.deprecated,
                a.sensitive || a.write_only,
                a.write_only,
                a.optional,
                a.computed,
            ),
            Member::Block(b) => (
                b.block.description.as_str(),
                b.block.deprecated,
                false,
                false,
                b.min_items <= 0,
                false,
            ),
        };
        let optional_in = optional || computed || custom_default;
        let optional_out = optional && !computed && !custom_default;
        let collection = match member {
            Member::Attribute(a) => match &a.ty {
                AttributeType::Type(t) => matches!(t, Type::List(_) | Type::Set(_)),
                AttributeType::Nested(o) => {
                    matches!(o.nesting, NestingMode::List | NestingMode::Set)
                }
            },
            Member::Block(b) => {
                matches!(b.nesting, NestingMode::List | NestingMode::Set) && !field.flatten
            }
        };
        // Only a member that declares an object type needs a type name, and most members are
        // scalars: the name (an inflection and a format) is made only for the others.
        let object_name = || {
            type_name_override
                .map(str::to_owned)
                .unwrap_or_else(|| type_name(prefix, &field.name, collection))
        };
        let ty = match member {
            Member::Attribute(a) => match &a.ty {
                AttributeType::Type(t) if !holds_object(t) => {
                    self.of_type(key, t, &field.shape, "")?
                }
                AttributeType::Type(t) => self.of_type(key, t, &field.shape, &object_name())?,
                AttributeType::Nested(o) => {
                    let object_name = object_name();
                    let element_fields = object_fields(&field.shape);
                    let mut props = Vec::with_capacity(o.attributes.len());
                    for (k, nested, f) in fields_of(&o.attributes, element_fields) {
                        let member = Member::Attribute(nested);
                        props.push(self.member(
                            k,
                            &member,
                            f,
                            DocStyle::Nested,
                            &object_name,
                            None,
                            false,
                        )?);
                    }
                    let object = Ty::Object(Rc::new(Object {
                        name: object_name,
                        props,
                    }));
                    match o.nesting {
                        NestingMode::Single | NestingMode::Group => object,
                        NestingMode::List | NestingMode::Set => Ty::Array(Box::new(object)),
                        NestingMode::Map => Ty::Map(Box::new(object)),
                    }
                }
            },
            Member::Block(b) => {
                let object_name = object_name();
                let element_fields = object_fields(&field.shape);
                let mut props = Vec::new();
                for (k, m, f) in members(&b.block, element_fields) {
                    props.push(self.member(
                        k,
                        &m,
                        f,
                        DocStyle::Nested,
                        &object_name,
                        None,
                        false,
                    )?);
                }
                let object = Ty::Object(Rc::new(Object {
                    name: object_name,
                    props,
                }));
                match b.nesting {
                    NestingMode::Single | NestingMode::Group => object,
                    NestingMode::List | NestingMode::Set if field.flatten => object,
                    NestingMode::List | NestingMode::Set => Ty::Array(Box::new(object)),
                    NestingMode::Map => Ty::Map(Box::new(object)),
                }
            }
        };
        let description = self.description(description, write_only, style);
        Ok(Var {
            name: &field.name,
            optional_in,
            optional_out,
            spec: Arc::new(PropertySpec {
                ty: type_spec(&ty, &self.module),
                description,
                deprecation_message: if deprecated {
                    "Deprecated".to_owned()
                } else {
                    String::new()
                },
                secret,
            }),
            ty,
        })
    }

    fn description(&mut self, raw: &str, write_only: bool, style: DocStyle) -> String {
        let text = match style {
            DocStyle::Empty => String::new(),
            DocStyle::Raw | DocStyle::Nested => self.docs.reformat(raw),
        };
        match (style, write_only) {
            (DocStyle::Raw, false) => text,
            (DocStyle::Raw, true) if !text.is_empty() => format!("{WRITE_ONLY_NOTE}{text}"),
            (DocStyle::Raw | DocStyle::Empty, true) => doc_comment(WRITE_ONLY_NOTE),
            (DocStyle::Empty, false) => String::new(),
            (DocStyle::Nested, false) if text.is_empty() => String::new(),
            (DocStyle::Nested, false) => doc_comment(&text),
            (DocStyle::Nested, true) => doc_comment(&format!("{WRITE_ONLY_NOTE}{text}")),
        }
    }

    /// The type tree of an attribute of cty type `ty`.
    fn of_type(
        &mut self,
        key: &str,
        ty: &Type,
        shape: &'m Shape,
        object_name: &str,
    ) -> Result<Ty<'m>, SchemaError> {
        Ok(match (ty, shape) {
            (Type::String, _) => Ty::Primitive("string"),
            (Type::Number, _) => Ty::Primitive("number"),
            (Type::Bool, _) => Ty::Primitive("boolean"),
            (Type::Dynamic, _) => Ty::Any,
            (Type::List(e), Shape::List(s)) | (Type::Set(e), Shape::Set(s)) => {
                Ty::Array(Box::new(self.of_type(key, e, s, object_name)?))
            }
            (Type::Map(e), Shape::Map(s)) => match self.of_type(key, e, s, object_name)? {
                // Terraform's untyped maps are maps of strings; so are maps of `dynamic`.
                Ty::Any => Ty::Map(Box::new(Ty::Primitive("string"))),
                element => Ty::Map(Box::new(element)),
            },
            (
                Type::Object {
                    attributes,
                    optional,
                },
                Shape::Object(fields),
            ) => {
                let mut props = Vec::with_capacity(attributes.len());
                for (k, t) in attributes {
                    let Some(field) = fields.get(k) else { continue };
                    // Object attributes are all optional unless some are marked optional.
                    let is_optional = optional.is_empty() || optional.contains(k);
                    let name = if holds_object(t) {
                        type_name(
                            object_name,
                            &field.name,
                            matches!(t, Type::List(_) | Type::Set(_)),
                        )
                    } else {
                        String::new()
                    };
                    let ty = self.of_type(k, t, &field.shape, &name)?;
                    props.push(Var {
                        name: &field.name,
                        optional_in: is_optional,
                        optional_out: is_optional,
                        spec: Arc::new(PropertySpec {
                            ty: type_spec(&ty, &self.module),
                            ..PropertySpec::default()
                        }),
                        ty,
                    });
                }
                Ty::Object(Rc::new(Object {
                    name: object_name.to_owned(),
                    props,
                }))
            }
            (Type::Tuple(_), _) => {
                return Err(SchemaError::Tuple {
                    property: key.to_owned(),
                });
            }
            _ => {
                return Err(SchemaError::Internal(format!(
                    "the shape of {key:?} does not match its type"
                )));
            }
        })
    }
}

/// Whether values of `ty` hold an object (through lists, sets and maps), which is declared as a
/// named type.
fn holds_object(ty: &Type) -> bool {
    match ty {
        Type::Object { .. } => true,
        Type::List(e) | Type::Set(e) | Type::Map(e) => holds_object(e),
        Type::String | Type::Number | Type::Bool | Type::Dynamic | Type::Tuple(_) => false,
    }
}

/// The fields of the object inside a shape (through lists, sets and maps).
fn object_fields(shape: &Shape) -> &Fields {
    static EMPTY: std::sync::OnceLock<Fields> = std::sync::OnceLock::new();
    match shape {
        Shape::Object(fields) => fields,
        Shape::List(e) | Shape::Set(e) | Shape::Map(e) => object_fields(e),
        Shape::Scalar | Shape::Tuple(_) => EMPTY.get_or_init(Fields::default),
    }
}

fn fields_of<'s>(
    attributes: &'s tfp_cty::NameMap<Attribute>,
    fields: &'s Fields,
) -> impl Iterator<Item = (&'s str, &'s Attribute, &'s Field)> {
    let mut attributes = attributes.iter().peekable();
    fields
        .iter()
        .filter_map(move |(k, f)| next_at(&mut attributes, k).map(|a| (k, a, f)))
}

/// The schema type of a type tree; objects are references into `module`.
pub(crate) fn type_spec(ty: &Ty<'_>, module: &str) -> TypeSpec {
    match ty {
        Ty::Any => TypeSpec::reference("pulumi.json#/Any".to_owned()),
        Ty::Primitive(p) => TypeSpec::primitive(p),
        Ty::Array(e) => TypeSpec::array(type_spec(e, module)),
        Ty::Map(e) => TypeSpec::map(type_spec(e, module)),
        Ty::Object(o) => {
            TypeSpec::reference(["#/types/", module, "/", &o.name, ":", &o.name].concat())
        }
    }
}
