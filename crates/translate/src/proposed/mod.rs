//! The proposed new state PlanResourceChange needs from its client, with the semantics of
//! OpenTofu's `objchange.ProposedNew` (the version the Go bridge vendors and calls locally).
//!
//! Attributes: config wins, except a computed attribute the config leaves null keeps its prior
//! value (unless it is an optional nested attribute whose prior value has non-computed parts,
//! which must have come from config, so null it is). Nested attributes are merged attribute by
//! attribute. Nested blocks and nested attribute collections correlate by nesting mode: single
//! and group blocks as objects, lists by index, maps by key, sets by finding for each config
//! element an unused prior element that could have come from it (equal but for computed
//! attributes the config leaves null). An unknown config is taken as it is; a null prior (create)
//! is the empty value of the block. Values are expected to have the block's implied type; a
//! value of another shape is taken from config rather than failing.

mod walk;

use std::collections::BTreeMap;

use tfp_cty::{
    Attribute, AttributeType, Block, Kind, NestedBlock, NestedObject, NestingMode, Type, Value,
};

use crate::encode::empty_block;
use walk::{optional_value_not_computable, valid_prior_from_config};

/// The proposed new state of a resource of schema `schema` from its prior state (null to
/// create) and its configuration.
pub fn proposed_new_state(schema: &Block, prior: &Value, config: &Value) -> Value {
    if config.is_null() && prior.is_null() {
        return prior.clone();
    }
    if prior.is_null() {
        return proposed_new(schema, &empty_block(schema), config);
    }
    proposed_new(schema, prior, config)
}

/// A block or nested attribute object, whose elements a collection merges.
#[derive(Clone, Copy)]
pub(crate) enum Nested<'a> {
    Block(&'a Block),
    Object(&'a NestedObject),
}

/// An attribute of an object value; unknown for an unknown object and null when absent.
fn get(value: &Value, name: &str, ty: impl FnOnce() -> Type) -> Value {
    match &value.kind {
        Kind::Object(attrs) => attrs
            .get(name)
            .cloned()
            .unwrap_or_else(|| Value::null(ty())),
        Kind::Unknown(..) => Value::unknown(ty()),
        _ => Value::null(ty()),
    }
}

fn proposed_new(schema: &Block, prior: &Value, config: &Value) -> Value {
    if !config.is_known() {
        return config.clone();
    }
    if config.is_null() {
        return prior.clone();
    }
    if config.as_object().is_none() {
        return config.clone();
    }
    let mut attrs = proposed_new_attributes(&schema.attributes, prior, config);
    for (name, nested) in &schema.block_types {
        if schema.attributes.contains_key(name) {
            continue;
        }
        let ty = || nested.implied_type();
        let prior_v = get(prior, name, ty);
        let config_v = get(config, name, ty);
        attrs.insert(
            name.clone(),
            proposed_new_nested_block(nested, &prior_v, &config_v),
        );
    }
    Value::object(attrs)
}

fn proposed_new_attributes(
    attributes: &tfp_cty::NameMap<Attribute>,
    prior: &Value,
    config: &Value,
) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for (name, attr) in attributes {
        let ty = || attr.implied_type();
        let prior_v = if prior.is_null() {
            Value::null(ty())
        } else {
            get(prior, name, ty)
        };
        let config_v = get(config, name, ty);
        let new_v = if attr.computed && config_v.is_null() {
            if optional_value_not_computable(attr, &prior_v) {
                config_v
            } else {
                prior_v
            }
        } else if let AttributeType::Nested(object) = &attr.ty {
            proposed_new_nested_type(object, &prior_v, &config_v)
        } else {
            config_v
        };
        out.insert(name.clone(), new_v);
    }
    out
}

fn proposed_new_nested_block(nested: &NestedBlock, prior: &Value, config: &Value) -> Value {
    if !config.is_known() {
        return config.clone();
    }
    let schema = Nested::Block(&nested.block);
    match nested.nesting {
        NestingMode::Single if config.is_null() => config.clone(),
        NestingMode::Single | NestingMode::Group => {
            proposed_new_state(&nested.block, prior, config)
        }
        NestingMode::List => nesting_list(schema, prior, config),
        NestingMode::Map => nesting_map(schema, prior, config),
        NestingMode::Set => nesting_set(schema, prior, config),
    }
}

