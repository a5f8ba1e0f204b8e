//! Property tests: generated values round-trip losslessly, every option combination reaches a
//! fixed point after one encode/decode cycle, and generated hostile Structs never panic.

use std::collections::BTreeMap;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::sample::select;
use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};
use tfp_values::{
    Archive, ArchiveMember, ArchiveSource, Asset, AssetSource, ErrorKind, Options, OutputValue,
    PropertyMap, PropertyValue, ReferenceId, ResourceReference, UnknownKind, properties_to_struct,
    property_to_value, sig, struct_to_properties, value_to_property,
};

use crate::support::to_json;

/// Object keys: identifiers, internal keys and arbitrary text, never the signature key.
fn key() -> impl Strategy<Value = String> {
    prop_oneof!["[a-zA-Z_][a-zA-Z0-9_]{0,6}", "__[a-z]{1,4}", ".{0,6}",]
        .prop_filter("the signature key makes an object special", |k| {
            k != sig::KEY
        })
}

/// Strings, never one of the unknown sentinels (those decode as unknowns).
fn text() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z0-9 ]{0,8}", any::<String>()].prop_filter("sentinels are unknowns", |s| {
        UnknownKind::from_sentinel(s).is_none()
    })
}

/// Non-empty strings, for sources and IDs where the wire reads empty as absent or unknown.
fn non_empty() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9:/._-]{1,12}"
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<i32>().prop_map(f64::from),
        any::<f64>().prop_filter("NaN is not equal to itself", |n| !n.is_nan()),
    ]
}

fn asset() -> impl Strategy<Value = Asset> {
    let source = prop_oneof![
        Just(None),
        text().prop_map(|t| Some(AssetSource::Text(t))),
        non_empty().prop_map(|p| Some(AssetSource::Path(p))),
        non_empty().prop_map(|u| Some(AssetSource::Uri(u))),
    ];
    (proptest::option::of("[0-9a-f]{0,8}"), source)
        .prop_map(|(hash, source)| Asset { hash, source })
}

fn archive() -> impl Strategy<Value = Archive> {
    let hash = || proptest::option::of("[0-9a-f]{0,8}");
    let leaf = (
        hash(),
        prop_oneof![
            Just(None),
            non_empty().prop_map(|p| Some(ArchiveSource::Path(p))),
            non_empty().prop_map(|u| Some(ArchiveSource::Uri(u))),
        ],
    )
        .prop_map(|(hash, source)| Archive { hash, source });
    leaf.prop_recursive(3, 12, 4, move |inner| {
        let member = prop_oneof![
            asset().prop_map(ArchiveMember::Asset),
            inner.prop_map(ArchiveMember::Archive),
        ];
        (hash(), btree_map(key(), member, 0..4)).prop_map(|(hash, members)| Archive {
            hash,
            source: Some(ArchiveSource::Assets(members)),
        })
    })
}

fn reference() -> impl Strategy<Value = ResourceReference> {
    let id = prop_oneof![
        Just(None),
        Just(Some(ReferenceId::Unknown)),
        non_empty().prop_map(|id| Some(ReferenceId::Known(id))),
    ];
    let optional = || proptest::option::of(text());
    (non_empty(), id, optional(), optional(), optional()).prop_map(
        |(urn, id, name, type_, package_version)| ResourceReference {
            urn,
            id,
            name,
            type_,
            package_version,
        },
    )
}

/// Any property value, nested a few levels.
fn value() -> impl Strategy<Value = PropertyValue> {
    let leaf = prop_oneof![
        Just(PropertyValue::Null),
        any::<bool>().prop_map(PropertyValue::Bool),
        number().prop_map(PropertyValue::Number),
        text().prop_map(PropertyValue::String),
        select(UnknownKind::ALL.to_vec()).prop_map(PropertyValue::Computed),
        asset().prop_map(PropertyValue::from),
        archive().prop_map(PropertyValue::from),
        reference().prop_map(PropertyValue::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(PropertyValue::Array),
            btree_map(key(), inner.clone(), 0..6).prop_map(PropertyValue::Object),
            inner.clone().prop_map(PropertyValue::secret),
            (
                proptest::option::of(inner),
                any::<bool>(),
                vec(non_empty(), 0..3)
            )
                .prop_map(|(element, secret, dependencies)| {
                    PropertyValue::output(OutputValue {
                        element,
                        secret,
                        dependencies,
                    })
                }),
        ]
    })
}

/// Every combination of the boolean options.
fn options() -> impl Strategy<Value = Options> {
    proptest::array::uniform10(any::<bool>()).prop_map(|b| Options {
        keep_unknowns: b[0],
        reject_unknowns: b[1],
        keep_secrets: b[2],
        keep_resources: b[3],
        keep_output_values: b[4],
        upgrade_to_output_values: b[5],
        skip_nulls: b[6],
        skip_internal_keys: b[7],
        elide_asset_contents: b[8],
        reject_assets: b[9],
        ..Options::default()
    })
}

