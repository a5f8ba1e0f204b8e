//! Responses as Go's `encoding/json` writes a generated protobuf struct, and back.
//!
//! This is not protojson (pulumi-terraform-bridge `dynamic/internal/shim/grpcutil/translate.go`
//! uses `encoding/json`): keys are the proto field names (the structs' `json` tags), in declaration
//! order; zero scalars, empty lists and maps, and absent messages are left out (`omitempty`), while
//! a present message is written even when it is empty; enums and 64-bit integers are numbers; bytes
//! are standard base64. A oneof is the Go struct's interface field: its key is the Go name of the
//! oneof, its value an object keyed by the Go name of the member that is set
//! (`"Selector":{"AttributeName":"id"}`), or `null`.
//!
//! Reading accepts that form and, for robustness, proto names, JSON names, enum names and
//! 64-bit integers as strings. Unknown keys are ignored, as `encoding/json` ignores them.

use std::fmt::Write as _;

use base64::Engine as _;
use prost_reflect::{
    DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor, ReflectMessage as _, Value,
};
use serde_json::Value as Json;
use tfp_gostd::json::{self, Array, Object};

/// A recorded response that does not fit its message type.
#[derive(Debug, thiserror::Error)]
#[error("invalid value at {path}: {reason}")]
pub struct JsonError {
    pub(crate) path: String,
    pub(crate) reason: String,
}

/// Writes `message` as Go's `json.Marshal` of the generated struct.
pub(crate) fn write(message: &DynamicMessage) -> String {
    let mut out = String::new();
    write_message(&mut out, message);
    out
}

fn write_message(out: &mut String, message: &DynamicMessage) {
    let mut object = Object::start(out);
    let desc = message.descriptor();
    let mut oneofs_done = Vec::new();
    for field in super::fields_in_declaration_order(&desc) {
        if let Some(oneof) = field.containing_oneof().filter(|o| !o.is_synthetic()) {
            if oneofs_done.contains(&oneof.name().to_owned()) {
                continue;
            }
            oneofs_done.push(oneof.name().to_owned());
            let out = object.key(&go_name(oneof.name()));
            match oneof.fields().find(|f| message.has_field(f)) {
                Some(member) => {
                    let mut wrapper = Object::start(out);
                    write_value(
                        wrapper.key(&go_name(member.name())),
                        &message.get_field(&member),
                    );
                    wrapper.end();
                }
                None => out.push_str("null"),
            }
            continue;
        }
        if !message.has_field(&field) {
            continue;
        }
        let value = message.get_field(&field);
        let empty = match &*value {
            Value::List(items) => items.is_empty(),
            Value::Map(entries) => entries.is_empty(),
            // A present message is a non-nil pointer; a present proto3 `optional` scalar too.
            Value::Message(_) => false,
            _ if field.supports_presence() => false,
            other => *other == field.default_value(),
        };
        if empty {
            continue;
        }
        write_value(object.key(field.name()), &value);
    }
    object.end();
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::I32(n) | Value::EnumNumber(n) => push(out, n),
        Value::I64(n) => push(out, n),
        Value::U32(n) => push(out, n),
        Value::U64(n) => push(out, n),
        // Go refuses NaN and infinities; we write `null` rather than fail the call.
        Value::F32(f) => out.push_str(&json::format_float32(*f).unwrap_or_else(|_| "null".into())),
        Value::F64(f) => out.push_str(&json::format_float(*f).unwrap_or_else(|_| "null".into())),
        Value::String(s) => json::write_string(out, s),
        Value::Bytes(b) => {
            json::write_string(out, &base64::engine::general_purpose::STANDARD.encode(b))
        }
        Value::Message(m) => write_message(out, m),
        Value::List(items) => {
            let mut array = Array::start(out);
            for item in items {
                write_value(array.item(), item);
            }
            array.end();
        }
        Value::Map(entries) => {
            // encoding/json sorts map keys by their string form.
            let mut sorted: Vec<(String, &Value)> =
                entries.iter().map(|(k, v)| (key_string(k), v)).collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            let mut object = Object::start(out);
            for (k, v) in &sorted {
                write_value(object.key(k), v);
            }
            object.end();
        }
    }
}

fn push(out: &mut String, value: impl std::fmt::Display) {
    let _ = write!(out, "{value}");
}

fn key_string(key: &MapKey) -> String {
    match key {
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(n) => n.to_string(),
        MapKey::I64(n) => n.to_string(),
        MapKey::U32(n) => n.to_string(),
        MapKey::U64(n) => n.to_string(),
        MapKey::String(s) => s.clone(),
    }
}

/// protoc-gen-go's Go name of a field, oneof or method: `attribute_name` → `AttributeName`.
pub fn go_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads a message of type `desc` from Go's JSON of it.
pub(crate) fn read(desc: &MessageDescriptor, json: &Json) -> Result<DynamicMessage, JsonError> {
    read_message(desc, json, "response")
}

fn read_message(
    desc: &MessageDescriptor,
    json: &Json,
    path: &str,
) -> Result<DynamicMessage, JsonError> {
    let Json::Object(object) = json else {
        return Err(error(path, "expected an object"));
    };
    let mut message = DynamicMessage::new(desc.clone());
    for (key, value) in object {
        if value.is_null() {
            continue;
        }
        let path = format!("{path}.{key}");
        if let Some(field) = find_field(desc, key) {
            let value = read_field(&field, value, &path)?;
            set(&mut message, &field, value, &path)?;
            continue;
        }
        let Some(oneof) = desc
            .oneofs()
            .find(|o| !o.is_synthetic() && go_name(o.name()) == *key)
        else {
            continue;
        };
        let Json::Object(members) = value else {
            return Err(error(&path, "expected an object holding one oneof member"));
        };
        for (member_key, member_value) in members {
            let Some(member) = oneof
                .fields()
                .find(|f| go_name(f.name()) == *member_key || f.name() == member_key)
            else {
                continue;
            };
            let path = format!("{path}.{member_key}");
            let value = read_single(&member.kind(), member_value, &path)?;
            set(&mut message, &member, value, &path)?;
        }
    }
    Ok(message)
}

