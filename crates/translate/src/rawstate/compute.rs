//! Computing the delta between Pulumi outputs and the provider's state (Go's
//! `rawStateDeltaHelper.computeDeltaAt`), and the raw state JSON it must rebuild.
//!
//! The walk is driven by the state value; the schema only names object attributes and says
//! where values are dynamic. Wherever the natural rebuild cannot be proven right, the node
//! falls back to `replace` with the verbatim JSON. Top-level `timeouts` (which Terraform
//! injects) are left out of the raw state unless the outputs carry them.

use std::collections::BTreeMap;

use tfp_cty::{Kind, Type, Value};
use tfp_gostd::json::{self, Value as Json};
use tfp_gostd::strconv::{FloatFormat, format_float};
use tfp_values::PropertyValue;

use super::recover::snake_case;
use super::{Delta, is_reserved_key};
use crate::error::{Error, Result};
use crate::schema::{NO_FIELDS, Node, ObjectSchema};

const TIMEOUTS: &str = "timeouts";

/// The delta for outputs `pv` of `state`, and the raw state JSON it rebuilds.
pub(super) fn compute(
    schema: &ObjectSchema<'_>,
    pv: &PropertyValue,
    state: &Value,
    ty: &Type,
) -> Result<(Delta, Vec<u8>)> {
    let root = schema.node();
    let mut delta = delta_at(Some(root), true, pv, state);
    let has_timeouts = pv.as_object().is_some_and(|m| m.contains_key(TIMEOUTS));
    let raw = if has_timeouts {
        tfp_cty::to_json(state, ty).map_err(Error::Json)?
    } else {
        if let Delta::Obj { ps, .. } = &mut delta {
            ps.remove(TIMEOUTS);
        }
        let (state, ty) = without_attribute(state, ty, TIMEOUTS);
        tfp_cty::to_json(&state, &ty).map_err(Error::Json)?
    };
    Ok((delta, raw))
}

/// The object and its type without one attribute.
fn without_attribute(value: &Value, ty: &Type, name: &str) -> (Value, Type) {
    let value = match &value.kind {
        Kind::Object(attrs) => Value::object(
            attrs
                .iter()
                .filter(|(k, _)| k.as_str() != name)
                .map(|(k, v)| (k.clone(), v.clone())),
        ),
        _ => value.clone(),
    };
    let ty = match ty {
        Type::Object { attributes, .. } => Type::object(
            attributes
                .iter()
                .filter(|(k, _)| k.as_str() != name)
                .map(|(k, t)| (k.clone(), t.clone())),
        ),
        other => other.clone(),
    };
    (value, ty)
}

/// A failed attempt; the caller falls back to `replace`.
struct NoDelta;

fn delta_at(node: Option<Node<'_>>, top: bool, pv: &PropertyValue, v: &Value) -> Delta {
    match compute_at(node, top, pv, v) {
        Ok(delta) => delta,
        Err(NoDelta) => replace(node, v),
    }
}

/// The JSON of `v`, typed by the schema where it is known.
fn replace(node: Option<Node<'_>>, v: &Value) -> Delta {
    let ty = node.map_or_else(|| v.ty(), |n| n.wire_type());
    let raw = tfp_cty::to_json(v, &ty)
        .or_else(|_| tfp_cty::to_json(v, &v.ty()))
        .ok()
        // Our own JSON, read back as it is: no value is nested deeper than its length.
        .and_then(|bytes| json::parse(&bytes, bytes.len()).ok())
        .unwrap_or(Json::Null);
    Delta::Replace(raw)
}

fn similar_number(pv: f64, v: &tfp_cty::Number) -> bool {
    format_float(pv, FloatFormat::F) == v.to_decimal_string()
}

