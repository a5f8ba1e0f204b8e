//! Every schema we produce validates against Pulumi's package metaschema (JSON Schema
//! draft 2020-12, with `(?<name>…)` groups in its version pattern).

use serde_json::Value;
use tfp_mapping::{Mapping, Options};
use tfp_schema::{PackageSpec, package_schema, unparameterized_schema};

use crate::conformance::{random_330, remote};
use crate::support::{conformance_dir, fixture, read_json};

fn check(spec: &PackageSpec) {
    let metaschema = read_json(&conformance_dir().join("pulumi-package-metaschema.json"));
    let validator = jsonschema::draft202012::new(&metaschema).expect("the metaschema compiles");
    let instance: Value = serde_json::from_slice(&spec.to_json()).expect("our JSON parses");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{} violates the metaschema:\n{}",
        spec.name,
        errors.join("\n")
    );
}

#[test]
fn our_schemas_satisfy_the_metaschema() {
    check(&random_330("2.0.0"));
    check(&unparameterized_schema("2.0.0"));
    let mapping = Mapping::new(
        fixture("random-3.7.x.tfschema.json"),
        "random",
        "3.7.2",
        Options::default(),
    )
    .expect("maps");
    check(
        &package_schema(
            &mapping,
            &remote("registry.opentofu.org/hashicorp/random", "3.7.2"),
            "2.0.0",
        )
        .expect("schema"),
    );
    check(&crate::nesting::b2_spec());
    check(&crate::functions::functions_spec());
}

#[test]
fn the_validator_rejects_a_bad_schema() {
    let mut spec = unparameterized_schema("2.0.0");
    spec.version = "not a version".to_owned();
    let metaschema = read_json(&conformance_dir().join("pulumi-package-metaschema.json"));
    let validator = jsonschema::draft202012::new(&metaschema).expect("the metaschema compiles");
    let instance: Value = serde_json::from_slice(&spec.to_json()).expect("our JSON parses");
    assert!(!validator.is_valid(&instance));
}
