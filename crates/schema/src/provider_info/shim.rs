//! The Terraform schema part of GetMapping's data (`MarshallableProviderShim`): what the Go
//! bridge's schema-only shim over the protocol (`pkg/pf/proto`) says of each attribute and
//! block, written as `MarshallableSchemaShim`s (`pkg/tfbridge/info/info.go`).
//!
//! The shim's view is lossy and we reproduce it, loss included: numbers are floats, sets are
//! lists, tuples have no type, `forceNew` is never set, a deprecation is the word
//! `Deprecated`, and a map of objects is a map whose element is the same attribute or block
//! again, as a single object.

use std::collections::{BTreeMap, BTreeSet};

use tfp_cty::{
    Attribute, AttributeType, Block, Function, NestedBlock, NestingMode, Parameter, ProviderSchema,
    Type,
};
use tfp_gostd::json::Object;

use super::map;

/// A `MarshallableProviderShim`: the Terraform schema through the bridge's `pkg/pf/proto`
/// shim. Ignored resources are still there, since the shim wraps the whole provider.
pub(super) fn provider(out: &mut String, schema: &ProviderSchema) {
    let mut p = Object::start(out);
    if !is_empty(&schema.provider.block) {
        block_map(p.key("schema"), &schema.provider.block);
    }
    if !schema.resources.is_empty() {
        map(
            p.key("resources"),
            schema.resources.iter().map(|(k, s)| (k.as_str(), &s.block)),
            block_map,
        );
    }
    if !schema.data_sources.is_empty() {
        map(
            p.key("dataSources"),
            schema
                .data_sources
                .iter()
                .map(|(k, s)| (k.as_str(), &s.block)),
            block_map,
        );
    }
    if !schema.functions.is_empty() {
        map(
            p.key("functions"),
            schema.functions.iter().map(|(k, f)| (k.as_str(), f)),
            function,
        );
    }
    p.end();
}

fn is_empty(block: &Block) -> bool {
    block.attributes.is_empty() && block.block_types.is_empty()
}

