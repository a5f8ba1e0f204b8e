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
//!
//! [`SchemaJson`] is a whole package schema as the pieces it was put together from (the
//! members, and the text between them): GetSchema sends it without first copying megabytes
//! into one buffer that its answer would copy again.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq};
use serde_json::Value;

use crate::serializer;

/// Writes `value` as compact JSON with Go's escaping.
pub fn to_go_json<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(4096);
    serializer::write(&mut out, value)?;
    Ok(out)
}

thread_local! {
    /// Where each member is written before it is copied out at its exact size: one buffer per
    /// thread, rather than one grown and shrunk per member.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One member of a package map, already written with its key: `"token":value`, as the map
/// writes it. The key is written where the member is made, on the thread that made its token,
/// so that putting the package schema together, on one thread, never reads the thousands of
/// tokens again (that read was nine tenths of that step's time for AWS 3.39.0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The key, its colon, then the value.
    keyed: Box<[u8]>,
    /// Where the value starts.
    value_at: usize,
}

impl Written {
    /// Member `token`, its `value` written as Go writes it, and the token to file it under.
    pub(crate) fn member<T: Serialize + ?Sized>(token: String, value: &T) -> (String, Written) {
        let written = SCRATCH.with_borrow_mut(|scratch| {
            scratch.clear();
            tfp_gostd::json::write_string(scratch, &token);
            scratch.push(b':');
            let value_at = scratch.len();
            serializer::write(scratch, value)
                .expect("schema types hold only strings, bools, maps and lists");
            Written {
                keyed: scratch.as_slice().into(),
                value_at,
            }
        });
        (token, written)
    }

    /// The member's value, as JSON bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.keyed[self.value_at..]
    }
}

/// A map of the package schema (`types`, `resources` or `functions`): members by token, in
/// Go's key order (bytewise), each already written.
///
/// Invariant: each member was written under the token it is filed under, both coming from one
/// `Written::member`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Members(BTreeMap<String, Written>);

impl Members {
    /// Adds (or replaces) a member made by [`Written::member`].
    pub(crate) fn insert(&mut self, (token, member): (String, Written)) {
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

    /// The bytes the members take, written, with the comma before each.
    fn written_len(&self) -> usize {
        self.0.values().map(|v| v.keyed.len() + 1).sum()
    }
}

impl Extend<(String, Written)> for Members {
    fn extend<I: IntoIterator<Item = (String, Written)>>(&mut self, members: I) {
        self.0.extend(members);
    }
}

impl Members {
    /// Adds (or replaces) the members of `added`, in their order, leaving it empty: what
    /// `extend` does, but for thousands of members that come in runs already sorted (one per
    /// module). The map is built again from one stable sort, which merges those runs, instead
    /// of searching it from the root for each member.
    pub(crate) fn append(&mut self, added: &mut Vec<(String, Written)>) {
        if added.is_empty() {
            return;
        }
        let old = std::mem::take(&mut self.0);
        // `BTreeMap`'s `FromIterator` sorts stably and keeps the last of equal keys: a member
        // added later replaces an earlier one, as `insert` does.
        self.0 = if old.is_empty() {
            // Collected where they are: the vector's memory becomes the one the sort needs.
            std::mem::take(added).into_iter().collect()
        } else {
            old.into_iter().chain(added.drain(..)).collect()
        };
    }
}

/// Writes a JSON object field by field, in the order given: how the package schema, whose big
/// maps are written already, is put together as Go's `json.Marshal` of `PackageSpec` would.
pub(crate) struct ObjectWriter {
    /// The text written here (keys, punctuation, the fields that are not members, members
    /// copied); the pieces refer to it.
    out: Vec<u8>,
    pieces: Vec<Piece>,
    /// The maps whose members were handed over: their keys are freed with the schema.
    spent: Vec<Members>,
    /// Where the text not yet in a piece starts.
    text_start: usize,
    empty: bool,
}

impl ObjectWriter {
    /// A writer with room for an object holding `maps`: the text of the members that are
    /// copied and the commas between those handed over, and two pieces per member handed over
    /// (what precedes it, then the member), so that neither grows while it is written.
    pub(crate) fn for_maps(maps: &[Cow<'_, Members>]) -> ObjectWriter {
        let (mut text, mut pieces) = (4096, 8);
        for map in maps {
            match map {
                Cow::Borrowed(members) => text += members.written_len(),
                Cow::Owned(members) => {
                    text += members.len() + 2;
                    pieces += 2 * members.len() + 1;
                }
            }
        }
        let mut out = Vec::with_capacity(text);
        out.push(b'{');
        ObjectWriter {
            out,
            pieces: Vec::with_capacity(pieces),
            spent: Vec::new(),
            text_start: 0,
            empty: true,
        }
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
        serializer::write(&mut self.out, value)
    }

    /// A string field; Go's `omitempty` leaves out an empty one.
    pub(crate) fn text(&mut self, key: &str, value: &str) -> Result<(), serde_json::Error> {
        if value.is_empty() {
            return Ok(());
        }
        self.field(key, value)
    }

    /// A map of written members; Go omits an empty map. Owned members are handed over as
    /// pieces, borrowed ones copied.
    pub(crate) fn members(&mut self, key: &str, members: Cow<'_, Members>) {
        if members.is_empty() {
            return;
        }
        self.key(key);
        // Each member is written with its key already (`Written::member`).
        let before = |i: usize| if i == 0 { b'{' } else { b',' };
        match members {
            Cow::Borrowed(members) => {
                for (i, written) in members.0.values().enumerate() {
                    self.out.push(before(i));
                    self.out.extend_from_slice(&written.keyed);
                }
            }
            Cow::Owned(mut members) => {
                // The members are taken out of the map, and the map (tokens and nodes, made on
                // other threads) is kept until the schema is freed, after it has been sent:
                // freeing thousands of them here was a quarter of this step.
                for (i, written) in members.0.values_mut().enumerate() {
                    self.out.push(before(i));
                    self.end_text();
                    let written = std::mem::take(&mut written.keyed);
                    self.pieces.push(Piece::Member(written));
                }
                self.spent.push(members);
            }
        }
        self.out.push(b'}');
    }

    /// Ends the text not yet in a piece as a piece.
    fn end_text(&mut self) {
        if self.out.len() > self.text_start {
            self.pieces
                .push(Piece::Text(self.text_start..self.out.len()));
            self.text_start = self.out.len();
        }
    }

    pub(crate) fn finish(mut self) -> SchemaJson {
        self.out.push(b'}');
        self.end_text();
        let members: usize = (self.pieces.iter())
            .map(|piece| match piece {
                Piece::Member(member) => member.len(),
                Piece::Text(_) => 0,
            })
            .sum();
        SchemaJson {
            len: self.out.len() + members,
            text: self.out,
            pieces: self.pieces,
            _spent: self.spent,
        }
    }
}

/// A package schema's JSON as the pieces it was put together from, in order: the members as
/// they were written, and the text between them.
///
/// Invariant: the pieces, joined, are the JSON text, which is UTF-8 (everything in it was
/// written from Rust strings).
#[derive(Debug, Default)]
pub struct SchemaJson {
    /// The text between members, which the text pieces refer to.
    text: Vec<u8>,
    pieces: Vec<Piece>,
    len: usize,
    /// The maps the members were taken from, held only to be freed with the schema, after it
    /// has been sent, rather than while its pieces are put together.
    _spent: Vec<Members>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(std::ops::Range<usize>),
    Member(Box<[u8]>),
}

impl SchemaJson {
    /// The length of the text, in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pieces, in order.
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = &[u8]> {
        self.pieces.iter().map(|piece| self.bytes_of(piece))
    }

