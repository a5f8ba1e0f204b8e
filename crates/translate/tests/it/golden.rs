//! The Go binary's own outputs for its `pfprovider_primitive` test resource
//! (`primitive-types-*.golden` in `testdata/conformance/upstream`): the
//! raw state each delta rebuilds, the outputs that state decodes to, and the delta we compute
//! from them, which must equal the one Go wrote.

use std::path::PathBuf;

use crate::support::*;
use serde_json::{Value as Json, json};
use tfp_cty::{Block, Type};
use tfp_translate::{
    META_KEY, Meta, RAW_STATE_DELTA_KEY, cty_to_properties, raw_state_delta, recover_raw_state,
};

fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/conformance/upstream")
}

fn golden(name: &str) -> Json {
    let path = conformance_dir().join(format!("primitive-types-{name}.golden"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("goldens are JSON")
}

/// The resource of `dynamic/test/pfprovider/example_resource.go`.
fn primitive() -> Block {
    let mut attributes = vec![
        ("id", attr(Type::String, COMPUTED)),
        (
            "attr_string_default",
            attr(Type::String, OPTIONAL | COMPUTED),
        ),
        (
            "attr_string_default_overridden",
            attr(Type::String, OPTIONAL | COMPUTED),
        ),
        (
            "attr_string_write_only",
            attr(Type::String, OPTIONAL | WRITE_ONLY),
        ),
    ];
    for (suffix, flags) in [("required", REQUIRED), ("computed", COMPUTED)] {
        for (kind, ty) in [
            ("string", Type::String),
            ("bool", Type::Bool),
            ("int", Type::Number),
            ("number", Type::Number),
        ] {
            let name: &'static str = format!("attr_{kind}_{suffix}").leak();
            attributes.push((name, attr(ty, flags)));
        }
    }
    block(&attributes, &[])
}

fn mapping() -> tfp_mapping::Mapping {
    let schema = tfp_cty::ProviderSchema {
        resources: [(
            "pfprovider_primitive".to_owned(),
            tfp_cty::Schema {
                version: 0,
                block: primitive(),
            },
        )]
        .into(),
        ..tfp_cty::ProviderSchema::default()
    };
    tfp_mapping::Mapping::new(
        schema,
        "pfprovider",
        "0.0.0",
        tfp_mapping::Options::default(),
    )
    .expect("the mapping builds")
}

/// Checks one golden: the raw state its delta rebuilds is `raw`, that state decodes to its
/// outputs, and our delta for them is Go's.
fn check(name: &str, raw: Json) {
    let m = mapping();
    let schema = tfp_translate::ObjectSchema::resource(&m, "pfprovider_primitive").expect("mapped");
    let outputs = props(golden(name)["properties"].clone());
    assert!(
        !outputs.contains_key(META_KEY),
        "schema version 0 and no private state: no __meta"
    );
    assert_eq!(
        Meta::read(&outputs).expect("absent __meta"),
        Meta::default()
    );

    let rebuilt = recover_raw_state(&outputs)
        .expect("the delta applies")
        .expect("a delta");
    let rebuilt: Json = serde_json::from_slice(&rebuilt).expect("raw state is JSON");
    assert_eq!(rebuilt, raw, "{name}: rebuilt raw state");

    let state = tfp_cty::from_json(raw.to_string().as_bytes(), &primitive().implied_type())
        .expect("the raw state fits the schema");
    let mut decoded = cty_to_properties(&schema, &state).expect("the state decodes");
    let mut without_delta = outputs.clone();
    let go_delta = without_delta
        .remove(RAW_STATE_DELTA_KEY)
        .expect("Go wrote a delta");
    assert_eq!(decoded, without_delta, "{name}: outputs");

    let ours = raw_state_delta(&schema, &decoded, &state)
        .expect("the turnaround check passes")
        .expect("no unknowns");
    assert!(
        ours.contains_secrets(),
        "replace nodes are stored as secrets"
    );
    assert_eq!(ours.clone().remove_secrets(), go_delta, "{name}: delta");

    // Our outputs with our delta rebuild the same bytes as Go's outputs with Go's delta.
    decoded.insert(RAW_STATE_DELTA_KEY.to_owned(), ours);
    let again = recover_raw_state(&decoded)
        .expect("applies")
        .expect("a delta");
    assert_eq!(serde_json::from_slice::<Json>(&again).expect("JSON"), raw);
}

#[test]
fn create() {
    check(
        "create",
        json!({"attr_bool_computed": false, "attr_bool_required": true, "attr_int_computed": 128,
               "attr_int_required": 64, "attr_number_computed": 12.3456,
               "attr_number_required": 12.3456, "attr_string_computed": "t",
               "attr_string_default": "default-value",
               "attr_string_default_overridden": "overridden", "attr_string_required": "s",
               "attr_string_write_only": null, "id": "example-id"}),
    );
}

#[test]
fn read() {
    check(
        "read",
        json!({"attr_bool_computed": null, "attr_bool_required": true, "attr_int_computed": 10000,
               "attr_int_required": 64, "attr_number_computed": null,
               "attr_number_required": 12.3456, "attr_string_computed": "t",
               "attr_string_default": "default-value",
               "attr_string_default_overridden": "overridden", "attr_string_required": "s",
               "attr_string_write_only": null, "id": "output-id"}),
    );
}

#[test]
fn update() {
    check(
        "update",
        json!({"attr_bool_computed": null, "attr_bool_required": true, "attr_int_computed": 256,
               "attr_int_required": 64, "attr_number_computed": null,
               "attr_number_required": 12.3456, "attr_string_computed": null,
               "attr_string_default": "default-value",
               "attr_string_default_overridden": "overridden", "attr_string_required": "s",
               "attr_string_write_only": null, "id": "output-id"}),
    );
}

#[test]
fn import() {
    check(
        "import",
        json!({"attr_bool_computed": null, "attr_bool_required": true, "attr_int_computed": 10000,
               "attr_int_required": 1234, "attr_number_computed": null,
               "attr_number_required": 43.21, "attr_string_computed": null,
               "attr_string_default": null, "attr_string_default_overridden": null,
               "attr_string_required": "imported value", "attr_string_write_only": null,
               "id": "imported"}),
    );
}

#[test]
fn preview_outputs_carry_no_delta() {
    let m = mapping();
    let schema = tfp_translate::ObjectSchema::resource(&m, "pfprovider_primitive").expect("mapped");
    let outputs = props(golden("createpreview")["properties"].clone());
    assert!(!outputs.contains_key(RAW_STATE_DELTA_KEY));
    // A planned state holds unknowns, which a state never does: encode it as configuration.
    let state = tfp_translate::properties_to_cty(&schema, &outputs, tfp_translate::Mode::Config)
        .expect("encodes");
    assert_eq!(
        raw_state_delta(&schema, &outputs, &state).expect("no failure"),
        None
    );
}
