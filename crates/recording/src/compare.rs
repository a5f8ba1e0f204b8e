//! Whether a request equals the recorded one by meaning, and if not, where they first differ.
//!
//! Messages compare field by field, an absent message equal to an empty one (Go's text format
//! leaves nil messages out). `DynamicValue`s and `RawState`s whose bytes differ are decoded with
//! the schema and compared as cty values or JSON, so set order and number encodings do not
//! matter. A value redacted in the recording matches the real value it replaced: where the
//! schema marks it, and wherever the recorder hid a known secret ([`crate::hide`]), as a
//! [`REDACTED`] string, a 0 number, or [`REDACTED`] inside a text. The replayer cannot know the
//! secrets, so a recorded 0 matches any number where the schema alone does not explain the
//! difference: a redacted recording is that much less strict. A difference shows the two values
//! only after both were redacted, so it never prints a secret.
//!
//! `client_capabilities` absent from a recorded request is not compared: Go bridges before
//! write-only attributes sent none, so such a recording says nothing about them, and the
//! provider answered without them. Recorded capabilities are compared like any other field.

use std::fmt::{self, Write as _};

use prost_reflect::{
    DynamicMessage, FieldDescriptor, Kind as FieldKind, MapKey, ReflectMessage as _, Value as Field,
};
use serde_json::Value as Json;
use tfp_cty::{Block, Kind, Type, Value};

use crate::{
    REDACTED, hide,
    redact::{self, Context, Schemas},
    transcript,
};

/// Where two requests first differ and how.
#[derive(Debug)]
pub struct Difference {
    path: String,
    detail: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.detail)
    }
}

/// The first difference between the recorded request and the actual one, if any.
pub fn first_difference(
    schemas: Option<&Schemas>,
    context: &Context,
    recorded: &DynamicMessage,
    actual: &DynamicMessage,
) -> Option<Difference> {
    Comparer { schemas, context }.message("", recorded, actual, None)
}

struct Comparer<'a> {
    schemas: Option<&'a Schemas>,
    context: &'a Context,
}

