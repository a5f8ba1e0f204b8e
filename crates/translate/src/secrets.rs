//! Marking the values of sensitive attributes secret in Pulumi properties (the Go bridge's
//! `MarkSchemaSecrets`, applied to the inputs Check and CheckConfig return).
//!
//! Every value at a sensitive attribute that is not already a secret is wrapped, whatever it
//! is (null and unknown included, as in Go); secrets and secret outputs are left alone and not
//! searched. Flattened (MaxItemsOne) blocks are looked through. Properties the schema does not
//! know are kept unchanged. Ours, where Go differs: write-only attributes count as sensitive,
//! as the package schema marks them secret.

use tfp_values::{PropertyMap, PropertyValue};

use crate::schema::{Node, ObjectSchema};

/// The properties with every sensitive value secret.
pub fn mark_secrets(schema: &ObjectSchema<'_>, props: PropertyMap) -> PropertyMap {
    object(schema.node(), props)
}

fn object(node: Node<'_>, mut props: PropertyMap) -> PropertyMap {
    for child in node.children() {
        if let Some(value) = props.remove(child.name.as_ref()) {
            let element = if child.flatten {
                child.node.element()
            } else {
                child.node
            };
            let mut value = mark(element, value);
            if (child.sensitive || child.write_only) && !matches!(value, PropertyValue::Secret(_)) {
                value = PropertyValue::secret(value);
            }
            props.insert(child.name.into_owned(), value);
        }
    }
    props
}

fn mark(node: Node<'_>, value: PropertyValue) -> PropertyValue {
    match value {
        PropertyValue::Secret(_) => value,
        PropertyValue::Output(mut output) => {
            if output.secret {
                return PropertyValue::Output(output);
            }
            output.element = output.element.map(|e| mark(node, e));
            PropertyValue::Output(output)
        }
        PropertyValue::Array(items) => {
            let element = node.element();
            PropertyValue::Array(items.into_iter().map(|v| mark(element, v)).collect())
        }
        PropertyValue::Object(map) => match node.unwrap_single() {
            object_node @ (Node::Block(..)
            | Node::Attributes(..)
            | Node::Type(tfp_cty::Type::Object { .. }, _)) => {
                PropertyValue::Object(object(object_node, map))
            }
            // Maps: every value is an element.
            collection => {
                let element = collection.element();
                PropertyValue::Object(
                    map.into_iter()
                        .map(|(k, v)| (k, mark(element, v)))
                        .collect(),
                )
            }
        },
        other => other,
    }
}
