//! Shapes: MaxItemsOne flattening (§4.8), nested attributes and object types.

use std::collections::BTreeMap;
use std::sync::Arc;

use tfp_cty::{NestingMode, Type};
use tfp_mapping::{Field, Fields, Options, Shape};

use crate::support::map;
use tfp_testkit::schema::{
    OPTIONAL, SENSITIVE, attr, block, nested_attr, nested_block, provider, with_id,
};

fn object(fields: &[(&str, &str)]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

fn names(fields: &Fields) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(k, f)| (k.to_owned(), f.name.clone()))
        .collect()
}

fn inner_fields(shape: &Shape) -> &Fields {
    match shape {
        Shape::Object(f) => f,
        Shape::List(e) | Shape::Set(e) | Shape::Map(e) => inner_fields(e),
        other => panic!("no object in {other:?}"),
    }
}

#[test]
fn flattens_max_items_one_blocks_only() {
    let period = block(&[("unit_count", attr(Type::Number, OPTIONAL))], &[]);
    let retention = block(
        &[("mode", attr(Type::String, OPTIONAL))],
        &[("period", nested_block(NestingMode::List, ..=1, period))],
    );
    let resource = with_id(block(
        &[(
            "rule",
            nested_attr(
                NestingMode::List,
                block(&[("x", attr(Type::String, OPTIONAL))], &[]),
                OPTIONAL,
            ),
        )],
        &[
            (
                "default_retention",
                nested_block(NestingMode::List, ..=1, retention.clone()),
            ),
            (
                "file_lock_configuration",
                nested_block(NestingMode::Set, .., retention),
            ),
        ],
    ));
    let mapping = map(
        provider(&[("test_res", resource)], &[]),
        "test",
        Options::default(),
    );
    let fields = &mapping.resource("test_res").expect("mapped").fields;

    let flat: &Field = fields.get("default_retention").expect("present");
    assert_eq!(
        (flat.name.as_str(), flat.flatten),
        ("defaultRetention", true)
    );
    assert!(matches!(flat.shape, Shape::List(_)));
    let period = inner_fields(&flat.shape).get("period").expect("nested");
    assert_eq!((period.name.as_str(), period.flatten), ("period", true));
    assert_eq!(
        names(inner_fields(&period.shape)),
        object(&[("unit_count", "unitCount")])
    );

    let set = fields.get("file_lock_configuration").expect("present");
    assert_eq!(
        (set.name.as_str(), set.flatten),
        ("fileLockConfigurations", false)
    );
    assert!(matches!(set.shape, Shape::Set(_)));

    // Attributes never flatten, whatever validators say.
    let rule = fields.get("rule").expect("present");
    assert_eq!((rule.name.as_str(), rule.flatten), ("rules", false));

    // A known key has its field's name (pluralised here); an unknown one the default camel case.
    assert_eq!(fields.pulumi_name("rule"), "rules");
    assert_eq!(fields.pulumi_name("not_in_schema"), "notInSchema");
}

#[test]
fn names_object_type_attributes() {
    let ty = Type::Object {
        attributes: BTreeMap::from([
            ("ip_address".to_owned(), Type::String),
            ("port_range".to_owned(), Type::List(Arc::new(Type::Number))),
            (
                "sub".to_owned(),
                Type::object([("deep_key".to_owned(), Type::Bool)]),
            ),
        ]),
        optional: Default::default(),
    };
    let resource = with_id(block(
        &[("endpoint", attr(Type::List(Arc::new(ty)), OPTIONAL))],
        &[],
    ));
    let mapping = map(
        provider(&[("test_res", resource)], &[]),
        "test",
        Options::default(),
    );
    let endpoint = mapping
        .resource("test_res")
        .expect("mapped")
        .fields
        .get("endpoint")
        .expect("present");
    assert_eq!(endpoint.name, "endpoints");
    let inner = inner_fields(&endpoint.shape);
    assert_eq!(
        names(inner),
        object(&[
            ("ip_address", "ipAddress"),
            ("port_range", "portRanges"),
            ("sub", "sub")
        ])
    );
    let sub = inner.get("sub").expect("present");
    assert_eq!(
        names(inner_fields(&sub.shape)),
        object(&[("deep_key", "deepKey")])
    );
    assert_eq!(
        inner.by_pulumi("portRanges").map(|(k, _)| k),
        Some("port_range")
    );
    assert_eq!(inner.by_pulumi("port_range"), None);
}

#[test]
fn maps_config_and_data_sources() {
    let mut schema = provider(
        &[],
        &[(
            "test_thing",
            block(
                &[(
                    "filter_value",
                    attr(Type::Set(Arc::new(Type::String)), OPTIONAL),
                )],
                &[],
            ),
        )],
    );
    schema.provider.block = block(
        &[("api_key", attr(Type::String, OPTIONAL | SENSITIVE))],
        &[],
    );
    let mapping = map(schema, "test", Options::default());
    assert_eq!(names(mapping.config()), object(&[("api_key", "apiKey")]));
    let ds = mapping.data_source("test_thing").expect("mapped");
    assert_eq!(
        names(&ds.fields),
        object(&[("filter_value", "filterValues")])
    );
}
