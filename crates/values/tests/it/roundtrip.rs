//! Every kind of value, encoded under lossless options to the exact wire form Pulumi uses and
//! decoded back to itself.

use serde_json::json;
use tfp_values::{
    Archive, ArchiveMember, Asset, Options, OutputValue, PropertyValue, ReferenceId,
    ResourceReference, UnknownKind, properties_to_struct, property_to_value, struct_to_properties,
    value_to_property,
};

use crate::support::{
    ARCHIVE, ASSET, KEY, OUTPUT_VALUE, RESOURCE_REFERENCE, SECRET, struct_to_json, to_json, wire,
};

/// Encodes `value` losslessly, compares with `expected`, and decodes `expected` back to `value`.
fn check(value: &PropertyValue, expected: &serde_json::Value) {
    let opts = Options::lossless();
    let encoded = property_to_value(value, &opts)
        .expect("lossless encoding succeeds")
        .expect("lossless encoding keeps every value");
    assert_eq!(&to_json(&encoded), expected, "encoding {value:?}");
    let decoded = value_to_property(wire(expected.clone()), &opts)
        .expect("decoding succeeds")
        .expect("lossless decoding keeps every value");
    assert_eq!(&decoded, value, "decoding {expected}");
}

#[test]
fn plain_values() {
    check(&PropertyValue::Null, &json!(null));
    check(&true.into(), &json!(true));
    check(&false.into(), &json!(false));
    check(&12.3456.into(), &json!(12.3456));
    check(&(-5).into(), &json!(-5.0));
    check(&1e300.into(), &json!(1e300));
    check(&"s".into(), &json!("s"));
    check(&"".into(), &json!(""));
    check(&"ünïcødé ✓".into(), &json!("ünïcødé ✓"));
    check(
        &PropertyValue::array([1.into(), "a".into(), PropertyValue::Null]),
        &json!([1.0, "a", null]),
    );
    check(&PropertyValue::array([]), &json!([]));
    check(
        &PropertyValue::object([
            (
                "a",
                PropertyValue::object([("b", PropertyValue::array([true.into()]))]),
            ),
            ("key.with.dots", PropertyValue::Null),
        ]),
        &json!({"a": {"b": [true]}, "key.with.dots": null}),
    );
    check(&PropertyValue::object::<&str>([]), &json!({}));
}

#[test]
fn secrets() {
    check(
        &PropertyValue::secret("x".into()),
        &json!({KEY: SECRET, "value": "x"}),
    );
    check(
        &PropertyValue::secret(PropertyValue::object([(
            "a",
            PropertyValue::secret(1.into()),
        )])),
        &json!({KEY: SECRET, "value": {"a": {KEY: SECRET, "value": 1.0}}}),
    );
    check(
        &PropertyValue::secret(PropertyValue::Null),
        &json!({KEY: SECRET, "value": null}),
    );
    check(
        &PropertyValue::secret(PropertyValue::unknown()),
        &json!({KEY: SECRET, "value": crate::support::UNKNOWN_STRING}),
    );
}

#[test]
fn every_unknown_sentinel() {
    let sentinels = [
        (UnknownKind::Any, "04da6b54-80e4-46f7-96ec-b56ff0331ba9"),
        (UnknownKind::Bool, "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"),
        (UnknownKind::Number, "3eeb2bf0-c639-47a8-9e75-3b44932eb421"),
        (UnknownKind::Array, "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2"),
        (UnknownKind::Asset, "030794c1-ac77-496b-92df-f27374a8bd58"),
        (UnknownKind::Archive, "e48ece36-62e2-4504-bad9-02848725956a"),
        (UnknownKind::Object, "dd056dcd-154b-4c76-9bd3-c8f88648b5ff"),
    ];
    assert_eq!(sentinels.len(), UnknownKind::ALL.len());
    for (kind, sentinel) in sentinels {
        check(&PropertyValue::Computed(kind), &json!(sentinel));
    }
}

#[test]
fn output_values() {
    check(
        &PropertyValue::output(OutputValue {
            element: Some("v".into()),
            secret: true,
            dependencies: vec!["urn:a".into(), "urn:b".into()],
        }),
        &json!({KEY: OUTPUT_VALUE, "value": "v", "secret": true, "dependencies": ["urn:a", "urn:b"]}),
    );
    check(
        &PropertyValue::output(OutputValue::default()),
        &json!({KEY: OUTPUT_VALUE}),
    );
    check(
        &PropertyValue::output(OutputValue {
            element: Some(PropertyValue::Null),
            secret: false,
            dependencies: vec![],
        }),
        &json!({KEY: OUTPUT_VALUE, "value": null}),
    );
    check(
        &PropertyValue::output(OutputValue {
            element: None,
            secret: true,
            dependencies: vec!["urn:c".into()],
        }),
        &json!({KEY: OUTPUT_VALUE, "secret": true, "dependencies": ["urn:c"]}),
    );
}

