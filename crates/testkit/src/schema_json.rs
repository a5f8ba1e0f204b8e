//! Provider schemas written as JSON: the Go recorder's form of a `GetProviderSchema` response
//! (proto field names, types as base64), or the fixtures of `testdata/schema/` with readable
//! types.
//!
//! A malformed schema panics, naming what is wrong: the input is the test's own.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::Value;
use tfp_cty::{
    Attribute, AttributeType, Block, Function, NameMap, NestedBlock, NestedObject, NestingMode,
    Parameter, ProviderSchema, Schema, StringKind, Type,
};

/// How attribute and function types are written.
#[derive(Clone, Copy, Debug)]
pub enum Types {
    /// Base64 of the JSON type spec, as Go's `encoding/json` writes `[]byte`.
    Base64,
    /// The JSON type spec itself.
    Json,
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn bool_of(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn int_of(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn kind_of(v: &Value) -> StringKind {
    match v.get("description_kind") {
        Some(Value::String(s)) if s == "MARKDOWN" => StringKind::Markdown,
        Some(Value::Number(n)) if n.as_i64() == Some(1) => StringKind::Markdown,
        _ => StringKind::Plain,
    }
}

fn nesting_of(v: &Value) -> NestingMode {
    let name = match v.get("nesting") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(1) => "SINGLE",
            Some(2) => "LIST",
            Some(3) => "SET",
            Some(4) => "MAP",
            Some(5) => "GROUP",
            other => panic!("unknown nesting {other:?}"),
        }
        .to_owned(),
        other => panic!("missing nesting: {other:?}"),
    };
    match name.as_str() {
        "SINGLE" => NestingMode::Single,
        "LIST" => NestingMode::List,
        "SET" => NestingMode::Set,
        "MAP" => NestingMode::Map,
        "GROUP" => NestingMode::Group,
        other => panic!("unknown nesting {other}"),
    }
}

fn type_of(v: &Value, types: Types) -> Type {
    match types {
        Types::Json => Type::from_json(v).expect("a valid type spec"),
        Types::Base64 => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(v.as_str().expect("a base64 string"))
                .expect("valid base64");
            Type::from_json_bytes(&bytes).expect("a valid type spec")
        }
    }
}

fn attribute(v: &Value, types: Types) -> (String, Attribute) {
    let ty = match v.get("nested_type") {
        Some(nested) => AttributeType::Nested(NestedObject {
            attributes: attributes(nested, types),
            nesting: nesting_of(nested),
        }),
        None => AttributeType::Type(type_of(&v["type"], types)),
    };
    let attribute = Attribute {
        ty,
        description: str_of(v, "description").to_owned(),
        description_kind: kind_of(v),
        required: bool_of(v, "required"),
        optional: bool_of(v, "optional"),
        computed: bool_of(v, "computed"),
        sensitive: bool_of(v, "sensitive"),
        deprecated: bool_of(v, "deprecated"),
        deprecation_message: str_of(v, "deprecation_message").to_owned(),
        write_only: bool_of(v, "write_only"),
    };
    (str_of(v, "name").to_owned(), attribute)
}

fn attributes(v: &Value, types: Types) -> NameMap<Attribute> {
    v.get("attributes")
        .and_then(Value::as_array)
        .map(|list| list.iter().map(|a| attribute(a, types)).collect())
        .unwrap_or_default()
}

fn block(v: &Value, types: Types) -> Block {
    let block_types = v
        .get("block_types")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|b| {
                    let nested = NestedBlock {
                        block: block(b.get("block").unwrap_or(&Value::Null), types),
                        nesting: nesting_of(b),
                        min_items: int_of(b, "min_items"),
                        max_items: int_of(b, "max_items"),
                    };
                    (str_of(b, "type_name").to_owned(), nested)
                })
                .collect()
        })
        .unwrap_or_default();
    Block {
        attributes: attributes(v, types),
        block_types,
        description: str_of(v, "description").to_owned(),
        description_kind: kind_of(v),
        deprecated: bool_of(v, "deprecated"),
        deprecation_message: str_of(v, "deprecation_message").to_owned(),
    }
}

fn schema(v: &Value, types: Types) -> Schema {
    Schema {
        version: int_of(v, "version"),
        block: block(v.get("block").unwrap_or(&Value::Null), types),
    }
}

fn schemas(v: &Value, key: &str, types: Types) -> BTreeMap<String, Schema> {
    v.get(key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, s)| (k.clone(), schema(s, types)))
                .collect()
        })
        .unwrap_or_default()
}

fn parameter(v: &Value, types: Types) -> Parameter {
    Parameter {
        name: str_of(v, "name").to_owned(),
        ty: type_of(&v["type"], types),
        allow_null_value: bool_of(v, "allow_null_value"),
        allow_unknown_values: bool_of(v, "allow_unknown_values"),
        description: str_of(v, "description").to_owned(),
        description_kind: kind_of(v),
    }
}

fn function(v: &Value, types: Types) -> Function {
    Function {
        parameters: v
            .get("parameters")
            .and_then(Value::as_array)
            .map(|ps| ps.iter().map(|p| parameter(p, types)).collect())
            .unwrap_or_default(),
        variadic_parameter: v.get("variadic_parameter").map(|p| parameter(p, types)),
        return_type: type_of(&v["return"]["type"], types),
        summary: str_of(v, "summary").to_owned(),
        description: str_of(v, "description").to_owned(),
        description_kind: kind_of(v),
        deprecation_message: str_of(v, "deprecation_message").to_owned(),
    }
}

/// A `GetProviderSchema` response in JSON with proto field names.
pub fn provider_schema(v: &Value, types: Types) -> ProviderSchema {
    ProviderSchema {
        provider: schema(v.get("provider").unwrap_or(&Value::Null), types),
        provider_meta: v.get("provider_meta").map(|s| schema(s, types)),
        resources: schemas(v, "resource_schemas", types),
        data_sources: schemas(v, "data_source_schemas", types),
        ephemeral_resources: schemas(v, "ephemeral_resource_schemas", types),
        list_resources: schemas(v, "list_resource_schemas", types),
        functions: v
            .get("functions")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, f)| (k.clone(), function(f, types)))
                    .collect()
            })
            .unwrap_or_default(),
    }
}
