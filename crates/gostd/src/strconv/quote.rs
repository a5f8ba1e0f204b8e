//! `strconv.Quote` and `strconv.IsPrint`.
//!
//! Quote keeps printable runes as they are and escapes the rest: `\a \b \f \n \r \t \v`, other
//! ASCII controls and DEL as `\xNN`, other non-printable runes as `\uNNNN` or `\UNNNNNNNN`, and
//! each byte that is not valid UTF-8 as `\xNN`. What is printable comes from Go's own tables
//! ([`super::printable`]), not from Rust's idea of Unicode.

use std::fmt::Write as _;

use super::printable::PRINTABLE;
use crate::utf8::decode_rune;

/// `strconv.Quote(s)`: `s` double-quoted with Go escapes.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    append_quote(&mut out, s);
    out
}

/// `strconv.AppendQuote`: appends `s` quoted to `out`.
pub fn append_quote(out: &mut String, s: &str) {
    append_quote_bytes(out, s.as_bytes());
}

/// Appends a Go string holding arbitrary bytes, quoted; bytes that are not UTF-8 become `\xNN`.
pub fn append_quote_bytes(out: &mut String, bytes: &[u8]) {
    out.push('"');
    let mut i = 0;
    while i < bytes.len() {
        let Some((c, width)) = decode_rune(&bytes[i..]) else {
            let _ = write!(out, "\\x{:02x}", bytes[i]);
            i += 1;
            continue;
        };
        i += width;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if u32::from(c) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if u32::from(c) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
}

/// `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space, as
/// Go's Unicode tables define them.
pub fn is_print(c: char) -> bool {
    let c = u32::from(c);
    let after = PRINTABLE.partition_point(|&(first, _)| first <= c);
    after > 0 && c <= PRINTABLE[after - 1].1
}