impl Comparer<'_> {
    fn message(
        &self,
        path: &str,
        recorded: &DynamicMessage,
        actual: &DynamicMessage,
        nested_type: Option<&str>,
    ) -> Option<Difference> {
        let own_type = match actual.get_field_by_name("type_name").as_deref() {
            Some(Field::String(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        let nested_type = own_type.as_deref().or(nested_type);
        for field in transcript::fields_in_declaration_order(&actual.descriptor()) {
            if field.name() == "client_capabilities" && !recorded.has_field(&field) {
                continue;
            }
            let path = join(path, field.name());
            let (a, b) = (recorded.get_field(&field), actual.get_field(&field));
            if let Some(d) = self.field(&path, &field, &a, &b, nested_type) {
                return Some(d);
            }
        }
        None
    }

    fn field(
        &self,
        path: &str,
        field: &FieldDescriptor,
        recorded: &Field,
        actual: &Field,
        nested_type: Option<&str>,
    ) -> Option<Difference> {
        match (recorded, actual) {
            (Field::List(a), Field::List(b)) => {
                if a.len() != b.len() {
                    return Some(differ(
                        path,
                        format!("recorded {} items, got {}", a.len(), b.len()),
                    ));
                }
                a.iter().zip(b).enumerate().find_map(|(i, (a, b))| {
                    self.single(&format!("{path}[{i}]"), field, a, b, nested_type)
                })
            }
            (Field::Map(a), Field::Map(b)) => {
                let mut keys: Vec<&MapKey> = a.keys().chain(b.keys()).collect();
                keys.sort();
                keys.dedup();
                keys.into_iter().find_map(|key| {
                    let path = format!("{path}[{}]", key_text(key));
                    match (a.get(key), b.get(key)) {
                        (Some(a), Some(b)) => {
                            let value_field = match field.kind() {
                                FieldKind::Message(entry) => entry.map_entry_value_field(),
                                _ => field.clone(),
                            };
                            self.single(&path, &value_field, a, b, nested_type)
                        }
                        (Some(_), None) => Some(differ(&path, "recorded, but absent".into())),
                        _ => Some(differ(&path, "not in the recording".into())),
                    }
                })
            }
            _ => self.single(path, field, recorded, actual, nested_type),
        }
    }

    fn single(
        &self,
        path: &str,
        field: &FieldDescriptor,
        recorded: &Field,
        actual: &Field,
        nested_type: Option<&str>,
    ) -> Option<Difference> {
        match (recorded, actual) {
            (Field::Message(a), Field::Message(b)) => match a.descriptor().full_name() {
                "tfplugin6.DynamicValue" | "tfplugin6.RawState" => {
                    let block = self
                        .context
                        .scope(field.name(), nested_type)
                        .and_then(|scope| self.schemas?.block(&scope));
                    encoded(path, a, b, block)
                }
                _ => self.message(path, a, b, nested_type),
            },
            (Field::Bytes(a), Field::Bytes(b)) if a != b && **a != *REDACTED.as_bytes() => {
                Some(differ(
                    path,
                    format!("recorded {} bytes, got {} different ones", a.len(), b.len()),
                ))
            }
            (Field::String(a), Field::String(b)) if !hide::matches_text(a, b) => Some(differ(
                path,
                format!("recorded {}, got {}", quoted(a), quoted(b)),
            )),
            (a, b) if a != b => Some(differ(path, format!("recorded {a:?}, got {b:?}"))),
            _ => None,
        }
    }
}

/// Compares the encodings of a `DynamicValue` or `RawState`.
fn encoded(
    path: &str,
    recorded: &DynamicMessage,
    actual: &DynamicMessage,
    block: Option<(&Block, bool)>,
) -> Option<Difference> {
    let bytes = |m: &DynamicMessage, name: &str| match m.get_field_by_name(name).as_deref() {
        Some(Field::Bytes(b)) => b.to_vec(),
        _ => Vec::new(),
    };
    let (a, b) = (bytes(recorded, "msgpack"), bytes(actual, "msgpack"));
    if a != b {
        let path = join(path, "msgpack");
        if let Some(d) = msgpack(&path, &a, &b, block) {
            return Some(d);
        }
    }
    let (a, b) = (bytes(recorded, "json"), bytes(actual, "json"));
    if a != b {
        let path = join(path, "json");
        let parse = |bytes: &[u8]| serde_json::from_slice::<Json>(bytes).ok();
        match (parse(&a), parse(&b), block) {
            (Some(a), Some(b), _) if a == b => {}
            (Some(Json::String(s)), Some(_), _) if s == REDACTED => {}
            (Some(a), Some(mut b), block) => {
                if let Some((block, config)) = block {
                    redact::redact_json(block, config, &mut b);
                }
                if !hide::matches_json(&a, &b) {
                    return Some(differ(&path, "the JSON values differ".into()));
                }
            }
            _ => return Some(differ(&path, "the JSON values differ".into())),
        }
    }
    let flatmap = |m: &DynamicMessage| match m.get_field_by_name("flatmap").as_deref() {
        Some(Field::Map(entries)) => entries.clone(),
        _ => Default::default(),
    };
    let (a, b) = (flatmap(recorded), flatmap(actual));
    for (key, value) in &b {
        match a.get(key) {
            Some(Field::String(s)) if s == REDACTED => {}
            Some(recorded) if recorded == value => {}
            _ => {
                let path = format!("{}[{}]", join(path, "flatmap"), key_text(key));
                return Some(differ(&path, "differs from the recording".into()));
            }
        }
    }
    if a.len() != b.len() {
        return Some(differ(
            &join(path, "flatmap"),
            format!("recorded {} entries, got {}", a.len(), b.len()),
        ));
    }
    None
}

fn msgpack(path: &str, a: &[u8], b: &[u8], block: Option<(&Block, bool)>) -> Option<Difference> {
    let whole = tfp_cty::to_msgpack(&Value::string(REDACTED), &Type::String).ok();
    if whole.as_deref() == Some(a) {
        return None;
    }
    let Some((block, config)) = block else {
        if hide::matches_msgpack(a, b) {
            return None;
        }
        return Some(differ(
            path,
            "the bytes differ, and no schema types them".into(),
        ));
    };
    let ty = block.implied_type();
    // An absent or empty value is null, as terraform-plugin-go reads it: the Go binary leaves out
    // the `provider_meta` that we, like Terraform, send as null.
    let decode = |bytes: &[u8]| {
        if bytes.is_empty() {
            Ok(Value::null(ty.clone()))
        } else {
            tfp_cty::from_msgpack(bytes, &ty)
        }
    };
    let (Ok(recorded), Ok(actual)) = (decode(a), decode(b)) else {
        return Some(differ(path, "the bytes differ and do not decode".into()));
    };
    if recorded == actual {
        return None;
    }
    let mut hidden_actual = actual.clone();
    redact::redact_block(block, config, &mut hidden_actual);
    if matches_hidden(&recorded, &hidden_actual) {
        return None;
    }
    let mut hidden_recorded = recorded.clone();
    redact::redact_block(block, config, &mut hidden_recorded);
    let mut at = String::new();
    if hidden_recorded != hidden_actual {
        let detail = value_difference(&hidden_recorded, &hidden_actual, &mut at);
        return Some(differ(&format!("{path} {}", root(&at)), detail));
    }
    value_difference(&recorded, &actual, &mut at);
    Some(differ(
        &format!("{path} {}", root(&at)),
        "sensitive values differ".into(),
    ))
}

/// Whether a recorded value is the actual one with known secrets hidden (`host::hide`): equal
/// but where the recording has [`REDACTED`] for a string or 0 for a number.
fn matches_hidden(recorded: &Value, actual: &Value) -> bool {
    let all = |r: &[Value], a: &[Value]| {
        r.len() == a.len() && r.iter().zip(a).all(|(r, a)| matches_hidden(r, a))
    };
    match (&recorded.kind, &actual.kind) {
        _ if recorded == actual => true,
        (Kind::String(r), Kind::String(a)) => r == REDACTED || hide::matches_text(r, a),
        (Kind::Number(r), Kind::Number(_)) => *r == tfp_cty::Number::from(0i64),
        (Kind::List(_, r), Kind::List(_, a)) | (Kind::Tuple(r), Kind::Tuple(a)) => all(r, a),
        (Kind::Set(_, r), Kind::Set(_, a)) if r.len() == a.len() => {
            // Hiding may have changed the recorded set's order: match each element to a distinct
            // one.
            let mut used = vec![false; a.len()];
            r.iter().all(|r| {
                let found = a
                    .iter()
                    .enumerate()
                    .find(|(i, a)| !used[*i] && matches_hidden(r, a));
                found.map(|(i, _)| used[i] = true).is_some()
            })
        }
        (Kind::Set(_, r), Kind::Set(_, a)) if r.len() < a.len() => {
            // Elements that differed only in their secrets became one when hidden: each actual
            // element matches a recorded one, and each recorded one stands for some.
            a.iter().all(|a| r.iter().any(|r| matches_hidden(r, a)))
                && r.iter().all(|r| a.iter().any(|a| matches_hidden(r, a)))
        }
        (Kind::Map(_, r), Kind::Map(_, a)) | (Kind::Object(r), Kind::Object(a)) => {
            r.len() == a.len()
                && r.iter()
                    .all(|(k, r)| a.get(k).is_some_and(|a| matches_hidden(r, a)))
        }
        _ => false,
    }
}

/// Walks two different values to where they differ, extending `at` with the cty path.
fn value_difference(a: &Value, b: &Value, at: &mut String) -> String {
    match (&a.kind, &b.kind) {
        (Kind::Object(x), Kind::Object(y)) | (Kind::Map(_, x), Kind::Map(_, y)) => {
            let is_map = matches!(a.kind, Kind::Map(..));
            for key in x.keys().chain(y.keys()) {
                if x.get(key) != y.get(key) {
                    if is_map {
                        let _ = write!(at, "[{key:?}]");
                    } else {
                        at.push('.');
                        at.push_str(key);
                    }
                    return match (x.get(key), y.get(key)) {
                        (Some(a), Some(b)) => value_difference(a, b, at),
                        (Some(_), None) => "recorded, but absent".into(),
                        _ => "not in the recording".into(),
                    };
                }
            }
        }
        (Kind::List(_, x), Kind::List(_, y)) | (Kind::Tuple(x), Kind::Tuple(y))
            if x.len() == y.len() =>
        {
            if let Some((i, (a, b))) = x.iter().zip(y).enumerate().find(|(_, (a, b))| a != b) {
                let _ = write!(at, "[{i}]");
                return value_difference(a, b, at);
            }
        }
        (Kind::Set(_, x), Kind::Set(_, y)) => {
            if let Some(missing) = x.iter().find(|e| !y.contains(e)) {
                return format!("the recorded set has {}, this one does not", show(missing));
            }
            if let Some(extra) = y.iter().find(|e| !x.contains(e)) {
                return format!("this set has {}, the recorded one does not", show(extra));
            }
        }
        _ => {}
    }
    format!("recorded {}, got {}", show(a), show(b))
}

/// A short rendering of a value for an error message.
fn show(value: &Value) -> String {
    match &value.kind {
        Kind::Null(_) => "null".into(),
        Kind::Unknown(..) => "an unknown value".into(),
        Kind::String(s) => quoted(s),
        Kind::Number(n) => n.to_string(),
        Kind::Bool(b) => b.to_string(),
        Kind::List(_, items) => format!("a list of {}", items.len()),
        Kind::Set(_, items) => format!("a set of {}", items.len()),
        Kind::Tuple(items) => format!("a tuple of {}", items.len()),
        Kind::Map(_, items) => format!("a map of {}", items.len()),
        Kind::Object(items) => format!("an object of {} attributes", items.len()),
    }
}

/// A string for an error message, cut to 80 characters.
fn quoted(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}…", &s[..cut]),
        None => format!("{s:?}"),
    }
}