    /// Piece `index`, if there is one.
    pub fn piece(&self, index: usize) -> Option<&[u8]> {
        self.pieces.get(index).map(|piece| self.bytes_of(piece))
    }

    fn bytes_of<'a>(&'a self, piece: &'a Piece) -> &'a [u8] {
        match piece {
            Piece::Text(range) => &self.text[range.clone()],
            Piece::Member(member) => member,
        }
    }

    /// The text in one buffer: without a copy when it is all text already.
    pub fn into_bytes(mut self) -> Vec<u8> {
        if let [Piece::Text(range)] = self.pieces.as_slice()
            && range.start == 0
        {
            self.text.truncate(range.end);
            return self.text;
        }
        self.to_bytes()
    }

    /// The text in one buffer, copied from the pieces.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for piece in self.pieces() {
            out.extend_from_slice(piece);
        }
        out
    }
}

impl FromIterator<Vec<u8>> for SchemaJson {
    /// The text that `pieces`, joined, make.
    fn from_iter<I: IntoIterator<Item = Vec<u8>>>(pieces: I) -> SchemaJson {
        let mut json = SchemaJson::default();
        for piece in pieces {
            json.len += piece.len();
            json.pieces.push(Piece::Member(piece.into_boxed_slice()));
        }
        json
    }
}

impl From<String> for SchemaJson {
    /// A text already in one piece (a cached schema).
    fn from(text: String) -> SchemaJson {
        let text = text.into_bytes();
        SchemaJson {
            len: text.len(),
            pieces: if text.is_empty() {
                Vec::new()
            } else {
                vec![Piece::Text(0..text.len())]
            },
            text,
            _spent: Vec::new(),
        }
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
    fn appended_members_replace_earlier_ones_as_inserts_would() {
        let member = |token: &str, n: i32| Written::member(token.to_owned(), &n);
        let start = [member("a", 1), member("c", 3)];
        let added = [
            member("b", 2),
            member("a", 9),
            member("c", 4),
            member("a", 10),
        ];
        let mut inserted = Members::default();
        for (token, written) in start.iter().chain(&added).cloned() {
            inserted.insert((token, written));
        }
        let mut appended = Members::default();
        appended.append(&mut start.to_vec());
        let mut added = added.to_vec();
        appended.append(&mut added);
        assert!(added.is_empty());
        assert_eq!(appended, inserted);
        assert_eq!(appended.get("a"), Some(&member("a", 10).1));
        assert_eq!(appended.len(), 3);
    }

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
    fn a_schema_in_pieces_joins_to_its_bytes() {
        let mut spec = crate::PackageSpec {
            name: "p".to_owned(),
            ..crate::PackageSpec::default()
        };
        let large = "d".repeat(3000);
        for (token, text) in [("p:index/a:A", "small"), ("p:index/b:B", large.as_str())] {
            spec.types.insert(Written::member(token.to_owned(), text));
            spec.resources
                .insert(Written::member(token.to_owned(), text));
        }
        spec.resources
            .insert(Written::member("p:index/<c>:C".to_owned(), &["x"; 3]));
        let bytes = spec.to_json();
        let pieces = spec.into_json();
        assert!(pieces.pieces().len() > 1, "members are pieces of their own");
        assert_eq!(pieces.len(), bytes.len());
        assert_eq!(pieces.into_bytes(), bytes);
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
