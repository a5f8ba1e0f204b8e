//! Implied types of schema blocks and nested attributes, in every nesting mode.

use std::collections::BTreeMap;

use tfp_cty::{AttributeType, Block, NestingMode, Type, Value, to_msgpack};

use tfp_testkit::schema::{COMPUTED, OPTIONAL, REQUIRED, attr, block, nested_attr, nested_block};

use crate::{hex, ty};

/// The implied type of `block` is `want` (JSON type spec).
fn check(block: &Block, want: &str) {
    assert_eq!(block.implied_type().to_json_string(), want);
}

#[test]
fn every_nesting_mode() {
    let inner = || block(&[("x", attr(ty(r#""string""#), OPTIONAL))], &[]);
    let b = block(
        &[
            ("id", attr(ty(r#""string""#), OPTIONAL)),
            ("n", attr(ty(r#"["list","number"]"#), OPTIONAL)),
        ],
        &[
            ("single", nested_block(NestingMode::Single, .., inner())),
            ("group", nested_block(NestingMode::Group, .., inner())),
            ("list", nested_block(NestingMode::List, .., inner())),
            ("set", nested_block(NestingMode::Set, .., inner())),
            ("map", nested_block(NestingMode::Map, .., inner())),
        ],
    );
    check(
        &b,
        r#"["object",{"group":["object",{"x":"string"}],"id":"string","list":["list",["object",{"x":"string"}]],"map":["map",["object",{"x":"string"}]],"n":["list","number"],"set":["set",["object",{"x":"string"}]],"single":["object",{"x":"string"}]}]"#,
    );
    check(&Block::default(), r#"["object",{}]"#);
}

#[test]
fn list_and_map_blocks_with_dynamic_become_dynamic() {
    let dyn_inner = || block(&[("v", attr(ty(r#""dynamic""#), OPTIONAL))], &[]);
    let b = block(
        &[],
        &[
            ("l", nested_block(NestingMode::List, .., dyn_inner())),
            ("m", nested_block(NestingMode::Map, .., dyn_inner())),
            ("s", nested_block(NestingMode::Single, .., dyn_inner())),
            ("t", nested_block(NestingMode::Set, .., dyn_inner())),
            // Dynamic two levels down still counts.
            (
                "deep",
                nested_block(
                    NestingMode::List,
                    ..,
                    block(
                        &[],
                        &[("l", nested_block(NestingMode::List, .., dyn_inner()))],
                    ),
                ),
            ),
        ],
    );
    check(
        &b,
        r#"["object",{"deep":"dynamic","l":"dynamic","m":"dynamic","s":["object",{"v":"dynamic"}],"t":["set",["object",{"v":"dynamic"}]]}]"#,
    );
    assert!(b.block_types["l"].is_dynamic_pair());
    assert!(!b.block_types["s"].is_dynamic_pair());
    // On the wire such a block is a [type, value] pair holding a tuple of objects.
    let value = Value::object([
        (
            "l",
            Value::tuple(vec![Value::object([("v", Value::number(1))])]),
        ),
        ("deep", Value::null(Type::Dynamic)),
        ("m", Value::null(Type::Dynamic)),
        ("s", Value::null(ty(r#"["object",{"v":"dynamic"}]"#))),
        (
            "t",
            Value::null(ty(r#"["set",["object",{"v":"dynamic"}]]"#)),
        ),
    ]);
    let bytes = to_msgpack(&value, &b.implied_type()).expect("encodes");
    // The pair's type is the value's own type, so the dynamic attribute inside is concrete.
    let pair_type = br#"["tuple",[["object",{"v":"number"}]]]"#;
    let mut want = vec![0x85, 0xa4];
    want.extend_from_slice(b"deep");
    want.extend_from_slice(&[0xc0, 0xa1, b'l', 0x92, 0xc4, pair_type.len() as u8]);
    want.extend_from_slice(pair_type);
    want.extend_from_slice(&[0x91, 0x81, 0xa1, b'v', 0x01]);
    want.extend_from_slice(&[0xa1, b'm', 0xc0, 0xa1, b's', 0xc0, 0xa1, b't', 0xc0]);
    assert_eq!(hex(&bytes), hex(&want));
}

#[test]
fn nested_attributes_strip_optional_markers_on_the_wire() {
    let computed = attr(ty(r#""string""#), COMPUTED);
    let required = attr(ty(r#""number""#), REQUIRED);
    let object_attr = |nesting| {
        nested_attr(
            nesting,
            block(&[("c", computed.clone()), ("r", required.clone())], &[]),
            OPTIONAL,
        )
    };
    let b = block(
        &[
            ("single", object_attr(NestingMode::Single)),
            ("list", object_attr(NestingMode::List)),
            ("set", object_attr(NestingMode::Set)),
            ("map", object_attr(NestingMode::Map)),
            // Optional markers in a plain attribute type are stripped as well.
            (
                "typed",
                attr(ty(r#"["object",{"a":"string"},["a"]]"#), OPTIONAL),
            ),
        ],
        &[],
    );
    let obj = r#"["object",{"c":"string","r":"number"}]"#;
    check(
        &b,
        &format!(
            r#"["object",{{"list":["list",{obj}],"map":["map",{obj}],"set":["set",{obj}],"single":{obj},"typed":["object",{{"a":"string"}}]}}]"#
        ),
    );
    let AttributeType::Nested(single) = &b.attributes["single"].ty else {
        panic!("the test built a nested attribute");
    };
    assert_eq!(
        single.spec_type().to_json_string(),
        r#"["object",{"c":"string","r":"number"},["c"]]"#
    );
    assert_eq!(single.implied_type().to_json_string(), obj);
}

#[test]
fn a_block_named_like_an_attribute_is_ignored() {
    let b = block(
        &[("x", attr(ty(r#""string""#), OPTIONAL))],
        &[("x", nested_block(NestingMode::List, .., Block::default()))],
    );
    check(&b, r#"["object",{"x":"string"}]"#);
    assert_eq!(
        b.implied_type(),
        Type::object(BTreeMap::from([("x".to_owned(), Type::String)]))
    );
}
