//! Conformance with the Go binary: the random 3.3.0 schema and the unparameterized schema,
//! equal by meaning and byte for byte once indented as Go indented them; and the recorded
//! random provider, whose schema is extracted into a fixture.

use serde_json::Value;
use tfp_mapping::{Mapping, Options};
use tfp_schema::{PackageSpec, ParameterValue, Source, package_schema, unparameterized_schema};

use crate::support::{Types, conformance_dir, fixture, provider_schema, read_json};

/// Our plugin version in these tests; the goldens were made by a `0.0.0-dev` build.
const OUR_VERSION: &str = "2.0.0";
const GOLDEN_VERSION: &str = "0.0.0-dev";

pub(crate) fn remote(url: &str, version: &str) -> ParameterValue {
    ParameterValue {
        source: Source::Remote {
            url: url.to_owned(),
            version: version.to_owned(),
        },
        includes: vec![],
        excludes: vec![],
        provider_name: String::new(),
        auto_names: vec![],
    }
}

pub(crate) fn random_330(bridge_version: &str) -> PackageSpec {
    let mapping = Mapping::new(
        fixture("random-3.3.0.tfschema.json"),
        "random",
        "3.3.0",
        Options::default(),
    )
    .expect("random maps");
    let parameter = remote("registry.opentofu.org/hashicorp/random", "3.3.0");
    package_schema(&mapping, &parameter, bridge_version).expect("random has a schema")
}

/// Our compact schema as the goldens are written: `json.Indent` with four spaces.
fn go_indented(ours: &str) -> String {
    tfp_gostd::json::indent(ours, "", "    ").expect("our schema is valid JSON")
}

/// Asserts equality and, if not, names the first differing path.
fn assert_same(ours: &Value, golden: &Value) {
    fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for key in x.keys().chain(y.keys()) {
                    let (vx, vy) = (x.get(key), y.get(key));
                    match (vx, vy) {
                        (Some(vx), Some(vy)) => {
                            if let Some(d) = first_difference(&format!("{path}/{key}"), vx, vy) {
                                return Some(d);
                            }
                        }
                        _ => return Some(format!("{path}/{key}: ours {vx:?}, golden {vy:?}")),
                    }
                }
                None
            }
            _ if a == b => None,
            _ => Some(format!("{path}: ours {a}, golden {b}")),
        }
    }
    if let Some(d) = first_difference("", ours, golden) {
        panic!("schemas differ at {d}");
    }
}

#[test]
fn random_3_3_0_equals_the_go_schema_by_meaning() {
    let mut golden = read_json(&conformance_dir().join("upstream/schema-random-3.3.0.json"));
    golden["parameterization"]["baseProvider"]["version"] = Value::from(OUR_VERSION);
    assert_same(&random_330(OUR_VERSION).to_value(), &golden);
}

#[test]
fn random_3_3_0_is_byte_identical_to_the_go_schema() {
    let text = std::fs::read_to_string(conformance_dir().join("upstream/schema-random-3.3.0.json"))
        .expect("the golden is readable");
    let ours = String::from_utf8(random_330(GOLDEN_VERSION).to_json()).expect("utf-8");
    assert_eq!(go_indented(&ours), text);
}

#[test]
fn unparameterized_equals_the_go_schema() {
    let text =
        std::fs::read_to_string(conformance_dir().join("upstream/schema-unparameterized.json"))
            .expect("the golden is readable");
    let ours = String::from_utf8(unparameterized_schema(GOLDEN_VERSION).to_json()).expect("utf-8");
    assert_eq!(go_indented(&ours), text);

    let mut golden: Value = serde_json::from_str(&text).expect("json");
    golden["version"] = Value::from(format!("v{OUR_VERSION}"));
    assert_same(&unparameterized_schema(OUR_VERSION).to_value(), &golden);
}

/// The recorded provider's `GetProviderSchema` response.
fn recorded_schema() -> tfp_cty::ProviderSchema {
    let records = read_json(&conformance_dir().join("upstream/tf-grpc-log-random.json"));
    let first = &records[0];
    assert!(
        first["name"]
            .as_str()
            .is_some_and(|n| n.ends_with(".GetProviderSchema")),
        "the first record is GetProviderSchema"
    );
    let response: Value =
        serde_json::from_str(first["response"].as_str().expect("a JSON string")).expect("json");
    provider_schema(&response, Types::Base64)
}

#[test]
fn the_recording_is_extracted_into_its_fixture() {
    assert_eq!(recorded_schema(), fixture("random-3.7.x.tfschema.json"));
}

#[test]
fn the_recording_is_random_3_7_not_3_3_0() {
    // random 3.3.0 has seven resources and no ephemeral resources (the golden shows them);
    // the recording has `random_bytes` (3.5.0+) and the ephemeral `random_password`
    // (3.7.0+), and no `random_uuid4` (3.8.0+).
    let recorded = recorded_schema();
    let v330 = fixture("random-3.3.0.tfschema.json");
    let names = |s: &tfp_cty::ProviderSchema| s.resources.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&v330),
        [
            "random_id",
            "random_integer",
            "random_password",
            "random_pet",
            "random_shuffle",
            "random_string",
            "random_uuid"
        ]
    );
    assert!(recorded.resources.contains_key("random_bytes"));
    assert!(recorded.ephemeral_resources.contains_key("random_password"));
    assert!(!recorded.resources.contains_key("random_uuid4"));
}

#[test]
fn random_3_7_schema_snapshot() {
    let mapping =
        Mapping::new(recorded_schema(), "random", "3.7.2", Options::default()).expect("maps");
    let parameter = remote("registry.opentofu.org/hashicorp/random", "3.7.2");
    let spec = package_schema(&mapping, &parameter, OUR_VERSION).expect("schema");
    // Eight resources; the ephemeral `random_password`, which the Go binary leaves out, is the
    // function that opens it, with every result secret.
    assert_eq!(spec.resources.len(), 8);
    assert!(spec.resources.contains_key("random:index/bytes:Bytes"));
    let open = &spec.to_value()["functions"]["random:ephemeral/openPassword:openPassword"];
    assert_eq!(open["outputs"]["properties"]["result"]["secret"], true);
    assert_eq!(open["inputs"]["required"], serde_json::json!(["length"]));
    insta::assert_json_snapshot!("random-3.7.x", spec.to_value());
}
