//! `__pulumi_raw_state_delta` on a schema with every shape: the delta we write, and the raw
//! state rebuilt from deltas in the form the Go binary stores them.

use serde_json::{Value as Json, json};
use tfp_translate::{
    RAW_STATE_DELTA_KEY, cty_to_properties, raw_state_delta, raw_state_from_properties,
    recover_raw_state,
};
use tfp_values::{PropertyMap, PropertyValue};

use crate::support::*;
use crate::translate::schema;

/// Decodes `state`, computes the delta of its outputs and compares it (secrets removed) with
/// `expected`; the turnaround check inside proves it rebuilds `state` byte for byte.
fn check(state: Json, expected: Json) {
    let m = mapping(schema(), block(&[], &[]));
    let object = resource(&m);
    let value = cty(&schema().implied_type(), state);
    let outputs = cty_to_properties(&object, &value).expect("decodes");
    let delta = raw_state_delta(&object, &outputs, &value)
        .expect("the turnaround check passes")
        .expect("no unknowns");
    assert_eq!(delta.clone().remove_secrets(), pv(expected));
}

/// Rebuilds the raw state from outputs holding a delta and compares the exact text.
fn check_recover(outputs: PropertyMap, raw: &str) {
    let got = recover_raw_state(&outputs)
        .expect("applies")
        .expect("has a delta");
    assert_eq!(String::from_utf8(got).expect("UTF-8"), raw);
}

fn replace_null() -> Json {
    json!({"replace": {"raw": null}})
}

#[test]
fn every_shape() {
    check(
        json!({"id": "i", "config": [{"mode": "m"}], "single_config": [],
               "rule": [{"from_port": 80, "description": "d"}], "filter": [],
               "tags": {"a": "b"}, "named": {}, "group_b": {},
               "count_limit": 12345678901234567890u64, "settings": {"value": "x", "type": "string"},
               "cidr_blocks": ["a"], "zones": ["z"], "endpoint": {"host_name": "h", "port": 1},
               "pair": ["a", 1], "enabled": true}),
        json!({"obj": {
            "renamed": {"filters": "filter", "rules": "rule"},
            "ps": {
                "arn": replace_null(), "name": replace_null(), "nestedItems": replace_null(),
                "nestedObj": replace_null(), "password": replace_null(),
                "secretToken": replace_null(),
                "config": {"plu": {"i": {"obj": {"ps": {"level": replace_null()}}}}},
                // Flattened to null and so omitted: the missing key gets a replace, as in Go.
                "singleConfig": {"replace": {"raw": []}},
                "rules": {"arr": {"el": {"0": {"obj": {"ps": {"protocol": replace_null()}}}}}},
                "filters": {"arr": {}},
                "tags": {"map": {}}, "named": {"map": {}},
                "groupB": {"obj": {"ps": {"level": replace_null(), "mode": replace_null()}}},
                "countLimit": {"replace": {"raw": 12345678901234567890.0}},
                "settings": {"replace": {"raw": {"value": "x", "type": "string"}}},
                "cidrBlocks": {"arr": {}}, "zones": {"arr": {}},
                "endpoint": {"obj": {}},
                "pair": {"replace": {"raw": ["a", 1]}}
            }
        }}),
    );
}

#[test]
fn timeouts_stay_only_when_the_outputs_have_them() {
    check(
        json!({"id": "i", "timeouts": {"create": "5m"}, "rule": [], "filter": [], "named": {},
               "config": [], "single_config": [], "group_b": {"mode": "x", "level": 1}}),
        json!({"obj": {
            "renamed": {"filters": "filter", "rules": "rule"},
            "ps": {
                "arn": replace_null(), "name": replace_null(), "nestedItems": replace_null(),
                "nestedObj": replace_null(), "password": replace_null(),
                "secretToken": replace_null(), "cidrBlocks": replace_null(),
                "countLimit": replace_null(), "enabled": replace_null(),
                "endpoint": replace_null(), "pair": replace_null(),
                "settings": {"replace": {"raw": null}}, "tags": replace_null(),
                "zones": replace_null(),
                "config": {"replace": {"raw": []}}, "singleConfig": {"replace": {"raw": []}},
                "rules": {"arr": {}}, "filters": {"arr": {}}, "named": {"map": {}},
                "groupB": {"obj": {}}, "timeouts": {"obj": {}}
            }
        }}),
    );
}

#[test]
fn replace_nodes_are_secret_and_unknown_outputs_get_no_delta() {
    let m = mapping(schema(), block(&[], &[]));
    let object = resource(&m);
    let value = cty(&schema().implied_type(), json!({"id": "i"}));
    let outputs = cty_to_properties(&object, &value).expect("decodes");
    let delta = raw_state_delta(&object, &outputs, &value)
        .expect("passes")
        .expect("known");
    let PropertyValue::Object(top) = &delta else {
        panic!("an object")
    };
    let ps = &top["obj"].as_object().expect("obj")["ps"];
    assert!(matches!(
        ps.as_object().expect("ps")["arn"],
        PropertyValue::Secret(_)
    ));
    let mut unknown = outputs.clone();
    unknown.insert("name".into(), PropertyValue::unknown());
    assert_eq!(
        raw_state_delta(&object, &unknown, &value).expect("no failure"),
        None
    );
}

