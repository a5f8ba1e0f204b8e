//! cty values to Pulumi property values, directed by the schema (the Go bridge's `pkg/convert`
//! decoders).
//!
//! Rules: object attributes are renamed through the mapping and **null attributes are
//! omitted** (outputs never carry nulls); map keys are kept; unknowns become the unknown
//! sentinel; a flattened (MaxItemsOne) block gives null for no element, the element for one and
//! an error for more; a known non-null value of a `sensitive` attribute, and any value marked
//! sensitive, becomes a secret; numbers become float64s; tuples become objects keyed `t0`,
//! `t1`…, except inside dynamic values, where they are arrays.

use tfp_cty::{Kind, Value};
use tfp_values::{PropertyMap, PropertyValue};

use crate::error::{Error, PropertyPath, Result};
use crate::schema::{Node, ObjectSchema};

/// Decodes an object of the schema's type into Pulumi properties. A null object gives no
/// properties; an unknown one is an error.
pub fn cty_to_properties(schema: &ObjectSchema<'_>, value: &Value) -> Result<PropertyMap> {
    let mut decoder = Decoder {
        path: PropertyPath::root(),
    };
    match &value.kind {
        Kind::Null(_) => Ok(PropertyMap::new()),
        Kind::Object(_) => decoder.object(schema.node(), value),
        _ => Err(Error::value(
            &decoder.path,
            "expected a known object for the whole resource",
        )),
    }
}

pub(crate) struct Decoder {
    pub(crate) path: PropertyPath,
}

fn secret_if(sensitive: bool, value: PropertyValue) -> PropertyValue {
    if sensitive && !value.is_secret() {
        PropertyValue::secret(value)
    } else {
        value
    }
}

impl Decoder {
    fn object(&mut self, node: Node<'_>, value: &Value) -> Result<PropertyMap> {
        let Some(attrs) = value.as_object() else {
            return Err(Error::value(&self.path, "expected an object value"));
        };
        let mut out = PropertyMap::new();
        for child in node.children() {
            let Some(attr) = attrs.get(child.tf_name) else {
                continue;
            };
            self.path.push_key(&child.name);
            let decoded = self.decode(child.node, child.flatten, attr);
            self.path.pop();
            let decoded = decoded?;
            if decoded.is_null() {
                continue;
            }
            // Go leaves unknowns unwrapped (`secretDecoder`); nulls were skipped above.
            out.insert(
                child.name.into_owned(),
                secret_if(child.sensitive && attr.is_known(), decoded),
            );
        }
        Ok(out)
    }

    pub(crate) fn decode(
        &mut self,
        node: Node<'_>,
        flatten: bool,
        value: &Value,
    ) -> Result<PropertyValue> {
        if !value.is_known() {
            return Ok(PropertyValue::unknown());
        }
        if value.is_null() {
            return Ok(PropertyValue::Null);
        }
        let out = if flatten {
            let items = value
                .elements()
                .ok_or_else(|| Error::value(&self.path, "expected a list or set"))?;
            match items {
                [] => return Ok(PropertyValue::Null),
                [one] => self.decode(node.element(), false, one)?,
                more => {
                    return Err(Error::value(
                        &self.path,
                        format!(
                            "MaxItemsOne list or set has too many ({}) values",
                            more.len()
                        ),
                    ));
                }
            }
        } else {
            self.decode_plain(node, value)?
        };
        Ok(secret_if(value.sensitive, out))
    }

    fn decode_plain(&mut self, node: Node<'_>, value: &Value) -> Result<PropertyValue> {
        if node.is_dynamic() && matches!(node, Node::Type(..)) {
            return Ok(crate::dynamic::decode(value));
        }
        // A single or group block and a single nested object are their element.
        let node = node.unwrap_single();
        Ok(match &value.kind {
            Kind::Null(_) => PropertyValue::Null,
            Kind::Unknown(..) => PropertyValue::unknown(),
            Kind::String(s) => PropertyValue::String(s.clone()),
            Kind::Number(n) => PropertyValue::Number(n.to_f64()),
            Kind::Bool(b) => PropertyValue::Bool(*b),
            Kind::List(_, items) | Kind::Set(_, items) => self.array(node.element(), items)?,
            Kind::Tuple(items) => match node {
                // A list block whose blocks have dynamic attributes travels as a tuple.
                Node::Blocks(..) => self.array(node.element(), items)?,
                _ => self.tuple(node, items)?,
            },
            Kind::Map(_, items) => self.entries(node.element(), items)?,
            Kind::Object(items) => match node {
                // A map block whose blocks have dynamic attributes travels as an object.
                Node::Blocks(..) => self.entries(node.element(), items)?,
                _ => PropertyValue::Object(self.object(node, value)?),
            },
        })
    }

    fn array(&mut self, element: Node<'_>, items: &[Value]) -> Result<PropertyValue> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            self.path.push_index(i);
            let decoded = self.decode(element, false, item);
            self.path.pop();
            out.push(decoded?);
        }
        Ok(PropertyValue::Array(out))
    }

    fn entries(
        &mut self,
        element: Node<'_>,
        items: &std::collections::BTreeMap<String, Value>,
    ) -> Result<PropertyValue> {
        let mut out = PropertyMap::new();
        for (key, item) in items {
            self.path.push_key(key);
            let decoded = self.decode(element, false, item);
            self.path.pop();
            out.insert(key.clone(), decoded?);
        }
        Ok(PropertyValue::Object(out))
    }

    fn tuple(&mut self, node: Node<'_>, items: &[Value]) -> Result<PropertyValue> {
        let (types, shapes) = match node {
            Node::Type(tfp_cty::Type::Tuple(types), shape) => (
                Some(types),
                match shape {
                    tfp_mapping::Shape::Tuple(shapes) => Some(shapes),
                    _ => None,
                },
            ),
            _ => (None, None),
        };
        let scalar = tfp_mapping::Shape::Scalar;
        let dynamic = tfp_cty::Type::Dynamic;
        let mut out = PropertyMap::new();
        for (i, item) in items.iter().enumerate() {
            let ty = types.and_then(|t| t.get(i)).unwrap_or(&dynamic);
            let shape = shapes.and_then(|s| s.get(i)).unwrap_or(&scalar);
            let key = format!("t{i}");
            self.path.push_key(&key);
            let decoded = self.decode(Node::Type(ty, shape), false, item);
            self.path.pop();
            out.insert(key, decoded?);
        }
        Ok(PropertyValue::Object(out))
    }
}
