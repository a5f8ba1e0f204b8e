//! The inputs Read returns next to the outputs (the Go bridge's `ExtractInputsFromOutputs`).
//!
//! On refresh only the inputs the resource already had are refreshed, each taking the value
//! the provider now reports (objects keep their old keys, arrays their old length). On import
//! the schema decides: every attribute the user can set that the state has, except optional
//! ones holding a zero value (null, false, 0, "", empty), nested objects alike.

use tfp_cty::{Attribute, AttributeType, Block, NestingMode};
use tfp_mapping::{Field, Fields};
use tfp_values::{PropertyMap, PropertyValue};

use crate::{ObjectSchema, schema::fields_of};

/// Refreshed inputs: the old inputs with the values of the same paths in the outputs.
pub fn refreshed_inputs(old: PropertyMap, outputs: &PropertyMap) -> PropertyMap {
    object(old, outputs)
}

fn object(old: PropertyMap, new: &PropertyMap) -> PropertyMap {
    old.into_iter()
        .filter(|(key, _)| key != "__defaults")
        .filter_map(|(key, value)| {
            let current = new.get(&key)?;
            Some((key, extract(value, current)))
        })
        .collect()
}

fn extract(old: PropertyValue, new: &PropertyValue) -> PropertyValue {
    match (old, new) {
        (PropertyValue::Array(old), PropertyValue::Array(new)) => PropertyValue::Array(
            old.into_iter()
                .zip(new)
                .map(|(o, n)| extract(o, n))
                .collect(),
        ),
        (PropertyValue::Object(old), PropertyValue::Object(new)) => {
            PropertyValue::Object(object(old, new))
        }
        // The engine sends inputs with their secrets marked: a secret keeps its shape as its value
        // would, and Read marks it secret again ([`crate::annotate_secrets`]).
        (PropertyValue::Secret(old), new) => extract(*old, new),
        (_, new) => new.clone(),
    }
}

/// Imported inputs: the settable attributes of the outputs.
pub fn imported_inputs(schema: &ObjectSchema<'_>, outputs: &PropertyMap) -> PropertyMap {
    level(Level::Block(schema.block), schema.fields, outputs)
}

/// The attributes of one object.
#[derive(Clone, Copy)]
enum Level<'a> {
    Block(&'a Block),
    Attributes(&'a tfp_cty::NameMap<Attribute>),
}

/// How one property is described by the schema.
enum Member<'a> {
    Attribute(&'a Attribute),
    Block(&'a tfp_cty::NestedBlock),
}

impl<'a> Level<'a> {
    fn member(self, tf_name: &str) -> Option<Member<'a>> {
        match self {
            Level::Block(block) => match block.attributes.get(tf_name) {
                Some(a) => Some(Member::Attribute(a)),
                None => block.block_types.get(tf_name).map(Member::Block),
            },
            Level::Attributes(attributes) => attributes.get(tf_name).map(Member::Attribute),
        }
    }
}

fn level(at: Level<'_>, fields: &Fields, outputs: &PropertyMap) -> PropertyMap {
    let mut out = PropertyMap::new();
    for (name, value) in outputs {
        let Some((tf_name, field)) = fields.by_pulumi(name) else {
            continue;
        };
        let (required, value) = match at.member(tf_name) {
            Some(Member::Attribute(a)) if a.required || a.optional => {
                (a.required, attribute(a, field, value))
            }
            Some(Member::Block(b)) => (b.min_items > 0, block(b, field, value)),
            _ => continue,
        };
        if !required && is_zero(&value) {
            continue;
        }
        out.insert(name.clone(), value);
    }
    out
}

fn attribute(a: &Attribute, field: &Field, value: &PropertyValue) -> PropertyValue {
    let (AttributeType::Nested(object), Some(fields)) = (&a.ty, fields_of(&field.shape)) else {
        return value.clone();
    };
    let at = Level::Attributes(&object.attributes);
    nested(object.nesting, false, at, fields, value)
}

fn block(b: &tfp_cty::NestedBlock, field: &Field, value: &PropertyValue) -> PropertyValue {
    let Some(fields) = fields_of(&field.shape) else {
        return value.clone();
    };
    nested(
        b.nesting,
        field.flatten,
        Level::Block(&b.block),
        fields,
        value,
    )
}

fn nested(
    nesting: NestingMode,
    flatten: bool,
    at: Level<'_>,
    fields: &Fields,
    value: &PropertyValue,
) -> PropertyValue {
    let one = |v: &PropertyValue| match v {
        PropertyValue::Object(map) => PropertyValue::Object(level(at, fields, map)),
        other => other.clone(),
    };
    match (nesting, value) {
        (NestingMode::Single | NestingMode::Group, v) => one(v),
        (_, v) if flatten => one(v),
        (NestingMode::List | NestingMode::Set, PropertyValue::Array(items)) => {
            PropertyValue::Array(items.iter().map(one).collect())
        }
        (NestingMode::Map, PropertyValue::Object(items)) => {
            PropertyValue::Object(items.iter().map(|(k, v)| (k.clone(), one(v))).collect())
        }
        (_, v) => v.clone(),
    }
}

fn is_zero(value: &PropertyValue) -> bool {
    match value {
        PropertyValue::Null => true,
        PropertyValue::Bool(b) => !b,
        PropertyValue::Number(n) => *n == 0.0,
        PropertyValue::String(s) => s.is_empty(),
        PropertyValue::Array(items) => items.is_empty(),
        PropertyValue::Object(map) => map.is_empty(),
        PropertyValue::Secret(inner) => is_zero(inner),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_keeps_the_old_shape() {
        let s = |v: &str| PropertyValue::String(v.to_owned());
        let old: PropertyMap = [
            ("content".to_owned(), s("old")),
            ("gone".to_owned(), s("x")),
            (
                "list".to_owned(),
                PropertyValue::Array(vec![s("a"), s("b")]),
            ),
        ]
        .into();
        let outputs: PropertyMap = [
            ("content".to_owned(), s("new")),
            ("extra".to_owned(), s("y")),
            ("list".to_owned(), PropertyValue::Array(vec![s("c")])),
        ]
        .into();
        let expected: PropertyMap = [
            ("content".to_owned(), s("new")),
            ("list".to_owned(), PropertyValue::Array(vec![s("c")])),
        ]
        .into();
        assert_eq!(refreshed_inputs(old, &outputs), expected);
    }

    #[test]
    fn a_secret_input_keeps_its_shape_and_loses_its_mark() {
        let s = |v: &str| PropertyValue::String(v.to_owned());
        let old: PropertyMap = [(
            "list".to_owned(),
            PropertyValue::secret(PropertyValue::Array(vec![s("a")])),
        )]
        .into();
        let outputs: PropertyMap = [(
            "list".to_owned(),
            PropertyValue::Array(vec![s("b"), s("c")]),
        )]
        .into();
        let expected: PropertyMap =
            [("list".to_owned(), PropertyValue::Array(vec![s("b")]))].into();
        assert_eq!(refreshed_inputs(old, &outputs), expected);
    }
}
