//! A recorded call made readable: its request and answer as JSON, with every value decoded, for
//! people (`show-recording`) and for tests that compare what two hosts made a provider do.
//!
//! A message becomes an object of its set fields, named as in the .proto. A `DynamicValue`
//! becomes the value it holds (msgpack is read without a type, see
//! [`tfp_cty::from_msgpack_untyped`], so a value shows whether or not the recording holds the
//! provider's schema), other bytes the JSON object or array they hold (private state, raw
//! state), else their text, else their base64. Enums are shown by name.

use base64::Engine as _;
use prost_reflect::{DynamicMessage, Kind, MapKey, ReflectMessage as _, Value as Field};
use serde_json::{Map, Value as Json};

use crate::{
    DYNAMIC_VALUE,
    transcript::{self, Methods, Record},
};

/// Why a record cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum ShowError {
    #[error("{method} is not a tfplugin6 method")]
    UnknownMethod { method: String },
    #[error("the request of {method} does not parse")]
    Request {
        method: String,
        #[source]
        source: prost_reflect::text_format::ParseError,
    },
    #[error("the answer of {method} does not parse: {reason}")]
    Response { method: String, reason: String },
    #[error("the events of {method} are not a JSON array")]
    Events {
        method: String,
        #[source]
        source: serde_json::Error,
    },
}

/// One call as `{"method", "request", "response", "error"}`; `response` is an array of events for
/// a server-streaming call, and is left out, as `error` is, when the record has none.
pub fn call(methods: &Methods, record: &Record) -> Result<Json, ShowError> {
    let method = record.method().to_owned();
    let Some((request_desc, response_desc)) = methods.method(&method) else {
        return Err(ShowError::UnknownMethod { method });
    };
    let streaming = methods.is_server_streaming(&method);
    let request = transcript::from_text(request_desc, &record.request).map_err(|source| {
        ShowError::Request {
            method: method.clone(),
            source,
        }
    })?;
    let mut shown = Map::new();
    shown.insert("method".into(), Json::String(method.clone()));
    shown.insert("request".into(), message(&request));
    let text = record.response.trim();
    if !text.is_empty() {
        let response = if streaming {
            let events: Vec<Json> =
                serde_json::from_str(text).map_err(|source| ShowError::Events {
                    method: method.clone(),
                    source,
                })?;
            let mut shown = Vec::with_capacity(events.len());
            for event in events {
                let event = transcript::from_go_json(&response_desc, &event.to_string()).map_err(
                    |err| ShowError::Response {
                        method: method.clone(),
                        reason: err.to_string(),
                    },
                )?;
                shown.push(message(&event));
            }
            Json::Array(shown)
        } else {
            let response = transcript::from_go_json(&response_desc, text).map_err(|err| {
                ShowError::Response {
                    method: method.clone(),
                    reason: err.to_string(),
                }
            })?;
            message(&response)
        };
        shown.insert("response".into(), response);
    }
    if !record.error.is_empty() {
        shown.insert(
            "error".into(),
            Json::Array(record.error.iter().cloned().map(Json::String).collect()),
        );
    }
    Ok(Json::Object(shown))
}

/// A message as an object of its set fields.
fn message(message: &DynamicMessage) -> Json {
    if message.descriptor().full_name() == DYNAMIC_VALUE {
        return dynamic_value(message);
    }
    let mut fields = Map::new();
    for field in transcript::fields_in_declaration_order(&message.descriptor()) {
        if !message.has_field(&field) {
            continue;
        }
        let value = message.get_field(&field);
        fields.insert(field.name().to_owned(), self::field(&field.kind(), &value));
    }
    Json::Object(fields)
}

fn field(kind: &Kind, value: &Field) -> Json {
    match value {
        Field::Bool(b) => Json::Bool(*b),
        Field::I32(n) => Json::from(*n),
        Field::I64(n) => Json::from(*n),
        Field::U32(n) => Json::from(*n),
        Field::U64(n) => Json::from(*n),
        Field::F32(n) => Json::from(f64::from(*n)),
        Field::F64(n) => Json::from(*n),
        Field::String(s) => Json::String(s.clone()),
        Field::Bytes(bytes) => self::bytes(bytes),
        Field::EnumNumber(n) => match kind.as_enum().and_then(|e| e.get_value(*n)) {
            Some(value) => Json::String(value.name().to_owned()),
            None => Json::from(*n),
        },
        Field::Message(inner) => message(inner),
        Field::List(items) => Json::Array(items.iter().map(|item| field(kind, item)).collect()),
        Field::Map(entries) => {
            let value_kind = match kind {
                Kind::Message(entry) => entry.map_entry_value_field().kind(),
                other => other.clone(),
            };
            let mut shown: Vec<(String, Json)> = entries
                .iter()
                .map(|(key, value)| (map_key(key), field(&value_kind, value)))
                .collect();
            shown.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Object(shown.into_iter().collect())
        }
    }
}

fn map_key(key: &MapKey) -> String {
    match key {
        MapKey::String(s) => s.clone(),
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(n) => n.to_string(),
        MapKey::I64(n) => n.to_string(),
        MapKey::U32(n) => n.to_string(),
        MapKey::U64(n) => n.to_string(),
    }
}

/// The value a `DynamicValue` holds: its msgpack read without a type, or its JSON.
fn dynamic_value(message: &DynamicMessage) -> Json {
    let encoded = |name: &str| match message.get_field_by_name(name).as_deref() {
        Some(Field::Bytes(bytes)) if !bytes.is_empty() => Some(bytes.clone()),
        _ => None,
    };
    if let Some(msgpack) = encoded("msgpack") {
        return tfp_cty::from_msgpack_untyped(&msgpack)
            .unwrap_or_else(|err| Json::String(format!("<msgpack that does not decode: {err}>")));
    }
    if let Some(json) = encoded("json") {
        return serde_json::from_slice(&json)
            .unwrap_or_else(|err| Json::String(format!("<JSON that does not parse: {err}>")));
    }
    Json::Null
}

/// Bytes as the JSON object or array they hold, else their text, else `{"base64": …}`.
fn bytes(bytes: &[u8]) -> Json {
    if let Ok(json @ (Json::Object(_) | Json::Array(_))) = serde_json::from_slice(bytes) {
        return json;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Json::String(text.to_owned()),
        Err(_) => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
            Json::Object(
                [("base64".to_owned(), Json::String(encoded))]
                    .into_iter()
                    .collect(),
            )
        }
    }
}
