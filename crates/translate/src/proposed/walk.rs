//! The value walks of `ProposedNew`: matching a prior set element to a config element
//! (`validPriorFromConfig`) and telling whether an optional nested attribute's prior value came
//! from config (`optionalValueNotComputable`), with cty's `Walk`, `Path.Apply` and
//! `AttributeByPath` semantics.

use std::borrow::Cow;

use tfp_cty::{Attribute, AttributeType, Block, Kind, NestedObject, Type, Value};

use super::Nested;

/// One step of a path into a value.
#[derive(Clone, Debug)]
enum Step {
    Attr(String),
    Index(usize),
    Key(String),
    /// A set element, which a path cannot address in another value.
    Element,
}

/// What a walk callback wants next.
#[derive(PartialEq, Eq)]
enum Next {
    Descend,
    Skip,
    Stop,
}

/// Visits `value` and then, where the callback asks, its known non-null children in cty's
/// order; returns false if the callback stopped the walk.
fn walk(value: &Value, path: &mut Vec<Step>, f: &mut impl FnMut(&[Step], &Value) -> Next) -> bool {
    match f(path, value) {
        Next::Stop => return false,
        Next::Skip => return true,
        Next::Descend => {}
    }
    let mut visit = |step: Step, child: &Value, path: &mut Vec<Step>| {
        path.push(step);
        let go_on = walk(child, path, f);
        path.pop();
        go_on
    };
    match &value.kind {
        Kind::Object(attrs) => attrs
            .iter()
            .all(|(k, v)| visit(Step::Attr(k.clone()), v, path)),
        Kind::Map(_, items) => items
            .iter()
            .all(|(k, v)| visit(Step::Key(k.clone()), v, path)),
        Kind::List(_, items) | Kind::Tuple(items) => items
            .iter()
            .enumerate()
            .all(|(i, v)| visit(Step::Index(i), v, path)),
        Kind::Set(_, items) => items.iter().all(|v| visit(Step::Element, v, path)),
        _ => true,
    }
}

/// `path.Apply(value)`: `None` where cty fails (null, wrong kind, missing key, set element).
fn apply<'v>(path: &[Step], value: &'v Value) -> Option<Cow<'v, Value>> {
    let mut current = Cow::Borrowed(value);
    for step in path {
        if current.is_null() {
            return None;
        }
        current = match current {
            Cow::Borrowed(v) => match (step, &v.kind) {
                (Step::Attr(name), Kind::Object(attrs)) => Cow::Borrowed(attrs.get(name)?),
                (Step::Index(i), Kind::List(_, items) | Kind::Tuple(items)) => {
                    Cow::Borrowed(items.get(*i)?)
                }
                (Step::Key(key), Kind::Map(_, items)) => Cow::Borrowed(items.get(key)?),
                (Step::Attr(name), Kind::Unknown(ty, _)) => match &**ty {
                    Type::Object { attributes, .. } => {
                        Cow::Owned(Value::unknown(attributes.get(name)?.clone()))
                    }
                    _ => return None,
                },
                _ => return None,
            },
            // Only an unknown object's attribute is owned, and unknowns have no children but
            // unknown attributes.
            Cow::Owned(v) => match (step, &v.kind) {
                (Step::Attr(name), Kind::Unknown(ty, _)) => match &**ty {
                    Type::Object { attributes, .. } => {
                        Cow::Owned(Value::unknown(attributes.get(name)?.clone()))
                    }
                    _ => return None,
                },
                _ => return None,
            },
        };
    }
    Some(current)
}

/// `Block.AttributeByPath`: follows attribute and block names, skipping other steps.
fn block_attribute<'a>(block: &'a Block, path: &[Step]) -> Option<&'a Attribute> {
    let mut block = block;
    for (i, step) in path.iter().enumerate() {
        let Step::Attr(name) = step else { continue };
        if let Some(attr) = block.attributes.get(name) {
            return attribute_at(attr, &path[i + 1..]);
        }
        block = &block.block_types.get(name)?.block;
    }
    None
}

/// `Object.AttributeByPath`: like a block's, but a name that is not an attribute is skipped.
fn object_attribute<'a>(object: &'a NestedObject, path: &[Step]) -> Option<&'a Attribute> {
    for (i, step) in path.iter().enumerate() {
        let Step::Attr(name) = step else { continue };
        if let Some(attr) = object.attributes.get(name) {
            return attribute_at(attr, &path[i + 1..]);
        }
    }
    None
}

/// An attribute found with `rest` of the path still to go.
fn attribute_at<'a>(attr: &'a Attribute, rest: &[Step]) -> Option<&'a Attribute> {
    match (&attr.ty, rest.is_empty()) {
        (_, true) => Some(attr),
        (AttributeType::Nested(object), false) => object_attribute(object, rest),
        (AttributeType::Type(_), false) => None,
    }
}

fn attribute_by_path<'a>(schema: Nested<'a>, path: &[Step]) -> Option<&'a Attribute> {
    match schema {
        Nested::Block(block) => block_attribute(block, path),
        Nested::Object(object) => object_attribute(object, path),
    }
}

/// Whether the prior set element could have come from the config element: equal, but for
/// computed leaf attributes the config leaves null.
pub(super) fn valid_prior_from_config(schema: Nested<'_>, prior: &Value, config: &Value) -> bool {
    if config.loosely_equals(prior) {
        return true;
    }
    walk(prior, &mut Vec::new(), &mut |path, prior_v| {
        let Some(config_v) = apply(path, config) else {
            return Next::Stop;
        };
        if config_v.loosely_equals(prior_v) {
            return Next::Skip;
        }
        // Nested sets cannot be correlated, so they must be equal.
        if matches!(config_v.ty(), Type::Set(_)) {
            return Next::Stop;
        }
        let Some(attr) = attribute_by_path(schema, path) else {
            return Next::Descend;
        };
        if matches!(attr.ty, AttributeType::Nested(_)) {
            return Next::Descend;
        }
        if !attr.computed || !config_v.is_null() {
            return Next::Stop;
        }
        Next::Skip
    })
}

/// Whether an optional nested attribute's prior value has a non-null non-computed part, which
/// only config can have set.
pub(super) fn optional_value_not_computable(attr: &Attribute, value: &Value) -> bool {
    let AttributeType::Nested(object) = &attr.ty else {
        return false;
    };
    if !attr.optional {
        return false;
    }
    let mut found = false;
    walk(value, &mut Vec::new(), &mut |path, v| {
        if v.is_null() {
            return Next::Descend;
        }
        match object_attribute(object, path) {
            None => Next::Descend,
            Some(a) if !a.computed => {
                found = true;
                Next::Skip
            }
            Some(_) => Next::Descend,
        }
    });
    found
}