#[test]
fn the_raw_state_given_is_what_the_stored_outputs_rebuild() {
    // A dynamic attribute is written back raw, and its stored form comes back with its keys
    // sorted: the raw state handed out with the delta, by which the upgraded state is
    // remembered, must be what a later call recovers from the outputs as stored.
    let m = mapping(schema(), block(&[], &[]));
    let object = resource(&m);
    let ty = schema().implied_type();
    let value = cty(
        &ty,
        json!({"settings": {"value": {"zone": "b", "after": 1}, "type": ["object", {"zone": "string", "after": "number"}]}}),
    );
    let mut outputs = cty_to_properties(&object, &value).expect("decodes");
    let (delta, raw) = tfp_translate::raw_state_delta_and_raw(&object, &outputs, &value)
        .expect("the turnaround check passes")
        .expect("no unknowns");
    outputs.insert(RAW_STATE_DELTA_KEY.into(), delta);
    let recovered = recover_raw_state(&outputs)
        .expect("applies")
        .expect("has a delta");
    assert_eq!(
        String::from_utf8(recovered).expect("UTF-8"),
        String::from_utf8(raw).expect("UTF-8")
    );
}

#[test]
fn recovers_deltas_as_the_go_binary_stores_them() {
    // Go stores replace nodes as secrets, repeats ignored keys, and keeps raw JSON decoded into
    // float64s, which it writes back in its own float format.
    let delta = PropertyValue::object([(
        "obj",
        PropertyValue::object([
            ("ignored", pv(json!(["extra", "extra"]))),
            ("renamed", pv(json!({"fooBar": "foo_bar_"}))),
            (
                "ps",
                PropertyValue::object([
                    (
                        "gone",
                        pv(
                            json!({"<secret>": {"replace": {"raw": {"n": 1e21, "s": "<", "m": 0.000001, "t": 1e-7}}}}),
                        ),
                    ),
                    ("big", pv(json!({"num": {}}))),
                    ("list", pv(json!({"plu": {"i": {"map": {}}}}))),
                    ("arr", pv(json!({"arr": {"el": {"1": {"plu": {"i": {}}}}}}))),
                    ("none", pv(json!({"plu": {"i": {}}}))),
                ]),
            ),
        ]),
    )]);
    let outputs: PropertyMap = [
        ("fooBar".to_owned(), pv(json!(1.5))),
        ("extra".to_owned(), pv(json!("dropped"))),
        (
            "big".to_owned(),
            pv(json!("123456789012345678901234567890")),
        ),
        ("list".to_owned(), pv(json!({"k": {"<secret>": true}}))),
        ("arr".to_owned(), pv(json!([1, "x"]))),
        ("plainArray".to_owned(), pv(json!([1e21, -0.5, null]))),
        ("__meta".to_owned(), pv(json!("{}"))),
        (RAW_STATE_DELTA_KEY.to_owned(), delta),
    ]
    .into();
    check_recover(
        outputs,
        r#"{"arr":[1,["x"]],"big":123456789012345678901234567890,"foo_bar_":1.5,"gone":{"m":0.000001,"n":1e+21,"s":"\u003c","t":1e-7},"list":[{"k":true}],"none":[],"plain_array":[1000000000000000000000,-0.5,null]}"#,
    );
}

#[test]
fn bad_deltas_are_errors() {
    for (outputs, reason) in [
        (
            json!({"a": [1], "__pulumi_raw_state_delta": {"obj": {"ps": {"a": {"arr": {"el": {"3": {}}}}}}}}),
            "index 3",
        ),
        (
            json!({"a": {"k": 1}, "__pulumi_raw_state_delta": {"obj": {}}}),
            "map or object",
        ),
        (
            json!({"a": "x", "__pulumi_raw_state_delta": {"obj": {"ps": {"a": {"num": {}}}}}}),
            "not a JSON number",
        ),
        (
            json!({"__pulumi_raw_state_delta": {"obj": 5}}),
            "must be an object",
        ),
        (
            json!({"a": "<unknown>", "__pulumi_raw_state_delta": {"obj": {}}}),
            "unknown",
        ),
    ] {
        let err = recover_raw_state(&props(outputs.clone())).expect_err("must fail");
        assert!(err.to_string().contains(reason), "{err} for {outputs}");
    }
    assert_eq!(
        recover_raw_state(&props(json!({"a": 1}))).expect("no delta"),
        None
    );
}

#[test]
fn legacy_raw_state_comes_from_the_outputs() {
    let m = mapping(schema(), block(&[], &[]));
    let raw = raw_state_from_properties(
        &resource(&m),
        &props(json!({"id": "i", "config": {"mode": "m"}, "secretToken": "t", "countLimit": 2})),
    )
    .expect("encodes");
    let raw: Json = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!(raw["id"], json!("i"));
    assert_eq!(raw["config"], json!([{"mode": "m", "level": null}]));
    assert_eq!(raw["secret_token"], Json::Null);
    assert_eq!(raw["count_limit"], json!(2));
    assert_eq!(raw["rule"], json!([]));
}

#[test]
fn names_inside_single_blocks_come_from_the_mapping() {
    // `port` is a list, so Pulumi calls it `ports`; the delta must rename it back.
    let inner = block(&[("port", attr(ty(r#"["list","number"]"#), OPTIONAL))], &[]);
    let schema = block(
        &[("id", attr(tfp_cty::Type::String, COMPUTED))],
        &[(
            "opts",
            nested_block(tfp_cty::NestingMode::Single, .., inner),
        )],
    );
    let m = mapping(schema.clone(), block(&[], &[]));
    let object = resource(&m);
    let value = cty(
        &schema.implied_type(),
        json!({"id": "i", "opts": {"port": [1]}}),
    );
    let outputs = cty_to_properties(&object, &value).expect("decodes");
    assert_eq!(outputs, props(json!({"id": "i", "opts": {"ports": [1]}})));
    let delta = raw_state_delta(&object, &outputs, &value)
        .expect("passes")
        .expect("known");
    assert_eq!(
        delta.remove_secrets(),
        pv(json!({"obj": {"ps": {"opts": {"obj": {
            "renamed": {"ports": "port"}, "ps": {"ports": {"arr": {}}}
        }}}}}))
    );
}
