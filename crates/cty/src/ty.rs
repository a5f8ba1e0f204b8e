//! cty types and their JSON type-spec form (`"string"`, `["list","number"]`, …).
//!
//! The JSON form is what Terraform puts in `Schema.Attribute.type`, function signatures and the
//! type element of a dynamic value (go-cty `cty/json.go`). Optional object attributes exist only
//! in type constraints: they are the third element of an `["object", {…}, [names]]` spec.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value as Json;
use tfp_gostd::json::{Array, Object, write_string};

/// A cty type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    String,
    Number,
    Bool,
    List(Arc<Type>),
    Set(Arc<Type>),
    Map(Arc<Type>),
    /// An object type; `optional` names attributes that a type constraint lets be absent.
    Object {
        attributes: BTreeMap<String, Type>,
        optional: BTreeSet<String>,
    },
    Tuple(Vec<Type>),
    /// `DynamicPseudoType`: any type, carried on the wire with its type alongside the value.
    Dynamic,
}

/// A type spec that is not valid JSON cty.
#[derive(Debug, thiserror::Error)]
pub enum TypeError {
    #[error("type spec is not valid JSON")]
    Json(#[source] serde_json::Error),
    #[error("invalid type spec at {path}: {reason}")]
    Invalid { path: String, reason: String },
}

/// Nesting deeper than this is rejected rather than risking the stack on hostile input.
const MAX_DEPTH: usize = 64;

impl Type {
    /// An object type with no optional attributes.
    pub fn object(attributes: impl IntoIterator<Item = (String, Type)>) -> Type {
        Type::Object {
            attributes: attributes.into_iter().collect(),
            optional: BTreeSet::new(),
        }
    }

    /// Parses the JSON type-spec bytes Terraform sends. Trailing data is an error.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Type, TypeError> {
        let json: Json = serde_json::from_slice(bytes).map_err(TypeError::Json)?;
        Type::from_json(&json)
    }

    /// Parses an already-decoded JSON type spec.
    pub fn from_json(json: &Json) -> Result<Type, TypeError> {
        parse(json, &mut String::from("$"), 0)
    }

    /// The JSON type spec, as go-cty writes it (optional attribute names sorted).
    pub fn to_json(&self) -> Json {
        match self {
            Type::String => Json::from("string"),
            Type::Number => Json::from("number"),
            Type::Bool => Json::from("bool"),
            Type::Dynamic => Json::from("dynamic"),
            Type::List(e) => Json::Array(vec!["list".into(), e.to_json()]),
            Type::Set(e) => Json::Array(vec!["set".into(), e.to_json()]),
            Type::Map(e) => Json::Array(vec!["map".into(), e.to_json()]),
            Type::Tuple(es) => Json::Array(vec![
                "tuple".into(),
                Json::Array(es.iter().map(Type::to_json).collect()),
            ]),
            Type::Object {
                attributes,
                optional,
            } => {
                let attrs = attributes
                    .iter()
                    .map(|(k, t)| (k.clone(), t.to_json()))
                    .collect();
                let mut spec = vec!["object".into(), Json::Object(attrs)];
                if !optional.is_empty() {
                    spec.push(Json::Array(
                        optional.iter().map(|n| Json::from(n.as_str())).collect(),
                    ));
                }
                Json::Array(spec)
            }
        }
    }

    /// The compact JSON text of [`Type::to_json`], byte for byte as go-cty's `Type.MarshalJSON`
    /// writes it (Go's escaping of attribute names), which dynamic values carry on the wire.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        write_type(self, &mut out);
        out
    }

    /// Whether `dynamic` occurs anywhere in this type.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::String | Type::Number | Type::Bool => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.has_dynamic(),
            Type::Tuple(es) => es.iter().any(Type::has_dynamic),
            Type::Object { attributes, .. } => attributes.values().any(Type::has_dynamic),
        }
    }

    /// The same type with every optional-attribute marker removed, at every depth: the
    /// concrete type of values on the wire (go-cty `WithoutOptionalAttributesDeep`).
    pub fn without_optional_attributes(&self) -> Type {
        match self {
            Type::String | Type::Number | Type::Bool | Type::Dynamic => self.clone(),
            Type::List(e) => Type::List(Arc::new(e.without_optional_attributes())),
            Type::Set(e) => Type::Set(Arc::new(e.without_optional_attributes())),
            Type::Map(e) => Type::Map(Arc::new(e.without_optional_attributes())),
            Type::Tuple(es) => {
                Type::Tuple(es.iter().map(Type::without_optional_attributes).collect())
            }
            Type::Object { attributes, .. } => Type::object(
                attributes
                    .iter()
                    .map(|(k, t)| (k.clone(), t.without_optional_attributes())),
            ),
        }
    }
}

