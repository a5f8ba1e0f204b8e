//! The delta tree and its Pulumi property form, as Go's `json.Marshal` of `RawStateDelta`
//! writes it and its `json.Unmarshal` reads it (unknown fields ignored, `null` meaning absent).

use std::collections::BTreeMap;

use tfp_gostd::json::Value as Json;
use tfp_values::{PropertyMap, PropertyValue};

use crate::config::{parsed_to_property, property_to_json};
use crate::error::{Error, PropertyPath, Result};

/// One node of a raw-state delta.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Delta {
    /// The natural rebuild is right.
    Natural,
    /// A flattened MaxItemsOne value: `null` is `[]`, anything else `[inner]`.
    Pluralize(Box<Delta>),
    /// A map, with deltas for some elements.
    Map(BTreeMap<String, Delta>),
    /// An object: properties to drop, Terraform names that are not the snake case of the
    /// Pulumi name, and deltas for some properties (also for properties Pulumi lacks).
    Obj {
        ignored: Vec<String>,
        renamed: BTreeMap<String, String>,
        ps: BTreeMap<String, Delta>,
    },
    /// A list or set, with deltas for some elements by position.
    Arr(BTreeMap<usize, Delta>),
    /// A number that Pulumi holds as a string.
    Num,
    /// An asset or archive translation; only the Go bridge's asset-aware providers write it.
    Asset,
    /// The raw JSON, written back as it is.
    Replace(Json),
}

fn object(entries: impl IntoIterator<Item = (&'static str, PropertyValue)>) -> PropertyValue {
    PropertyValue::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn deltas<K: ToString>(map: &BTreeMap<K, Delta>) -> PropertyValue {
    PropertyValue::Object(
        map.iter()
            .map(|(k, d)| (k.to_string(), d.plain()))
            .collect(),
    )
}

/// Go wraps every object holding a `replace` key in a secret, from the top down, and does not
/// look inside what it wrapped (`NewPropertyValueRepl` in `RawStateDelta.Marshal`).
fn secret_replaces(value: PropertyValue) -> PropertyValue {
    match value {
        PropertyValue::Object(map) if map.contains_key("replace") => {
            PropertyValue::secret(PropertyValue::Object(map))
        }
        PropertyValue::Object(map) => PropertyValue::Object(
            map.into_iter()
                .map(|(k, v)| (k, secret_replaces(v)))
                .collect(),
        ),
        PropertyValue::Array(items) => {
            PropertyValue::Array(items.into_iter().map(secret_replaces).collect())
        }
        other => other,
    }
}

impl Delta {
    pub(crate) fn is_natural(&self) -> bool {
        matches!(self, Delta::Natural)
    }

    /// Whether a raw value is written back anywhere in the tree: its stored form may then
    /// rebuild other bytes than the tree itself (object keys sorted, numbers as float64s).
    pub(crate) fn has_replace(&self) -> bool {
        match self {
            Delta::Replace(_) => true,
            Delta::Pluralize(inner) => inner.has_replace(),
            Delta::Map(el) => el.values().any(Delta::has_replace),
            Delta::Arr(el) => el.values().any(Delta::has_replace),
            Delta::Obj { ps, .. } => ps.values().any(Delta::has_replace),
            Delta::Natural | Delta::Num | Delta::Asset => false,
        }
    }

    /// The property value stored in state; a natural delta is null.
    pub(crate) fn to_property(&self) -> PropertyValue {
        if self.is_natural() {
            return PropertyValue::Null;
        }
        secret_replaces(self.plain())
    }

    /// The JSON tree Go marshals, as a property value without secrets.
    fn plain(&self) -> PropertyValue {
        match self {
            Delta::Natural => PropertyValue::Object(PropertyMap::new()),
            Delta::Pluralize(inner) => object([("plu", object([("i", inner.plain())]))]),
            Delta::Map(el) if el.is_empty() => object([("map", object([]))]),
            Delta::Map(el) => object([("map", object([("el", deltas(el))]))]),
            Delta::Arr(el) if el.is_empty() => object([("arr", object([]))]),
            Delta::Arr(el) => object([("arr", object([("el", deltas(el))]))]),
            Delta::Obj {
                ignored,
                renamed,
                ps,
            } => {
                let mut fields = Vec::new();
                if !ignored.is_empty() {
                    let names = ignored.iter().map(|k| PropertyValue::String(k.clone()));
                    fields.push(("ignored", PropertyValue::Array(names.collect())));
                }
                if !renamed.is_empty() {
                    let names = renamed
                        .iter()
                        .map(|(k, v)| (k.clone(), PropertyValue::String(v.clone())));
                    fields.push(("renamed", PropertyValue::Object(names.collect())));
                }
                if !ps.is_empty() {
                    fields.push(("ps", deltas(ps)));
                }
                object([("obj", object(fields))])
            }
            Delta::Num => object([("num", object([]))]),
            Delta::Asset => object([("asset", object([]))]),
            Delta::Replace(raw) => {
                // Go stores the raw JSON decoded into `any`: numbers become float64s.
                let raw = parsed_to_property(raw.clone(), false).unwrap_or(PropertyValue::Null);
                object([("replace", object([("raw", raw)]))])
            }
        }
    }

    /// Reads a delta from its property form (secrets removed first, as Go removes them).
    pub(crate) fn from_property(value: &PropertyValue) -> Result<Delta> {
        read(&value.clone().remove_secrets(), &mut PropertyPath::root())
    }
}

/// A field of a delta object; `null` counts as absent.
fn field<'a>(map: &'a PropertyMap, name: &str) -> Option<&'a PropertyValue> {
    map.get(name).filter(|v| !v.is_null())
}

