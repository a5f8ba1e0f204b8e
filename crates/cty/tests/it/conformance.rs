//! Conformance on real bytes: every msgpack `DynamicValue` recorded between the Go bridge and a
//! provider decodes under its schema from the same log and re-encodes byte-identical.
//!
//! The logs (from the Go bridge's own test data) are lists of `{name, request, response}`:
//! requests in protobuf text format, responses as JSON with proto field names and base64 bytes.
//! They are read from `testdata/conformance/upstream` at the workspace root.

use std::path::PathBuf;

use base64::{Engine as _, engine::general_purpose::STANDARD};
use serde_json::Value as Json;
use tfp_cty::{Block, ProviderSchema, from_msgpack, to_msgpack};
use tfp_testkit::schema_json::{Types, provider_schema};

use crate::hex;

fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/conformance/upstream")
}

/// Decodes every payload of one log and re-encodes it; returns how many it checked.
fn check(file: &str) -> usize {
    let path = conformance_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let entries: Vec<Json> = serde_json::from_str(&text).expect("the log is a JSON array");
    let mut schema = None;
    let mut checked = 0;
    for entry in &entries {
        let rpc = entry["name"]
            .as_str()
            .and_then(|n| n.rsplit('.').next())
            .expect("every entry names its RPC");
        let response = entry["response"].as_str().unwrap_or_default();
        if rpc == "GetProviderSchema" {
            schema = Some(provider_schema(
                &serde_json::from_str(response).expect("schema response is JSON"),
                Types::Base64,
            ));
            continue;
        }
        let schema = schema
            .as_ref()
            .expect("the schema comes before other calls");
        let request = parse_text(entry["request"].as_str().unwrap_or_default());
        let type_name = request.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("type_name", Field::Bytes(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        });
        let mut payloads: Vec<(String, Vec<u8>)> = request
            .iter()
            .filter_map(|(k, v)| match v {
                Field::Message(fields) => fields.iter().find_map(|(fk, fv)| match (fk, fv) {
                    (fk, Field::Bytes(b)) if fk == "msgpack" => Some((k.clone(), b.clone())),
                    _ => None,
                }),
                _ => None,
            })
            .collect();
        if !response.is_empty() {
            let response: Json = serde_json::from_str(response).expect("response is JSON");
            for (k, v) in response.as_object().into_iter().flatten() {
                if let Some(b64) = v.get("msgpack").and_then(Json::as_str) {
                    payloads.push((k.clone(), STANDARD.decode(b64).expect("msgpack in base64")));
                }
            }
        }
        for (field, bytes) in payloads {
            let block = block_for(schema, rpc, &field, type_name.as_deref());
            let ty = block.implied_type();
            let value =
                from_msgpack(&bytes, &ty).unwrap_or_else(|e| panic!("{file} {rpc}.{field}: {e}"));
            let again = to_msgpack(&value, &ty).expect("a decoded value encodes");
            assert_eq!(hex(&again), hex(&bytes), "{file} {rpc}.{field}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn random_provider_log() {
    assert_eq!(check("tf-grpc-log-random.json"), 20);
}

#[test]
fn phpipam_config_in_destroy_log() {
    assert_eq!(check("tf-grpc-log-config-in-destroy.json"), 8);
}

/// The block that `field` of a call `rpc` (of resource or data source `type_name`) is a value
/// of.
fn block_for(schema: &ProviderSchema, rpc: &str, field: &str, type_name: Option<&str>) -> Block {
    if field == "provider_meta" {
        return schema
            .provider_meta
            .as_ref()
            .map(|meta| meta.block.clone())
            .unwrap_or_default();
    }
    if rpc.contains("Provider") {
        return schema.provider.block.clone();
    }
    let name = type_name.expect("resource and data source calls carry a type name");
    let map = if rpc.contains("Data") {
        &schema.data_sources
    } else {
        &schema.resources
    };
    map.get(name)
        .unwrap_or_else(|| panic!("no schema for {name}"))
        .block
        .clone()
}

/// A protobuf text-format field value, as much of it as the logs use.
#[derive(Debug)]
enum Field {
    Bytes(Vec<u8>),
    Message(Vec<(String, Field)>),
    Scalar(String),
}

/// Parses protobuf text format (Go's `prototext` output): `name:"…"`, `name:{…}`, `name:word`.
fn parse_text(text: &str) -> Vec<(String, Field)> {
    let mut pos = 0;
    let fields = parse_fields(text.as_bytes(), &mut pos);
    assert_eq!(pos, text.len(), "unparsed text format: {text}");
    fields
}

fn parse_fields(s: &[u8], pos: &mut usize) -> Vec<(String, Field)> {
    let mut fields = Vec::new();
    loop {
        while s.get(*pos).is_some_and(u8::is_ascii_whitespace) {
            *pos += 1;
        }
        match s.get(*pos) {
            None | Some(b'}') => return fields,
            _ => {}
        }
        let start = *pos;
        while s
            .get(*pos)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            *pos += 1;
        }
        let name = String::from_utf8_lossy(&s[start..*pos]).into_owned();
        assert!(!name.is_empty(), "expected a field name at byte {start}");
        if s.get(*pos) == Some(&b':') {
            *pos += 1;
        }
        while s.get(*pos).is_some_and(u8::is_ascii_whitespace) {
            *pos += 1;
        }
        let value = match s.get(*pos) {
            Some(b'{') => {
                *pos += 1;
                let inner = parse_fields(s, pos);
                assert_eq!(s.get(*pos), Some(&b'}'), "unclosed message");
                *pos += 1;
                Field::Message(inner)
            }
            Some(b'"') => Field::Bytes(parse_quoted(s, pos)),
            _ => {
                let start = *pos;
                while s
                    .get(*pos)
                    .is_some_and(|&c| !c.is_ascii_whitespace() && c != b'}')
                {
                    *pos += 1;
                }
                Field::Scalar(String::from_utf8_lossy(&s[start..*pos]).into_owned())
            }
        };
        fields.push((name, value));
    }
}

/// A double-quoted string with C-style escapes; raw bytes (UTF-8 text) pass through.
fn parse_quoted(s: &[u8], pos: &mut usize) -> Vec<u8> {
    *pos += 1;
    let mut out = Vec::new();
    loop {
        let c = *s.get(*pos).expect("unterminated string");
        *pos += 1;
        match c {
            b'"' => return out,
            b'\\' => {
                let e = *s.get(*pos).expect("unterminated escape");
                *pos += 1;
                match e {
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'v' => out.push(11),
                    b'x' => {
                        let digits = hex_run(s, pos, 2, 16);
                        out.push(digits as u8);
                    }
                    b'0'..=b'7' => {
                        *pos -= 1;
                        let digits = hex_run(s, pos, 3, 8);
                        out.push(digits as u8);
                    }
                    other => out.push(other),
                }
            }
            other => out.push(other),
        }
    }
}

/// Reads up to `max` digits in `radix`.
fn hex_run(s: &[u8], pos: &mut usize, max: usize, radix: u32) -> u32 {
    let mut value = 0;
    for _ in 0..max {
        match s.get(*pos).and_then(|&c| char::from(c).to_digit(radix)) {
            Some(d) => {
                value = value * radix + d;
                *pos += 1;
            }
            None => break,
        }
    }
    value
}

#[test]
fn text_format_parser_reads_escapes() {
    let fields = parse_text(r#"a:"x\xc2\"\\\n\101»"  b:{msgpack:"\x80"} c:true"#);
    let Field::Bytes(a) = &fields[0].1 else {
        panic!("a is bytes: {fields:?}");
    };
    assert_eq!(a, &[b'x', 0xc2, b'"', b'\\', b'\n', b'A', 0xc2, 0xbb]);
    assert!(
        matches!(&fields[1].1, Field::Message(m) if matches!(&m[0].1, Field::Bytes(b) if b == &[0x80]))
    );
    assert!(matches!(&fields[2].1, Field::Scalar(s) if s == "true"));
}
