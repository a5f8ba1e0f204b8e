//! Shared test helpers: JSON ⇄ protobuf `Value` (protojson's mapping), and short names for the
//! signatures so expected wire forms read like the JSON the engine logs.

use std::collections::BTreeMap;

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};
use serde_json::Value as Json;

pub(crate) use tfp_values::sig::{
    ARCHIVE, ASSET, BYTE_STRING, KEY, OUTPUT_VALUE, RESOURCE_REFERENCE, SECRET, UNKNOWN_STRING,
};

/// The protobuf value protojson would read from `json`.
pub(crate) fn wire(json: Json) -> Value {
    let kind = match json {
        Json::Null => Kind::NullValue(0),
        Json::Bool(b) => Kind::BoolValue(b),
        Json::Number(n) => Kind::NumberValue(n.as_f64().expect("test numbers fit in f64")),
        Json::String(s) => Kind::StringValue(s),
        Json::Array(items) => Kind::ListValue(ListValue {
            values: items.into_iter().map(wire).collect(),
        }),
        Json::Object(map) => Kind::StructValue(Struct {
            fields: map.into_iter().map(|(k, v)| (k, wire(v))).collect(),
        }),
    };
    Value { kind: Some(kind) }
}

/// The protobuf Struct protojson would read from a JSON object.
pub(crate) fn wire_struct(json: Json) -> Struct {
    match wire(json).kind {
        Some(Kind::StructValue(s)) => s,
        other => panic!("test input is not an object: {other:?}"),
    }
}

/// The JSON protojson would write for `value`, for readable comparisons.
pub(crate) fn to_json(value: &Value) -> Json {
    match &value.kind {
        None => panic!("encoder produced a value without a kind"),
        Some(Kind::NullValue(_)) => Json::Null,
        Some(Kind::BoolValue(b)) => Json::Bool(*b),
        Some(Kind::NumberValue(n)) => {
            serde_json::Number::from_f64(*n).map_or(Json::String(format!("{n}")), Json::Number)
        }
        Some(Kind::StringValue(s)) => Json::String(s.clone()),
        Some(Kind::ListValue(list)) => Json::Array(list.values.iter().map(to_json).collect()),
        Some(Kind::StructValue(s)) => struct_to_json(s),
    }
}

/// The JSON protojson would write for a Struct.
pub(crate) fn struct_to_json(s: &Struct) -> Json {
    Json::Object(
        s.fields
            .iter()
            .map(|(k, v)| (k.clone(), to_json(v)))
            .collect(),
    )
}

/// A Struct from `(key, value)` pairs.
pub(crate) fn fields(pairs: impl IntoIterator<Item = (&'static str, Value)>) -> Struct {
    Struct {
        fields: pairs
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<BTreeMap<_, _>>(),
    }
}
