//! Malformed and hostile input: each gives a clear error naming the property path, never a
//! panic, and nesting is bounded.

use prost_types::{ListValue, Struct, Value, value::Kind};
use serde_json::json;
use tfp_values::{
    ErrorKind, Options, PropertyValue, properties_to_struct, property_to_value,
    struct_to_properties, value_to_property,
};

use crate::support::{
    ARCHIVE, ASSET, BYTE_STRING, KEY, OUTPUT_VALUE, RESOURCE_REFERENCE, SECRET, fields, wire,
    wire_struct,
};

/// Decodes the object `input` losslessly and expects an error at `path` of `kind`, with
/// `message` as the whole cause chain.
fn check(input: serde_json::Value, path: &str, kind: &ErrorKind, message: &str) {
    let err = struct_to_properties(wire_struct(input.clone()), &Options::lossless())
        .expect_err("malformed input is an error");
    assert_eq!(err.path(), path, "path for {input}");
    assert_eq!(err.kind(), kind, "kind for {input}");
    assert_eq!(chain(&err), message, "message for {input}");
}

fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn field_type(
    object: &'static str,
    field: &'static str,
    expected: &'static str,
    found: &'static str,
) -> ErrorKind {
    ErrorKind::FieldType {
        object,
        field,
        expected,
        found,
    }
}

#[test]
fn malformed_signatures() {
    check(
        json!({"a": {KEY: SECRET}}),
        "a",
        &ErrorKind::MissingField {
            object: "a secret",
            field: "value",
        },
        "invalid property value at `a`: a secret has no `value` field",
    );
    check(
        json!({"x": [1, {KEY: "nope"}]}),
        "x[1]",
        &ErrorKind::UnknownSignature("nope".into()),
        "invalid property value at `x[1]`: unrecognized signature `nope`",
    );
    check(
        json!({"key.with.dots": {"c": {KEY: 7}}}),
        r#"["key.with.dots"].c"#,
        &ErrorKind::SignatureNotString { found: "number" },
        r#"invalid property value at `["key.with.dots"].c`: signature key holds a number, not a string"#,
    );
    // An unknown sentinel is not a signature.
    check(
        json!({"u": {KEY: crate::support::UNKNOWN_STRING}}),
        "u",
        &ErrorKind::UnknownSignature(crate::support::UNKNOWN_STRING.into()),
        "invalid property value at `u`: unrecognized signature `04da6b54-80e4-46f7-96ec-b56ff0331ba9`",
    );
}

#[test]
fn malformed_resource_references() {
    let missing_urn = ErrorKind::MissingField {
        object: "a resource reference",
        field: "urn",
    };
    check(
        json!({"r": {KEY: RESOURCE_REFERENCE, "id": "i"}}),
        "r",
        &missing_urn,
        "invalid property value at `r`: a resource reference has no `urn` field",
    );
    check(
        json!({"r": {KEY: RESOURCE_REFERENCE, "urn": 1}}),
        "r",
        &field_type("a resource reference", "urn", "a string", "number"),
        "invalid property value at `r`: `urn` of a resource reference must be a string, found number",
    );
    check(
        json!({"r": {KEY: RESOURCE_REFERENCE, "urn": "u", "id": 3}}),
        "r",
        &field_type("a resource reference", "id", "a string", "number"),
        "invalid property value at `r`: `id` of a resource reference must be a string, found number",
    );
    check(
        json!({"r": {KEY: RESOURCE_REFERENCE, "urn": "u", "id": {KEY: SECRET, "value": "i"}}}),
        "r",
        &field_type("a resource reference", "id", "a string", "secret"),
        "invalid property value at `r`: `id` of a resource reference must be a string, found secret",
    );
    check(
        json!({"r": {KEY: RESOURCE_REFERENCE, "urn": "u", "packageVersion": true}}),
        "r",
        &field_type("a resource reference", "packageVersion", "a string", "bool"),
        "invalid property value at `r`: `packageVersion` of a resource reference must be a string, found bool",
    );
}

