//! Small builders for values and mappings, so that tests say only what matters; the schema
//! builders are the workspace's own (`tfp-testkit`).

use tfp_cty::{Block, ProviderSchema, Schema, Type, Value};
use tfp_mapping::{Mapping, Options};
use tfp_translate::ObjectSchema;
use tfp_values::{PropertyMap, PropertyValue};

pub(crate) use tfp_testkit::schema::{
    COMPUTED, OPTIONAL, REQUIRED, SENSITIVE, WRITE_ONLY, attr, block, nested_attr, nested_block,
};

pub(crate) fn ty(spec: &str) -> Type {
    Type::from_json_bytes(spec.as_bytes()).expect("valid type spec in test")
}

/// The mapping of a provider whose only resource `test_res` has schema `resource` and whose
/// configuration has schema `config`.
pub(crate) fn mapping(resource: Block, config: Block) -> Mapping {
    let schema = ProviderSchema {
        provider: Schema {
            version: 0,
            block: config,
        },
        resources: [(
            "test_res".to_owned(),
            Schema {
                version: 0,
                block: resource,
            },
        )]
        .into(),
        ..ProviderSchema::default()
    };
    Mapping::new(schema, "test", "1.0.0", Options::default()).expect("the mapping builds")
}

pub(crate) fn resource(mapping: &Mapping) -> ObjectSchema<'_> {
    ObjectSchema::resource(mapping, "test_res").expect("the test resource is mapped")
}

/// A Pulumi value from JSON: `"<unknown>"` and the unknown sentinels are unknowns,
/// `{"<secret>": v}` a secret.
pub(crate) fn pv(json: serde_json::Value) -> PropertyValue {
    use serde_json::Value as J;
    match json {
        J::Null => PropertyValue::Null,
        J::Bool(b) => PropertyValue::Bool(b),
        J::Number(n) => PropertyValue::Number(n.as_f64().expect("finite test number")),
        J::String(s) if s == "<unknown>" => PropertyValue::unknown(),
        J::String(s) if tfp_values::UnknownKind::from_sentinel(&s).is_some() => {
            PropertyValue::unknown()
        }
        J::String(s) => PropertyValue::String(s),
        J::Array(items) => PropertyValue::Array(items.into_iter().map(pv).collect()),
        J::Object(map) => {
            if map.len() == 1
                && let Some(inner) = map.get("<secret>")
            {
                return PropertyValue::secret(pv(inner.clone()));
            }
            PropertyValue::Object(map.into_iter().map(|(k, v)| (k, pv(v))).collect())
        }
    }
}

/// A property map from a JSON object.
pub(crate) fn props(json: serde_json::Value) -> PropertyMap {
    match pv(json) {
        PropertyValue::Object(map) => map,
        other => panic!("test properties must be an object, found {other:?}"),
    }
}

/// A known cty value of type `ty` from JSON (missing object attributes are null).
pub(crate) fn cty(ty: &Type, json: serde_json::Value) -> Value {
    tfp_cty::from_json(json.to_string().as_bytes(), ty).expect("test JSON fits the type")
}

/// The value's JSON for type `ty`, to compare values in readable form.
pub(crate) fn json_of(value: &Value, ty: &Type) -> serde_json::Value {
    let bytes = tfp_cty::to_json(value, ty).expect("a known value");
    serde_json::from_slice(&bytes).expect("cty writes JSON")
}
