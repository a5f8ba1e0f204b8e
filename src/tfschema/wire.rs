//! tfplugin6's `Schema` messages read from their wire form straight into our model, without
//! the generated messages in between: each name and description is copied once, from the
//! answer into its place, each attribute's type is read where it lies in the answer, and each
//! block's attributes go into a vector of the size it ends with. (Decoding into the generated
//! messages first copied every type out, grew a vector of generated attributes per block, and
//! left it all to be moved into the model and freed.)
//!
//! Protobuf's rules are kept: fields in any order, unknown fields skipped, the last value of a
//! scalar wins, and a message written more than once is read as one (its writings joined).
//! Nested blocks and attributes are read by recursion, as prost's decoder read them, at most
//! [`MAX_NESTING`] levels deep: the bound the renumbering walk of `host::upgrade` puts on a v5
//! answer too, where a v6 answer may otherwise nest thousands of levels (`tfp_depth`), and each
//! level's types are named after every level above them, so that such a schema would make a
//! package schema of gigabytes.

use std::borrow::Cow;

use prost::encoding::{DecodeContext, WireType, decode_key, decode_varint, skip_field};
use tfp_cty::{Attribute, AttributeType, Block, NameMap, NestedBlock, NestedObject, Schema};

use super::{At, SchemaError, cty_type, nesting, string_kind};

/// How many levels of nested blocks and nested attributes a schema may have below its top
/// block (prost's default recursion limit). Real providers stay within a few dozen.
pub(crate) const MAX_NESTING: usize = 100;

/// A map entry of a schema by name (`map<string, Schema>` on the wire): the name and the
/// schema. `kind` names the map in errors (`resource`).
pub(super) fn entry(kind: &str, bytes: &[u8]) -> Result<(String, Schema), SchemaError> {
    MERGE_BUDGET.set(bytes.len());
    let mut name = String::new();
    let mut schema_bytes = Message::default();
    for field in fields(bytes) {
        let read = || -> Result<(), Malformed> {
            match field? {
                (1, value) => name = string(value)?,
                (2, value) => schema_bytes.add(message(value)?)?,
                _ => {}
            }
            Ok(())
        };
        read().map_err(|err| match name.as_str() {
            "" => SchemaError {
                path: format!("a {kind}"),
                reason: err.reason(),
            },
            name => err.at(At::Named(kind, name)),
        })?;
    }
    let converted = read_schema(At::Named(kind, &name), schema_bytes.bytes())?;
    Ok((name, converted))
}

/// The name of the map entry `bytes` ([`entry`]), read without its schema: the last written,
/// as [`entry`] reads it. `None` when the entry cannot be read as far as its last name, which
/// [`entry`] then reports.
pub(super) fn entry_name(bytes: &[u8]) -> Option<&str> {
    let mut name = "";
    for field in fields(bytes) {
        if let (1, value) = field.ok()? {
            name = text(value).ok()?;
        }
    }
    Some(name)
}

/// A `Schema` message.
pub(super) fn schema(at: At<'_>, bytes: &[u8]) -> Result<Schema, SchemaError> {
    MERGE_BUDGET.set(bytes.len());
    read_schema(at, bytes)
}

fn read_schema(at: At<'_>, bytes: &[u8]) -> Result<Schema, SchemaError> {
    let wire = |err: Malformed| err.at(at);
    let mut version = 0;
    let mut block_bytes = Message::default();
    for field in fields(bytes) {
        let (number, value) = field.map_err(wire)?;
        match number {
            1 => version = varint(value).map_err(wire)? as i64,
            2 => block_bytes
                .add(message(value).map_err(wire)?)
                .map_err(wire)?,
            _ => {}
        }
    }
    Ok(Schema {
        version,
        block: block(at, block_bytes.bytes(), 0)?,
    })
}

/// The error of an element nested more than [`MAX_NESTING`] levels deep, at `at`.
fn too_deep(at: At<'_>) -> SchemaError {
    SchemaError {
        path: at.path(),
        reason: format!(
            "blocks and nested attributes are nested more than {MAX_NESTING} levels deep; this \
             is a bug in the provider"
        ),
    }
}

