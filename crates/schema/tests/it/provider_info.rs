//! GetMapping's data (`tfp_schema::provider_info`), where it differs from the Go binary's on
//! purpose.

use serde_json::Value as Json;
use tfp_cty::{Attribute, AttributeType, Block, ProviderSchema, Schema, Type};
use tfp_mapping::{Mapping, Options};

/// The Go binary marks a resource's top-level write-only field `secret` in its mapping only when
/// the resource's field map already holds an entry (here the autonamed `name`): `propertyVariable`
/// (`pkg/tfgen/generate.go`) writes the flag into a map it otherwise drops. We mark none; the
/// package schema marks such a field secret on both sides.
#[test]
fn write_only_fields_are_not_marked_secret_in_the_mapping() {
    let string = |write_only| Attribute {
        ty: AttributeType::Type(Type::String),
        optional: true,
        write_only,
        ..Attribute::default()
    };
    let mut block = Block::default();
    block.attributes.insert("name".to_owned(), string(false));
    block
        .attributes
        .insert("password_wo".to_owned(), string(true));
    let mut schema = ProviderSchema::default();
    schema
        .resources
        .insert("test_thing".to_owned(), Schema { version: 0, block });
    let mapping = Mapping::new(schema, "test", "1.0.0", Options::default()).expect("maps");
    let info: Json =
        serde_json::from_slice(&tfp_schema::provider_info::provider_info_json(&mapping))
            .expect("JSON");
    let fields = &info["resources"]["test_thing"]["fields"];
    assert!(fields["name"]["default"]["autonamed"] == true, "{fields}");
    assert!(fields.get("password_wo").is_none(), "{fields}");
}

/// A provider configuration attribute named `pulumi`, which every Pulumi schema object reserves,
/// is `pulumiInfo`, and one named `urn`, which the provider resource has already, `<pkg>Urn`, as
/// a resource's are: the Go binary keeps the names, and `pulumi package gen-sdk` refuses its
/// schema ("pulumi is a reserved property name"), or TypeScript its SDK.
#[test]
fn provider_configuration_attributes_named_pulumi_or_urn_are_renamed() {
    let mut provider = Block::default();
    let string = Attribute {
        ty: AttributeType::Type(Type::String),
        optional: true,
        ..Attribute::default()
    };
    for name in ["pulumi", "urn", "region"] {
        provider.attributes.insert(name.to_owned(), string.clone());
    }
    let schema = ProviderSchema {
        provider: Schema {
            version: 0,
            block: provider,
        },
        ..ProviderSchema::default()
    };
    let mapping = Mapping::new(schema, "test", "1.0.0", Options::default()).expect("maps");
    let spec = tfp_schema::package_schema(
        &mapping,
        &crate::conformance::remote("registry.opentofu.org/acme/test", "1.0.0"),
        "2.0.0",
    )
    .expect("schema");
    let json = spec.to_value();
    for (tf, pulumi) in [
        ("pulumi", "pulumiInfo"),
        ("urn", "testUrn"),
        ("region", "region"),
    ] {
        assert_eq!(mapping.config().pulumi_name(tf), pulumi);
        assert_eq!(
            mapping.config().by_pulumi(pulumi).map(|(tf, _)| tf),
            Some(tf),
            "values translate back to the Terraform name"
        );
        for (place, properties) in [
            ("config", &json["config"]["variables"]),
            ("provider", &json["provider"]["inputProperties"]),
        ] {
            assert!(properties[pulumi].is_object(), "{place}: {properties}");
            assert!(
                tf == pulumi || properties.get(tf).is_none(),
                "{place}: {properties}"
            );
        }
    }
}