fn compute_at(
    node: Option<Node<'_>>,
    top: bool,
    pv: &PropertyValue,
    v: &Value,
) -> Result<Delta, NoDelta> {
    match pv {
        PropertyValue::Secret(inner) => return Ok(delta_at(node, top, inner, v)),
        PropertyValue::Output(output) => match &output.element {
            Some(element) => return Ok(delta_at(node, top, element, v)),
            None => return Err(NoDelta),
        },
        PropertyValue::Computed(_) | PropertyValue::Asset(_) | PropertyValue::Archive(_) => {
            return Err(NoDelta);
        }
        _ => {}
    }
    if node.is_some_and(|n| n.is_dynamic()) {
        return Ok(replace(node, v));
    }
    let node = node.map(|n| n.unwrap_single());
    let element = node.map(|n| n.element());
    match (&v.kind, pv) {
        (Kind::Null(_), PropertyValue::Null) => Ok(Delta::Natural),
        (Kind::String(a), PropertyValue::String(b)) if a == b => Ok(Delta::Natural),
        (Kind::Bool(a), PropertyValue::Bool(b)) if a == b => Ok(Delta::Natural),
        (Kind::Number(a), PropertyValue::Number(b)) if similar_number(*b, a) => Ok(Delta::Natural),
        (Kind::Number(_), PropertyValue::String(_)) => Ok(Delta::Num),
        (Kind::List(_, items) | Kind::Set(_, items), pv) => {
            match (items.as_slice(), pv) {
                // [] shown as null, [x] shown as x: a flattened MaxItemsOne value.
                ([], PropertyValue::Null) => Ok(Delta::Pluralize(Box::new(Delta::Natural))),
                ([one], pv) if !matches!(pv, PropertyValue::Array(_)) => Ok(Delta::Pluralize(
                    Box::new(delta_at(element, false, pv, one)),
                )),
                (items, PropertyValue::Array(pvs)) if items.len() == pvs.len() => {
                    let mut el = BTreeMap::new();
                    for (i, (item, pv)) in items.iter().zip(pvs).enumerate() {
                        let d = delta_at(element, false, pv, item);
                        if !d.is_natural() {
                            el.insert(i, d);
                        }
                    }
                    Ok(Delta::Arr(el))
                }
                _ => Err(NoDelta),
            }
        }
        (Kind::Map(_, items), PropertyValue::Object(pvs)) if items.len() == pvs.len() => {
            let mut el = BTreeMap::new();
            for (key, item) in items {
                let pv = pvs.get(key).ok_or(NoDelta)?;
                let d = delta_at(element, false, pv, item);
                if !d.is_natural() {
                    el.insert(key.clone(), d);
                }
            }
            Ok(Delta::Map(el))
        }
        (Kind::Object(attrs), PropertyValue::Object(pvs)) => Ok(object(node, top, attrs, pvs)),
        _ => Err(NoDelta),
    }
}

fn object(
    node: Option<Node<'_>>,
    top: bool,
    attrs: &BTreeMap<String, Value>,
    pvs: &tfp_values::PropertyMap,
) -> Delta {
    let mut ignored = Vec::new();
    let mut renamed = BTreeMap::new();
    let mut ps = BTreeMap::new();
    let mut handled = std::collections::BTreeSet::new();
    for (tf_name, attr) in attrs {
        let child = node.and_then(|n| n.child(tf_name));
        let key = match &child {
            Some(c) => c.name.clone().into_owned(),
            // An attribute the schema does not know has no field: the mapping's default name.
            None => NO_FIELDS.pulumi_name(tf_name).into_owned(),
        };
        let child_node = child.as_ref().map(|c| c.node);
        let delta = if top && tf_name == TIMEOUTS {
            timeouts(child_node, pvs.get(&key), attr)
        } else {
            match pvs.get(&key) {
                Some(pv) => delta_at(child_node, false, pv, attr),
                None => replace(child_node, attr),
            }
        };
        if snake_case(&key) != *tf_name {
            renamed.insert(key.clone(), tf_name.clone());
        }
        if !delta.is_natural() {
            ps.insert(key.clone(), delta);
        }
        handled.insert(key);
    }
    for key in pvs.keys() {
        if !is_reserved_key(key) && !handled.contains(key) {
            ignored.push(key.clone());
        }
    }
    Delta::Obj {
        ignored,
        renamed,
        ps,
    }
}

/// Top-level `timeouts` (Go's `timeoutsDeltaAt`): keys are not renamed, and timeouts Terraform
/// keeps as null but Pulumi omits are restored with `replace`.
fn timeouts(node: Option<Node<'_>>, pv: Option<&PropertyValue>, v: &Value) -> Delta {
    let empty = Delta::Obj {
        ignored: Vec::new(),
        renamed: BTreeMap::new(),
        ps: BTreeMap::new(),
    };
    let Some(mut pv) = pv else {
        // Absent from the outputs: the raw state leaves timeouts out, so this is dropped.
        return empty;
    };
    loop {
        match pv {
            PropertyValue::Secret(inner) => pv = inner,
            PropertyValue::Output(output) if output.element.is_some() => {
                pv = output.element.as_ref().expect("checked by the guard");
            }
            _ => break,
        }
    }
    let items = match &v.kind {
        Kind::Object(items) | Kind::Map(_, items) => items,
        _ => return empty,
    };
    let PropertyValue::Object(pvs) = pv else {
        return replace(node, v);
    };
    let mut ps = BTreeMap::new();
    let mut renamed = BTreeMap::new();
    for (key, item) in items {
        if snake_case(key) != *key {
            renamed.insert(key.clone(), key.clone());
        }
        let child = node.and_then(|n| n.child(key)).map(|c| c.node);
        let child = child.or_else(|| {
            node.map(|n| n.element())
                .filter(|_| matches!(v.kind, Kind::Map(..)))
        });
        let delta = match pvs.get(key) {
            Some(pv) => delta_at(child, false, pv, item),
            None => replace(child, item),
        };
        if !delta.is_natural() {
            ps.insert(key.clone(), delta);
        }
    }
    let ignored = pvs
        .keys()
        .filter(|k| !is_reserved_key(k) && !items.contains_key(*k))
        .cloned()
        .collect();
    Delta::Obj {
        ignored,
        renamed,
        ps,
    }
}