fn key_text(key: &MapKey) -> String {
    match key {
        MapKey::String(s) => format!("{s:?}"),
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(n) => n.to_string(),
        MapKey::I64(n) => n.to_string(),
        MapKey::U32(n) => n.to_string(),
        MapKey::U64(n) => n.to_string(),
    }
}

fn root(at: &str) -> String {
    if at.is_empty() {
        "(the whole value)".into()
    } else {
        format!("(attribute {at})")
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

fn differ(path: &str, detail: String) -> Difference {
    Difference {
        path: path.to_owned(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_elements_hidden_into_one_still_match() {
        // Two paths that differed only in their secret names became one element when hidden.
        let set = |items: &[&str]| {
            Value::set(
                Type::String,
                items.iter().map(|s| Value::string(*s)).collect(),
            )
        };
        let recorded = set(&["x/<redacted>", "plain"]);
        let actual = set(&["x/sekrit-aaaa", "x/sekrit-bbbb", "plain"]);
        assert!(matches_hidden(&recorded, &actual));
        // Each side must still be accounted for.
        assert!(!matches_hidden(&set(&["x/<redacted>", "gone"]), &actual));
        assert!(!matches_hidden(&set(&["x/<redacted>"]), &actual));
        assert!(
            !matches_hidden(&actual, &recorded),
            "only the recording holds placeholders"
        );
    }
}