/// A `Schema.Block` message, `depth` levels below the top block.
fn block(at: At<'_>, bytes: &[u8], depth: usize) -> Result<Block, SchemaError> {
    if depth > MAX_NESTING {
        return Err(too_deep(at));
    }
    let [attributes, block_types] = count(bytes, [2, 3]);
    let (mut attributes, mut block_types) = (
        Vec::with_capacity(attributes),
        Vec::with_capacity(block_types),
    );
    let wire = |err: Malformed| err.at(at);
    let mut b = Block::default();
    for field in fields(bytes) {
        let (number, value) = field.map_err(wire)?;
        match number {
            2 => attributes.push(attribute(at, message(value).map_err(wire)?, depth)?),
            3 => block_types.push(nested_block(at, message(value).map_err(wire)?, depth)?),
            _ => block_field(&mut b, number, value).map_err(wire)?,
        }
    }
    b.attributes = NameMap::from_vec(attributes);
    b.block_types = NameMap::from_vec(block_types);
    Ok(b)
}

/// Field `number` of a block, other than its attributes and nested blocks, read into `b`.
fn block_field(b: &mut Block, number: u32, value: Value<'_>) -> Result<(), Malformed> {
    match number {
        4 => b.description = string(value)?,
        5 => b.description_kind = string_kind(varint(value)? as i32),
        6 => b.deprecated = varint(value)? != 0,
        7 => b.deprecation_message = string(value)?,
        _ => {}
    }
    Ok(())
}

/// A `Schema.NestedBlock` message of the block at `parent`, `depth` levels deep, and its name.
fn nested_block(
    parent: At<'_>,
    bytes: &[u8],
    depth: usize,
) -> Result<(String, NestedBlock), SchemaError> {
    let mut name = String::new();
    let mut block_bytes = Message::default();
    let (mut mode, mut min_items, mut max_items) = (0, 0, 0);
    for field in fields(bytes) {
        let read = || -> Result<(), Malformed> {
            let (number, value) = field?;
            match number {
                1 => name = string(value)?,
                2 => block_bytes.add(message(value)?)?,
                3 => mode = varint(value)? as i32,
                4 => min_items = varint(value)? as i64,
                5 => max_items = varint(value)? as i64,
                _ => {}
            }
            Ok(())
        };
        read().map_err(|err| err.at(named(&parent, &name)))?;
    }
    let at = At::Key(&parent, &name);
    let nested = NestedBlock {
        block: block(at, block_bytes.bytes(), depth + 1)?,
        nesting: nesting(at, mode, true)?,
        min_items,
        max_items,
    };
    Ok((name, nested))
}

/// A `Schema.Attribute` message of the element at `parent`, `depth` levels deep, and its name.
fn attribute(
    parent: At<'_>,
    bytes: &[u8],
    depth: usize,
) -> Result<(String, Attribute), SchemaError> {
    let mut name = String::new();
    let mut ty: &[u8] = &[];
    let mut nested = None::<Message<'_>>;
    let mut a = Attribute::default();
    for field in fields(bytes) {
        let read = || -> Result<(), Malformed> {
            let (number, value) = field?;
            match number {
                1 => name = string(value)?,
                2 => ty = message(value)?,
                3 => a.description = string(value)?,
                4 => a.required = varint(value)? != 0,
                5 => a.optional = varint(value)? != 0,
                6 => a.computed = varint(value)? != 0,
                7 => a.sensitive = varint(value)? != 0,
                8 => a.description_kind = string_kind(varint(value)? as i32),
                9 => a.deprecated = varint(value)? != 0,
                10 => nested.get_or_insert_default().add(message(value)?)?,
                11 => a.write_only = varint(value)? != 0,
                12 => a.deprecation_message = string(value)?,
                _ => {}
            }
            Ok(())
        };
        read().map_err(|err| err.at(named(&parent, &name)))?;
    }
    let at = At::Key(&parent, &name);
    a.ty = match nested {
        Some(object_bytes) => AttributeType::Nested(object(at, object_bytes.bytes(), depth + 1)?),
        None => AttributeType::Type(cty_type(|| at.path(), ty)?),
    };
    Ok((name, a))
}

