//! JSON bytes as Go's `encoding/json` writes them: compact, with `<`, `>`, `&`, U+2028 and
//! U+2029 escaped as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029` (Go's HTML-safe
//! default), and keys in the order the serialised type gives them.
//!
//! [`Sorted`] holds a JSON value whose object keys are written in sorted order at every
//! depth, whatever `serde_json`'s map ordering feature says, because Go writes map-typed
//! values that way.

use std::io;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq};
use serde_json::Value;
use serde_json::ser::{Formatter, Serializer};

/// Writes `value` as compact JSON with Go's escaping.
pub fn to_go_json<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(4096);
    let mut serializer = Serializer::with_formatter(&mut out, GoFormatter);
    value.serialize(&mut serializer)?;
    Ok(out)
}

/// The default (compact) formatter, which also escapes what Go escapes for HTML safety.
struct GoFormatter;

impl Formatter for GoFormatter {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
            let (escape, len) = match bytes[i] {
                b'<' => ("\\u003c", 1),
                b'>' => ("\\u003e", 1),
                b'&' => ("\\u0026", 1),
                0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA8) => {
                    ("\\u2028", 3)
                }
                0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA9) => {
                    ("\\u2029", 3)
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            writer.write_all(&bytes[start..i])?;
            writer.write_all(escape.as_bytes())?;
            i += len;
            start = i;
        }
        writer.write_all(&bytes[start..])
    }
}

/// A JSON value written with sorted object keys at every depth.
#[derive(Clone, Debug, PartialEq)]
pub struct Sorted(pub Value);

impl Sorted {
    /// Converts `value` to JSON and keeps it for sorted writing.
    pub(crate) fn of<T: Serialize>(value: &T) -> Result<Sorted, serde_json::Error> {
        serde_json::to_value(value).map(Sorted)
    }
}

impl Serialize for Sorted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SortedRef(&self.0).serialize(serializer)
    }
}

struct SortedRef<'a>(&'a Value);

impl Serialize for SortedRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = serializer.serialize_map(Some(keys.len()))?;
                for key in keys {
                    out.serialize_entry(key, &SortedRef(&map[key]))?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(&SortedRef(item))?;
                }
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_go() {
        let bytes = to_go_json("<a & b>\u{2028}\"\n").expect("a string serialises");
        assert_eq!(
            String::from_utf8(bytes).expect("utf-8"),
            r#""\u003ca \u0026 b\u003e\u2028\"\n""#
        );
    }

    #[test]
    fn sorts_nested_keys() {
        let value = serde_json::json!({"b": {"z": 1, "a": [{"y": 1, "x": 2}]}, "a": true});
        let bytes = to_go_json(&Sorted(value)).expect("a value serialises");
        assert_eq!(
            String::from_utf8(bytes).expect("utf-8"),
            r#"{"a":true,"b":{"a":[{"x":2,"y":1}],"z":1}}"#
        );
    }
}
