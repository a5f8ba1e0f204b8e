//! JSON strings as `encoding/json` writes them (`appendString` with HTML escaping on, which is
//! `json.Marshal`'s default).
//!
//! Go escapes `"` and `\`; `\b`, `\f`, `\n`, `\r` and `\t` by name (Go 1.22 and later); other
//! controls as `\u00XX`; `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`; U+2028 and U+2029 as
//! `\u2028` and `\u2029`; and each byte that is not valid UTF-8 as `\ufffd`. Everything else,
//! DEL and non-ASCII included, is written as it is.

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Where escaped text is appended: a `String`, or a byte buffer that stays UTF-8 because only
/// `&str`s are appended to it.
pub trait Output {
    fn push_str(&mut self, text: &str);
}

impl Output for String {
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
}

impl Output for Vec<u8> {
    fn push_str(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }
}

/// Appends `s` as a JSON string.
pub fn write_string<O: Output + ?Sized>(out: &mut O, s: &str) {
    // Text already UTF-8 has no invalid bytes to replace: escaped as it is.
    out.push_str("\"");
    write_escaped_str(out, s);
    out.push_str("\"");
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
pub fn write_escaped_str<O: Output + ?Sized>(out: &mut O, text: &str) {
    let bytes = text.as_bytes();
    // Text is copied in runs between the bytes that need an escape; every such byte is ASCII
    // or starts U+2028 or U+2029, so the runs end on character boundaries.
    let mut start = 0;
    let mut i = 0;
    loop {
        i = next_notable(bytes, i);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        if b != 0xe2 {
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
        } else if let [0x80, third @ (0xa8 | 0xa9), ..] = bytes[i + 1..] {
            out.push_str(&text[start..i]);
            push_unicode_escape(out, 0x2000 | u32::from(third & 0x3f));
            i += 3;
            start = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[start..]);
}

/// Whether Go escapes `b`, or `b` may start U+2028 or U+2029 (0xe2): controls, `"`, `\`,
/// `<`, `>` and `&`. Everything else, DEL and the rest of non-ASCII included, is written as it
/// is.
///
/// Written as comparisons joined by `|`, `"` and `&` (0x22, 0x26) as one masked comparison and
/// `<` and `>` (0x3c, 0x3e) as another: so the compiler compares sixteen bytes at once. A
/// `matches!` of the six bytes became a bit test per byte instead.
#[inline(always)]
fn notable(b: u8) -> bool {
    (b < 0x20) | ((b & 0xfb) == b'"') | ((b & 0xfd) == b'<') | (b == b'\\') | (b == 0xe2)
}

/// The index of the first notable byte of `bytes` from `from` on, or its length. Sixteen bytes
/// are looked at together, with comparisons the compiler turns into vector instructions: most
/// text has nothing to escape, and this is most of the time a schema's writing spends on it.
/// Fewer than sixteen left (most names and short descriptions are that, or end so) are looked
/// at together as well, padded with a byte that is not notable, and one by one only when one
/// of them is.
fn next_notable(bytes: &[u8], from: usize) -> usize {
    const LANES: usize = 16;
    let any_notable = |chunk: &[u8; LANES]| chunk.iter().fold(false, |any, &b| any | notable(b));
    let mut i = from;
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<LANES>) {
        if any_notable(chunk) {
            break;
        }
        i += LANES;
    }
    let rest = bytes.get(i..).unwrap_or_default();
    if rest.len() < LANES {
        let mut padded = [b'a'; LANES];
        padded[..rest.len()].copy_from_slice(rest);
        if !any_notable(&padded) {
            return bytes.len();
        }
    }
    while bytes.get(i).is_some_and(|&b| !notable(b)) {
        i += 1;
    }
    i
}

fn push_unicode_escape<O: Output + ?Sized>(out: &mut O, c: u32) {
    let mut text = *b"\\u0000";
    for (digit, shift) in text[2..].iter_mut().zip([12, 8, 4, 0]) {
        *digit = HEX[((c >> shift) & 0xf) as usize];
    }
    out.push_str(std::str::from_utf8(&text).expect("hex digits are ASCII"));
}
