//! Rebuilding the raw state JSON from Pulumi outputs and a delta (Go's `RawStateDelta.Recover`),
//! written as Go's `json.Marshal` writes the rebuilt tree: sorted keys, Go escaping, numbers in
//! Go's shortest plain form, verbatim `replace` JSON.

use std::collections::BTreeMap;

use tfp_gostd::json::{Value as Json, is_number};
use tfp_gostd::strconv::{FloatFormat, format_float};
use tfp_values::PropertyValue;

use super::{Delta, is_reserved_key};
use crate::error::{Error, PropertyPath, Result};

/// The raw state JSON text.
pub(crate) fn recover(delta: &Delta, pv: &PropertyValue) -> Result<String> {
    let mut path = PropertyPath::root();
    Ok(recover_at(delta, pv, &mut path)?.to_text())
}

/// Go's default Pulumi-to-Terraform name, without a schema (`PulumiToTerraformName(k, nil,
/// nil)`): an underscore before every ASCII capital but a leading one, then lower case.
pub(crate) fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.char_indices() {
        if c.is_ascii_uppercase() {
            if i != 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn unwrap<'a>(pv: &'a PropertyValue, path: &PropertyPath) -> Result<&'a PropertyValue> {
    match pv {
        PropertyValue::Secret(inner) => unwrap(inner, path),
        PropertyValue::Output(output) => match &output.element {
            Some(element) => unwrap(element, path),
            None => Err(Error::UnknownInState {
                path: path.to_string(),
            }),
        },
        PropertyValue::Computed(_) => Err(Error::UnknownInState {
            path: path.to_string(),
        }),
        other => Ok(other),
    }
}

fn recover_at(delta: &Delta, pv: &PropertyValue, path: &mut PropertyPath) -> Result<Json> {
    let pv = unwrap(pv, path)?;
    match delta {
        Delta::Natural => natural(pv, path),
        Delta::Replace(raw) => Ok(raw.clone()),
        Delta::Pluralize(inner) => match pv {
            PropertyValue::Null => Ok(Json::Array(Vec::new())),
            pv => Ok(Json::Array(vec![recover_at(inner, pv, path)?])),
        },
        Delta::Map(el) => {
            let PropertyValue::Object(map) = pv else {
                return Err(Error::delta(path, "expected an object encoding a map"));
            };
            let mut out = BTreeMap::new();
            for (key, value) in map {
                path.push_key(key);
                let element = recover_at(el.get(key).unwrap_or(&Delta::Natural), value, path);
                path.pop();
                out.insert(key.clone(), element?);
            }
            Ok(Json::sorted_object(out))
        }
        Delta::Obj {
            ignored,
            renamed,
            ps,
        } => {
            let PropertyValue::Object(map) = pv else {
                return Err(Error::delta(
                    path,
                    "expected an object encoding a Terraform object",
                ));
            };
            let name = |key: &str| renamed.get(key).cloned().unwrap_or_else(|| snake_case(key));
            let mut out = BTreeMap::new();
            for (key, value) in map {
                if is_reserved_key(key) || ignored.iter().any(|i| i == key) {
                    continue;
                }
                path.push_key(key);
                let element = recover_at(ps.get(key).unwrap_or(&Delta::Natural), value, path);
                path.pop();
                out.insert(name(key), element?);
            }
            // Deltas for properties Pulumi lacks (typically a `replace` of a null attribute).
            for (key, delta) in ps {
                if map.contains_key(key) {
                    continue;
                }
                path.push_key(key);
                let element = recover_at(delta, &PropertyValue::Null, path);
                path.pop();
                out.insert(name(key), element?);
            }
            Ok(Json::sorted_object(out))
        }
        Delta::Arr(el) => {
            let PropertyValue::Array(items) = pv else {
                return Err(Error::delta(path, "expected an array"));
            };
            if let Some(bad) = el.keys().find(|&&k| k >= items.len()) {
                return Err(Error::delta(
                    path,
                    format!("invalid array delta index {bad}"),
                ));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                path.push_index(i);
                let element = recover_at(el.get(&i).unwrap_or(&Delta::Natural), item, path);
                path.pop();
                out.push(element?);
            }
            Ok(Json::Array(out))
        }
        Delta::Num => match pv {
            PropertyValue::String(s) if is_number(s) => Ok(Json::Number(s.clone())),
            PropertyValue::String(s) => {
                Err(Error::delta(path, format!("{s:?} is not a JSON number")))
            }
            other => Err(Error::delta(
                path,
                format!("expected a string, found {}", other.kind_name()),
            )),
        },
        Delta::Asset => Err(Error::delta(
            path,
            "asset and archive deltas need the bridge's asset translations, which dynamically bridged providers do not have",
        )),
    }
}

/// The natural rebuild of a value (Go's `rawStateRecoverNatural`): objects are ambiguous (map
/// or object?) and need a delta.
fn natural(pv: &PropertyValue, path: &mut PropertyPath) -> Result<Json> {
    let pv = unwrap(pv, path)?;
    Ok(match pv {
        PropertyValue::Null => Json::Null,
        PropertyValue::Bool(b) => Json::Bool(*b),
        PropertyValue::String(s) => Json::String(s.clone()),
        PropertyValue::Number(n) => {
            let text = format_float(*n, FloatFormat::F);
            if !is_number(&text) {
                return Err(Error::delta(
                    path,
                    format!("{text} cannot be written as JSON"),
                ));
            }
            Json::Number(text)
        }
        PropertyValue::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                path.push_index(i);
                let element = natural(item, path);
                path.pop();
                out.push(element?);
            }
            Json::Array(out)
        }
        PropertyValue::Object(_) => {
            return Err(Error::delta(
                path,
                "cannot rebuild an object without a delta (map or object?)",
            ));
        }
        other => {
            return Err(Error::delta(
                path,
                format!("cannot rebuild raw state from {}", other.kind_name()),
            ));
        }
    })
}
