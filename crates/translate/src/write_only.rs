//! Write-only arguments taken out of Pulumi properties, and put back.
//!
//! Terraform never stores a write-only argument: the provider gets it in the configuration of
//! validate, plan and apply, and every state it returns holds null there. Pulumi stores a
//! resource's checked inputs, so the server takes write-only values out of what Check returns
//! ([`take_write_only`]), keeps them in memory, and puts them back into the inputs of the Diff,
//! Create or Update that follows ([`WriteOnly::restore`]). Outputs go through
//! [`take_write_only`] too: a value a provider wrongly returns for a write-only attribute is
//! dropped, not stored, and [`null_write_only`] does the same to a Terraform state before it
//! becomes outputs and the raw-state delta.
//!
//! Write-only attributes are found wherever the schema puts them: at the top, in nested blocks
//! (flattened MaxItemsOne blocks included) and in nested attributes. A value is taken out
//! whole, secret or output wrapper and all, and put back at the same place; the properties it
//! is put back into are the ones Check returned, so every place still exists.

use tfp_cty::{Kind, Value};
use tfp_values::{
    PropertyMap, PropertyValue,
    property_path::{self, Keys, Step},
};

use crate::schema::{Node, ObjectSchema};

/// Write-only values taken out of a property map, each with where it was.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteOnly {
    values: Vec<(Vec<Step>, PropertyValue)>,
}

impl WriteOnly {
    /// Whether nothing was taken out.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The Pulumi names of the values taken out, in the bridge's path syntax
    /// (`contentWo`, `block[0].secretWo`), for messages that must not show the values.
    pub fn paths(&self) -> Vec<String> {
        self.values
            .iter()
            .map(|(steps, _)| property_path::render(steps, Keys::Whole))
            .collect()
    }

    /// `props` with every value put back where it was taken from. A place that no longer exists
    /// (the properties are not the ones the values were taken from) is skipped.
    pub fn restore(&self, mut props: PropertyMap) -> PropertyMap {
        for (steps, value) in &self.values {
            put(&mut props, steps, value.clone());
        }
        props
    }
}

/// `props` without the values of write-only attributes, and those values.
pub fn take_write_only(
    schema: &ObjectSchema<'_>,
    mut props: PropertyMap,
) -> (PropertyMap, WriteOnly) {
    let mut taken = WriteOnly::default();
    let mut path = Vec::new();
    take_object(schema.node(), &mut props, &mut path, &mut taken);
    (props, taken)
}

fn take_object(
    node: Node<'_>,
    props: &mut PropertyMap,
    path: &mut Vec<Step>,
    taken: &mut WriteOnly,
) {
    for child in node.children() {
        let name = child.name.as_ref();
        if child.write_only {
            if let Some(value) = props.remove(name) {
                let mut at = path.clone();
                at.push(Step::Key(name.to_owned()));
                taken.values.push((at, value));
            }
            continue;
        }
        let Some(value) = props.get_mut(name) else {
            continue;
        };
        path.push(Step::Key(name.to_owned()));
        let element = if child.flatten {
            // A flattened block's value is its one element.
            child.node.element()
        } else {
            child.node
        };
        take_value(element, value, path, taken);
        path.pop();
    }
}

fn take_value(
    node: Node<'_>,
    value: &mut PropertyValue,
    path: &mut Vec<Step>,
    taken: &mut WriteOnly,
) {
    match value {
        PropertyValue::Secret(inner) => take_value(node, inner, path, taken),
        PropertyValue::Output(output) => {
            if let Some(element) = output.element.as_mut() {
                take_value(node, element, path, taken);
            }
        }
        PropertyValue::Array(items) => {
            let element = node.element();
            for (i, item) in items.iter_mut().enumerate() {
                path.push(Step::Index(i));
                take_value(element, item, path, taken);
                path.pop();
            }
        }
        PropertyValue::Object(map) => {
            let object = node.unwrap_single();
            if object.is_object() {
                take_object(object, map, path, taken);
            } else if object.is_map() {
                let element = object.element();
                for (key, item) in map.iter_mut() {
                    path.push(Step::Key(key.clone()));
                    take_value(element, item, path, taken);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// Puts `value` at `steps` below `props`, looking through secret and output wrappers.
fn put(props: &mut PropertyMap, steps: &[Step], value: PropertyValue) {
    let Some((Step::Key(key), rest)) = steps.split_first() else {
        return;
    };
    if rest.is_empty() {
        props.insert(key.clone(), value);
        return;
    }
    if let Some(next) = props.get_mut(key) {
        put_below(next, rest, value);
    }
}

fn put_below(at: &mut PropertyValue, steps: &[Step], value: PropertyValue) {
    match at {
        PropertyValue::Secret(inner) => put_below(inner, steps, value),
        PropertyValue::Output(output) => {
            if let Some(element) = output.element.as_mut() {
                put_below(element, steps, value);
            }
        }
        PropertyValue::Object(map) => put(map, steps, value),
        PropertyValue::Array(items) => {
            if let Some((Step::Index(i), rest)) = steps.split_first()
                && let Some(item) = items.get_mut(*i)
            {
                if rest.is_empty() {
                    *item = value;
                } else {
                    put_below(item, rest, value);
                }
            }
        }
        _ => {}
    }
}

/// `state` with null at every write-only attribute, and how many values were not null there: a
/// provider must return null for them (Terraform fails the call otherwise), so a value there is
/// dropped rather than stored.
pub fn null_write_only(schema: &ObjectSchema<'_>, state: Value) -> (Value, usize) {
    let mut dropped = 0;
    let value = null_in(schema.node(), state, &mut dropped);
    (value, dropped)
}

fn null_in(node: Node<'_>, value: Value, dropped: &mut usize) -> Value {
    let Value { kind, sensitive } = value;
    let kind = match kind {
        Kind::Object(mut attrs) if node.unwrap_single().is_object() => {
            for child in node.unwrap_single().children() {
                let Some(attr) = attrs.remove(child.tf_name) else {
                    continue;
                };
                let attr = if child.write_only {
                    if !attr.is_null() {
                        *dropped += 1;
                    }
                    Value::null(child.node.wire_type())
                } else {
                    null_in(child.node, attr, dropped)
                };
                attrs.insert(child.tf_name.to_owned(), attr);
            }
            Kind::Object(attrs)
        }
        Kind::List(ty, items) => Kind::List(ty, null_items(node.element(), items, dropped)),
        Kind::Set(ty, items) => Kind::Set(ty, null_items(node.element(), items, dropped)),
        Kind::Map(ty, items) => {
            let element = node.element();
            Kind::Map(
                ty,
                items
                    .into_iter()
                    .map(|(k, v)| (k, null_in(element, v, dropped)))
                    .collect(),
            )
        }
        other => other,
    };
    Value { kind, sensitive }
}

fn null_items(node: Node<'_>, items: Vec<Value>, dropped: &mut usize) -> Vec<Value> {
    items
        .into_iter()
        .map(|item| null_in(node, item, dropped))
        .collect()
}
