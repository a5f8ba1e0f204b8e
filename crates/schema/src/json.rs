//! The package schema's bytes: serde's output under Go's `encoding/json` rules, which
//! `tfp_gostd::json` owns. Keys come in the order the serialised type gives them (Go's struct
//! field order).
//!
//! [`Sorted`] holds a JSON value whose object keys are written in sorted order at every
//! depth, whatever `serde_json`'s map ordering feature says, because Go writes map-typed
//! values that way.
//!
//! [`Members`] holds the package's three big maps (types, resources, functions) member by
//! member, each written as JSON the moment it is made: a package schema is never held as one
//! tree of specs, which for a large provider took more time and memory than writing it.

use std::collections::BTreeMap;
use std::io;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq};
use serde_json::Value;
use serde_json::ser::{CharEscape, Formatter, Serializer};

/// Writes `value` as compact JSON with Go's escaping.
pub fn to_go_json<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(4096);
    write_go_json(&mut out, value)?;
    Ok(out)
}

fn write_go_json<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), serde_json::Error> {
    let mut serializer = Serializer::with_formatter(out, GoFormatter::default());
    value.serialize(&mut serializer)
}

thread_local! {
    /// Where each member is written before it is copied out at its exact size: one buffer per
    /// thread, rather than one grown and shrunk per member.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One member of a package map, already written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written(Box<[u8]>);

impl Written {
    /// `value` written as Go writes it.
    pub(crate) fn of<T: Serialize + ?Sized>(value: &T) -> Written {
        SCRATCH.with_borrow_mut(|scratch| {
            scratch.clear();
            write_go_json(scratch, value)
                .expect("schema types hold only strings, bools, maps and lists");
            Written(scratch.as_slice().into())
        })
    }

    /// The member's JSON bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A map of the package schema (`types`, `resources` or `functions`): members by token, in
/// Go's key order (bytewise), each already written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Members(BTreeMap<String, Written>);

impl Members {
    /// Adds (or replaces) the member `token`.
    pub(crate) fn insert(&mut self, token: String, member: Written) {
        self.0.insert(token, member);
    }

    pub fn contains_key(&self, token: &str) -> bool {
        self.0.contains_key(token)
    }

    pub fn get(&self, token: &str) -> Option<&Written> {
        self.0.get(token)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The bytes the members take, written.
    fn written_len(&self) -> usize {
        self.0.iter().map(|(k, v)| k.len() + v.0.len() + 4).sum()
    }
}

impl Extend<(String, Written)> for Members {
    fn extend<I: IntoIterator<Item = (String, Written)>>(&mut self, members: I) {
        self.0.extend(members);
    }
}

/// Writes a JSON object field by field, in the order given: how the package schema, whose big
/// maps are written already, is put together as Go's `json.Marshal` of `PackageSpec` would.
pub(crate) struct ObjectWriter {
    out: Vec<u8>,
    empty: bool,
}

impl ObjectWriter {
    pub(crate) fn with_capacity(capacity: usize) -> ObjectWriter {
        let mut out = Vec::with_capacity(capacity);
        out.push(b'{');
        ObjectWriter { out, empty: true }
    }

    /// `"key":`, after a comma unless it is the first field. Keys are Go's field names: ASCII
    /// that needs no escape.
    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    pub(crate) fn field<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        self.key(key);
        write_go_json(&mut self.out, value)
    }

    /// A string field; Go's `omitempty` leaves out an empty one.
    pub(crate) fn text(&mut self, key: &str, value: &str) -> Result<(), serde_json::Error> {
        if value.is_empty() {
            return Ok(());
        }
        self.field(key, value)
    }

    /// A map of written members; Go omits an empty map.
    pub(crate) fn members(&mut self, key: &str, members: &Members) {
        if members.is_empty() {
            return;
        }
        self.key(key);
        let mut scratch = String::new();
        for (i, (token, member)) in members.0.iter().enumerate() {
            self.out.push(if i == 0 { b'{' } else { b',' });
            scratch.clear();
            tfp_gostd::json::write_string(&mut scratch, token);
            self.out.extend_from_slice(scratch.as_bytes());
            self.out.push(b':');
            self.out.extend_from_slice(&member.0);
        }
        self.out.push(b'}');
    }

    /// The bytes reserved for `members` besides the rest of the object.
    pub(crate) fn reserve_for(members: &[&Members]) -> usize {
        members.iter().map(|m| m.written_len()).sum::<usize>() + 4096
    }

    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.out.push(b'}');
        self.out
    }
}

/// serde_json's compact formatter with every string and float handed to `tfp_gostd`.
#[derive(Default)]
struct GoFormatter {
    /// Reused for each piece of text, so that writing a schema does not allocate per string.
    scratch: String,
}

impl GoFormatter {
    fn write_escaped<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        text: &str,
    ) -> io::Result<()> {
        // Most text has nothing Go escapes beyond what serde_json already did.
        if !text
            .bytes()
            .any(|b| b < 0x20 || matches!(b, b'"' | b'\\' | b'<' | b'>' | b'&' | 0xe2))
        {
            return writer.write_all(text.as_bytes());
        }
        self.scratch.clear();
        tfp_gostd::json::write_escaped_str(&mut self.scratch, text);
        writer.write_all(self.scratch.as_bytes())
    }
}

impl Formatter for GoFormatter {
    /// A run serde_json does not escape itself; Go escapes more (`<`, `>`, `&`, U+2028, U+2029).
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        self.write_escaped(writer, fragment)
    }

    /// A character serde_json escapes: escaped as Go escapes it instead.
    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        let byte = match char_escape {
            CharEscape::Quote => b'"',
            CharEscape::ReverseSolidus => b'\\',
            CharEscape::Solidus => b'/',
            CharEscape::Backspace => 0x08,
            CharEscape::FormFeed => 0x0c,
            CharEscape::LineFeed => b'\n',
            CharEscape::CarriageReturn => b'\r',
            CharEscape::Tab => b'\t',
            CharEscape::AsciiControl(byte) => byte,
        };
        self.write_escaped(writer, char::from(byte).encode_utf8(&mut [0; 4]))
    }

    /// serde_json writes `null` for NaN and infinities before calling this.
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        let text = tfp_gostd::json::format_float(value).map_err(io::Error::other)?;
        writer.write_all(text.as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        let text = tfp_gostd::json::format_float32(value).map_err(io::Error::other)?;
        writer.write_all(text.as_bytes())
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
    fn escapes_and_writes_floats_like_go() {
        let bytes = to_go_json(&("<a & b>\u{2028}\"\n\u{8}\u{1}", 1.0, 1e21, 1e-7))
            .expect("a tuple serialises");
        assert_eq!(
            String::from_utf8(bytes).expect("utf-8"),
            r#"["\u003ca \u0026 b\u003e\u2028\"\n\b\u0001",1,1e+21,1e-7]"#
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