#[test]
fn malformed_output_values() {
    check(
        json!({"o": {KEY: OUTPUT_VALUE, "secret": "yes"}}),
        "o",
        &field_type("an output value", "secret", "a bool", "string"),
        "invalid property value at `o`: `secret` of an output value must be a bool, found string",
    );
    check(
        json!({"o": {KEY: OUTPUT_VALUE, "dependencies": "urn"}}),
        "o",
        &field_type("an output value", "dependencies", "a list", "string"),
        "invalid property value at `o`: `dependencies` of an output value must be a list, found string",
    );
    check(
        json!({"o": {KEY: OUTPUT_VALUE, "dependencies": ["u", null]}}),
        "o",
        &field_type(
            "an output value",
            "dependencies",
            "a list of strings",
            "null",
        ),
        "invalid property value at `o`: `dependencies` of an output value must be a list of strings, found null",
    );
    check(
        json!({"o": {KEY: OUTPUT_VALUE, "value": {"deep": {KEY: SECRET}}}}),
        "o.deep",
        &ErrorKind::MissingField {
            object: "a secret",
            field: "value",
        },
        "invalid property value at `o.deep`: a secret has no `value` field",
    );
}

#[test]
fn malformed_assets_and_archives() {
    check(
        json!({"a": {KEY: ASSET, "hash": 1}}),
        "a",
        &field_type("an asset", "hash", "a string", "number"),
        "invalid property value at `a`: `hash` of an asset must be a string, found number",
    );
    check(
        json!({"a": {KEY: ASSET, "text": "t", "path": "p"}}),
        "a",
        &ErrorKind::AmbiguousSource { object: "an asset" },
        "invalid property value at `a`: an asset has more than one source",
    );
    check(
        json!({"a": {KEY: ARCHIVE, "path": "p", "uri": "u"}}),
        "a",
        &ErrorKind::AmbiguousSource {
            object: "an archive",
        },
        "invalid property value at `a`: an archive has more than one source",
    );
    check(
        json!({"a": {KEY: ARCHIVE, "assets": []}}),
        "a",
        &field_type("an archive", "assets", "an object", "list"),
        "invalid property value at `a`: `assets` of an archive must be an object, found list",
    );
    for member in [
        json!("text"),
        json!({"x": 1}),
        json!({KEY: SECRET, "value": 1}),
    ] {
        check(
            json!({"a": {KEY: ARCHIVE, "assets": {"m.txt": member}}}),
            r#"a["m.txt"]"#,
            &ErrorKind::ArchiveMember,
            r#"invalid property value at `a["m.txt"]`: archive member is neither an asset nor an archive"#,
        );
    }
    check(
        json!({"a": {KEY: ARCHIVE, "assets": {"d": {KEY: ARCHIVE, "assets": {"f": {KEY: ASSET, "uri": 5}}}}}}),
        "a.d.f",
        &field_type("an asset", "uri", "a string", "number"),
        "invalid property value at `a.d.f`: `uri` of an asset must be a string, found number",
    );
}

#[test]
fn malformed_byte_strings() {
    check(
        json!({"b": {KEY: BYTE_STRING}}),
        "b",
        &ErrorKind::MissingField {
            object: "a byte string",
            field: "value",
        },
        "invalid property value at `b`: a byte string has no `value` field",
    );
    check(
        json!({"b": {KEY: BYTE_STRING, "value": "not base64!"}}),
        "b",
        &ErrorKind::ByteStringBase64,
        "invalid property value at `b`: byte string is not valid base64",
    );
    check(
        json!({"b": {KEY: BYTE_STRING, "value": "/w=="}}),
        "b",
        &ErrorKind::ByteStringUtf8,
        "invalid property value at `b`: byte string is not valid utf-8",
    );
}

