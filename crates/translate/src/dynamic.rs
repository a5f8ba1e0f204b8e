//! Dynamically typed attributes: Pulumi values with no schema become cty values of an inferred
//! type, and cty values of any type become plain Pulumi values (the Go bridge's
//! `pkg/convert/dynamic.go`).
//!
//! Inference: null is an untyped null; bools, numbers and strings keep their type; an array is
//! a list when every element has the same type (an empty array is a list of `dynamic`) and a
//! tuple otherwise; an object is an object type with its keys unchanged (maps and objects cannot
//! be told apart, so nothing is renamed). Assets and archives are errors. Decoding turns lists,
//! sets and tuples into arrays and maps and objects into objects, keeping nulls.

use std::collections::BTreeMap;

use tfp_cty::{Kind, Number, Type, Value};
use tfp_values::{PropertyMap, PropertyValue};

use crate::encode::{Encoder, downgrade_reference};
use crate::error::Result;

/// How deeply a dynamic value may nest: the schema bounds every other value.
const MAX_DEPTH: usize = 128;

pub(crate) fn infer(encoder: &mut Encoder, pv: &PropertyValue) -> Result<Value> {
    infer_at(encoder, pv, 0)
}

fn infer_at(encoder: &mut Encoder, pv: &PropertyValue, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(crate::Error::value(
            &encoder.path,
            "value is nested too deeply",
        ));
    }
    Ok(match pv {
        PropertyValue::Null => Value::null(Type::Dynamic),
        PropertyValue::Bool(b) => Value::bool(*b),
        PropertyValue::Number(n) => Number::from_f64(*n)
            .map(Value::number)
            .ok_or_else(|| crate::Error::value(&encoder.path, "NaN is not a valid number"))?,
        PropertyValue::String(s) => Value::string(s.clone()),
        PropertyValue::Computed(_) => encoder.unknown(Type::Dynamic)?,
        PropertyValue::Secret(inner) => encoder
            .secretly(true, |e| infer_at(e, inner, depth + 1))?
            .mark_sensitive(),
        PropertyValue::Output(output) => match &output.element {
            None => encoder.unknown(Type::Dynamic)?,
            Some(element) => {
                let value = encoder.secretly(output.secret, |e| infer_at(e, element, depth + 1))?;
                if output.secret {
                    value.mark_sensitive()
                } else {
                    value
                }
            }
        },
        PropertyValue::ResourceReference(reference) => {
            infer_at(encoder, &downgrade_reference(reference), depth + 1)?
        }
        PropertyValue::Asset(_) | PropertyValue::Archive(_) => {
            return Err(crate::Error::value(
                &encoder.path,
                format!(
                    "{}s inside dynamically typed values are not supported",
                    pv.kind_name()
                ),
            ));
        }
        PropertyValue::Array(items) => {
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                encoder.path.push_index(i);
                let value = infer_at(encoder, item, depth + 1);
                encoder.path.pop();
                values.push(value?);
            }
            let mut types = values.iter().map(Value::ty);
            match types.next() {
                None => Value::list(Type::Dynamic, values),
                Some(first) if types.all(|t| t == first) => Value::list(first, values),
                Some(_) => Value::tuple(values),
            }
        }
        PropertyValue::Object(map) => {
            let mut attrs = BTreeMap::new();
            for (key, item) in map {
                encoder.path.push_key(key);
                let value = infer_at(encoder, item, depth + 1);
                encoder.path.pop();
                attrs.insert(key.clone(), value?);
            }
            Value::object(attrs)
        }
    })
}

/// A cty value of any type as a plain Pulumi value; sensitive values become secrets.
pub(crate) fn decode(value: &Value) -> PropertyValue {
    let out = match &value.kind {
        Kind::Null(_) => return PropertyValue::Null,
        Kind::Unknown(..) => return PropertyValue::unknown(),
        Kind::String(s) => PropertyValue::String(s.clone()),
        Kind::Number(n) => PropertyValue::Number(n.to_f64()),
        Kind::Bool(b) => PropertyValue::Bool(*b),
        Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items) => {
            PropertyValue::Array(items.iter().map(decode).collect())
        }
        Kind::Map(_, items) | Kind::Object(items) => PropertyValue::Object(
            items
                .iter()
                .map(|(k, v)| (k.clone(), decode(v)))
                .collect::<PropertyMap>(),
        ),
    };
    if value.sensitive {
        PropertyValue::secret(out)
    } else {
        out
    }
}
