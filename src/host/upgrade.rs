//! The tfplugin5 → tfplugin6 translation of schemas, the one place where the two protocols'
//! messages differ on the wire.
//!
//! v5 `Schema.Attribute` numbers `write_only` 10 and `deprecation_message` 11; v6 uses 10 for
//! `nested_type` and moves the two to 11 and 12 (terraform-plugin-go's `tfplugin5.proto` and
//! `tfplugin6.proto`, v0.31.0). A v5 attribute never has nested attributes, so nothing is lost.

use std::ops::Range;

use crate::tfschema::MAX_NESTING;

/// Why a v5 `GetSchema` answer's bytes could not be read.
#[derive(Debug, thiserror::Error)]
#[error("malformed tfplugin5 GetSchema answer: {0}")]
pub(crate) struct Malformed(&'static str);

/// Turns the bytes of a v5 `GetSchema` answer, in place, into the bytes of the same answer in
/// v6 (`GetProviderSchema`): the attributes' two fields are renumbered, and nothing else
/// differs on the wire. Both numberings have keys of the same length, so no length changes and
/// nothing is allocated, instead of decoding the answer as v5 and moving every field of it
/// into the v6 types.
///
/// Field 10 of the answer, v6's state stores, is reserved in v5; a provider that sends it
/// anyway has it read as state stores, which nothing here uses.
pub(crate) fn provider_schema_bytes(bytes: &mut [u8]) -> Result<(), Malformed> {
    let whole = 0..bytes.len();
    for_each_field(bytes, whole, |bytes, field| match field.number {
        1 | 5 => schema(bytes, field.value()?),
        2 | 3 | 8 | 9 | 10 => map_value(bytes, field.value()?, schema),
        11 => map_value(bytes, field.value()?, action_schema),
        _ => Ok(()),
    })
}

/// A field: its number and wire type, where its key is, and where its value is.
struct Field {
    number: u64,
    wire_type: u8,
    key: Range<usize>,
    value: Range<usize>,
}

impl Field {
    /// The bytes of a length-delimited field (a message, for the fields we enter).
    fn value(&self) -> Result<Range<usize>, Malformed> {
        if self.wire_type != 2 {
            return Err(Malformed("a message field that is not length-delimited"));
        }
        Ok(self.value.clone())
    }
}

fn for_each_field(
    bytes: &mut [u8],
    range: Range<usize>,
    mut visit: impl FnMut(&mut [u8], Field) -> Result<(), Malformed>,
) -> Result<(), Malformed> {
    let mut at = range.start;
    while at < range.end {
        let key_start = at;
        let key = varint(bytes, &mut at, range.end)?;
        let (number, wire_type) = (key >> 3, (key & 7) as u8);
        if number == 0 {
            return Err(Malformed("field number 0"));
        }
        let key = key_start..at;
        let end = match wire_type {
            0 => {
                varint(bytes, &mut at, range.end)?;
                at
            }
            1 => at + 8,
            2 => {
                let len = varint(bytes, &mut at, range.end)?;
                usize::try_from(len)
                    .ok()
                    .and_then(|len| at.checked_add(len))
                    .ok_or(Malformed("a length beyond the message"))?
            }
            5 => at + 4,
            _ => return Err(Malformed("an unknown wire type")),
        };
        if end > range.end {
            return Err(Malformed("a field beyond the message"));
        }
        // For a length-delimited field the bytes after its length; only those are read.
        let value = at..end;
        at = end;
        visit(
            bytes,
            Field {
                number,
                wire_type,
                key,
                value,
            },
        )?;
    }
    Ok(())
}

fn varint(bytes: &[u8], at: &mut usize, end: usize) -> Result<u64, Malformed> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes[..end]
            .get(*at)
            .ok_or(Malformed("a varint cut short"))?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Malformed("a varint of more than ten bytes"))
}

