//! Property tests: for every value the schema allows, Pulumi → cty → Pulumi is the identity,
//! also through msgpack (where secrets come back from the schema's `sensitive`); the proposed
//! new state of a value against itself is the value; and the raw state delta of the result
//! passes its turnaround check and rebuilds Terraform's JSON.

use proptest::prelude::*;
use tfp_translate::{
    Mode, RAW_STATE_DELTA_KEY, cty_to_properties, properties_to_cty, raw_state_delta,
    recover_raw_state,
};
use tfp_values::{PropertyMap, PropertyValue};

use crate::support::*;
use crate::translate::schema;

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _.<&-]{0,6}"
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<i32>().prop_map(f64::from),
        -1e6..1e6f64,
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
    ]
}

fn string_pv() -> impl Strategy<Value = PropertyValue> {
    text().prop_map(PropertyValue::String)
}

fn number_pv() -> impl Strategy<Value = PropertyValue> {
    number().prop_map(PropertyValue::Number)
}

/// Sometimes unknown.
fn or_unknown(s: impl Strategy<Value = PropertyValue> + 'static) -> BoxedStrategy<PropertyValue> {
    prop_oneof![4 => s, 1 => Just(PropertyValue::unknown())].boxed()
}

/// An object from optional fields; absent fields are left out.
fn object(
    fields: Vec<(&'static str, BoxedStrategy<Option<PropertyValue>>)>,
) -> BoxedStrategy<PropertyValue> {
    let (names, strategies): (Vec<_>, Vec<_>) = fields.into_iter().unzip();
    strategies
        .prop_map(move |values| {
            PropertyValue::Object(
                names
                    .iter()
                    .zip(values)
                    .filter_map(|(k, v)| v.map(|v| ((*k).to_owned(), v)))
                    .collect(),
            )
        })
        .boxed()
}

fn opt(s: impl Strategy<Value = PropertyValue> + 'static) -> BoxedStrategy<Option<PropertyValue>> {
    proptest::option::of(s).boxed()
}

fn always(
    s: impl Strategy<Value = PropertyValue> + 'static,
) -> BoxedStrategy<Option<PropertyValue>> {
    s.prop_map(Some).boxed()
}

fn secret(s: impl Strategy<Value = PropertyValue>) -> impl Strategy<Value = PropertyValue> {
    s.prop_map(PropertyValue::secret)
}

/// JSON-like values for the dynamic attribute.
fn dynamic() -> impl Strategy<Value = PropertyValue> {
    let leaf = prop_oneof![
        Just(PropertyValue::Null),
        any::<bool>().prop_map(PropertyValue::Bool),
        number_pv(),
        string_pv(),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(PropertyValue::Array),
            proptest::collection::btree_map(text(), inner, 0..4).prop_map(PropertyValue::Object),
        ]
    })
    .prop_filter("the attribute itself is not null", |v| !v.is_null())
}

fn config_block() -> BoxedStrategy<PropertyValue> {
    object(vec![
        ("mode", opt(string_pv())),
        ("level", opt(number_pv())),
    ])
}

fn inner_object() -> BoxedStrategy<PropertyValue> {
    object(vec![
        ("innerValue", opt(string_pv())),
        ("innerSecret", opt(secret(string_pv()))),
    ])
}

fn null_or(s: impl Strategy<Value = PropertyValue> + 'static) -> BoxedStrategy<PropertyValue> {
    prop_oneof![1 => Just(PropertyValue::Null), 4 => s].boxed()
}