/// One key of a block: the shim ranges over attributes, then blocks, into a Go map, so a
/// block wins over an attribute of the same name.
#[derive(Clone, Copy)]
pub(super) enum Member<'a> {
    Attribute(&'a Attribute),
    Block(&'a NestedBlock),
}

/// A block's keys as a `MarshallableResourceShim` (always written, `{}` when empty).
pub(super) fn block_map(out: &mut String, block: &Block) {
    let mut members: BTreeMap<&str, Member<'_>> = BTreeMap::new();
    for (key, attribute) in &block.attributes {
        members.insert(key, Member::Attribute(attribute));
    }
    for (key, nested) in &block.block_types {
        members.insert(key, Member::Block(nested));
    }
    map(out, members, |out, member| match member {
        Member::Attribute(a) => attribute(out, a, false),
        Member::Block(b) => nested_block(out, b, false),
    });
}

/// `shim.ValueType` (`pkg/tfshim/shim.go`), written as its number: it has no `MarshalJSON`.
/// `TypeInt` (2) and `TypeSet` (7) never occur: the shim reports numbers as floats and sets as
/// lists.
mod value_type {
    pub(super) const INVALID: u8 = 0;
    pub(super) const BOOL: u8 = 1;
    pub(super) const FLOAT: u8 = 3;
    pub(super) const STRING: u8 = 4;
    pub(super) const LIST: u8 = 5;
    pub(super) const MAP: u8 = 6;
    pub(super) const DYNAMIC: u8 = 8;
}

/// The shim's type of a cty type (`pkg/pf/proto/element.go`); tuples have none.
fn value_type(ty: &Type) -> u8 {
    match ty {
        Type::Bool => value_type::BOOL,
        Type::Number => value_type::FLOAT,
        Type::String => value_type::STRING,
        Type::List(_) | Type::Set(_) => value_type::LIST,
        Type::Map(_) | Type::Object { .. } => value_type::MAP,
        Type::Dynamic => value_type::DYNAMIC,
        Type::Tuple(_) => value_type::INVALID,
    }
}

/// The fields of one `MarshallableSchemaShim` besides its element; `forceNew` is always false
/// (the protocol does not carry it) and so never written.
#[derive(Default)]
struct Flags {
    ty: u8,
    optional: bool,
    required: bool,
    computed: bool,
    max_items: i64,
    min_items: i64,
    deprecated: bool,
    sensitive: bool,
}

/// What a schema's `Elem()` is, as `MarshallableElemShim` writes it.
enum Element<'a> {
    None,
    /// `{"schema":…}`: the element type of a list, set or map type.
    Type(&'a Type),
    /// `{"schema":…}`: a map of nested attributes, seen as one object attribute.
    MapAttribute(&'a Attribute),
    /// `{"schema":…}`: a map block, seen as one single block.
    MapBlock(&'a NestedBlock),
    /// `{"resource":…}`: an object type's attributes; those not marked optional are optional
    /// anyway when none is (the shim's answer to SDKv2's lossy attributes-as-blocks).
    Object(&'a BTreeMap<String, Type>, &'a BTreeSet<String>),
    /// `{"resource":…}`: nested attributes.
    Nested(&'a tfp_cty::NameMap<Attribute>),
    /// `{"resource":…}`: a block's attributes and blocks.
    Block(&'a Block),
}

fn schema(out: &mut String, flags: &Flags, element: Element<'_>) {
    let mut s = Object::start(out);
    s.key("type").push_str(&flags.ty.to_string());
    s.bool_omitempty("optional", flags.optional);
    s.bool_omitempty("required", flags.required);
    s.bool_omitempty("computed", flags.computed);
    if !matches!(element, Element::None) {
        self::element(s.key("element"), element);
    }
    s.int_omitempty("maxItems", flags.max_items);
    s.int_omitempty("minItems", flags.min_items);
    if flags.deprecated {
        // The protocol only says whether; the shim's message is the word itself.
        s.string("deprecated", "Deprecated");
    }
    s.bool_omitempty("sensitive", flags.sensitive);
    s.end();
}

fn element(out: &mut String, element: Element<'_>) {
    let mut e = Object::start(out);
    match element {
        Element::None => {}
        Element::Type(ty) => type_schema(e.key("schema"), ty, false),
        Element::MapAttribute(a) => attribute(e.key("schema"), a, true),
        Element::MapBlock(b) => nested_block(e.key("schema"), b, true),
        Element::Object(attributes, optional) => {
            // An empty map is omitted, leaving `{}`.
            if !attributes.is_empty() {
                let all_optional = optional.is_empty();
                map(
                    e.key("resource"),
                    attributes.iter().map(|(k, t)| (k.as_str(), (k, t))),
                    |out, (k, t)| type_schema(out, t, all_optional || optional.contains(k)),
                );
            }
        }
        Element::Nested(attributes) => {
            if !attributes.is_empty() {
                map(
                    e.key("resource"),
                    attributes.iter().map(|(k, a)| (k.as_str(), a)),
                    |out, a| attribute(out, a, false),
                );
            }
        }
        Element::Block(block) => {
            if !is_empty(block) {
                block_map(e.key("resource"), block);
            }
        }
    }
    e.end();
}

/// The element of a value of type `ty`: only `optional` is known about it.
fn type_schema(out: &mut String, ty: &Type, optional: bool) {
    let flags = Flags {
        ty: value_type(ty),
        optional,
        ..Flags::default()
    };
    schema(out, &flags, type_element(ty));
}

fn type_element(ty: &Type) -> Element<'_> {
    match ty {
        Type::List(e) | Type::Set(e) | Type::Map(e) => Element::Type(e),
        Type::Object {
            attributes,
            optional,
        } => Element::Object(attributes, optional),
        Type::String | Type::Number | Type::Bool | Type::Dynamic | Type::Tuple(_) => Element::None,
    }
}

/// An attribute (`pkg/pf/proto/attribute.go`). `as_object` is the element of a map of nested
/// attributes: the same attribute, nested once.
pub(super) fn attribute(out: &mut String, a: &Attribute, as_object: bool) {
    let flags = |ty| Flags {
        ty,
        optional: a.optional,
        required: a.required,
        computed: a.computed,
        deprecated: a.deprecated,
        sensitive: a.sensitive,
        ..Flags::default()
    };
    match &a.ty {
        AttributeType::Type(ty) => schema(out, &flags(value_type(ty)), type_element(ty)),
        AttributeType::Nested(object) => {
            let (ty, element) = match object.nesting {
                NestingMode::Map if !as_object => (value_type::MAP, Element::MapAttribute(a)),
                NestingMode::List | NestingMode::Set if !as_object => {
                    (value_type::LIST, Element::Nested(&object.attributes))
                }
                _ => (value_type::MAP, Element::Nested(&object.attributes)),
            };
            schema(out, &flags(ty), element);
        }
    }
}

/// A nested block (`pkg/pf/proto/block.go`): optional unless it needs items. `as_single` is
/// the element of a map block: the same block, nested once.
pub(super) fn nested_block(out: &mut String, b: &NestedBlock, as_single: bool) {
    let (ty, element) = match b.nesting {
        NestingMode::Map if !as_single => (value_type::MAP, Element::MapBlock(b)),
        NestingMode::List | NestingMode::Set if !as_single => {
            (value_type::LIST, Element::Block(&b.block))
        }
        _ => (value_type::MAP, Element::Block(&b.block)),
    };
    let required = b.min_items > 0;
    let flags = Flags {
        ty,
        optional: !required,
        required,
        max_items: b.max_items,
        min_items: b.min_items,
        deprecated: b.block.deprecated,
        ..Flags::default()
    };
    schema(out, &flags, element);
}

/// A `MarshallableFunctionShim`; types are written in Terraform's type-spec JSON.
fn function(out: &mut String, f: &Function) {
    let mut o = Object::start(out);
    if !f.parameters.is_empty() {
        let out = o.key("parameters");
        out.push('[');
        for (i, p) in f.parameters.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            parameter(out, p);
        }
        out.push(']');
    }
    if let Some(v) = &f.variadic_parameter {
        parameter(o.key("variadicParameter"), v);
    }
    o.key("return").push_str(&f.return_type.to_json_string());
    o.string_omitempty("summary", &f.summary);
    o.string_omitempty("description", &f.description);
    o.string_omitempty("deprecationMessage", &f.deprecation_message);
    o.end();
}

fn parameter(out: &mut String, p: &Parameter) {
    let mut o = Object::start(out);
    o.string_omitempty("name", &p.name);
    o.key("type").push_str(&p.ty.to_json_string());
    o.bool_omitempty("allowNullValue", p.allow_null_value);
    o.string_omitempty("description", &p.description);
    o.end();
}