#[test]
fn values_without_a_kind() {
    let input = fields([(
        "l",
        Value {
            kind: Some(Kind::ListValue(ListValue {
                values: vec![wire(json!(1)), Value { kind: None }],
            })),
        },
    )]);
    let err = struct_to_properties(input, &Options::default()).expect_err("no kind");
    assert_eq!(err.path(), "l[1]");
    assert_eq!(err.kind(), &ErrorKind::MissingKind);
    let err = value_to_property(Value { kind: None }, &Options::default()).expect_err("no kind");
    assert_eq!(err.path(), "");
    assert_eq!(
        chain(&err),
        "invalid property value: protobuf value has no kind set"
    );
    // An out-of-range NullValue number is still null: proto3 enums are open.
    let odd_null = Value {
        kind: Some(Kind::NullValue(42)),
    };
    assert_eq!(
        value_to_property(odd_null, &Options::default()).expect("decodes"),
        Some(PropertyValue::Null)
    );
}

#[test]
fn long_input_is_cut_in_messages() {
    let signature = "s".repeat(10_000);
    let key = "k.".repeat(10_000);
    let input = Struct {
        fields: [(key, wire(json!({KEY: signature})))].into_iter().collect(),
    };
    let err = struct_to_properties(input, &Options::default()).expect_err("unknown signature");
    assert!(
        chain(&err).len() < 300,
        "message stays short: {}",
        chain(&err)
    );
}

/// A value nested `levels` deep: lists of lists, objects of objects, or secrets of secrets.
fn nested_wire(levels: usize, shape: &str) -> Value {
    let mut value = wire(json!(1));
    for _ in 0..levels {
        value = match shape {
            "list" => Value {
                kind: Some(Kind::ListValue(ListValue {
                    values: vec![value],
                })),
            },
            "object" => Value {
                kind: Some(Kind::StructValue(fields([("a", value)]))),
            },
            _ => Value {
                kind: Some(Kind::StructValue(fields([
                    (KEY, wire(json!(SECRET))),
                    ("value", value),
                ]))),
            },
        };
    }
    value
}

#[test]
fn nesting_is_bounded_in_both_directions() {
    let opts = Options::lossless();
    for shape in ["list", "object", "secret"] {
        let err = value_to_property(nested_wire(2_000, shape), &opts).expect_err("too deep");
        assert_eq!(err.kind(), &ErrorKind::TooDeep { limit: 128 }, "{shape}");
        let ok = value_to_property(nested_wire(128, shape), &opts).expect("at the limit");
        let encoded = property_to_value(ok.as_ref().expect("kept"), &opts).expect("re-encodes");
        assert_eq!(encoded, Some(nested_wire(128, shape)), "{shape}");
    }
    let shallow = Options {
        max_depth: 3,
        ..Options::lossless()
    };
    let err = value_to_property(wire(json!({"a": [[{"b": 1}]]})), &shallow).expect_err("too deep");
    assert_eq!(err.path(), "a[0][0].b");
    let deep = PropertyValue::object([(
        "a",
        PropertyValue::array([PropertyValue::array([PropertyValue::object([(
            "b",
            1.into(),
        )])])]),
    )]);
    let err = property_to_value(&deep, &shallow).expect_err("too deep");
    assert_eq!(err.path(), "a[0][0].b");
    let map = deep.as_object().expect("an object");
    let err = properties_to_struct(map, &shallow).expect_err("too deep");
    assert_eq!(err.path(), "a[0][0].b");

    // A deep sibling of the value that is too deep is freed without overflowing the stack.
    let mut near_limit = Value {
        kind: Some(Kind::StructValue(fields([
            ("x", nested_wire(200, "list")),
            ("y", nested_wire(5_000, "object")),
        ]))),
    };
    for _ in 0..120 {
        near_limit = Value {
            kind: Some(Kind::StructValue(fields([("a", near_limit)]))),
        };
    }
    let err = value_to_property(near_limit, &opts).expect_err("too deep");
    assert_eq!(err.kind(), &ErrorKind::TooDeep { limit: 128 });

    // Archives nest through their members.
    let mut archive = json!({KEY: ASSET, "text": "t"});
    for _ in 0..200 {
        archive = json!({KEY: ARCHIVE, "assets": {"m": archive}});
    }
    let err = value_to_property(wire(archive), &opts).expect_err("too deep");
    assert_eq!(err.kind(), &ErrorKind::TooDeep { limit: 128 });
}