fn parse(json: &Json, path: &mut String, depth: usize) -> Result<Type, TypeError> {
    let invalid = |path: &String, reason: &str| TypeError::Invalid {
        path: path.clone(),
        reason: reason.to_owned(),
    };
    if depth > MAX_DEPTH {
        return Err(invalid(path, "nested too deeply"));
    }
    match json {
        Json::String(s) => match s.as_str() {
            "string" => Ok(Type::String),
            "number" => Ok(Type::Number),
            "bool" => Ok(Type::Bool),
            "dynamic" => Ok(Type::Dynamic),
            other => Err(invalid(path, &format!("unknown primitive type {other:?}"))),
        },
        Json::Array(items) => {
            let Some(Json::String(kind)) = items.first() else {
                return Err(invalid(
                    path,
                    "a compound type spec starts with its kind as a string",
                ));
            };
            let element = |index: usize, path: &mut String| {
                let len = path.len();
                let _ = write!(path, "[{index}]");
                let parsed = items
                    .get(index)
                    .ok_or_else(|| invalid(path, "missing element"))
                    .and_then(|item| parse(item, path, depth + 1));
                path.truncate(len);
                parsed
            };
            match kind.as_str() {
                "list" | "set" | "map" => {
                    if items.len() != 2 {
                        return Err(invalid(
                            path,
                            &format!("{kind} takes exactly one element type"),
                        ));
                    }
                    let e = Arc::new(element(1, path)?);
                    Ok(match kind.as_str() {
                        "list" => Type::List(e),
                        "set" => Type::Set(e),
                        _ => Type::Map(e),
                    })
                }
                "tuple" => {
                    let (2, Some(Json::Array(elems))) = (items.len(), items.get(1)) else {
                        return Err(invalid(path, "tuple takes an array of element types"));
                    };
                    let mut types = Vec::with_capacity(elems.len());
                    for (i, e) in elems.iter().enumerate() {
                        let len = path.len();
                        let _ = write!(path, "[1][{i}]");
                        types.push(parse(e, path, depth + 1)?);
                        path.truncate(len);
                    }
                    Ok(Type::Tuple(types))
                }
                "object" => {
                    let Some(Json::Object(attrs)) = items.get(1) else {
                        return Err(invalid(
                            path,
                            "object takes a JSON object of attribute types",
                        ));
                    };
                    if items.len() > 3 {
                        return Err(invalid(
                            path,
                            "object takes at most attributes and optional names",
                        ));
                    }
                    let mut attributes = BTreeMap::new();
                    for (name, t) in attrs {
                        let len = path.len();
                        let _ = write!(path, ".{name}");
                        attributes.insert(name.clone(), parse(t, path, depth + 1)?);
                        path.truncate(len);
                    }
                    let mut optional = BTreeSet::new();
                    if let Some(names) = items.get(2) {
                        let Json::Array(names) = names else {
                            return Err(invalid(path, "optional attribute names must be an array"));
                        };
                        for name in names {
                            let Json::String(name) = name else {
                                return Err(invalid(
                                    path,
                                    "optional attribute names must be strings",
                                ));
                            };
                            if !attributes.contains_key(name) {
                                return Err(invalid(
                                    path,
                                    &format!("optional attribute {name:?} is not an attribute"),
                                ));
                            }
                            optional.insert(name.clone());
                        }
                    }
                    Ok(Type::Object {
                        attributes,
                        optional,
                    })
                }
                other => Err(invalid(path, &format!("unknown type kind {other:?}"))),
            }
        }
        _ => Err(invalid(path, "a type spec is a string or an array")),
    }
}

/// Appends the type spec as go-cty's `Type.MarshalJSON` writes it.
fn write_type(ty: &Type, out: &mut String) {
    match ty {
        Type::String => write_string(out, "string"),
        Type::Number => write_string(out, "number"),
        Type::Bool => write_string(out, "bool"),
        Type::Dynamic => write_string(out, "dynamic"),
        Type::List(e) => write_collection(out, "list", e),
        Type::Set(e) => write_collection(out, "set", e),
        Type::Map(e) => write_collection(out, "map", e),
        Type::Tuple(es) => {
            let mut spec = Array::start(out);
            write_string(spec.item(), "tuple");
            let mut elements = Array::start(spec.item());
            for e in es {
                write_type(e, elements.item());
            }
            elements.end();
            spec.end();
        }
        Type::Object {
            attributes,
            optional,
        } => {
            let mut spec = Array::start(out);
            write_string(spec.item(), "object");
            let mut attrs = Object::start(spec.item());
            for (name, t) in attributes {
                write_type(t, attrs.key(name));
            }
            attrs.end();
            if !optional.is_empty() {
                let mut names = Array::start(spec.item());
                for name in optional {
                    write_string(names.item(), name);
                }
                names.end();
            }
            spec.end();
        }
    }
}

/// `["list", element]` and its set and map twins.
fn write_collection(out: &mut String, kind: &str, element: &Type) {
    let mut spec = Array::start(out);
    write_string(spec.item(), kind);
    write_type(element, spec.item());
    spec.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(spec: &str) {
        let ty = Type::from_json_bytes(spec.as_bytes()).expect("valid spec");
        assert_eq!(ty.to_json_string(), spec);
    }

    #[test]
    fn round_trips_every_kind() {
        check(r#""string""#);
        check(r#""dynamic""#);
        check(r#"["list",["set",["map","bool"]]]"#);
        check(r#"["tuple",["number","string"]]"#);
        check(r#"["object",{"a":"string","b":"number"},["b"]]"#);
        check(r#"["object",{}]"#);
    }

    #[test]
    fn rejects_bad_specs() {
        for bad in [
            r#""str""#,
            r#"["list"]"#,
            r#"["list","string","x"]"#,
            r#"["object",{"a":"string"},["b"]]"#,
            r#"["capsule","x"]"#,
            r#""string" 1"#,
            "42",
        ] {
            assert!(
                Type::from_json_bytes(bad.as_bytes()).is_err(),
                "{bad} must be rejected"
            );
        }
    }

    #[test]
    fn rejects_hostile_nesting_without_overflow() {
        let spec = format!(
            "{}\"string\"{}",
            "[\"list\",".repeat(1000),
            "]".repeat(1000)
        );
        assert!(Type::from_json_bytes(spec.as_bytes()).is_err());
    }
}
