//! JSON strings as `encoding/json` writes them (`appendString` with HTML escaping on, which is
//! `json.Marshal`'s default).
//!
//! Go escapes `"` and `\`; `\b`, `\f`, `\n`, `\r` and `\t` by name (Go 1.22 and later); other
//! controls as `\u00XX`; `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`; U+2028 and U+2029 as
//! `\u2028` and `\u2029`; and each byte that is not valid UTF-8 as `\ufffd`. Everything else,
//! DEL and non-ASCII included, is written as it is.

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string.
pub fn write_string(out: &mut String, s: &str) {
    // Text already UTF-8 has no invalid bytes to replace: escaped as it is.
    out.push('"');
    write_escaped_str(out, s);
    out.push('"');
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
    // Go decodes rune by rune, and each byte that starts no valid rune is one U+FFFD: the
    // invalid run of a chunk is exactly such bytes.
    for chunk in bytes.utf8_chunks() {
        write_escaped_str(out, chunk.valid());
        for _ in chunk.invalid() {
            out.push_str("\\ufffd");
        }
    }
}

/// [`write_escaped`] for text known to be UTF-8.
pub fn write_escaped_str(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    // Text is copied in runs between the bytes that need an escape; every such byte is ASCII
    // or starts U+2028 or U+2029, so the runs end on character boundaries.
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 && !PLAIN[usize::from(b)] {
            out.push_str(&text[start..i]);
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                0x08 => out.push_str("\\b"),
                0x0c => out.push_str("\\f"),
                b'\n' => out.push_str("\\n"),
                b'\r' => out.push_str("\\r"),
                b'\t' => out.push_str("\\t"),
                _ => push_unicode_escape(out, u32::from(b)),
            }
            i += 1;
            start = i;
        } else if b == 0xe2 && bytes.get(i + 1) == Some(&0x80) {
            match bytes.get(i + 2) {
                Some(&third @ (0xa8 | 0xa9)) => {
                    out.push_str(&text[start..i]);
                    push_unicode_escape(out, 0x2000 | u32::from(third & 0x3f));
                    i += 3;
                    start = i;
                }
                _ => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out.push_str(&text[start..]);
}

/// The bytes Go writes unescaped on their own: printable ASCII (DEL included) other than `"`,
/// `\`, `<`, `>` and `&`. Every other byte is escaped or starts a multi-byte character.
const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x20;
    while b < 0x80 {
        table[b] = !matches!(b as u8, b'"' | b'\\' | b'<' | b'>' | b'&');
        b += 1;
    }
    table
};

fn push_unicode_escape(out: &mut String, c: u32) {
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((c >> shift) & 0xf) as usize]));
    }
}
