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