/// The value (field 2) of a map entry.
fn map_value(
    bytes: &mut [u8],
    entry: Range<usize>,
    value: fn(&mut [u8], Range<usize>) -> Result<(), Malformed>,
) -> Result<(), Malformed> {
    for_each_field(bytes, entry, |bytes, field| match field.number {
        2 => value(bytes, field.value()?),
        _ => Ok(()),
    })
}

fn action_schema(bytes: &mut [u8], range: Range<usize>) -> Result<(), Malformed> {
    for_each_field(bytes, range, |bytes, field| match field.number {
        1 => schema(bytes, field.value()?),
        _ => Ok(()),
    })
}

fn schema(bytes: &mut [u8], range: Range<usize>) -> Result<(), Malformed> {
    for_each_field(bytes, range, |bytes, field| match field.number {
        2 => block(bytes, field.value()?, 0),
        _ => Ok(()),
    })
}

fn block(bytes: &mut [u8], range: Range<usize>, depth: usize) -> Result<(), Malformed> {
    // The bound every schema is read with, v5 or v6.
    if depth > MAX_NESTING {
        return Err(Malformed("blocks nested too deeply"));
    }
    for_each_field(bytes, range, |bytes, field| match field.number {
        2 => attribute(bytes, field.value()?),
        3 => nested_block(bytes, field.value()?, depth),
        _ => Ok(()),
    })
}

fn nested_block(bytes: &mut [u8], range: Range<usize>, depth: usize) -> Result<(), Malformed> {
    for_each_field(bytes, range, |bytes, field| match field.number {
        2 => block(bytes, field.value()?, depth + 1),
        _ => Ok(()),
    })
}

/// v5's `write_only` (10) and `deprecation_message` (11) are v6's 11 and 12. Either written
/// with another wire type is a field Go's protobuf would keep as unknown; it is renumbered to a
/// field v6 does not have either (15, 14), so that a v5 field 10 written as bytes is never
/// read as v6's nested attributes, which nest without a bound this walk would see.
fn attribute(bytes: &mut [u8], range: Range<usize>) -> Result<(), Malformed> {
    for_each_field(bytes, range, |bytes, field| {
        match (field.number, field.wire_type) {
            (10, 0) => renumber(bytes, field.key, 11 << 3),
            (10, wire_type) => renumber(bytes, field.key, (15 << 3) | wire_type),
            (11, 2) => renumber(bytes, field.key, (12 << 3) | 2),
            (11, wire_type) => renumber(bytes, field.key, (14 << 3) | wire_type),
            _ => {}
        }
        Ok(())
    })
}

/// Writes `key` (below 128) over the varint at `at`, in as many bytes as it had: its seven
/// bits first, then zeros, every byte but the last with the continuation bit.
fn renumber(bytes: &mut [u8], at: Range<usize>, key: u8) {
    let slot = &mut bytes[at];
    let len = slot.len();
    for (i, byte) in slot.iter_mut().enumerate() {
        let bits = if i == 0 { key } else { 0 };
        let more = if i + 1 < len { 0x80 } else { 0 };
        *byte = bits | more;
    }
}

/// The upgrade as it was first written, field by field: what [`provider_schema_bytes`] is
/// checked against.
#[cfg(test)]
mod field_by_field {
    use crate::proto::{tfplugin5 as v5, tfplugin6 as v6};