fn proposed_new_nested_type(object: &NestedObject, prior: &Value, config: &Value) -> Value {
    if !config.is_known() {
        return config.clone();
    }
    let schema = Nested::Object(object);
    match object.nesting {
        NestingMode::Single | NestingMode::Group if config.is_null() => config.clone(),
        NestingMode::Single | NestingMode::Group => object_attributes(object, prior, config),
        NestingMode::List => nesting_list(schema, prior, config),
        NestingMode::Map => nesting_map(schema, prior, config),
        NestingMode::Set => nesting_set(schema, prior, config),
    }
}

fn object_attributes(object: &NestedObject, prior: &Value, config: &Value) -> Value {
    if config.is_null() {
        return config.clone();
    }
    Value::object(proposed_new_attributes(&object.attributes, prior, config))
}

fn block_or_object(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    match schema {
        Nested::Block(block) => proposed_new_state(block, prior, config),
        Nested::Object(object) => object_attributes(object, prior, config),
    }
}

/// Element `i` of a list or tuple; unknown elements of an unknown collection.
fn index(value: &Value, i: usize) -> Option<Value> {
    match &value.kind {
        Kind::List(_, items) | Kind::Tuple(items) => items.get(i).cloned(),
        Kind::Unknown(ty, _) => match &**ty {
            Type::List(e) => Some(Value::unknown((**e).clone())),
            _ => Some(Value::unknown(Type::Dynamic)),
        },
        _ => None,
    }
}

fn nesting_list(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    let (items, element_type) = match &config.kind {
        Kind::List(e, items) => (items, Some(e)),
        Kind::Tuple(items) => (items, None),
        _ => return config.clone(),
    };
    if items.is_empty() {
        return config.clone();
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, config_ev) in items.iter().enumerate() {
        let prior_ev = if prior.is_known() && prior.is_null() {
            None
        } else {
            index(prior, i)
        };
        out.push(match prior_ev {
            None => config_ev.clone(),
            Some(prior_ev) => block_or_object(schema, &prior_ev, config_ev),
        });
    }
    match element_type {
        Some(e) => Value::list(e.clone(), out),
        None => Value::tuple(out),
    }
}

fn nesting_map(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    let (items, element_type) = match &config.kind {
        Kind::Map(e, items) => (items, Some(e)),
        Kind::Object(items) => (items, None),
        _ => return config.clone(),
    };
    if items.is_empty() {
        return config.clone();
    }
    let prior_items = match &prior.kind {
        Kind::Map(_, items) | Kind::Object(items) => Some(items),
        _ => None,
    };
    let mut out = BTreeMap::new();
    for (key, config_ev) in items {
        let new_v = match prior_items.and_then(|p| p.get(key)) {
            None => config_ev.clone(),
            Some(prior_ev) => block_or_object(schema, prior_ev, config_ev),
        };
        out.insert(key.clone(), new_v);
    }
    match element_type {
        Some(e) => Value::map(e.clone(), out),
        None => Value::object(out),
    }
}

fn nesting_set(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    let Kind::Set(element_type, items) = &config.kind else {
        return config.clone();
    };
    if items.is_empty() {
        return config.clone();
    }
    let prior_items: &[Value] = match &prior.kind {
        Kind::Set(_, items) => items,
        _ => &[],
    };
    let mut used = vec![false; prior_items.len()];
    let mut out = Vec::with_capacity(items.len());
    for config_ev in items {
        let mut prior_ev = None;
        for (i, candidate) in prior_items.iter().enumerate() {
            if !used[i] && valid_prior_from_config(schema, candidate, config_ev) {
                used[i] = true;
                prior_ev = Some(candidate);
                break;
            }
        }
        let null = Value::null(element_type.clone());
        out.push(block_or_object(
            schema,
            prior_ev.unwrap_or(&null),
            config_ev,
        ));
    }
    Value::set(element_type.clone(), out)
}