/// A `Schema.Object` message: nested attributes, `depth` levels below the top block.
fn object(at: At<'_>, bytes: &[u8], depth: usize) -> Result<NestedObject, SchemaError> {
    if depth > MAX_NESTING {
        return Err(too_deep(at));
    }
    let [attributes] = count(bytes, [1]);
    let wire = |err: Malformed| err.at(at);
    let mut attributes = Vec::with_capacity(attributes);
    let mut mode = 0;
    for field in fields(bytes) {
        let (number, value) = field.map_err(wire)?;
        match number {
            1 => attributes.push(attribute(at, message(value).map_err(wire)?, depth)?),
            3 => mode = varint(value).map_err(wire)? as i32,
            _ => {}
        }
    }
    Ok(NestedObject {
        attributes: NameMap::from_vec(attributes),
        nesting: nesting(at, mode, false)?,
    })
}

/// How many times each of the fields `numbers` is written in the message `bytes` (up to where
/// it is malformed): the exact capacity of each repeated field, so that the vectors the schema
/// keeps are neither grown nor larger than they need be.
fn count<const N: usize>(bytes: &[u8], numbers: [u32; N]) -> [usize; N] {
    let mut counts = [0; N];
    for (number, _) in fields(bytes).map_while(Result::ok) {
        if let Some(i) = numbers.iter().position(|&n| n == number) {
            counts[i] += 1;
        }
    }
    counts
}

/// Where the element named `name` in `parent` is; before its name is read, `parent`.
fn named<'a>(parent: &'a At<'a>, name: &'a str) -> At<'a> {
    if name.is_empty() {
        *parent
    } else {
        At::Key(parent, name)
    }
}

/// What was wrong with a message's bytes; [`Malformed::at`] says where.
struct Malformed(Cow<'static, str>);

impl Malformed {
    fn at(self, at: At<'_>) -> SchemaError {
        SchemaError {
            path: at.path(),
            reason: self.reason(),
        }
    }

    fn reason(self) -> String {
        format!("it cannot be decoded: {}", self.0)
    }
}

/// A field's value as the wire has it: a varint, or length-delimited bytes (a string, bytes or
/// a message). Fixed-width values and groups, which no field we read has, are skipped.
#[derive(Clone, Copy)]
enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
}

/// The fields of the message `bytes`, in the order they were written, by number.
fn fields(bytes: &[u8]) -> impl Iterator<Item = Result<(u32, Value<'_>), Malformed>> {
    let mut left = bytes;
    std::iter::from_fn(move || {
        while !left.is_empty() {
            match next_field(&mut left) {
                Ok(Some(field)) => return Some(Ok(field)),
                Ok(None) => {}
                Err(err) => {
                    left = &[];
                    return Some(Err(err));
                }
            }
        }
        None
    })
}

/// The field at the start of `left`, which is moved past it; `None` for a field skipped.
fn next_field<'a>(left: &mut &'a [u8]) -> Result<Option<(u32, Value<'a>)>, Malformed> {
    let (number, wire_type) = decode_key(left).map_err(Malformed::from)?;
    let value = match wire_type {
        WireType::Varint => Value::Varint(decode_varint(left).map_err(Malformed::from)?),
        WireType::LengthDelimited => {
            let len = decode_varint(left).map_err(Malformed::from)?;
            let value = usize::try_from(len)
                .ok()
                .and_then(|len| left.get(..len))
                .ok_or(Malformed(Cow::Borrowed(
                    "a field goes beyond the end of its message",
                )))?;
            *left = &left[value.len()..];
            Value::Bytes(value)
        }
        other => {
            skip_field(other, number, left, DecodeContext::default()).map_err(Malformed::from)?;
            return Ok(None);
        }
    };
    Ok(Some((number, value)))
}

impl From<prost::DecodeError> for Malformed {
    /// prost's description of the error, without its preamble.
    fn from(err: prost::DecodeError) -> Malformed {
        let text = err.to_string();
        Malformed(Cow::Owned(
            match text.strip_prefix("failed to decode Protobuf message: ") {
                Some(rest) => rest.to_owned(),
                None => text,
            },
        ))
    }
}

fn varint(value: Value<'_>) -> Result<u64, Malformed> {
    match value {
        Value::Varint(v) => Ok(v),
        Value::Bytes(_) => Err(Malformed(Cow::Borrowed(
            "a number or flag was written as bytes",
        ))),
    }
}