    /// Upgrades a v5 `GetSchema` answer to a v6 `GetProviderSchema` one.
    pub(super) fn provider_schema(
        r: v5::get_provider_schema::Response,
    ) -> v6::get_provider_schema::Response {
        let schemas = |m: std::collections::HashMap<String, v5::Schema>| {
            m.into_iter().map(|(k, s)| (k, schema(s))).collect()
        };
        v6::get_provider_schema::Response {
            provider: r.provider.map(schema),
            resource_schemas: schemas(r.resource_schemas),
            data_source_schemas: schemas(r.data_source_schemas),
            diagnostics: r.diagnostics.into_iter().map(diagnostic).collect(),
            provider_meta: r.provider_meta.map(schema),
            server_capabilities: r.server_capabilities.map(|c| v6::ServerCapabilities {
                plan_destroy: c.plan_destroy,
                get_provider_schema_optional: c.get_provider_schema_optional,
                move_resource_state: c.move_resource_state,
                generate_resource_config: c.generate_resource_config,
            }),
            functions: r
                .functions
                .into_iter()
                .map(|(k, f)| (k, function(f)))
                .collect(),
            ephemeral_resource_schemas: schemas(r.ephemeral_resource_schemas),
            list_resource_schemas: schemas(r.list_resource_schemas),
            // Protocol 5 has no state stores.
            state_store_schemas: Default::default(),
            action_schemas: r
                .action_schemas
                .into_iter()
                .map(|(k, a)| {
                    (
                        k,
                        v6::ActionSchema {
                            schema: a.schema.map(schema),
                        },
                    )
                })
                .collect(),
        }
    }

    fn schema(s: v5::Schema) -> v6::Schema {
        v6::Schema {
            version: s.version,
            block: s.block.map(block),
        }
    }

    fn block(b: v5::schema::Block) -> v6::schema::Block {
        v6::schema::Block {
            version: b.version,
            attributes: b.attributes.into_iter().map(attribute).collect(),
            block_types: b.block_types.into_iter().map(nested_block).collect(),
            description: b.description,
            description_kind: b.description_kind,
            deprecated: b.deprecated,
            deprecation_message: b.deprecation_message,
        }
    }

    fn attribute(a: v5::schema::Attribute) -> v6::schema::Attribute {
        v6::schema::Attribute {
            name: a.name,
            r#type: a.r#type,
            nested_type: None,
            description: a.description,
            required: a.required,
            optional: a.optional,
            computed: a.computed,
            sensitive: a.sensitive,
            description_kind: a.description_kind,
            deprecated: a.deprecated,
            write_only: a.write_only,
            deprecation_message: a.deprecation_message,
        }
    }

    fn nested_block(n: v5::schema::NestedBlock) -> v6::schema::NestedBlock {
        v6::schema::NestedBlock {
            type_name: n.type_name,
            block: n.block.map(block),
            // The nesting enums have the same numbers in both protocols.
            nesting: n.nesting,
            min_items: n.min_items,
            max_items: n.max_items,
        }
    }

    fn diagnostic(d: v5::Diagnostic) -> v6::Diagnostic {
        v6::Diagnostic {
            severity: d.severity,
            summary: d.summary,
            detail: d.detail,
            attribute: d.attribute.map(|p| v6::AttributePath {
                steps: p
                    .steps
                    .into_iter()
                    .map(|s| v6::attribute_path::Step {
                        selector: s.selector.map(|sel| {
                            use v5::attribute_path::step::Selector as S5;
                            use v6::attribute_path::step::Selector as S6;
                            match sel {
                                S5::AttributeName(n) => S6::AttributeName(n),
                                S5::ElementKeyString(k) => S6::ElementKeyString(k),
                                S5::ElementKeyInt(i) => S6::ElementKeyInt(i),
                            }
                        }),
                    })
                    .collect(),
            }),
        }
    }

