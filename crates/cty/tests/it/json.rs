//! The JSON codec used for raw state.

use std::collections::BTreeMap;

use tfp_cty::{JsonOptions, Number, Type, Value, from_json, from_json_with, to_json};

use crate::{num, ty};

/// `value` of type `spec` encodes to exactly `text` and decodes back to `value`.
fn check(value: Value, spec: &str, text: &str) {
    let t = ty(spec);
    let encoded = to_json(&value, &t).expect("value encodes");
    assert_eq!(String::from_utf8_lossy(&encoded), text);
    assert_eq!(
        from_json(text.as_bytes(), &t).expect("decodes"),
        value,
        "{text}"
    );
}

/// `input` decodes to `value` under `spec`.
fn check_read(input: &str, spec: &str, value: Value) {
    let decoded = from_json(input.as_bytes(), &ty(spec)).expect("input decodes");
    assert_eq!(decoded, value, "{input}");
}

/// `input` fails to decode under `spec` with an error mentioning `needle`.
fn check_error(input: &str, spec: &str, needle: &str) {
    let err = from_json(input.as_bytes(), &ty(spec)).expect_err("input must be rejected");
    assert!(err.to_string().contains(needle), "{input}: {err}");
}

#[test]
fn writes_like_go_cty() {
    check(
        Value::object([
            (
                "b",
                Value::number(num("123456789012345678901234567890.000000000001")),
            ),
            ("a", Value::string("<x&y>\n")),
            ("c", Value::null(Type::Bool)),
            (
                "d",
                Value::list(Type::Number, vec![Value::number(num("0.1"))]),
            ),
            (
                "e",
                Value::map(
                    Type::Bool,
                    BTreeMap::from([("k".to_owned(), Value::bool(true))]),
                ),
            ),
        ]),
        r#"["object",{"a":"string","b":"number","c":"bool","d":["list","number"],"e":["map","bool"]}]"#,
        r#"{"a":"\u003cx\u0026y\u003e\n","b":123456789012345678901234567890.000000000001,"c":null,"d":[0.1],"e":{"k":true}}"#,
    );
    check(
        Value::string("hello"),
        r#""dynamic""#,
        r#"{"value":"hello","type":"string"}"#,
    );
    check(Value::null(Type::Dynamic), r#""dynamic""#, "null");
    check(
        Value::null(Type::Number),
        r#""dynamic""#,
        r#"{"value":null,"type":"number"}"#,
    );
    check(
        Value::tuple(vec![Value::number(1), Value::bool(false)]),
        r#"["tuple",["number","bool"]]"#,
        "[1,false]",
    );
    check(
        Value::set(Type::String, vec!["b".into(), "a".into()]),
        r#"["set","string"]"#,
        r#"["a","b"]"#,
    );
}

#[test]
fn reads_like_go_cty() {
    let t = r#"["object",{"a":"string","n":"number","b":"bool"}]"#;
    // Missing attributes are null.
    check_read(
        r#"{"a":"x"}"#,
        t,
        Value::object([
            ("a", Value::string("x")),
            ("n", Value::null(Type::Number)),
            ("b", Value::null(Type::Bool)),
        ]),
    );
    // Strings convert to numbers and bools, numbers and bools to strings.
    check_read(
        r#"{"a":12.50,"n":"-7","b":"1"}"#,
        t,
        Value::object([
            ("a", Value::string("12.50")),
            ("n", Value::number(-7)),
            ("b", Value::bool(true)),
        ]),
    );
    check_read(r#"true"#, r#""string""#, Value::string("true"));
    check_read(r#""false""#, r#""bool""#, Value::bool(false));
    check_read(r#""0""#, r#""bool""#, Value::bool(false));
    check_read(" 1.5e3 ", r#""number""#, Value::number(1500));
    check_read(
        r#"{"type":"string","value":"v"}"#,
        r#""dynamic""#,
        Value::string("v"),
    );
    check_read(
        r#""\ud83d\ude00\u00e9\/""#,
        r#""string""#,
        Value::string("\u{1f600}é/"),
    );
    check_read(r#""\ud800""#, r#""string""#, Value::string("\u{fffd}"));
    // Go replaces each byte that does not start a valid rune: the truncated E2 80 is two
    // U+FFFD (Rust's lossy decoding, which the old parser used, makes one).
    let decoded = from_json(b"\"a\xe2\x80b\"", &Type::String).expect("decodes");
    assert_eq!(decoded, Value::string("a\u{fffd}\u{fffd}b"));
    // A float64 prints in its shortest form, as Go prints a 53-bit big.Float.
    let f = Value::from_f64(0.1).expect("not NaN");
    assert_eq!(to_json(&f, &Type::Number).expect("encodes"), b"0.1");
    let n = from_json(b"0.1", &Type::Number).expect("decodes");
    assert_eq!(n.as_number(), Some(&num("0.1")));
    assert_eq!(n.as_number().map(Number::to_string).as_deref(), Some("0.1"));
}

#[test]
fn rejects_what_go_cty_rejects() {
    let t = r#"["object",{"a":"string"}]"#;
    check_error(r#"{"a":"x","z":1}"#, t, "unsupported attribute \"z\"");
    check_error(r#"{"a":[1]}"#, t, "$.a");
    check_error(r#""TRUE""#, r#""bool""#, "use lowercase \"true\"");
    check_error(r#""yes""#, r#""bool""#, "a bool is required");
    check_error(r#""x""#, r#""number""#, "a number is required");
    check_error(
        "[1,2,3]",
        r#"["tuple",["number"]]"#,
        "a tuple of 1 elements",
    );
    check_error(r#"{"value":1}"#, r#""dynamic""#, "missing type");
    check_error(r#"{"type":"number"}"#, r#""dynamic""#, "missing value");
    check_error(
        r#"{"value":1,"type":"number","x":0}"#,
        r#""dynamic""#,
        "invalid key \"x\"",
    );
    check_error(
        r#"{"value":1,"type":"numbr"}"#,
        r#""dynamic""#,
        "invalid type",
    );
    check_error("1 2", r#""number""#, "unexpected data");
    check_error("01", r#""number""#, "unexpected data");
    check_error("[1,]", r#"["list","number"]"#, "invalid character");
    check_error(r#""a"#, r#""string""#, "unterminated");
    // With the option, undefined attributes are skipped.
    let lenient = from_json_with(
        br#"{"a":"x","z":1}"#,
        &ty(t),
        JsonOptions {
            ignore_undefined_attributes: true,
        },
    )
    .expect("decodes");
    assert_eq!(lenient, Value::object([("a", Value::string("x"))]));
}

#[test]
fn cannot_write_unknowns_or_infinities() {
    for (value, spec, needle) in [
        (Value::unknown(Type::String), r#""string""#, "not known"),
        (
            Value::list(Type::String, vec![Value::unknown(Type::String)]),
            r#"["list","string"]"#,
            "$[0]",
        ),
        (
            Value::number(Number::POSITIVE_INFINITY),
            r#""number""#,
            "infinity",
        ),
        (Value::unknown(Type::Dynamic), r#""dynamic""#, "not known"),
    ] {
        let err = to_json(&value, &ty(spec)).expect_err("must be rejected");
        assert!(err.to_string().contains(needle), "{err}");
    }
}
