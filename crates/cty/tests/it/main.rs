//! Integration tests of tfp-cty through its public API: byte-exact msgpack vectors, JSON,
//! implied types, hostile inputs, property tests and conformance on recorded provider traffic.

mod captures;
mod conformance;
mod hostile;
mod implied;
mod json;
mod msgpack;
mod props;
mod values;

/// Parses hex with optional whitespace: `"83 a5 63"`.
fn unhex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert!(digits.len().is_multiple_of(2), "odd hex length in {text}");
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).expect("hex is ASCII");
            u8::from_str_radix(s, 16).expect("valid hex digit")
        })
        .collect()
}

/// Formats bytes as spaced lowercase hex, for readable assertion failures.
fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses a type spec written as JSON text.
fn ty(spec: &str) -> tfp_cty::Type {
    tfp_cty::Type::from_json_bytes(spec.as_bytes()).expect("valid type spec in test")
}

/// Parses a number written as decimal text.
fn num(text: &str) -> tfp_cty::Number {
    text.parse().expect("valid number in test")
}
