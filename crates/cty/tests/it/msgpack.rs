//! Byte-exact msgpack vectors: what go-cty writes for each kind of value, and what it reads.

use std::collections::BTreeMap;

use tfp_cty::{Number, NumberBound, Refinement, Type, Value, from_msgpack, to_msgpack};

use crate::{hex, num, ty, unhex};

/// `value` of type `spec` encodes to exactly `bytes` and decodes back to `value`.
fn check(value: Value, spec: &str, bytes: &str) {
    let t = ty(spec);
    let encoded = to_msgpack(&value, &t).expect("value encodes");
    assert_eq!(hex(&encoded), hex(&unhex(bytes)), "encoding {value:?}");
    let decoded = from_msgpack(&encoded, &t).expect("encoding decodes");
    assert_eq!(decoded, value, "decoding {bytes}");
}

/// Non-canonical `input` decodes to `value`, which re-encodes as go-cty would: `canonical`.
fn check_read(input: &str, spec: &str, value: Value, canonical: &str) {
    let t = ty(spec);
    let decoded = from_msgpack(&unhex(input), &t).expect("input decodes");
    assert_eq!(decoded, value, "decoding {input}");
    let encoded = to_msgpack(&decoded, &t).expect("value encodes");
    assert_eq!(hex(&encoded), hex(&unhex(canonical)), "re-encoding {input}");
}

fn refined(spec: &str, r: Refinement) -> Value {
    Value::unknown_refined(ty(spec), r).expect("consistent refinement")
}

