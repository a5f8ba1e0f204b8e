//! The protobuf text format as Go's `String()` of a generated message prints it: one line,
//! fields in declaration order, `name:value` pairs separated by a space, sub-messages in braces,
//! repeated fields as one pair per element, map entries as `name:{key:… value:…}` in key order.
//!
//! Strings and bytes are quoted as Go's `internal/encoding/text` does: valid UTF-8 is written
//! as is (so msgpack bytes such as `c2 bb` appear as `»`), invalid bytes and ASCII controls as
//! `\xNN`, C1 controls as `\u00NN`. Go adds random extra spaces (`detrand`), which we do not.
//! Parsing is prost-reflect's, which reads all of this back.

use std::fmt::Write as _;

use prost_reflect::{DynamicMessage, Kind, MapKey, MessageDescriptor, ReflectMessage as _, Value};
use tfp_gostd::utf8::decode_rune;

/// Formats `message` on one line; an empty message is the empty string.
pub(crate) fn format(message: &DynamicMessage) -> String {
    let mut out = String::new();
    write_message(&mut out, message);
    out
}

/// Parses the text format into a message of type `desc`.
pub(crate) fn parse(
    desc: MessageDescriptor,
    text: &str,
) -> Result<DynamicMessage, prost_reflect::text_format::ParseError> {
    DynamicMessage::parse_text_format(desc, text)
}

fn write_message(out: &mut String, message: &DynamicMessage) {
    for field in super::fields_in_declaration_order(&message.descriptor()) {
        if !message.has_field(&field) {
            continue;
        }
        let value = message.get_field(&field);
        match &*value {
            Value::List(items) => {
                for item in items {
                    write_name(out, field.name());
                    write_value(out, item, &field.kind());
                }
            }
            Value::Map(entries) => {
                let Kind::Message(entry) = field.kind() else {
                    continue;
                };
                let key_kind = entry.map_entry_key_field().kind();
                let value_kind = entry.map_entry_value_field().kind();
                let mut sorted: Vec<_> = entries.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(b.0));
                for (key, item) in sorted {
                    write_name(out, field.name());
                    out.push_str("{key:");
                    write_value(out, &map_key_value(key), &key_kind);
                    out.push_str(" value:");
                    write_value(out, item, &value_kind);
                    out.push('}');
                }
            }
            single => {
                write_name(out, field.name());
                write_value(out, single, &field.kind());
            }
        }
    }
}

fn write_name(out: &mut String, name: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(name);
    out.push(':');
}

fn write_value(out: &mut String, value: &Value, kind: &Kind) {
    match value {
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::I32(n) => push_display(out, n),
        Value::I64(n) => push_display(out, n),
        Value::U32(n) => push_display(out, n),
        Value::U64(n) => push_display(out, n),
        Value::F32(f) => push_float(out, f64::from(*f)),
        Value::F64(f) => push_float(out, *f),
        Value::String(s) => quote(out, s.as_bytes()),
        Value::Bytes(b) => quote(out, b),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(e) => match e.get_value(*n) {
                Some(v) => out.push_str(v.name()),
                None => push_display(out, n),
            },
            _ => push_display(out, n),
        },
        Value::Message(m) => {
            // A separate buffer, so that the first inner field gets no leading space.
            let mut inner = String::new();
            write_message(&mut inner, m);
            out.push('{');
            out.push_str(&inner);
            out.push('}');
        }
        // Lists and maps never nest directly; their fields are handled by the caller.
        Value::List(_) | Value::Map(_) => {}
    }
}

fn push_display(out: &mut String, value: impl std::fmt::Display) {
    let _ = write!(out, "{value}");
}

fn push_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("nan");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "inf" } else { "-inf" });
    } else {
        push_display(out, f);
    }
}

fn map_key_value(key: &MapKey) -> Value {
    match key {
        MapKey::Bool(b) => Value::Bool(*b),
        MapKey::I32(n) => Value::I32(*n),
        MapKey::I64(n) => Value::I64(*n),
        MapKey::U32(n) => Value::U32(*n),
        MapKey::U64(n) => Value::U64(*n),
        MapKey::String(s) => Value::String(s.clone()),
    }
}

/// Quotes `bytes` as Go's text encoder does for both strings and bytes.
fn quote(out: &mut String, bytes: &[u8]) {
    out.push('"');
    let mut rest = bytes;
    while let Some(&first) = rest.first() {
        let (ch, len) = match decode_rune(rest) {
            Some(decoded) => decoded,
            None => {
                // An invalid UTF-8 byte: Go escapes it as the code point of the byte.
                let _ = write!(out, "\\x{first:02x}");
                rest = &rest[1..];
                continue;
            }
        };
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (0x80..=0x9f).contains(&(c as u32)) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
        rest = &rest[len..];
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: &[u8], expected: &str) {
        let mut out = String::new();
        quote(&mut out, bytes);
        assert_eq!(out, expected);
    }

    #[test]
    fn quotes_as_go_does() {
        check(b"\x80", r#""\x80""#);
        check(b"\x85\xa2id\xc0", r#""\x85\xa2id\xc0""#);
        check(b"\x00\x0c", r#""\x00\x0c""#);
        // c2 bb is valid UTF-8 (U+00BB) and is written as the character itself.
        check(b"only\xc2\xbbshow", "\"only\u{bb}show\"");
        check(b"\xc2\x80", r#""\u0080""#);
        check(b"a\"b\\c\nd\x7f", r#""a\"b\\c\nd\x7f""#);
    }
}
