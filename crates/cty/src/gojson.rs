//! JSON text exactly as Go's `encoding/json` writes it, for the pieces go-cty writes: strings and
//! type specs.
//!
//! Go escapes `<`, `>` and `&` (as `\u003c`, `\u003e`, `\u0026`), U+2028 and U+2029, and control
//! characters (`\b`, `\f`, `\n`, `\r`, `\t`, otherwise `\u00XX`), where serde_json would write
//! some of them raw; byte-identical dynamic values and raw state need Go's form.

use crate::Type;

/// Appends `s` as a Go-escaped JSON string (Go's `encoding/json`, which go-cty uses).
pub fn write_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{0}'..='\u{1f}' | '\u{2028}' | '\u{2029}' => {
                let u = c as u32;
                out.push_str("\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(char::from(HEX[((u >> shift) & 0xf) as usize]));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends the type spec as go-cty's `Type.MarshalJSON` writes it.
pub(crate) fn write_type(ty: &Type, out: &mut String) {
    match ty {
        Type::String => out.push_str("\"string\""),
        Type::Number => out.push_str("\"number\""),
        Type::Bool => out.push_str("\"bool\""),
        Type::Dynamic => out.push_str("\"dynamic\""),
        Type::List(e) | Type::Set(e) | Type::Map(e) => {
            out.push_str(match ty {
                Type::List(_) => "[\"list\",",
                Type::Set(_) => "[\"set\",",
                _ => "[\"map\",",
            });
            write_type(e, out);
            out.push(']');
        }
        Type::Tuple(es) => {
            out.push_str("[\"tuple\",[");
            for (i, e) in es.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_type(e, out);
            }
            out.push_str("]]");
        }
        Type::Object {
            attributes,
            optional,
        } => {
            out.push_str("[\"object\",{");
            for (i, (name, t)) in attributes.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_type(t, out);
            }
            out.push('}');
            if !optional.is_empty() {
                out.push_str(",[");
                for (i, name) in optional.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(name, out);
                }
                out.push(']');
            }
            out.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_go() {
        let mut out = String::new();
        write_string("a\"b\\c<d>&\u{1}\u{7f}\n\u{2028}é", &mut out);
        assert_eq!(
            out,
            r#""a\"b\\c\u003cd\u003e\u0026\u0001"#.to_owned() + "\u{7f}\\n\\u2028é\""
        );
    }
}