fn as_object<'a>(
    value: &'a PropertyValue,
    path: &PropertyPath,
    what: &str,
) -> Result<&'a PropertyMap> {
    value.as_object().ok_or_else(|| {
        Error::delta(
            path,
            format!("{what} must be an object, found {}", value.kind_name()),
        )
    })
}

fn read_deltas(
    value: Option<&PropertyValue>,
    path: &mut PropertyPath,
) -> Result<BTreeMap<String, Delta>> {
    let mut out = BTreeMap::new();
    if let Some(value) = value {
        for (key, item) in as_object(value, path, "el")? {
            path.push_key(key);
            let delta = read(item, path);
            path.pop();
            out.insert(key.clone(), delta?);
        }
    }
    Ok(out)
}

fn read(value: &PropertyValue, path: &mut PropertyPath) -> Result<Delta> {
    let map = match value {
        PropertyValue::Null => return Ok(Delta::Natural),
        other => as_object(other, path, "a delta")?,
    };
    // At most one kind is set; should there be more, Go's `recoverRepr` picks in this order.
    if let Some(replace) = field(map, "replace") {
        let replace = as_object(replace, path, "replace")?;
        let raw = replace
            .get("raw")
            .ok_or_else(|| Error::delta(path, "replace has no raw"))?;
        let raw = property_to_json(raw).map_err(|reason| Error::delta(path, reason))?;
        return Ok(Delta::Replace(raw));
    }
    if let Some(plu) = field(map, "plu") {
        let plu = as_object(plu, path, "plu")?;
        let inner = match plu.get("i") {
            Some(i) => read(i, path)?,
            None => Delta::Natural,
        };
        return Ok(Delta::Pluralize(Box::new(inner)));
    }
    if let Some(m) = field(map, "map") {
        let m = as_object(m, path, "map")?;
        return Ok(Delta::Map(read_deltas(field(m, "el"), path)?));
    }
    if let Some(obj) = field(map, "obj") {
        let obj = as_object(obj, path, "obj")?;
        let ignored = match field(obj, "ignored") {
            None => Vec::new(),
            Some(PropertyValue::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| Error::delta(path, "ignored names must be strings"))
                })
                .collect::<Result<_>>()?,
            Some(other) => {
                return Err(Error::delta(
                    path,
                    format!("ignored must be an array, found {}", other.kind_name()),
                ));
            }
        };
        let renamed = match field(obj, "renamed") {
            None => BTreeMap::new(),
            Some(value) => as_object(value, path, "renamed")?
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|s| (k.clone(), s.to_owned()))
                        .ok_or_else(|| Error::delta(path, "renamed names must be strings"))
                })
                .collect::<Result<_>>()?,
        };
        let ps = read_deltas(field(obj, "ps"), path)?;
        return Ok(Delta::Obj {
            ignored,
            renamed,
            ps,
        });
    }
    if let Some(arr) = field(map, "arr") {
        let arr = as_object(arr, path, "arr")?;
        let mut el = BTreeMap::new();
        for (key, delta) in read_deltas(field(arr, "el"), path)? {
            let index: usize = key
                .parse()
                .map_err(|_| Error::delta(path, format!("invalid array delta index {key}")))?;
            el.insert(index, delta);
        }
        return Ok(Delta::Arr(el));
    }
    if field(map, "asset").is_some() {
        return Ok(Delta::Asset);
    }
    if field(map, "num").is_some() {
        return Ok(Delta::Num);
    }
    Ok(Delta::Natural)
}