/// Wire values biased towards what the decoder treats specially: signatures, sentinels, the
/// field names of special objects, base64 text; including NaN and values without a kind.
fn wire_value() -> impl Strategy<Value = Value> {
    let special_strings = vec![
        sig::KEY,
        sig::SECRET,
        sig::ASSET,
        sig::ARCHIVE,
        sig::RESOURCE_REFERENCE,
        sig::OUTPUT_VALUE,
        sig::BYTE_STRING,
        sig::UNKNOWN_STRING,
        sig::UNKNOWN_OBJECT,
        sig::UNKNOWN_BOOL,
        "",
        "aGk=",
        "/w==",
        "urn:pulumi:s::p::t::n",
    ];
    let leaf = prop_oneof![
        Just(Kind::NullValue(0)),
        any::<bool>().prop_map(Kind::BoolValue),
        any::<f64>().prop_map(Kind::NumberValue),
        select(special_strings.clone()).prop_map(|s| Kind::StringValue(s.to_owned())),
        any::<String>().prop_map(Kind::StringValue),
    ]
    .prop_map(|kind| Value { kind: Some(kind) });
    let leaf = prop_oneof![20 => leaf, 1 => Just(Value { kind: None })];
    let field = prop_oneof![
        select(vec![
            "value",
            "urn",
            "id",
            "name",
            "type",
            "packageVersion",
            "secret",
            "dependencies",
            "hash",
            "text",
            "path",
            "uri",
            "assets",
            "__meta",
            sig::KEY,
        ])
        .prop_map(str::to_owned),
        key(),
    ];
    let signatures = select(vec![
        sig::SECRET,
        sig::ASSET,
        sig::ARCHIVE,
        sig::RESOURCE_REFERENCE,
        sig::OUTPUT_VALUE,
        sig::BYTE_STRING,
        "bogus",
    ]);
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(|values| Value {
                kind: Some(Kind::ListValue(ListValue { values })),
            }),
            btree_map(field.clone(), inner.clone(), 0..5).prop_map(|fields| Value {
                kind: Some(Kind::StructValue(Struct { fields })),
            }),
            (signatures.clone(), btree_map(field.clone(), inner, 0..5)).prop_map(
                |(signature, mut fields)| {
                    fields.insert(
                        sig::KEY.to_owned(),
                        Value {
                            kind: Some(Kind::StringValue(signature.to_owned())),
                        },
                    );
                    Value {
                        kind: Some(Kind::StructValue(Struct { fields })),
                    }
                }
            ),
        ]
    })
}

/// The JSON of an encoded value, or of a dropped one, for comparisons that tolerate NaN.
fn json_of(value: Option<&Value>) -> Option<serde_json::Value> {
    value.map(to_json)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lossless_round_trip(value in value()) {
        let opts = Options::lossless();
        let encoded = property_to_value(&value, &opts).expect("encodes");
        let encoded = encoded.expect("lossless keeps every value");
        let decoded = value_to_property(encoded, &opts).expect("decodes");
        prop_assert_eq!(decoded, Some(value));
    }

    #[test]
    fn lossless_round_trip_through_struct(map in btree_map(key(), value(), 0..6)) {
        let opts = Options::lossless();
        let encoded = properties_to_struct(&map, &opts).expect("encodes");
        prop_assert_eq!(encoded.fields.len(), map.len());
        let decoded: PropertyMap = struct_to_properties(encoded, &opts).expect("decodes");
        prop_assert_eq!(decoded, map);
    }

    #[test]
    fn any_options_reach_a_fixed_point(value in value(), opts in options()) {
        let encoded = match property_to_value(&value, &opts) {
            Ok(encoded) => encoded,
            Err(err) => {
                // Only the reject options make encoding fail.
                let rejected = match err.kind() {
                    ErrorKind::UnexpectedUnknown => opts.reject_unknowns && value.contains_unknowns(),
                    ErrorKind::UnexpectedAsset(_) => opts.reject_assets,
                    _ => false,
                };
                prop_assert!(rejected, "unexpected error {err} under {opts:?}");
                return Ok(());
            }
        };
        let Some(encoded) = encoded else {
            return Ok(());
        };
        let once = value_to_property(encoded, &opts).expect("decodes what it encoded");
        let Some(once) = once else {
            return Ok(());
        };
        let again = property_to_value(&once, &opts).expect("re-encodes");
        let twice = value_to_property(again.expect("kept"), &opts).expect("decodes again");
        prop_assert_eq!(twice, Some(once));
    }

    #[test]
    fn hostile_structs_never_panic(fields in btree_map(key(), wire_value(), 0..5), opts in options()) {
        let input = Struct { fields: fields.into_iter().collect::<BTreeMap<_, _>>() };
        // Under any options, what decodes also encodes.
        if let Ok(decoded) = struct_to_properties(input.clone(), &opts) {
            properties_to_struct(&decoded, &opts).expect("decoded values encode");
        }
        // Under lossless options, every case, it is stable too.
        let lossless = Options::lossless();
        if let Ok(decoded) = struct_to_properties(input, &lossless) {
            let encoded = properties_to_struct(&decoded, &lossless).expect("decoded values encode");
            let again = struct_to_properties(encoded.clone(), &lossless).expect("decodes again");
            let re_encoded = properties_to_struct(&again, &lossless).expect("encodes again");
            prop_assert_eq!(
                encoded.fields.iter().map(|(k, v)| (k, json_of(Some(v)))).collect::<Vec<_>>(),
                re_encoded.fields.iter().map(|(k, v)| (k, json_of(Some(v)))).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn hostile_values_never_panic(value in wire_value(), opts in options()) {
        let lossless = Options::lossless();
        if let Ok(Some(decoded)) = value_to_property(value.clone(), &lossless) {
            let encoded = property_to_value(&decoded, &lossless).expect("decoded values encode");
            let again = value_to_property(encoded.clone().expect("kept"), &lossless)
                .expect("decodes again")
                .expect("kept");
            let re_encoded = property_to_value(&again, &lossless).expect("encodes again");
            prop_assert_eq!(json_of(encoded.as_ref()), json_of(re_encoded.as_ref()));
        }
        let _ = value_to_property(value, &opts);
    }
}