fn properties() -> impl Strategy<Value = PropertyValue> {
    let rule = object(vec![
        ("fromPort", opt(number_pv())),
        ("protocol", opt(string_pv())),
        ("description", opt(string_pv())),
    ]);
    let filters = proptest::collection::btree_set(text(), 0..4).prop_map(|names| {
        PropertyValue::Array(
            names
                .into_iter()
                .map(|n| {
                    PropertyValue::object([(
                        "values",
                        PropertyValue::array([PropertyValue::String(n)]),
                    )])
                })
                .collect(),
        )
    });
    let zones = proptest::collection::btree_set(text(), 0..4).prop_map(|names| {
        PropertyValue::Array(names.into_iter().map(PropertyValue::String).collect())
    });
    object(vec![
        ("id", opt(string_pv())),
        ("arn", opt(or_unknown(string_pv()))),
        ("name", opt(or_unknown(string_pv()))),
        ("countLimit", opt(or_unknown(number_pv()))),
        ("enabled", opt(any::<bool>().prop_map(PropertyValue::Bool))),
        (
            "tags",
            opt(or_unknown(
                proptest::collection::btree_map(text(), null_or(or_unknown(string_pv())), 0..3)
                    .prop_map(PropertyValue::Object),
            )),
        ),
        (
            "cidrBlocks",
            opt(
                proptest::collection::vec(null_or(or_unknown(string_pv())), 0..3)
                    .prop_map(PropertyValue::Array),
            ),
        ),
        ("zones", opt(zones)),
        ("password", opt(secret(string_pv()))),
        ("secretToken", opt(string_pv())),
        ("settings", opt(or_unknown(dynamic()))),
        (
            "pair",
            opt(object(vec![
                ("t0", always(null_or(string_pv()))),
                ("t1", always(null_or(number_pv()))),
            ])),
        ),
        (
            "endpoint",
            opt(object(vec![
                ("hostName", opt(string_pv())),
                ("port", opt(number_pv())),
            ])),
        ),
        ("nestedObj", opt(inner_object())),
        (
            "nestedItems",
            opt(or_unknown(
                proptest::collection::vec(inner_object(), 0..3).prop_map(PropertyValue::Array),
            )),
        ),
        (
            "rules",
            always(or_unknown(
                proptest::collection::vec(rule, 0..3).prop_map(PropertyValue::Array),
            )),
        ),
        ("config", opt(or_unknown(config_block()))),
        ("singleConfig", opt(config_block())),
        ("filters", always(filters)),
        ("timeouts", opt(object(vec![("create", opt(string_pv()))]))),
        ("groupB", always(config_block())),
        (
            "named",
            always(
                proptest::collection::btree_map(text(), config_block(), 0..3)
                    .prop_map(PropertyValue::Object),
            ),
        ),
    ])
}

/// The JSON with every number as a float64.
fn floats(json: serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match json {
        J::Number(n) => serde_json::json!(n.as_f64().expect("finite")),
        J::Array(items) => J::Array(items.into_iter().map(floats).collect()),
        J::Object(map) => J::Object(map.into_iter().map(|(k, v)| (k, floats(v))).collect()),
        other => other,
    }
}

fn as_map(value: PropertyValue) -> PropertyMap {
    match value {
        PropertyValue::Object(map) => map,
        other => panic!("properties are an object, found {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn pulumi_to_cty_to_pulumi_is_the_identity(input in properties()) {
        let input = as_map(input);
        let m = mapping(schema(), block(&[], &[]));
        let object = resource(&m);
        let ty = schema().implied_type();
        let value = properties_to_cty(&object, &input, Mode::Config).expect("the schema allows it");
        prop_assert_eq!(&cty_to_properties(&object, &value).expect("decodes"), &input);

        // Through the wire: the marks are gone, the schema brings the secrets back.
        let bytes = tfp_cty::to_msgpack(&value, &ty).expect("msgpack encodes");
        let wire = tfp_cty::from_msgpack(&bytes, &ty).expect("msgpack decodes");
        prop_assert_eq!(&cty_to_properties(&object, &wire).expect("decodes"), &input);

        // A configuration proposed against itself as prior state is itself.
        prop_assert_eq!(&tfp_translate::proposed_new_state(&schema(), &wire, &wire), &wire);

        // Known outputs get a delta that rebuilds the state's JSON exactly.
        if wire.is_wholly_known() {
            let delta = raw_state_delta(&object, &input, &wire)
                .expect("the turnaround check passes")
                .expect("no unknowns");
            let mut stored = input.clone();
            stored.insert(RAW_STATE_DELTA_KEY.to_owned(), delta);
            let raw = recover_raw_state(&stored).expect("applies").expect("a delta");
            let rebuilt: serde_json::Value = serde_json::from_slice(&raw).expect("JSON");
            let mut expected: serde_json::Value =
                serde_json::from_slice(&tfp_cty::to_json(&wire, &ty).expect("known")).expect("JSON");
            if !input.contains_key("timeouts") {
                expected.as_object_mut().expect("an object").remove("timeouts");
            }
            // Raw JSON kept in `replace` nodes is stored as Pulumi numbers, float64s, as Go
            // stores it: compare numbers at that precision.
            prop_assert_eq!(floats(rebuilt), floats(expected));
        }
    }
}
