//! What each option does, in each direction, as tables of value, options and expected result.

use serde_json::json;
use tfp_values::{
    Archive, Asset, ErrorKind, Options, OutputValue, PropertyValue, ReferenceId, ResourceReference,
    UnknownKind, properties_to_struct, property_to_value, struct_to_properties, value_to_property,
};

use crate::support::{
    ARCHIVE, ASSET, BYTE_STRING, KEY, OUTPUT_VALUE, RESOURCE_REFERENCE, SECRET, UNKNOWN_STRING,
    struct_to_json, to_json, wire, wire_struct,
};

const URN: &str = "urn:pulumi:dev::proj::random:index/randomId:RandomId::r";

/// Encodes `value` under `opts` and compares with `expected` (`None`: the value is dropped).
fn check_encode(value: &PropertyValue, opts: &Options, expected: Option<serde_json::Value>) {
    let encoded = property_to_value(value, opts)
        .unwrap_or_else(|err| panic!("encoding {value:?} under {opts:?}: {err}"));
    assert_eq!(
        encoded.as_ref().map(to_json),
        expected,
        "encoding {value:?} under {opts:?}"
    );
}

/// Decodes `input` under `opts` and compares with `expected` (`None`: the value is dropped).
fn check_decode(input: serde_json::Value, opts: &Options, expected: Option<PropertyValue>) {
    let decoded = value_to_property(wire(input.clone()), opts)
        .unwrap_or_else(|err| panic!("decoding {input} under {opts:?}: {err}"));
    assert_eq!(decoded, expected, "decoding {input} under {opts:?}");
}

fn opts(f: impl FnOnce(&mut Options)) -> Options {
    let mut opts = Options::default();
    f(&mut opts);
    opts
}

fn secret_output(element: Option<PropertyValue>) -> PropertyValue {
    PropertyValue::output(OutputValue {
        element,
        secret: true,
        dependencies: vec!["urn:dep".into()],
    })
}

#[test]
fn default_options_drop_unknowns_and_flatten_everything() {
    let d = Options::default();
    check_encode(&PropertyValue::unknown(), &d, None);
    check_encode(&PropertyValue::secret("x".into()), &d, Some(json!("x")));
    check_encode(
        &ResourceReference::custom(URN, "id-1").into(),
        &d,
        Some(json!("id-1")),
    );
    check_encode(
        &ResourceReference::component(URN).into(),
        &d,
        Some(json!(URN)),
    );
    check_encode(&ResourceReference::custom(URN, "").into(), &d, None);
    check_encode(&secret_output(Some("x".into())), &d, Some(json!("x")));
    check_encode(&secret_output(None), &d, None);
    check_encode(
        &PropertyValue::object([("a", 1.into()), ("b", PropertyValue::unknown())]),
        &d,
        Some(json!({"a": 1.0})),
    );
    // Go leaves dropped elements out of arrays when encoding.
    check_encode(
        &PropertyValue::array([1.into(), PropertyValue::unknown(), 2.into()]),
        &d,
        Some(json!([1.0, 2.0])),
    );
    // A secret whose value is dropped is dropped whole, even when secrets are kept.
    let keep_secrets = opts(|o| o.keep_secrets = true);
    check_encode(
        &PropertyValue::secret(PropertyValue::unknown()),
        &keep_secrets,
        None,
    );

    check_decode(json!(UNKNOWN_STRING), &d, None);
    for kind in UnknownKind::ALL {
        check_decode(json!(kind.sentinel()), &d, None);
    }
    check_decode(
        json!({"a": UNKNOWN_STRING, "b": 1}),
        &d,
        Some(PropertyValue::object([("b", 1.into())])),
    );
    // Go keeps the place of a dropped element as null when decoding.
    check_decode(
        json!([1, UNKNOWN_STRING, 2]),
        &d,
        Some(PropertyValue::array([
            1.into(),
            PropertyValue::Null,
            2.into(),
        ])),
    );
    check_decode(json!({KEY: SECRET, "value": "x"}), &d, Some("x".into()));
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": "id-1"}),
        &d,
        Some("id-1".into()),
    );
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN}),
        &d,
        Some(URN.into()),
    );
    // rpc.go turns an unknown ID into the empty string when unknowns are not kept.
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": ""}),
        &d,
        Some("".into()),
    );
    check_decode(
        json!({KEY: OUTPUT_VALUE, "value": "x", "secret": true, "dependencies": ["u"]}),
        &d,
        Some("x".into()),
    );
    check_decode(json!({KEY: OUTPUT_VALUE, "secret": true}), &d, None);
    check_decode(json!({KEY: SECRET, "value": UNKNOWN_STRING}), &d, None);
}

