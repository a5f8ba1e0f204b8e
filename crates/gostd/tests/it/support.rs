//! Reading the captured vectors.

use serde_json::Value;

/// The lines of `testdata/<name>`, each a JSON object; a missing or malformed file fails the test.
pub(crate) fn vectors(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: {e}: {line}")))
        .collect();
    assert!(!lines.is_empty(), "{name} has no vectors");
    lines
}

/// A string field of a vector.
pub(crate) fn text<'a>(vector: &'a Value, field: &str) -> &'a str {
    vector[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} is not a string in {vector}"))
}

/// A field holding bytes in hex.
pub(crate) fn bytes(vector: &Value, field: &str) -> Vec<u8> {
    let hex = text(vector, field);
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("the vectors hold hex"))
        .collect()
}

/// Checks a writer of Go strings against vectors of `input` (hex bytes) and Go's `output`:
/// `append_bytes` on every input, `append_str` on those that are UTF-8.
pub(crate) fn check_text_writer(
    name: &str,
    append_bytes: impl Fn(&mut String, &[u8]),
    append_str: impl Fn(&mut String, &str),
) {
    for vector in vectors(name) {
        let input = bytes(&vector, "input");
        let go = text(&vector, "output");
        let mut out = String::new();
        append_bytes(&mut out, &input);
        assert_eq!(out, go, "{name}: input {input:x?}");
        if let Ok(s) = std::str::from_utf8(&input) {
            let mut out = String::new();
            append_str(&mut out, s);
            assert_eq!(out, go, "{name}: input {s:?}");
        }
    }
}

/// A float input: its bits in hex and its size.
pub(crate) enum Float {
    F64(f64),
    F32(f32),
}

pub(crate) fn float(vector: &Value) -> Float {
    let bits = text(vector, "bits");
    match vector["size"].as_u64() {
        Some(64) => Float::F64(f64::from_bits(
            u64::from_str_radix(bits, 16).expect("hex bits"),
        )),
        Some(32) => Float::F32(f32::from_bits(
            u32::from_str_radix(bits, 16).expect("hex bits"),
        )),
        other => panic!("unexpected size {other:?}"),
    }
}
