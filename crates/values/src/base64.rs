//! Standard base64 decoding (RFC 4648 alphabet, padded), for byte-string values only.
//!
//! The crate may depend on prost-types and thiserror alone, and byte strings are the only base64
//! it meets, so a dozen lines here beat a dependency. Like Go's `base64.StdEncoding`, input must
//! be padded to a multiple of four; unlike it, stray newlines are not skipped.

/// The bytes `text` encodes, or `None` when it is not padded standard base64.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let quads = bytes.chunks_exact(4);
    let last = quads.len().saturating_sub(1);
    for (i, quad) in quads.enumerate() {
        let padding = quad.iter().rev().take_while(|&&b| b == b'=').count();
        if padding > 2 || (padding > 0 && i != last) {
            return None;
        }
        let mut acc: u32 = 0;
        for &b in &quad[..4 - padding] {
            acc = (acc << 6) | u32::from(sextet(b)?);
        }
        acc <<= 6 * padding;
        let [_, b0, b1, b2] = acc.to_be_bytes();
        out.extend_from_slice(&[b0, b1, b2][..3 - padding]);
    }
    Some(out)
}

/// The six bits one base64 character stands for.
fn sextet(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_rfc4648_vectors_and_rejects_malformed_input() {
        let cases: &[(&str, Option<&[u8]>)] = &[
            ("", Some(b"")),
            ("Zg==", Some(b"f")),
            ("Zm8=", Some(b"fo")),
            ("Zm9v", Some(b"foo")),
            ("Zm9vYg==", Some(b"foob")),
            ("Zm9vYmE=", Some(b"fooba")),
            ("Zm9vYmFy", Some(b"foobar")),
            ("/+8=", Some(&[0xff, 0xef])),
            ("Zg", None),
            ("Zg=a", None),
            ("Z===", None),
            ("Zg==Zg==", None),
            ("Zm9v\n", None),
            ("Zm-v", None),
            ("====", None),
        ];
        for (text, expected) in cases {
            assert_eq!(decode(text).as_deref(), *expected, "decoding {text:?}");
        }
    }
}
