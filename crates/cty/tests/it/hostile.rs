//! Malformed and hostile msgpack: every input gives an error naming where, none panics, none
//! allocates what its declared lengths ask for.

use std::sync::Arc;

use tfp_cty::{Error, Kind, Type, Value, from_json, from_msgpack};

use crate::{ty, unhex};

/// `input` (hex) fails to decode under `spec`, at `path`, with a reason containing `needle`.
fn check(input: &str, spec: &str, path: &str, needle: &str) {
    let err = from_msgpack(&unhex(input), &ty(spec)).expect_err("input must be rejected");
    assert_eq!(err.path().to_string(), path, "{input}: {err}");
    assert!(err.to_string().contains(needle), "{input}: {err}");
}

const OBJ3: &str = r#"["object",{"count":"number","id":"string","name":"string"}]"#;

#[test]
fn wrong_objects() {
    check(
        "82 a5 63 6f 75 6e 74 03 a2 69 64 c0",
        OBJ3,
        "$",
        "3 attributes is required (2 given)",
    );
    check("80", OBJ3, "$", "3 attributes is required (0 given)");
    check(
        "83 a5 63 6f 75 6e 74 03 a2 69 64 c0 a4 6e 61 6d 66 a1 78",
        OBJ3,
        "$.namf",
        "unsupported attribute",
    );
    check(
        "83 a5 63 6f 75 6e 74 03 a5 63 6f 75 6e 74 03 a4 6e 61 6d 65 a1 78",
        OBJ3,
        "$.count",
        "duplicate attribute",
    );
    check(
        "83 01 02 03 04 05 06",
        OBJ3,
        "$",
        "object keys must be strings",
    );
    check("93 01 02 03", OBJ3, "$", "an object is required");
    check(
        "81 a1 61 92 01 a1 78",
        r#"["object",{"a":["list","number"]}]"#,
        "$.a[1]",
        "a number is required",
    );
    check(
        "81 a1 6d 81 a1 6b c3",
        r#"["object",{"m":["map","string"]}]"#,
        "$.m[\"k\"]",
        "a string is required",
    );
    check(
        "92 01",
        r#"["tuple",["number"]]"#,
        "$",
        "a tuple of length 1",
    );
}

/// An object of twelve number attributes `a` to `l` (more than the decoder gathers in a
/// vector before building their map), written with `keys` in that order, each set to 1.
fn twelve(keys: &str) -> Vec<u8> {
    let mut bytes = vec![0x8c];
    for key in keys.bytes() {
        bytes.extend([0xa1, key, 0x01]);
    }
    bytes
}

#[test]
fn large_objects_in_any_order_but_without_strangers_or_repeats() {
    let attributes = (b'a'..=b'l').map(|c| format!("\"{}\":\"number\"", char::from(c)));
    let spec = format!(
        "[\"object\",{{{}}}]",
        attributes.collect::<Vec<_>>().join(",")
    );
    let t = ty(&spec);
    let sorted = from_msgpack(&twelve("abcdefghijkl"), &t).expect("sorted keys decode");
    let shuffled = from_msgpack(&twelve("lkjihgfedcba"), &t).expect("keys in any order decode");
    assert_eq!(sorted, shuffled);
    assert_eq!(sorted.attr("k"), Some(&Value::number(1)));
    let stranger = from_msgpack(&twelve("abcdefghijkz"), &t).expect_err("z is not an attribute");
    assert_eq!(stranger.path().to_string(), "$.z");
    assert!(stranger.to_string().contains("unsupported attribute"));
    let repeat = from_msgpack(&twelve("abcdefghijkb"), &t).expect_err("b comes twice");
    assert_eq!(repeat.path().to_string(), "$.b");
    assert!(repeat.to_string().contains("duplicate attribute"));
}

