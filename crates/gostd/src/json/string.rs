//! JSON strings as `encoding/json` writes them (`appendString` with HTML escaping on, which is
//! `json.Marshal`'s default).
//!
//! Go escapes `"` and `\`; `\b`, `\f`, `\n`, `\r` and `\t` by name (Go 1.22 and later); other
//! controls as `\u00XX`; `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`; U+2028 and U+2029 as
//! `\u2028` and `\u2029`; and each byte that is not valid UTF-8 as `\ufffd`. Everything else,
//! DEL and non-ASCII included, is written as it is.

use crate::utf8::decode_rune;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string.
pub fn write_string(out: &mut String, s: &str) {
    write_string_bytes(out, s.as_bytes());
}

/// Appends a Go string holding arbitrary bytes as a JSON string.
pub fn write_string_bytes(out: &mut String, bytes: &[u8]) {
    out.push('"');
    write_escaped(out, bytes);
    out.push('"');
}

/// Appends the inside of a JSON string, without its quotes: for writers that frame strings
/// themselves (serde's).
pub fn write_escaped(out: &mut String, bytes: &[u8]) {
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                0x08 => out.push_str("\\b"),
                0x0c => out.push_str("\\f"),
                b'\n' => out.push_str("\\n"),
                b'\r' => out.push_str("\\r"),
                b'\t' => out.push_str("\\t"),
                0x00..=0x1f | b'<' | b'>' | b'&' => push_unicode_escape(out, u32::from(b)),
                _ => out.push(char::from(b)),
            }
            i += 1;
            continue;
        }
        match decode_rune(&bytes[i..]) {
            Some((c @ ('\u{2028}' | '\u{2029}'), width)) => {
                push_unicode_escape(out, u32::from(c));
                i += width;
            }
            Some((c, width)) => {
                out.push(c);
                i += width;
            }
            None => {
                out.push_str("\\ufffd");
                i += 1;
            }
        }
    }
}

fn push_unicode_escape(out: &mut String, c: u32) {
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((c >> shift) & 0xf) as usize]));
    }
}
