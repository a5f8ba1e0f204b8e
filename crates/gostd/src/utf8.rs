//! Go's `unicode/utf8.DecodeRune`: the one rule every Go text routine here uses for bytes that
//! are not valid UTF-8.
//!
//! Go takes a valid encoded rune whole and every other byte alone, as the error rune of width
//! one: `E2 80` is two errors in Go where Rust's lossy decoding sees one truncated sequence.

/// The rune at the start of `bytes` and its width, or `None` for a byte that does not start a
/// valid encoding (Go's `RuneError` of width 1). `bytes` must not be empty.
pub fn decode_rune(bytes: &[u8]) -> Option<(char, usize)> {
    let width = match bytes.first()? {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let encoded = bytes.get(..width)?;
    // Rust's UTF-8 validation rejects exactly what Go's does: overlong forms, surrogates and
    // runes beyond U+10FFFF.
    let c = std::str::from_utf8(encoded).ok()?.chars().next()?;
    Some((c, width))
}

/// Appends `bytes` to `out`, each byte Go would not decode replaced by U+FFFD.
pub fn push_lossy(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => {
            let mut i = 0;
            while i < bytes.len() {
                match decode_rune(&bytes[i..]) {
                    Some((c, width)) => {
                        out.push(c);
                        i += width;
                    }
                    None => {
                        out.push(char::REPLACEMENT_CHARACTER);
                        i += 1;
                    }
                }
            }
        }
    }
}