fn find_field(desc: &MessageDescriptor, key: &str) -> Option<FieldDescriptor> {
    desc.get_field_by_name(key)
        .or_else(|| desc.fields().find(|f| f.json_name() == key))
}

fn set(
    message: &mut DynamicMessage,
    field: &FieldDescriptor,
    value: Value,
    path: &str,
) -> Result<(), JsonError> {
    message
        .try_set_field(field, value)
        .map_err(|err| error(path, &err.to_string()))
}

fn read_field(field: &FieldDescriptor, json: &Json, path: &str) -> Result<Value, JsonError> {
    if field.is_map() {
        let Kind::Message(entry) = field.kind() else {
            return Err(error(path, "map field without an entry type"));
        };
        let Json::Object(object) = json else {
            return Err(error(path, "expected an object"));
        };
        let key_kind = entry.map_entry_key_field().kind();
        let value_kind = entry.map_entry_value_field().kind();
        let mut map = std::collections::HashMap::with_capacity(object.len());
        for (key, value) in object {
            let path = format!("{path}[{key:?}]");
            map.insert(
                map_key(&key_kind, key, &path)?,
                read_single(&value_kind, value, &path)?,
            );
        }
        Ok(Value::Map(map))
    } else if field.is_list() {
        let Json::Array(items) = json else {
            return Err(error(path, "expected an array"));
        };
        let kind = field.kind();
        items
            .iter()
            .enumerate()
            .map(|(i, item)| read_single(&kind, item, &format!("{path}[{i}]")))
            .collect::<Result<_, _>>()
            .map(Value::List)
    } else {
        read_single(&field.kind(), json, path)
    }
}

fn read_single(kind: &Kind, json: &Json, path: &str) -> Result<Value, JsonError> {
    let bad = |what: &str| error(path, &format!("expected {what}, got {}", json_kind(json)));
    Ok(match kind {
        Kind::Bool => Value::Bool(json.as_bool().ok_or_else(|| bad("a boolean"))?),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            Value::I32(integer(json).ok_or_else(|| bad("a 32-bit integer"))?)
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
            Value::I64(integer(json).ok_or_else(|| bad("a 64-bit integer"))?)
        }
        Kind::Uint32 | Kind::Fixed32 => {
            Value::U32(integer(json).ok_or_else(|| bad("an unsigned 32-bit integer"))?)
        }
        Kind::Uint64 | Kind::Fixed64 => {
            Value::U64(integer(json).ok_or_else(|| bad("an unsigned 64-bit integer"))?)
        }
        Kind::Float => {
            let f = json.as_f64().ok_or_else(|| bad("a number"))?;
            #[expect(
                clippy::cast_possible_truncation,
                reason = "the field is a 32-bit float"
            )]
            Value::F32(f as f32)
        }
        Kind::Double => Value::F64(json.as_f64().ok_or_else(|| bad("a number"))?),
        Kind::String => Value::String(json.as_str().ok_or_else(|| bad("a string"))?.to_owned()),
        Kind::Bytes => {
            let text = json.as_str().ok_or_else(|| bad("a base64 string"))?;
            Value::Bytes(
                base64_decode(text)
                    .ok_or_else(|| bad("valid base64"))?
                    .into(),
            )
        }
        Kind::Enum(e) => match json {
            Json::String(name) => Value::EnumNumber(
                e.get_value_by_name(name)
                    .ok_or_else(|| bad("a value of the enum"))?
                    .number(),
            ),
            _ => Value::EnumNumber(integer(json).ok_or_else(|| bad("an enum number"))?),
        },
        Kind::Message(m) => Value::Message(read_message(m, json, path)?),
    })
}

fn map_key(kind: &Kind, key: &str, path: &str) -> Result<MapKey, JsonError> {
    let bad = || error(path, "invalid map key");
    Ok(match kind {
        Kind::String => MapKey::String(key.to_owned()),
        Kind::Bool => MapKey::Bool(key.parse().map_err(|_| bad())?),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => MapKey::I32(key.parse().map_err(|_| bad())?),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => MapKey::I64(key.parse().map_err(|_| bad())?),
        Kind::Uint32 | Kind::Fixed32 => MapKey::U32(key.parse().map_err(|_| bad())?),
        Kind::Uint64 | Kind::Fixed64 => MapKey::U64(key.parse().map_err(|_| bad())?),
        _ => return Err(bad()),
    })
}

/// An integer from a JSON number or a decimal string, if it fits `T`.
fn integer<T: TryFrom<i64> + TryFrom<u64> + std::str::FromStr>(json: &Json) -> Option<T> {
    match json {
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => T::try_from(i).ok(),
            (None, Some(u)) => T::try_from(u).ok(),
            _ => None,
        },
        Json::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(text).ok())
}

fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn error(path: &str, reason: &str) -> JsonError {
    JsonError {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_names() {
        assert_eq!(go_name("attribute_name"), "AttributeName");
        assert_eq!(go_name("selector"), "Selector");
        assert_eq!(go_name("element_key_int"), "ElementKeyInt");
        // Our client names its methods in snake case; recordings name them as Go does.
        assert_eq!(
            go_name("get_resource_identity_schemas"),
            "GetResourceIdentitySchemas"
        );
        assert_eq!(go_name("PlanResourceChange"), "PlanResourceChange");
    }
}