#[test]
fn truncated_and_oversized_lengths() {
    check("", r#""string""#, "$", "unexpected end of input");
    check("a5 68 65", r#""string""#, "$", "5 bytes declared, 2 left");
    check("db ff ff ff ff 61", r#""string""#, "$", "bytes declared");
    check("c6 ff ff ff ff", r#""number""#, "$", "bytes declared");
    check("cd 01", r#""number""#, "$", "unexpected end of input");
    check("cb 00 00", r#""number""#, "$", "unexpected end of input");
    // Four billion elements declared, none present: an error, not an allocation.
    check(
        "dd ff ff ff ff",
        r#"["list","string"]"#,
        "$[0]",
        "unexpected end of input",
    );
    check(
        "df ff ff ff ff",
        r#"["map","string"]"#,
        "$",
        "unexpected end of input",
    );
    check(
        "81 01 a1 61",
        r#"["map","string"]"#,
        "$",
        "map keys must be strings",
    );
    check("c9 ff ff ff ff 0c", r#""string""#, "$", "bytes declared");
    check(
        "92 c4 08 22 73 74 72",
        r#""dynamic""#,
        "$",
        "bytes declared",
    );
    check(
        "a1 61 00",
        r#""string""#,
        "$",
        "unexpected data after the value",
    );
}

#[test]
fn bad_scalars_and_extensions() {
    check("a2 c3 28", r#""string""#, "$", "not valid UTF-8");
    check("c3", r#""string""#, "$", "a string is required");
    check("a1 31", r#""bool""#, "$", "a bool is required");
    check(
        "cb 7f f8 00 00 00 00 00 01",
        r#""number""#,
        "$",
        "a number is required",
    );
    check("a3 61 62 63", r#""number""#, "$", "a number is required");
    check(
        "a6 31 65 39 39 39 39",
        r#""number""#,
        "$",
        "out of the supported range",
    );
    check("c1", r#""number""#, "$", "a number is required");
    check(
        "d5 05 00 00",
        r#""string""#,
        "$",
        "unsupported extension type 0x05 with length 2",
    );
    check("d5 0c 01 02", r#""string""#, "$", "not a map");
    check(
        "c7 04 0c 81 02 a1 61",
        r#""number""#,
        "$",
        "string prefix refinement for a non-string",
    );
    check(
        "c7 03 0c 81 05 01",
        r#""string""#,
        "$",
        "length refinement for a non-collection",
    );
    check(
        "c7 04 0c 81 03 92 00",
        r#""string""#,
        "$",
        "number bound refinement",
    );
    check("c7 04 0c 81 03 92 00", r#""number""#, "$", "[number, bool]");
    check(
        "c7 09 0c 82 03 92 0a c3 04 92 01 c3",
        r#""number""#,
        "$",
        "lower bound is greater",
    );
    check(
        "c7 03 0c 81 06 ff",
        r#"["list","string"]"#,
        "$",
        "negative length upper bound",
    );
    check(
        "c7 05 0c 82 01 c2 01 c3",
        r#""string""#,
        "$",
        "inconsistent null",
    );
    check(
        "c7 03 0c 81 a1 61",
        r#""string""#,
        "$",
        "keys must be integers",
    );
    // go-cty refuses refinement payloads over 1 KiB.
    let mut big = "c8 04 01 0c 81 07 c5 03 fc".to_owned();
    big.push_str(&" 00".repeat(0x3fc));
    check(&big, r#""string""#, "$", "oversize");
    // Dynamic pairs must be well formed.
    check("93 01 02 03", r#""dynamic""#, "$", "exactly two elements");
    check("a1 61", r#""dynamic""#, "$", "[type, value]");
    check("92 01 02", r#""dynamic""#, "$", "bytes or a string");
    let err = from_msgpack(&unhex("92 c4 03 22 78 22 c0"), &Type::Dynamic).expect_err("bad type");
    assert!(matches!(err, Error::DynamicType { .. }), "{err}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // A 200-deep list type with a matching 200-deep value.
    let mut t = Type::Number;
    for _ in 0..200 {
        t = Type::List(Arc::new(t));
    }
    let mut bytes = vec![0x91; 200];
    bytes.push(0x01);
    let err = from_msgpack(&bytes, &t).expect_err("too deep");
    assert!(err.to_string().contains("nested too deeply"), "{err}");
    // Dynamic values inside dynamic values, each naming "dynamic" as its type.
    let mut bytes = Vec::new();
    for _ in 0..10_000 {
        bytes.extend_from_slice(&[0x92, 0xc4, 0x09]);
        bytes.extend_from_slice(b"\"dynamic\"");
    }
    bytes.push(0xc0);
    let err = from_msgpack(&bytes, &Type::Dynamic).expect_err("too deep");
    assert!(err.to_string().contains("nested too deeply"), "{err}");
    // Deep JSON.
    let deep = "[".repeat(100_000);
    assert!(from_json(deep.as_bytes(), &Type::Dynamic).is_err());
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    assert!(from_json(deep.as_bytes(), &ty(r#"["list","number"]"#)).is_err());
}

#[test]
fn decoded_values_share_their_types() {
    // Nulls and empty collections at one schema position hold one shared type, so a large type
    // is not copied once per value.
    let t = ty(r#"["list",["object",{"a":["list",["object",{"b":"string","c":"number"}]]}]]"#);
    let mut bytes = vec![0xdc, 0x03, 0xe8];
    for _ in 0..1000 {
        bytes.extend_from_slice(&[0x81, 0xa1, b'a', 0xc0]);
    }
    let value = from_msgpack(&bytes, &t).expect("decodes");
    let types: Vec<&Arc<Type>> = value
        .elements()
        .expect("a list")
        .iter()
        .map(|e| match &e.attr("a").expect("attribute a").kind {
            Kind::Null(t) => t,
            other => panic!("a null, not {other:?}"),
        })
        .collect();
    assert_eq!(types.len(), 1000);
    assert!(types.iter().all(|t| Arc::ptr_eq(t, types[0])));
}

#[test]
fn sixty_thousand_duplicates_dedupe_to_one() {
    // 60,000 copies of one element: a quadratic deduplication would take minutes.
    let mut bytes = vec![0xdd, 0x00, 0x00, 0xea, 0x60];
    for _ in 0..60_000 {
        bytes.extend_from_slice(&[0x81, 0xa1, b'k', 0x01]);
    }
    let value = from_msgpack(&bytes, &ty(r#"["set",["object",{"k":"number"}]]"#)).expect("decodes");
    assert_eq!(value.len(), Some(1));
    // Unknown elements are never duplicates of each other.
    let unknowns = from_msgpack(
        &[0x93, 0xd4, 0, 0, 0xd4, 0, 0, 0x01],
        &ty(r#"["set","number"]"#),
    )
    .expect("decodes");
    assert_eq!(unknowns.len(), Some(3));
}

#[test]
fn sets_nested_sixty_deep_order_as_go_cty_does() {
    // Two sets of sets, 60 levels deep, put in one set. Hashing each level's elements again at
    // the level above doubled the work per level: 2^60 steps.
    const DEPTH: usize = 60;
    let spec = (0..DEPTH).fold(r#""string""#.to_owned(), |inner, _| {
        format!(r#"["set",{inner}]"#)
    });
    let element = ty(&spec);
    let nested = |leaf: u8| {
        let mut bytes = vec![0x91; DEPTH];
        bytes.extend_from_slice(&[0xa1, leaf]);
        from_msgpack(&bytes, &element).expect("decodes")
    };
    let (a, b) = (nested(b'a'), nested(b'b'));
    let set = Value::set(element, vec![b.clone(), a.clone()]);
    assert_eq!(
        set.elements(),
        Some(&[a, b][..]),
        "go-cty orders them by their hash strings"
    );
}

#[test]
fn exact_length_refinements_collapse_only_small_lists() {
    let t = ty(r#"["list","string"]"#);
    // Not null, length exactly 3: a known list of three unknowns, as go-cty builds it.
    let three = from_msgpack(&unhex("c7 07 0c 83 01 c2 05 03 06 03"), &t).expect("decodes");
    assert_eq!(
        three,
        Value::list(Type::String, vec![Value::unknown(Type::String); 3])
    );
    // Length exactly 60000 from ten bytes stays a refined unknown.
    let many =
        from_msgpack(&unhex("c7 0b 0c 83 01 c2 05 cd ea 60 06 cd ea 60"), &t).expect("decodes");
    assert!(!many.is_known());
    assert_eq!(many.refinement().and_then(|r| r.length_upper), Some(60_000));
}