fn message(value: Value<'_>) -> Result<&[u8], Malformed> {
    match value {
        Value::Bytes(bytes) => Ok(bytes),
        Value::Varint(_) => Err(Malformed(Cow::Borrowed(
            "a string or message was written as a number",
        ))),
    }
}

fn string(value: Value<'_>) -> Result<String, Malformed> {
    text(value).map(str::to_owned)
}

fn text(value: Value<'_>) -> Result<&str, Malformed> {
    std::str::from_utf8(message(value)?)
        .map_err(|_| Malformed(Cow::Borrowed("a string is not UTF-8")))
}

/// A message field's bytes. Protobuf reads a message written more than once as the
/// concatenation of its writings (a merge); that never happens in a provider's answer, so the
/// bytes are borrowed from it and copied only then.
#[derive(Default)]
struct Message<'a>(Cow<'a, [u8]>);

thread_local! {
    /// How many bytes merges may still copy while one schema is read: as many as the schema
    /// has. Each merge copies what the message holds so far, and each level of a nesting keeps
    /// its copy while it reads the next, so a message written twice at every level of a deep
    /// nesting would otherwise copy its tail once per level: an answer of megabytes taking
    /// gigabytes. No provider's answer merges at all.
    static MERGE_BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl<'a> Message<'a> {
    fn add(&mut self, bytes: &'a [u8]) -> Result<(), Malformed> {
        if self.0.is_empty() {
            self.0 = Cow::Borrowed(bytes);
            return Ok(());
        }
        let copied = self.0.len() + bytes.len();
        let left = MERGE_BUDGET
            .get()
            .checked_sub(copied)
            .ok_or(Malformed(Cow::Borrowed(
                "messages written more than once copy more bytes than the schema has",
            )))?;
        MERGE_BUDGET.set(left);
        self.0.to_mut().extend_from_slice(bytes);
        Ok(())
    }

    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;
    use tfp_testkit::protobuf::field;

    use super::*;
    use crate::proto::tfplugin6 as v6;

    /// What prost's decoding and the conversion of the generated messages make of `bytes`: the
    /// reading these functions replace.
    fn through_prost(bytes: &[u8]) -> Result<Schema, String> {
        let decoded = v6::Schema::decode(bytes).map_err(|err| err.to_string())?;
        crate::tfschema::tests::generated::converted(At::Root("test"), decoded)
            .map_err(|err| err.to_string())
    }

    fn read(bytes: &[u8]) -> Result<Schema, SchemaError> {
        schema(At::Root("test"), bytes)
    }

    fn attribute(name: &str, ty: &[u8]) -> v6::schema::Attribute {
        v6::schema::Attribute {
            name: name.to_owned(),
            r#type: ty.to_vec(),
            ..Default::default()
        }
    }

    /// A schema with every field of every message set, nested attributes and nested blocks
    /// two deep, attributes out of name order, descriptions with non-ASCII letters.
    fn every_field() -> v6::Schema {
        let nested = v6::schema::Object {
            attributes: vec![
                v6::schema::Attribute {
                    sensitive: true,
                    write_only: true,
                    ..attribute("secret", b"\"string\"")
                },
                v6::schema::Attribute {
                    nested_type: Some(v6::schema::Object {
                        attributes: vec![attribute("deep", br#"["list","number"]"#)],
                        nesting: 4,
                        ..Default::default()
                    }),
                    computed: true,
                    ..attribute("inner", b"")
                },
            ],
            nesting: 3,
            ..Default::default()
        };
        let inner_block = v6::schema::Block {
            version: 2,
            attributes: vec![attribute("x", br#"["object",{"a":"bool"}]"#)],
            ..Default::default()
        };
        v6::Schema {
            version: 7,
            block: Some(v6::schema::Block {
                version: 1,
                attributes: vec![
                    v6::schema::Attribute {
                        description: "Zürich's name".into(),
                        description_kind: 1,
                        required: true,
                        deprecated: true,
                        deprecation_message: "use another".into(),
                        ..attribute("z_name", b"\"string\"")
                    },
                    v6::schema::Attribute {
                        optional: true,
                        nested_type: Some(nested),
                        ..attribute("a_nested", b"")
                    },
                    attribute("dynamic", b"\"dynamic\""),
                ],
                block_types: vec![
                    v6::schema::NestedBlock {
                        type_name: "rule".into(),
                        block: Some(v6::schema::Block {
                            block_types: vec![v6::schema::NestedBlock {
                                type_name: "match".into(),
                                block: Some(inner_block),
                                nesting: 5,
                                ..Default::default()
                            }],
                            ..Default::default()
                        }),
                        nesting: 2,
                        min_items: 1,
                        max_items: 10,
                    },
                    v6::schema::NestedBlock {
                        type_name: "empty".into(),
                        nesting: 1,
                        ..Default::default()
                    },
                ],
                description: "A *thing*.".into(),
                description_kind: 1,
                deprecated: true,
                deprecation_message: "gone soon".into(),
            }),
        }
    }

    #[test]
    fn reads_every_field_as_the_generated_messages_converted_do() {
        let bytes = every_field().encode_to_vec();
        let read = read(&bytes).expect("a valid schema is read");
        assert_eq!(Ok(read.clone()), through_prost(&bytes));
        let a = &read.block.attributes;
        assert_eq!(a["z_name"].deprecation_message, "use another");
        let AttributeType::Nested(nested) = &a["a_nested"].ty else {
            panic!("a_nested has nested attributes: {:?}", a["a_nested"].ty);
        };
        assert!(nested.attributes["secret"].write_only);
        assert_eq!(read.block.block_types["rule"].max_items, 10);
        assert_eq!(read.version, 7);
    }

    /// A message written twice at every level of a deep nesting is refused once the merges
    /// would copy more bytes than the schema has, instead of copying its tail at every level.
    #[test]
    fn merges_copy_no_more_than_the_schema_holds() {
        use tfp_testkit::protobuf::field;
        // The innermost block carries 64 KiB in an unknown field; each level above it is a
        // nested block whose block is written twice, first as a flag alone.
        let mut block = field(15, &[0; 64 << 10]);
        for _ in 0..200 {
            let nested = [field(1, b"n"), field(2, &[0x30, 0x00]), field(2, &block)].concat();
            block = field(3, &[nested, vec![0x18, 0x01]].concat());
        }
        let schema = field(2, &block);
        let err = read(&schema).expect_err("too many bytes copied");
        assert!(err.to_string().contains("written more than once"), "{err}");
    }

    #[test]
    fn keeps_protobufs_rules_for_order_unknown_fields_and_repeated_messages() {
        let first = every_field();
        let second = v6::Schema {
            version: 9,
            block: Some(v6::schema::Block {
                attributes: vec![attribute("later", b"\"bool\"")],
                description: "the last description wins".into(),
                ..Default::default()
            }),
        };
        // A message written twice is read as one: the second `block` adds its attribute.
        let twice = [first.encode_to_vec(), second.encode_to_vec()].concat();
        let read_twice = read(&twice).expect("a block written twice is read");
        assert_eq!(Ok(read_twice.clone()), through_prost(&twice));
        assert!(read_twice.block.attributes.get("later").is_some());
        assert!(read_twice.block.attributes.get("z_name").is_some());
        assert_eq!(read_twice.version, 9);

        // Unknown fields of every wire type are skipped, wherever they are.
        let unknown: &[u8] = &[
            0xb8, 0x06, 0x2a, // field 103, varint 42
            0xc1, 0x06, 1, 2, 3, 4, 5, 6, 7, 8, // field 104, fixed64
            0xca, 0x06, 0x02, b'h', b'i', // field 105, bytes
            0xd5, 0x06, 1, 2, 3, 4, // field 106, fixed32
        ];
        let with_unknown = [unknown, &twice, unknown].concat();
        assert_eq!(read(&with_unknown).ok(), Some(read_twice));

        // A name after the rest of its attribute.
        let name_last = [
            vec![0x12, 0x0f, 0x12, 0x0d], // the block, then its attribute
            b"\x12\x08\"number\"".to_vec(),
            vec![0x0a, 0x01, b'n'],
        ]
        .concat();
        let read_last = read(&name_last).expect("fields in any order are read");
        assert_eq!(Ok(read_last.clone()), through_prost(&name_last));
        assert_eq!(
            read_last.block.attributes["n"].ty,
            AttributeType::Type(tfp_cty::Type::Number)
        );
    }

    #[test]
    fn names_where_the_bytes_are_wrong() {
        let valid = every_field().encode_to_vec();
        for cut in 1..valid.len() {
            let cut_short = &valid[..cut];
            assert_eq!(
                read(cut_short).is_ok(),
                through_prost(cut_short).is_ok(),
                "a schema cut at {cut} bytes"
            );
        }

        // An attribute's name written as a number.
        let bad_name = [0x12, 0x04, 0x12, 0x02, 0x08, 0x01];
        let err = read(&bad_name).expect_err("a name must be a string");
        assert_eq!(err.path, "test");
        assert_eq!(
            err.reason,
            "it cannot be decoded: a string or message was written as a number"
        );
        assert!(through_prost(&bad_name).is_err());

        // A description that is not UTF-8, in a nested block named before it.
        let bad_text = v6::Schema {
            block: Some(v6::schema::Block {
                block_types: vec![v6::schema::NestedBlock {
                    type_name: "rule".into(),
                    block: Some(v6::schema::Block {
                        description: "\u{ff}".into(),
                        ..Default::default()
                    }),
                    nesting: 2,
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut bytes = bad_text.encode_to_vec();
        let at = (bytes
            .windows(2)
            .position(|pair| pair == "\u{ff}".as_bytes()))
        .expect("the description is in the bytes");
        bytes[at] = 0xff;
        let err = read(&bytes).expect_err("a description must be UTF-8");
        assert_eq!(err.path, "test.rule");
        assert_eq!(err.reason, "it cannot be decoded: a string is not UTF-8");
        assert!(through_prost(&bytes).is_err());
    }

    /// A `Schema` whose top block holds `levels` blocks `b`, each in the one before.
    fn nested_blocks(levels: usize) -> Vec<u8> {
        let mut block = Vec::new();
        for _ in 0..levels {
            let mut nested = field(1, b"b");
            nested.extend(field(2, &block));
            nested.extend_from_slice(&[0x18, 0x02]);
            block = field(3, &nested);
        }
        field(2, &block)
    }

    /// A `Schema` whose top block has an attribute `a` of `levels` nested objects, each with an
    /// attribute `a` of the next, the last a string.
    fn nested_attributes(levels: usize) -> Vec<u8> {
        let mut attribute = [field(1, b"a"), field(2, br#""string""#)].concat();
        for _ in 0..levels {
            let object = [field(1, &attribute), vec![0x18, 0x01]].concat();
            attribute = [field(1, b"a"), field(10, &object)].concat();
        }
        field(2, &field(2, &attribute))
    }

    #[test]
    fn blocks_and_attributes_nest_at_most_a_hundred_levels() {
        let depth = |block: &Block| {
            let mut depth = 0;
            let mut at = block;
            while let Some(nested) = at.block_types.get("b") {
                depth += 1;
                at = &nested.block;
            }
            depth
        };
        let read_blocks = read(&nested_blocks(MAX_NESTING)).expect("100 levels are read");
        assert_eq!(depth(&read_blocks.block), MAX_NESTING);
        read(&nested_attributes(MAX_NESTING)).expect("100 levels are read");

        let err = read(&nested_blocks(MAX_NESTING + 1)).expect_err("101 levels");
        assert_eq!(err.path, format!("test{}", ".b".repeat(MAX_NESTING + 1)));
        assert_eq!(
            err.reason,
            "blocks and nested attributes are nested more than 100 levels deep; this is a bug in \
             the provider"
        );
        let err = read(&nested_attributes(MAX_NESTING + 1)).expect_err("101 levels");
        assert_eq!(err.path, format!("test{}", ".a".repeat(MAX_NESTING + 1)));
    }

    /// The deepest answer `tfp_depth` lets through (the answer, the schema and each block and
    /// nested block one level) is refused, on a thread with the stack of the threads that read
    /// answers, before its depth can cost anything.
    #[test]
    fn the_deepest_answer_is_refused_without_overflowing() {
        let bytes = nested_blocks((tfp_depth::MAX_DEPTH - 3) / 2);
        let refused = std::thread::Builder::new()
            .stack_size(tfp_mapping::parallel::HELPER_STACK_BYTES)
            .spawn(move || read(&bytes).is_err())
            .expect("a thread")
            .join()
            .expect("no overflow");
        assert!(refused);
    }
}
