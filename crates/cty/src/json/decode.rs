//! JSON decoding, following go-cty `cty/json/unmarshal.go`.

use std::collections::BTreeMap;

use tfp_gostd::json::{self, Value as Json};

use super::JsonOptions;
use crate::msgpack::MAX_DEPTH;
use crate::type_cache::TypeCache;
use crate::{Error, Number, Path, PathStep, Type, Value};

pub(super) fn decode(bytes: &[u8], ty: &Type, options: JsonOptions) -> Result<Value, Error> {
    let json = json::parse(bytes, MAX_DEPTH)
        .map_err(|err| Error::decode(&Path::root(), err.to_string()))?;
    let mut dec = Decoder {
        path: Path::root(),
        options,
        types: TypeCache::default(),
    };
    dec.value(json, ty)
}

struct Decoder {
    path: Path,
    options: JsonOptions,
    types: TypeCache,
}

fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a bool",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// A parsed type spec as serde_json, for [`Type::from_json`]; type specs hold no numbers.
fn to_serde(json: Json) -> serde_json::Value {
    match json {
        Json::Null | Json::Number(_) => serde_json::Value::Null,
        Json::Bool(b) => serde_json::Value::Bool(b),
        Json::String(s) => serde_json::Value::String(s),
        Json::Array(items) => serde_json::Value::Array(items.into_iter().map(to_serde).collect()),
        Json::Object(members) => {
            serde_json::Value::Object(members.into_iter().map(|(k, v)| (k, to_serde(v))).collect())
        }
    }
}

impl Decoder {
    fn fail(&self, reason: impl Into<String>) -> Error {
        Error::decode(&self.path, reason)
    }

    fn required(&self, what: &str, found: &Json) -> Error {
        self.fail(format!("{what} is required, found {}", json_kind(found)))
    }

    fn value(&mut self, json: Json, ty: &Type) -> Result<Value, Error> {
        if let Json::Null = json {
            return Ok(Value::null(self.types.share(ty)));
        }
        match ty {
            Type::Dynamic => self.dynamic(json),
            Type::String => match json {
                Json::String(s) | Json::Number(s) => Ok(Value::string(s)),
                Json::Bool(b) => Ok(Value::string(if b { "true" } else { "false" })),
                other => Err(self.required("a string", &other)),
            },
            Type::Number => match json {
                Json::String(s) | Json::Number(s) => Number::from_decimal_str(&s)
                    .map(Value::number)
                    .map_err(|e| self.fail(e.to_string())),
                other => Err(self.required("a number", &other)),
            },
            Type::Bool => match json {
                Json::Bool(b) => Ok(Value::bool(b)),
                Json::String(s) => match s.as_str() {
                    "true" | "1" => Ok(Value::bool(true)),
                    "false" | "0" => Ok(Value::bool(false)),
                    _ if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") => {
                        Err(self.fail(format!(
                            "a bool is required; to convert from string, use lowercase {:?}",
                            s.to_ascii_lowercase()
                        )))
                    }
                    _ => Err(self.fail("a bool is required")),
                },
                other => Err(self.required("a bool", &other)),
            },
            Type::List(e) | Type::Set(e) => {
                let Json::Array(items) = json else {
                    return Err(self.required("an array", &json));
                };
                let items = self.elements(items.into_iter().map(|j| (j, &**e)))?;
                let e = e.clone();
                Ok(match ty {
                    Type::List(_) => Value::list(e, items),
                    _ => Value::set_in_order(e, items),
                })
            }
            Type::Tuple(types) => {
                let Json::Array(items) = json else {
                    return Err(self.required("an array", &json));
                };
                if items.len() != types.len() {
                    return Err(self.fail(format!(
                        "a tuple of {} elements is required ({} given)",
                        types.len(),
                        items.len()
                    )));
                }
                let items = self.elements(items.into_iter().zip(types))?;
                Ok(Value::tuple(items))
            }
            Type::Map(e) => {
                let Json::Object(members) = json else {
                    return Err(self.required("an object", &json));
                };
                let mut items = BTreeMap::new();
                for (key, member) in members {
                    self.path.push(PathStep::Key(key.clone()));
                    let item = self.value(member, e)?;
                    self.path.pop();
                    items.insert(key, item);
                }
                Ok(Value::map(e.clone(), items))
            }
            Type::Object { attributes, .. } => {
                let Json::Object(members) = json else {
                    return Err(self.required("an object", &json));
                };
                let mut attrs = BTreeMap::new();
                for (key, member) in members {
                    let Some(t) = attributes.get(&key) else {
                        if self.options.ignore_undefined_attributes {
                            continue;
                        }
                        return Err(self.fail(format!("unsupported attribute {key:?}")));
                    };
                    self.path.push(PathStep::Attr(key.clone()));
                    let item = self.value(member, t)?;
                    self.path.pop();
                    attrs.insert(key, item);
                }
                for (name, t) in attributes {
                    if !attrs.contains_key(name) {
                        attrs.insert(name.clone(), Value::null(self.types.share(t)));
                    }
                }
                Ok(Value::object(attrs))
            }
        }
    }

    fn elements<'t>(
        &mut self,
        items: impl Iterator<Item = (Json, &'t Type)>,
    ) -> Result<Vec<Value>, Error> {
        let mut out = Vec::new();
        for (i, (item, t)) in items.enumerate() {
            self.path.push(PathStep::Index(i as u64));
            out.push(self.value(item, t)?);
            self.path.pop();
        }
        Ok(out)
    }

    /// `{"value": …, "type": …}` in any order; other keys are errors.
    fn dynamic(&mut self, json: Json) -> Result<Value, Error> {
        let Json::Object(members) = json else {
            return Err(self.required("a {\"value\", \"type\"} object", &json));
        };
        let mut ty = None;
        let mut value = None;
        for (key, member) in members {
            match key.as_str() {
                "type" => ty = Some(member),
                "value" => value = Some(member),
                other => {
                    return Err(
                        self.fail(format!("invalid key {other:?} in dynamically-typed value"))
                    );
                }
            }
        }
        let Some(ty) = ty else {
            return Err(self.fail("missing type in dynamically-typed value"));
        };
        let Some(value) = value else {
            return Err(self.fail("missing value in dynamically-typed value"));
        };
        let ty = Type::from_json(&to_serde(ty)).map_err(|source| Error::DynamicType {
            path: self.path.clone(),
            source,
        })?;
        let ty = self.types.keep(ty);
        self.value(value, &ty)
    }
}