#[test]
fn keep_unknowns() {
    let o = opts(|o| o.keep_unknowns = true);
    check_encode(
        &PropertyValue::Computed(UnknownKind::Number),
        &o,
        Some(json!(UnknownKind::Number.sentinel())),
    );
    check_encode(&secret_output(None), &o, Some(json!(UNKNOWN_STRING)));
    check_encode(
        &ResourceReference::custom(URN, "").into(),
        &o,
        Some(json!(UNKNOWN_STRING)),
    );
    for kind in UnknownKind::ALL {
        check_decode(
            json!(kind.sentinel()),
            &o,
            Some(PropertyValue::Computed(kind)),
        );
    }
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": ""}),
        &o,
        Some(PropertyValue::unknown()),
    );
    check_decode(
        json!({KEY: OUTPUT_VALUE}),
        &o,
        Some(PropertyValue::unknown()),
    );

    let with_secrets = opts(|o| {
        o.keep_unknowns = true;
        o.keep_secrets = true;
    });
    check_encode(
        &secret_output(None),
        &with_secrets,
        Some(json!({KEY: SECRET, "value": UNKNOWN_STRING})),
    );
    check_decode(
        json!({KEY: OUTPUT_VALUE, "secret": true}),
        &with_secrets,
        Some(PropertyValue::secret(PropertyValue::unknown())),
    );
    check_decode(
        json!({KEY: OUTPUT_VALUE, "value": [1], "secret": true}),
        &with_secrets,
        Some(PropertyValue::secret(PropertyValue::array([1.into()]))),
    );
}

#[test]
fn reference_ids_under_keep_resources() {
    let keep = opts(|o| {
        o.keep_resources = true;
        o.keep_unknowns = true;
    });
    let unknown_id = ResourceReference {
        id: Some(ReferenceId::Unknown),
        ..ResourceReference::component(URN)
    };
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": UNKNOWN_STRING}),
        &keep,
        Some(unknown_id.clone().into()),
    );
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": {KEY: OUTPUT_VALUE}}),
        &keep,
        Some(unknown_id.clone().into()),
    );
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": {KEY: OUTPUT_VALUE, "value": "i"}}),
        &keep,
        Some(ResourceReference::custom(URN, "i").into()),
    );
    // A secret ID is unwrapped unless secrets are kept, as in Go.
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": {KEY: SECRET, "value": "i"}}),
        &keep,
        Some(ResourceReference::custom(URN, "i").into()),
    );
    // Without keep_unknowns the sentinel ID is dropped first, leaving no ID (rpc.go).
    let no_unknowns = opts(|o| o.keep_resources = true);
    check_decode(
        json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": UNKNOWN_STRING}),
        &no_unknowns,
        Some(ResourceReference::component(URN).into()),
    );
    check_encode(
        &unknown_id.into(),
        &no_unknowns,
        Some(json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": ""})),
    );
}

#[test]
fn reject_unknowns_wins_over_keep_unknowns() {
    let o = opts(|o| {
        o.reject_unknowns = true;
        o.keep_unknowns = true;
    });
    let value = PropertyValue::object([("a", PropertyValue::array([PropertyValue::unknown()]))]);
    let err = property_to_value(&value, &o).expect_err("unknown rejected");
    assert_eq!(err.path(), "a[0]");
    assert_eq!(err.kind(), &ErrorKind::UnexpectedUnknown);
    let err = value_to_property(wire(json!({"x": {"y": UNKNOWN_STRING}})), &o)
        .expect_err("unknown rejected");
    assert_eq!(err.path(), "x.y");
    assert_eq!(err.kind(), &ErrorKind::UnexpectedUnknown);
    let err = value_to_property(wire(json!({"o": {KEY: OUTPUT_VALUE}})), &o)
        .expect_err("unknown output rejected");
    assert_eq!(err.path(), "o");
    let err = value_to_property(
        wire(json!({KEY: RESOURCE_REFERENCE, "urn": URN, "id": ""})),
        &o,
    )
    .expect_err("unknown id rejected");
    assert_eq!(err.kind(), &ErrorKind::UnexpectedUnknown);
    // Known values still pass.
    check_decode(
        json!({"a": [1]}),
        &o,
        Some(PropertyValue::object([(
            "a",
            PropertyValue::array([1.into()]),
        )])),
    );
}

