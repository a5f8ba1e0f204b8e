//! A JSON tree that keeps number text: what [`super::parse`] reads and what callers build to
//! write.
//!
//! Objects are member lists, written in their order: Go's order for a struct is the caller's,
//! for a map it is sorted ([`Value::sorted_object`]). Reading keeps every member in input order,
//! duplicates included, as a token stream does; [`into_map`] keeps the last of equal keys, as
//! Go's decoding into a map does.

use std::collections::BTreeMap;

use super::number::{UnsupportedValue, format_float};
use super::object::{Array, Object};
use super::string::write_string;

/// A JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Bool(bool),
    /// A number as its literal text (a `json.Number`); written as it is, so it must be valid.
    Number(String),
    String(String),
    Array(Vec<Value>),
    /// Members in the order they are written or were read.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// A float64 as Go writes it; NaN and the infinities are an error.
    pub fn float(f: f64) -> Result<Value, UnsupportedValue> {
        format_float(f).map(Value::Number)
    }

    /// An object written as Go writes a map: keys in sorted order, the last of equal keys kept.
    pub fn sorted_object(members: impl IntoIterator<Item = (String, Value)>) -> Value {
        Value::Object(
            members
                .into_iter()
                .collect::<BTreeMap<_, _>>()
                .into_iter()
                .collect(),
        )
    }

    /// The compact JSON text, as `json.Marshal` writes it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// Appends the compact JSON text to `out`.
    pub fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(text) => out.push_str(text),
            Value::String(s) => write_string(out, s),
            Value::Array(items) => {
                let mut array = Array::start(out);
                for item in items {
                    item.write(array.item());
                }
                array.end();
            }
            Value::Object(members) => {
                let mut object = Object::start(out);
                for (key, item) in members {
                    item.write(object.key(key));
                }
                object.end();
            }
        }
    }
}

/// An object's members as Go decodes them into a map: the last of equal keys wins.
pub fn into_map(members: Vec<(String, Value)>) -> BTreeMap<String, Value> {
    members.into_iter().collect()
}