#[test]
fn protocol_examples() {
    check(
        Value::object([
            ("count", Value::number(3)),
            ("id", Value::null(Type::String)),
            ("name", Value::string("x")),
        ]),
        r#"["object",{"count":"number","id":"string","name":"string"}]"#,
        "83 a5 63 6f 75 6e 74 03 a2 69 64 c0 a4 6e 61 6d 65 a1 78",
    );
    check(
        Value::string("hello"),
        r#""dynamic""#,
        "92 c4 08 22 73 74 72 69 6e 67 22 a5 68 65 6c 6c 6f",
    );
    check(
        refined(
            r#""string""#,
            Refinement {
                not_null: true,
                string_prefix: Some("ab".into()),
                ..Refinement::default()
            },
        ),
        r#""string""#,
        "c7 07 0c 82 01 c2 02 a2 61 62",
    );
    check(
        refined(r#""bool""#, Refinement::not_null()),
        r#""bool""#,
        "c7 03 0c 81 01 c2",
    );
}

#[test]
fn nulls_and_unknowns() {
    check(Value::null(Type::String), r#""string""#, "c0");
    check(Value::unknown(Type::Number), r#""number""#, "d4 00 00");
    check(Value::null(Type::Dynamic), r#""dynamic""#, "c0");
    check(Value::unknown(Type::Dynamic), r#""dynamic""#, "d4 00 00");
    // A typed null or unknown at a dynamic position carries its type.
    check(
        Value::null(Type::String),
        r#""dynamic""#,
        "92 c4 08 22 73 74 72 69 6e 67 22 c0",
    );
    check(
        Value::unknown(Type::Number),
        r#""dynamic""#,
        "92 c4 08 22 6e 75 6d 62 65 72 22 d4 00 00",
    );
    // An unknown whose type is only partly known is a bare unknown too.
    check(
        Value::unknown(ty(r#"["list","dynamic"]"#)),
        r#"["list","dynamic"]"#,
        "d4 00 00",
    );
}

#[test]
fn integers_take_the_most_compact_form() {
    for (n, bytes) in [
        (0, "00"),
        (127, "7f"),
        (128, "cc 80"),
        (255, "cc ff"),
        (256, "cd 01 00"),
        (65535, "cd ff ff"),
        (65536, "ce 00 01 00 00"),
        (4_294_967_295, "ce ff ff ff ff"),
        (4_294_967_296, "cf 00 00 00 01 00 00 00 00"),
        (i64::MAX, "cf 7f ff ff ff ff ff ff ff"),
        (-1, "ff"),
        (-32, "e0"),
        (-33, "d0 df"),
        (-128, "d0 80"),
        (-129, "d1 ff 7f"),
        (-32768, "d1 80 00"),
        (-32769, "d2 ff ff 7f ff"),
        (i64::from(i32::MIN), "d2 80 00 00 00"),
        (i64::from(i32::MIN) - 1, "d3 ff ff ff ff 7f ff ff ff"),
        (i64::MIN, "d3 80 00 00 00 00 00 00 00"),
    ] {
        check(Value::number(n), r#""number""#, bytes);
    }
}

#[test]
fn numbers_beyond_int64_and_float64_are_decimal_strings() {
    // 2^63 and 2^64-1 are integers that an int64 cannot hold: go-cty writes their text.
    check(
        Value::number(num("9223372036854775808")),
        r#""number""#,
        "b3 39 32 32 33 33 37 32 30 33 36 38 35 34 37 37 35 38 30 38",
    );
    check(
        Value::number(Number::from_u64(u64::MAX)),
        r#""number""#,
        "b4 31 38 34 34 36 37 34 34 30 37 33 37 30 39 35 35 31 36 31 35",
    );
    // 0.1 parsed from text is not a float64, so it stays text; 0.1 as a float64 stays a float64.
    check(Value::number(num("0.1")), r#""number""#, "a3 30 2e 31");
    check(
        Value::from_f64(0.1).expect("not NaN"),
        r#""number""#,
        "cb 3f b9 99 99 99 99 99 9a",
    );
    check(
        Value::number(num("1.5")),
        r#""number""#,
        "cb 3f f8 00 00 00 00 00 00",
    );
    check(
        Value::number(Number::POSITIVE_INFINITY),
        r#""number""#,
        "cb 7f f0 00 00 00 00 00 00",
    );
    check(
        Value::number(Number::NEGATIVE_INFINITY),
        r#""number""#,
        "cb ff f0 00 00 00 00 00 00",
    );
    // Big and long numbers survive byte for byte.
    for text in [
        "123456789012345678901234567890123456789",
        "-98765432109876543210.000000000000000000001",
        "3.1415926535897932384626433832795028841971693993751",
        "0.000000000000000000000000000000000000001",
    ] {
        let mut bytes = vec![0xa0 | text.len() as u8];
        if text.len() >= 32 {
            bytes = vec![0xd9, text.len() as u8];
        }
        bytes.extend_from_slice(text.as_bytes());
        check(Value::number(num(text)), r#""number""#, &hex(&bytes));
        let decoded = from_msgpack(&bytes, &Type::Number).expect("decodes");
        assert_eq!(
            decoded.as_number().map(Number::to_string).as_deref(),
            Some(text)
        );
    }
}

#[test]
fn reads_every_number_encoding() {
    let n = |v: i64| Value::number(v);
    let f = |v: f64| Value::from_f64(v).expect("not NaN");
    check_read("cc 05", r#""number""#, n(5), "05");
    check_read("cd 00 05", r#""number""#, n(5), "05");
    check_read("ce 00 00 00 05", r#""number""#, n(5), "05");
    check_read("cf 00 00 00 00 00 00 00 05", r#""number""#, n(5), "05");
    check_read("d0 05", r#""number""#, n(5), "05");
    check_read("d1 ff fb", r#""number""#, n(-5), "fb");
    check_read("d2 ff ff ff fb", r#""number""#, n(-5), "fb");
    check_read("d3 ff ff ff ff ff ff ff fb", r#""number""#, n(-5), "fb");
    check_read(
        "ca 3f c0 00 00",
        r#""number""#,
        f(1.5),
        "cb 3f f8 00 00 00 00 00 00",
    );
    check_read("cb 40 08 00 00 00 00 00 00", r#""number""#, n(3), "03");
    check_read("a2 31 32", r#""number""#, n(12), "0c");
    check_read("c4 02 31 32", r#""number""#, n(12), "0c");
    check_read(
        "a5 2d 31 2e 35 30",
        r#""number""#,
        f(-1.5),
        "cb bf f8 00 00 00 00 00 00",
    );
    check_read(
        "cb 7f f0 00 00 00 00 00 00",
        r#""number""#,
        Value::number(Number::POSITIVE_INFINITY),
        "cb 7f f0 00 00 00 00 00 00",
    );
    check_read(
        "a3 49 6e 66",
        r#""number""#,
        Value::number(Number::POSITIVE_INFINITY),
        "cb 7f f0 00 00 00 00 00 00",
    );
}

#[test]
fn reads_any_unknown_extension() {
    let s = r#""string""#;
    check_read("d4 00 00", s, Value::unknown(Type::String), "d4 00 00");
    check_read("c7 00 00", s, Value::unknown(Type::String), "d4 00 00");
    check_read("c7 00 05", s, Value::unknown(Type::String), "d4 00 00");
    check_read("d4 07 ff", s, Value::unknown(Type::String), "d4 00 00");
    check_read(
        "c7 03 00 01 02 03",
        s,
        Value::unknown(Type::String),
        "d4 00 00",
    );
    // Unknown refinement keys are skipped, whatever their value.
    check_read(
        "c7 08 0c 82 07 92 c0 a1 78 01 c2",
        s,
        refined(s, Refinement::not_null()),
        "c7 03 0c 81 01 c2",
    );
    // A nil refinement map is no refinement.
    check_read("d5 0c c0 00", s, Value::unknown(Type::String), "d4 00 00");
    // Refinements at a dynamic position are ignored.
    check_read(
        "c7 03 0c 81 01 c2",
        r#""dynamic""#,
        Value::unknown(Type::Dynamic),
        "d4 00 00",
    );
    // "Definitely null" makes a known null.
    check_read("c7 03 0c 81 01 c3", s, Value::null(Type::String), "c0");
}

#[test]
fn refinements_round_trip() {
    let bound = |v: i64, inclusive| {
        Some(NumberBound {
            value: Number::from_i64(v),
            inclusive,
        })
    };
    check(
        refined(
            r#""number""#,
            Refinement {
                not_null: true,
                number_lower: bound(0, true),
                number_upper: bound(10, false),
                ..Refinement::default()
            },
        ),
        r#""number""#,
        "c7 0b 0c 83 01 c2 03 92 00 c3 04 92 0a c2",
    );
    check(
        refined(
            r#"["list","string"]"#,
            Refinement {
                not_null: true,
                length_lower: 1,
                length_upper: Some(5),
                ..Refinement::default()
            },
        ),
        r#"["list","string"]"#,
        "c7 07 0c 83 01 c2 05 01 06 05",
    );
    // A four-byte payload takes a fixext4 header, as vmihailenco writes it.
    check(
        refined(
            r#""string""#,
            Refinement {
                string_prefix: Some("a".into()),
                ..Refinement::default()
            },
        ),
        r#""string""#,
        "d6 0c 81 02 a1 61",
    );
    // Refinements that pin the value down give known values, as in go-cty.
    let exact = refined(
        r#""number""#,
        Refinement {
            not_null: true,
            number_lower: bound(7, true),
            number_upper: bound(7, true),
            ..Refinement::default()
        },
    );
    assert_eq!(exact, Value::number(7));
    let two = refined(
        r#"["list","bool"]"#,
        Refinement {
            not_null: true,
            length_lower: 2,
            length_upper: Some(2),
            ..Refinement::default()
        },
    );
    assert_eq!(
        two,
        Value::list(Type::Bool, vec![Value::unknown(Type::Bool); 2])
    );
    // Refinements that do not apply to the type are dropped.
    let dropped = refined(
        r#""bool""#,
        Refinement {
            string_prefix: Some("x".into()),
            length_lower: 3,
            ..Refinement::default()
        },
    );
    assert_eq!(dropped, Value::unknown(Type::Bool));
}

#[test]
fn bounds_too_long_to_write_are_left_out() {
    // A not-null unknown number at least 1e1100, its bound written short ("1e1100"), as a
    // provider may send it. Written back exactly it takes 1,101 digits, a payload go-cty and our
    // decoder refuse; it is written without its bound, and still says it is not null.
    let input = "c7 0d 0c 82 01 c2 03 92 a6 31 65 31 31 30 30 c3";
    let decoded = from_msgpack(&unhex(input), &Type::Number).expect("decodes");
    let lower = decoded
        .refinement()
        .and_then(|r| r.number_lower.clone())
        .expect("a lower bound");
    assert_eq!(lower.value.to_string().len(), 1101, "{:?}", lower.value);
    let written = to_msgpack(&decoded, &Type::Number).expect("encodes");
    assert_eq!(hex(&written), hex(&unhex("c7 03 0c 81 01 c2")));
    let back = from_msgpack(&written, &Type::Number).expect("decodes again");
    assert_eq!(
        back.refinement().cloned(),
        Some(Refinement {
            not_null: true,
            ..Refinement::default()
        })
    );
}

#[test]
fn long_prefixes_are_shortened_safely() {
    let prefix = "a".repeat(300);
    let value = refined(
        r#""string""#,
        Refinement {
            string_prefix: Some(prefix.clone()),
            ..Refinement::default()
        },
    );
    let bytes = to_msgpack(&value, &Type::String).expect("encodes");
    let back = from_msgpack(&bytes, &Type::String).expect("decodes");
    let written = back
        .refinement()
        .and_then(|r| r.string_prefix.clone())
        .expect("prefix kept");
    assert!(written.len() <= 256 && prefix.starts_with(&written) && !written.is_empty());
}

#[test]
fn collections() {
    check(
        Value::list(Type::String, vec!["a".into(), Value::null(Type::String)]),
        r#"["list","string"]"#,
        "92 a1 61 c0",
    );
    check(
        Value::set(Type::String, vec!["b".into(), "a".into(), "b".into()]),
        r#"["set","string"]"#,
        "92 a1 61 a1 62",
    );
    check(
        Value::map(
            Type::Number,
            BTreeMap::from([
                ("b".to_owned(), Value::number(1)),
                ("a".to_owned(), Value::number(2)),
            ]),
        ),
        r#"["map","number"]"#,
        "82 a1 61 02 a1 62 01",
    );
    check(
        Value::tuple(vec![Value::number(1), "a".into()]),
        r#"["tuple",["number","string"]]"#,
        "92 01 a1 61",
    );
    check(Value::empty_object(), r#"["object",{}]"#, "80");
    check(
        Value::list(Type::String, Vec::new()),
        r#"["list","string"]"#,
        "90",
    );
    // Sixteen elements need an array16 header.
    let items: Vec<Value> = (0..16).map(Value::number).collect();
    let bytes = (0..16).fold("dc 00 10".to_owned(), |acc, i| format!("{acc} {i:02x}"));
    check(
        Value::list(Type::Number, items),
        r#"["list","number"]"#,
        &bytes,
    );
    // A set read from the wire keeps its order, so it re-encodes byte for byte.
    check_read(
        "92 a1 62 a1 61",
        r#"["set","string"]"#,
        Value::set(Type::String, vec!["a".into(), "b".into()]),
        "92 a1 62 a1 61",
    );
}

#[test]
fn dynamic_values_carry_their_type() {
    check(
        Value::list(Type::String, vec!["a".into()]),
        r#""dynamic""#,
        "92 c4 11 5b 22 6c 69 73 74 22 2c 22 73 74 72 69 6e 67 22 5d 91 a1 61",
    );
    check(
        Value::object([("a", Value::string("x"))]),
        r#""dynamic""#,
        "92 c4 19 5b 22 6f 62 6a 65 63 74 22 2c 7b 22 61 22 3a 22 73 74 72 69 6e 67 22 7d 5d 81 a1 61 a1 78",
    );
    // The type element may be a str as well as a bin.
    check_read(
        "92 a8 22 73 74 72 69 6e 67 22 a5 68 65 6c 6c 6f",
        r#""dynamic""#,
        Value::string("hello"),
        "92 c4 08 22 73 74 72 69 6e 67 22 a5 68 65 6c 6c 6f",
    );
    // An object attribute of dynamic type inside an object.
    check(
        Value::object([("v", Value::bool(true))]),
        r#"["object",{"v":"dynamic"}]"#,
        "81 a1 76 92 c4 06 22 62 6f 6f 6c 22 c3",
    );
}

#[test]
fn objects_always_carry_every_attribute() {
    // An attribute the value lacks is written as null, and optional markers change nothing.
    let t = r#"["object",{"a":"string","b":"number"},["b"]]"#;
    let value = Value::object([("a", Value::string("x"))]);
    let encoded = to_msgpack(&value, &ty(t)).expect("encodes");
    assert_eq!(hex(&encoded), hex(&unhex("82 a1 61 a1 78 a1 62 c0")));
    // Sensitivity marks never reach the wire.
    let marked = Value::object([("a", Value::string("x").mark_sensitive())]);
    assert_eq!(to_msgpack(&marked, &ty(t)).expect("encodes"), encoded);
    // An attribute the type lacks is an error naming it.
    let extra = Value::object([("c", Value::bool(true))]);
    let err = to_msgpack(&extra, &ty(t)).expect_err("extra attribute");
    assert!(err.to_string().contains("\"c\""), "{err}");
}

#[test]
fn reads_any_value_without_its_type_for_display() {
    use serde_json::json;
    let value = Value::object([
        ("name", Value::string("a")),
        ("count", Value::number(Number::from_i64(-3))),
        ("ratio", Value::number(num("0.5"))),
        ("big", Value::number(num("123456789012345678901234567890"))),
        (
            "tags",
            Value::set_in_order(Type::String, vec![Value::string("x"), Value::string("y")]),
        ),
        ("gone", Value::null(Type::Bool)),
        ("later", Value::unknown(Type::String)),
        (
            "known_later",
            refined(r#""string""#, Refinement::not_null()),
        ),
    ]);
    let spec = r#"["object",{"name":"string","count":"number","ratio":"number","big":"number","tags":["set","string"],"gone":"bool","later":"string","known_later":"string"}]"#;
    let bytes = to_msgpack(&value, &ty(spec)).expect("value encodes");
    let shown = tfp_cty::from_msgpack_untyped(&bytes).expect("any msgpack reads");
    assert_eq!(
        shown,
        json!({
            "name": "a", "count": -3, "ratio": 0.5, "big": "123456789012345678901234567890",
            "tags": ["x", "y"], "gone": null, "later": tfp_cty::msgpack::UNKNOWN,
            "known_later": {"<unknown>": {"1": false}},
        })
    );
    // A dynamic position keeps its [type, value] pair.
    let dynamic = to_msgpack(&Value::string("v"), &Type::Dynamic).expect("encodes");
    assert_eq!(
        tfp_cty::from_msgpack_untyped(&dynamic).expect("reads"),
        json!(["\"string\"", "v"])
    );
    assert!(
        tfp_cty::from_msgpack_untyped(&unhex("92 01")).is_err(),
        "cut short"
    );
    assert!(
        tfp_cty::from_msgpack_untyped(&unhex("01 02")).is_err(),
        "trailing data"
    );
}
