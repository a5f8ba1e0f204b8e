//! Decoding the property Structs the Go binary really sent (the `primitive-types-*.golden`
//! responses in `testdata/conformance/upstream`), and re-encoding them to the same JSON.

use serde_json::Value as Json;
use tfp_values::{
    Options, PropertyMap, PropertyValue, UnknownKind, properties_to_struct, struct_to_properties,
};

use crate::support::{struct_to_json, to_json, wire, wire_struct};

fn golden(name: &str) -> Json {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/conformance/upstream")
        .join(format!("primitive-types-{name}.golden"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    serde_json::from_str(&text).expect("golden files are JSON")
}

/// Decodes `field` of golden response `name` under `opts`, checks that re-encoding gives the same
/// JSON when the options lose nothing, and returns the decoded map.
fn check(name: &str, field: &str, opts: &Options) -> PropertyMap {
    let json = golden(name)
        .get(field)
        .unwrap_or_else(|| panic!("{name} has {field}"))
        .clone();
    let decoded = struct_to_properties(wire_struct(json.clone()), opts)
        .unwrap_or_else(|err| panic!("decoding {name}.{field}: {err}"));
    if *opts == Options::lossless() {
        let encoded = properties_to_struct(&decoded, opts).expect("re-encodes");
        // Compare through the wire form so 64 and 64.0 are the same number, as in protobuf.
        assert_eq!(
            struct_to_json(&encoded),
            to_json(&wire(json)),
            "{name}.{field}"
        );
    }
    decoded
}

#[test]
fn every_golden_struct_round_trips() {
    let cases = [
        ("check", "inputs"),
        ("create", "properties"),
        ("createpreview", "properties"),
        ("import", "inputs"),
        ("import", "properties"),
        ("read", "inputs"),
        ("read", "properties"),
        ("update", "properties"),
    ];
    for (name, field) in cases {
        check(name, field, &Options::lossless());
    }
}

#[test]
fn check_inputs_are_plain_values() {
    let inputs = check("check", "inputs", &Options::lossless());
    let expected = PropertyValue::object([
        ("attrBoolRequired", true.into()),
        ("attrIntRequired", 64.into()),
        ("attrNumberRequired", 12.3456.into()),
        ("attrStringDefaultOverridden", "overridden".into()),
        ("attrStringRequired", "s".into()),
    ]);
    assert_eq!(Some(&inputs), expected.as_object());
}

#[test]
fn preview_outputs_carry_the_generic_unknown() {
    let properties = check("createpreview", "properties", &Options::lossless());
    let unknown: Vec<&str> = properties
        .iter()
        .filter(|(_, v)| **v == PropertyValue::Computed(UnknownKind::Any))
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        unknown,
        [
            "attrBoolComputed",
            "attrIntComputed",
            "attrNumberComputed",
            "attrStringComputed",
            "id"
        ]
    );
    assert_eq!(properties.get("attrIntRequired"), Some(&64.into()));
    // Without keep_unknowns the same Struct loses exactly those five.
    let known = check("createpreview", "properties", &Options::default());
    assert_eq!(known.len(), properties.len() - 5);
    assert!(known.values().all(|v| !v.contains_unknowns()));
}

#[test]
fn raw_state_delta_is_an_ordinary_nested_object_with_nulls() {
    let properties = check("create", "properties", &Options::lossless());
    let raw = properties
        .get("__pulumi_raw_state_delta")
        .and_then(|v| {
            v.as_object()?
                .get("obj")?
                .as_object()?
                .get("ps")?
                .as_object()
        })
        .and_then(|ps| {
            ps.get("attrStringWriteOnly")?
                .as_object()?
                .get("replace")?
                .as_object()
        })
        .and_then(|replace| replace.get("raw"));
    assert_eq!(raw, Some(&PropertyValue::Null));
    assert_eq!(properties.get("attrIntComputed"), Some(&128.into()));
    assert_eq!(properties.get("id"), Some(&"example-id".into()));

    // Skipping internal keys drops the bridge's delta object and nothing else.
    let trimmed = check(
        "create",
        "properties",
        &Options {
            skip_internal_keys: true,
            skip_nulls: true,
            ..Options::lossless()
        },
    );
    assert!(!trimmed.contains_key("__pulumi_raw_state_delta"));
    assert_eq!(trimmed.len(), properties.len() - 1);
}

#[test]
fn read_with_empty_inputs() {
    assert!(check("read", "inputs", &Options::lossless()).is_empty());
    let properties = check("read", "properties", &Options::lossless());
    assert_eq!(properties.get("attrIntComputed"), Some(&10000.into()));
}