#[test]
fn resource_references() {
    let urn = "urn:pulumi:dev::proj::random:index/randomId:RandomId::r";
    check(
        &ResourceReference::custom(urn, "abc").into(),
        &json!({KEY: RESOURCE_REFERENCE, "urn": urn, "id": "abc"}),
    );
    check(
        &ResourceReference::component(urn).into(),
        &json!({KEY: RESOURCE_REFERENCE, "urn": urn}),
    );
    // An unknown ID travels as the empty string, as Go writes it.
    check(
        &ResourceReference::custom(urn, "").into(),
        &json!({KEY: RESOURCE_REFERENCE, "urn": urn, "id": ""}),
    );
    check(
        &ResourceReference {
            urn: urn.into(),
            id: Some(ReferenceId::Known("i".into())),
            name: Some("r".into()),
            type_: Some("random:index/randomId:RandomId".into()),
            package_version: Some("4.1.0".into()),
        }
        .into(),
        &json!({
            KEY: RESOURCE_REFERENCE, "urn": urn, "id": "i", "name": "r",
            "type": "random:index/randomId:RandomId", "packageVersion": "4.1.0"
        }),
    );
}

#[test]
fn assets() {
    let hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    check(
        &Asset::text("hello").with_hash(hash).into(),
        &json!({KEY: ASSET, "text": "hello", "hash": hash}),
    );
    check(&Asset::text("").into(), &json!({KEY: ASSET, "text": ""}));
    check(
        &Asset::path("./a.txt").into(),
        &json!({KEY: ASSET, "path": "./a.txt"}),
    );
    check(
        &Asset::uri("https://example.com/a").into(),
        &json!({KEY: ASSET, "uri": "https://example.com/a"}),
    );
    // What the engine sends in Diff: the hash only.
    check(
        &Asset {
            hash: Some(hash.into()),
            source: None,
        }
        .into(),
        &json!({KEY: ASSET, "hash": hash}),
    );
}

#[test]
fn archives() {
    check(
        &Archive::assets([
            ("a.txt", ArchiveMember::from(Asset::text("a"))),
            (
                "dir",
                Archive::assets([("b", ArchiveMember::from(Asset::path("b")))]).into(),
            ),
            ("z.zip", Archive::uri("file:///z.zip").with_hash("h").into()),
        ])
        .into(),
        &json!({KEY: ARCHIVE, "assets": {
            "a.txt": {KEY: ASSET, "text": "a"},
            "dir": {KEY: ARCHIVE, "assets": {"b": {KEY: ASSET, "path": "b"}}},
            "z.zip": {KEY: ARCHIVE, "uri": "file:///z.zip", "hash": "h"},
        }}),
    );
    check(
        &Archive::assets::<&str>([]).into(),
        &json!({KEY: ARCHIVE, "assets": {}}),
    );
    check(
        &Archive::path("./dir").into(),
        &json!({KEY: ARCHIVE, "path": "./dir"}),
    );
    check(
        &Archive::uri("https://example.com/a.tgz")
            .with_hash("h")
            .into(),
        &json!({KEY: ARCHIVE, "uri": "https://example.com/a.tgz", "hash": "h"}),
    );
    check(
        &Archive {
            hash: Some("h".into()),
            source: None,
        }
        .into(),
        &json!({KEY: ARCHIVE, "hash": "h"}),
    );
}

#[test]
fn property_maps_round_trip_through_structs() {
    let map = PropertyValue::object([
        ("name", "n".into()),
        (
            "tags",
            PropertyValue::object([("k", PropertyValue::secret("v".into()))]),
        ),
        ("id", PropertyValue::unknown()),
    ]);
    let map = map.as_object().expect("built as an object").clone();
    let encoded = properties_to_struct(&map, &Options::lossless()).expect("encodes");
    assert_eq!(
        struct_to_json(&encoded),
        json!({
            "id": crate::support::UNKNOWN_STRING,
            "name": "n",
            "tags": {"k": {KEY: SECRET, "value": "v"}},
        })
    );
    let decoded = struct_to_properties(encoded, &Options::lossless()).expect("decodes");
    assert_eq!(decoded, map);
}

#[test]
fn nan_and_infinities_survive_the_wire() {
    for n in [f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, -0.0] {
        let encoded = property_to_value(&n.into(), &Options::lossless())
            .expect("encodes")
            .expect("kept");
        let decoded = value_to_property(encoded, &Options::lossless())
            .expect("decodes")
            .expect("kept");
        let back = decoded.as_number().expect("a number");
        assert_eq!(back.to_bits(), n.to_bits());
    }
    let encoded = property_to_value(&f64::NAN.into(), &Options::lossless())
        .expect("encodes")
        .expect("kept");
    let decoded = value_to_property(encoded, &Options::lossless())
        .expect("decodes")
        .expect("kept");
    assert!(decoded.as_number().is_some_and(f64::is_nan));
}