#[test]
fn skip_nulls_applies_to_object_fields_at_every_level() {
    let o = opts(|o| {
        o.skip_nulls = true;
        o.keep_secrets = true;
    });
    let value = PropertyValue::object([
        ("a", PropertyValue::Null),
        ("b", PropertyValue::array([PropertyValue::Null])),
        ("c", PropertyValue::object([("d", PropertyValue::Null)])),
    ]);
    check_encode(&value, &o, Some(json!({"b": [null], "c": {}})));
    check_decode(
        json!({"a": null, "b": [null], "c": {"d": null}}),
        &o,
        Some(PropertyValue::object([
            ("b", PropertyValue::array([PropertyValue::Null])),
            ("c", PropertyValue::object::<&str>([])),
        ])),
    );
    // Inside a secret, null is the value, not a field to skip.
    check_decode(
        json!({KEY: SECRET, "value": null}),
        &o,
        Some(PropertyValue::secret(PropertyValue::Null)),
    );
}

#[test]
fn skip_internal_keys_applies_at_the_top_only() {
    let o = opts(|o| o.skip_internal_keys = true);
    let input = json!({"__meta": "{}", "__pulumi_raw_state_delta": {}, "a": {"__inner": 1}});
    let decoded = struct_to_properties(wire_struct(input), &o).expect("decodes");
    let expected = PropertyValue::object([("a", PropertyValue::object([("__inner", 1.into())]))]);
    assert_eq!(Some(&decoded), expected.as_object());
    let mut with_meta = decoded.clone();
    with_meta.insert("__meta".into(), "{}".into());
    let encoded = properties_to_struct(&with_meta, &o).expect("encodes");
    assert_eq!(struct_to_json(&encoded), json!({"a": {"__inner": 1.0}}));
}

#[test]
fn elide_asset_contents_keeps_hashes_only() {
    let o = opts(|o| o.elide_asset_contents = true);
    check_encode(
        &Asset::text("t").with_hash("h").into(),
        &o,
        Some(json!({KEY: ASSET, "hash": "h"})),
    );
    check_encode(&Asset::path("p").into(), &o, Some(json!({KEY: ASSET})));
    check_encode(
        &Archive::assets([("a", Asset::text("t").into())])
            .with_hash("h")
            .into(),
        &o,
        Some(json!({KEY: ARCHIVE, "hash": "h"})),
    );
}

#[test]
fn reject_assets() {
    let o = opts(|o| o.reject_assets = true);
    let value = PropertyValue::object([("code", Archive::path("p").into())]);
    let err = property_to_value(&value, &o).expect_err("archive rejected");
    assert_eq!(err.path(), "code");
    assert_eq!(err.kind(), &ErrorKind::UnexpectedAsset("archive"));
    let err = value_to_property(wire(json!([{KEY: ASSET, "text": "t"}])), &o)
        .expect_err("asset rejected");
    assert_eq!(err.path(), "[0]");
    assert_eq!(err.kind(), &ErrorKind::UnexpectedAsset("asset"));
}

#[test]
fn upgrade_to_output_values() {
    let o = Options {
        upgrade_to_output_values: true,
        ..Options::lossless()
    };
    check_encode(
        &PropertyValue::secret("x".into()),
        &o,
        Some(json!({KEY: OUTPUT_VALUE, "secret": true, "value": "x"})),
    );
    check_encode(
        &PropertyValue::unknown(),
        &o,
        Some(json!({KEY: OUTPUT_VALUE})),
    );
    check_decode(
        json!(UNKNOWN_STRING),
        &o,
        Some(OutputValue::default().into()),
    );
    check_decode(
        json!({KEY: SECRET, "value": 2}),
        &o,
        Some(
            OutputValue {
                element: Some(2.into()),
                secret: true,
                dependencies: vec![],
            }
            .into(),
        ),
    );
    // Without keep_output_values the upgrade does nothing, as in Go.
    let inert = Options {
        upgrade_to_output_values: true,
        keep_output_values: false,
        ..Options::lossless()
    };
    check_encode(
        &PropertyValue::secret("x".into()),
        &inert,
        Some(json!({KEY: SECRET, "value": "x"})),
    );
    check_decode(
        json!(UNKNOWN_STRING),
        &inert,
        Some(PropertyValue::unknown()),
    );
}

#[test]
fn byte_strings_decode_when_they_are_utf8() {
    check_decode(
        json!({KEY: BYTE_STRING, "value": "aGk="}),
        &Options::default(),
        Some("hi".into()),
    );
}