    fn function(f: v5::Function) -> v6::Function {
        let parameter = |p: v5::function::Parameter| v6::function::Parameter {
            name: p.name,
            r#type: p.r#type,
            allow_null_value: p.allow_null_value,
            allow_unknown_values: p.allow_unknown_values,
            description: p.description,
            description_kind: p.description_kind,
        };
        v6::Function {
            parameters: f.parameters.into_iter().map(parameter).collect(),
            variadic_parameter: f.variadic_parameter.map(parameter),
            r#return: f
                .r#return
                .map(|r| v6::function::Return { r#type: r.r#type }),
            summary: f.summary,
            description: f.description,
            description_kind: f.description_kind,
            deprecation_message: f.deprecation_message,
        }
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;

    use super::*;
    use crate::proto::{tfplugin5 as v5, tfplugin6 as v6};
    use tfp_testkit::protobuf::field;

    fn attribute(name: &str, write_only: bool, deprecation: &str) -> v5::schema::Attribute {
        v5::schema::Attribute {
            name: name.into(),
            r#type: br#""string""#.to_vec(),
            description: format!("the {name}"),
            optional: true,
            sensitive: write_only,
            write_only,
            deprecated: !deprecation.is_empty(),
            deprecation_message: deprecation.into(),
            ..Default::default()
        }
    }

    /// A schema with attributes at three depths, some write-only or deprecated.
    fn schema(name: &str) -> v5::Schema {
        let leaf = v5::schema::Block {
            attributes: vec![attribute("deep", true, "use shallow")],
            ..Default::default()
        };
        let middle = v5::schema::Block {
            attributes: vec![attribute("middle", false, "")],
            block_types: vec![v5::schema::NestedBlock {
                type_name: "leaf".into(),
                block: Some(leaf),
                nesting: 2,
                min_items: 1,
                max_items: 3,
            }],
            ..Default::default()
        };
        v5::Schema {
            version: 2,
            block: Some(v5::schema::Block {
                version: 1,
                attributes: vec![
                    attribute(&format!("{name}_id"), false, ""),
                    attribute("password", true, ""),
                    attribute("old", false, "gone in 2.0"),
                ],
                block_types: vec![v5::schema::NestedBlock {
                    type_name: "middle".into(),
                    block: Some(middle),
                    nesting: 1,
                    ..Default::default()
                }],
                description: format!("{name}, described"),
                deprecated: false,
                deprecation_message: "block message".into(),
                ..Default::default()
            }),
        }
    }

    fn answer() -> v5::get_provider_schema::Response {
        let named = |names: &[&str]| names.iter().map(|n| (n.to_string(), schema(n))).collect();
        v5::get_provider_schema::Response {
            provider: Some(schema("provider")),
            resource_schemas: named(&["a_thing", "another"]),
            data_source_schemas: named(&["a_source"]),
            diagnostics: vec![v5::Diagnostic {
                severity: 2,
                summary: "careful".into(),
                detail: "it is a test".into(),
                attribute: Some(v5::AttributePath {
                    steps: vec![v5::attribute_path::Step {
                        selector: Some(v5::attribute_path::step::Selector::AttributeName(
                            "x".into(),
                        )),
                    }],
                }),
            }],
            provider_meta: Some(schema("meta")),
            server_capabilities: Some(v5::ServerCapabilities {
                plan_destroy: true,
                get_provider_schema_optional: true,
                ..Default::default()
            }),
            functions: [(
                "f".to_string(),
                v5::Function {
                    parameters: vec![v5::function::Parameter {
                        name: "p".into(),
                        r#type: br#""number""#.to_vec(),
                        ..Default::default()
                    }],
                    r#return: Some(v5::function::Return {
                        r#type: br#""bool""#.to_vec(),
                    }),
                    summary: "a function".into(),
                    ..Default::default()
                },
            )]
            .into(),
            ephemeral_resource_schemas: named(&["a_secret"]),
            list_resource_schemas: named(&["a_thing"]),
            action_schemas: [(
                "an_action".to_string(),
                v5::ActionSchema {
                    schema: Some(schema("action")),
                },
            )]
            .into(),
        }
    }

    fn upgraded(bytes: &[u8]) -> v6::get_provider_schema::Response {
        let mut bytes = bytes.to_vec();
        provider_schema_bytes(&mut bytes).expect("a well-formed answer");
        v6::get_provider_schema::Response::decode(bytes.as_slice()).expect("v6")
    }

    #[test]
    fn the_bytes_upgraded_read_as_the_answer_upgraded_field_by_field() {
        let answer = answer();
        let got = upgraded(&answer.encode_to_vec());
        assert_eq!(got, field_by_field::provider_schema(answer));
        let resource = &got.resource_schemas["a_thing"];
        let block = resource.block.as_ref().expect("block");
        let password = &block.attributes[1];
        assert!(password.write_only && password.nested_type.is_none());
        assert_eq!(block.attributes[2].deprecation_message, "gone in 2.0");
        let deep = &block.block_types[0]
            .block
            .as_ref()
            .expect("middle")
            .block_types[0];
        let deep = &deep.block.as_ref().expect("leaf").attributes[0];
        assert!(deep.write_only);
        assert_eq!(deep.deprecation_message, "use shallow");
    }

    #[test]
    fn a_key_written_in_more_bytes_than_it_needs_keeps_its_length() {
        // An attribute with `write_only` (10, varint) keyed in two bytes, then its name.
        let mut attribute = vec![0xd0, 0x00, 1];
        attribute.extend([0x0a, 1, b'x']);
        let mut block = vec![0x12, attribute.len() as u8];
        block.extend(&attribute);
        let mut schema = vec![0x12, block.len() as u8];
        schema.extend(&block);
        let mut answer = vec![0x0a, schema.len() as u8];
        answer.extend(&schema);
        let got = upgraded(&answer);
        let block = got.provider.and_then(|s| s.block).expect("block");
        assert_eq!(block.attributes.len(), 1);
        assert!(block.attributes[0].write_only);
        assert_eq!(block.attributes[0].name, "x");
    }

    #[test]
    fn a_malformed_answer_is_refused() {
        let whole = answer().encode_to_vec();
        for cut in [1, 2, 7, whole.len() / 2, whole.len() - 1] {
            let mut bytes = whole[..cut].to_vec();
            assert!(
                provider_schema_bytes(&mut bytes).is_err(),
                "cut at {cut} of {}",
                whole.len()
            );
        }
        assert!(provider_schema_bytes(&mut [0x0b]).is_err(), "wire type 3");
        assert!(provider_schema_bytes(&mut [0x00, 0x00]).is_err(), "field 0");
    }

    /// A v5 attribute's field 10 (`write_only`) written as bytes, as v6's nested attributes are,
    /// is read as Go reads a field of the wrong wire type, as unknown: never as nested
    /// attributes, whose depth nothing has bounded. Field 11 likewise.
    #[test]
    fn fields_of_the_wrong_wire_type_are_not_read_as_v6_fields() {
        // An `Object` of one required attribute, as v6's `nested_type` would hold it.
        let object = [field(1, &[0x0a, 0x01, b'x', 0x20, 0x01]), vec![0x18, 0x01]].concat();
        let attribute = [
            field(1, b"a"),
            field(2, b"\"string\""),
            field(10, &object), // field 10, bytes
            vec![0x58, 0x01],   // field 11, a flag
        ]
        .concat();
        let answer = field(1, &field(2, &field(2, &attribute)));
        let got = upgraded(&answer);
        let attribute = &got
            .provider
            .expect("the provider's schema")
            .block
            .expect("its block")
            .attributes[0];
        assert_eq!(
            (attribute.name.as_str(), attribute.r#type.as_slice()),
            ("a", &b"\"string\""[..])
        );
        assert!(attribute.nested_type.is_none(), "{attribute:?}");
        assert!(!attribute.write_only, "{attribute:?}");
    }

    #[test]
    fn blocks_nested_too_deeply_are_refused() {
        // Block 2 { NestedBlock 2 { Block ... } }, 120 levels deep.
        let mut block: Vec<u8> = Vec::new();
        for _ in 0..120 {
            block = field(3, &field(2, &block));
        }
        let mut answer = field(1, &field(2, &block));
        let err = provider_schema_bytes(&mut answer).expect_err("too deep");
        assert!(err.to_string().contains("nested too deeply"), "{err}");
    }
}
