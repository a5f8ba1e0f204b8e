//! Types, nesting, required/optional, state inputs, nested type names and their sharing
//! between inputs and outputs, secrets, write-only attributes, deprecation, data sources as
//! functions, config and the provider (§4.8–§4.12, §4.14, §4.16, §4.17).

use std::sync::Arc;

use serde_json::{Value, json};
use tfp_cty::{Attribute, AttributeType, NestedObject, NestingMode, ProviderSchema, Schema, Type};
use tfp_mapping::{Mapping, Options};
use tfp_schema::{ParameterValue, Source, package_schema};

use tfp_testkit::schema::{
    COMPUTED, DEPRECATED, OPTIONAL, REQUIRED, SENSITIVE, WRITE_ONLY, attr, block, documented,
    nested_block,
};

use crate::conformance::remote;

fn list(t: Type) -> Type {
    Type::List(Arc::new(t))
}

/// A provider `b2` that exercises the rules, modelled on the b2 golden.
fn b2() -> ProviderSchema {
    let period = block(
        &[
            ("duration", documented(Type::Number, OPTIONAL, "Duration.")),
            ("unit", documented(Type::String, OPTIONAL, "Unit.")),
        ],
        &[],
    );
    let retention = block(
        &[("mode", documented(Type::String, REQUIRED, "Mode."))],
        &[("period", nested_block(NestingMode::List, ..=1, period))],
    );
    let lock = block(
        &[("is_file_lock_enabled", attr(Type::Bool, OPTIONAL))],
        &[(
            "default_retention",
            nested_block(NestingMode::List, 1..=1, retention),
        )],
    );
    let cors = block(
        &[
            (
                "cors_rule_name",
                documented(Type::String, REQUIRED, "A name for humans."),
            ),
            ("allowed_origins", attr(list(Type::String), REQUIRED)),
            ("max_age_seconds", attr(Type::Number, OPTIONAL | COMPUTED)),
        ],
        &[],
    );
    let bucket = block(
        &[
            ("id", attr(Type::String, OPTIONAL | COMPUTED)),
            (
                "bucket_id",
                documented(Type::String, COMPUTED, "The ID of the bucket."),
            ),
            (
                "name",
                documented(Type::String, REQUIRED, "The bucket name."),
            ),
            (
                "secret_key",
                documented(Type::String, OPTIONAL | SENSITIVE, "A secret."),
            ),
            (
                "password_wo",
                documented(Type::String, OPTIONAL | WRITE_ONLY, "Write only."),
            ),
            (
                "old",
                documented(Type::String, OPTIONAL | DEPRECATED, "Old."),
            ),
            ("anything", attr(Type::Dynamic, OPTIONAL)),
            ("labels", attr(Type::Map(Arc::new(Type::Dynamic)), OPTIONAL)),
            (
                "options",
                attr(Type::Set(Arc::new(Type::String)), OPTIONAL | COMPUTED),
            ),
            (
                "endpoint",
                attr(
                    Type::Object {
                        attributes: [
                            ("host_name".to_owned(), Type::String),
                            ("ports".to_owned(), list(Type::Number)),
                        ]
                        .into(),
                        optional: ["ports".to_owned()].into(),
                    },
                    COMPUTED,
                ),
            ),
            (
                "rules",
                Attribute {
                    ty: AttributeType::Nested(NestedObject {
                        attributes: [(
                            "rule_name".to_owned(),
                            documented(Type::String, REQUIRED, "Rule."),
                        )]
                        .into(),
                        nesting: NestingMode::Map,
                    }),
                    optional: true,
                    ..Attribute::default()
                },
            ),
        ],
        &[
            (
                "cors_rule",
                nested_block(NestingMode::List, .., cors.clone()),
            ),
            (
                "file_lock_configuration",
                nested_block(NestingMode::Set, .., lock),
            ),
            (
                "default_server_side_encryption",
                nested_block(
                    NestingMode::List,
                    ..=1,
                    block(&[("algorithm", attr(Type::String, OPTIONAL))], &[]),
                ),
            ),
        ],
    );
    let data = block(
        &[
            (
                "bucket_name",
                documented(Type::String, REQUIRED, "Not shown."),
            ),
            ("id", attr(Type::String, OPTIONAL | COMPUTED)),
            (
                "cors_rules",
                attr(
                    list(Type::object([(
                        "allowed_origins".to_owned(),
                        list(Type::String),
                    )])),
                    COMPUTED,
                ),
            ),
            (
                "lifecycle",
                Attribute {
                    ty: AttributeType::Nested(NestedObject {
                        attributes: [(
                            "days".to_owned(),
                            documented(Type::Number, COMPUTED, "Days."),
                        )]
                        .into(),
                        nesting: NestingMode::List,
                    }),
                    computed: true,
                    ..Attribute::default()
                },
            ),
        ],
        &[],
    );
    let provider = block(
        &[
            (
                "application_key",
                documented(Type::String, OPTIONAL | SENSITIVE, "B2 Application Key"),
            ),
            ("endpoint", documented(Type::String, REQUIRED, "Endpoint")),
        ],
        &[(
            "nested",
            nested_block(
                NestingMode::Single,
                ..,
                block(
                    &[("inner_value", documented(Type::String, REQUIRED, "Inner."))],
                    &[],
                ),
            ),
        )],
    );
    ProviderSchema {
        provider: Schema {
            version: 0,
            block: provider,
        },
        resources: [(
            "b2_bucket".to_owned(),
            Schema {
                version: 0,
                block: bucket,
            },
        )]
        .into(),
        data_sources: [(
            "b2_bucket".to_owned(),
            Schema {
                version: 0,
                block: data,
            },
        )]
        .into(),
        ..ProviderSchema::default()
    }
}

/// The package schema of [`b2`].
pub(crate) fn b2_spec() -> tfp_schema::PackageSpec {
    let mapping = Mapping::new(b2(), "b2", "0.8.9", Options::default()).expect("maps");
    package_schema(
        &mapping,
        &remote("registry.opentofu.org/backblaze/b2", "0.8.9"),
        "2.0.0",
    )
    .expect("schema")
}

fn b2_schema() -> Value {
    b2_spec().to_value()
}

fn check(schema: &Value, pointer: &str, expected: Value) {
    assert_eq!(schema.pointer(pointer), Some(&expected), "at {pointer}");
}

const BUCKET: &str = "/resources/b2:index~1bucket:Bucket";

fn types(name: &str) -> String {
    format!("/types/b2:index~1{name}:{name}")
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/types/b2:index/{name}:{name}")})
}

#[test]
fn resource_properties_and_required_lists() {
    let s = b2_schema();
    check(
        &s,
        &format!("{BUCKET}/required"),
        json!(["bucketId", "endpoint", "b2BucketId", "name", "options"]),
    );
    // `name` is required by Terraform but autonamed, so it is not a required input.
    assert_eq!(s.pointer(&format!("{BUCKET}/requiredInputs")), None);
    let inputs = s
        .pointer(&format!("{BUCKET}/inputProperties"))
        .and_then(Value::as_object)
        .expect("inputs");
    let names: Vec<&str> = inputs.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "anything",
            "b2BucketId",
            "corsRules",
            "defaultServerSideEncryption",
            "fileLockConfigurations",
            "labels",
            "name",
            "old",
            "options",
            "passwordWo",
            "rules",
            "secretKey"
        ]
    );
    let p = |name: &str| format!("{BUCKET}/properties/{name}");
    check(&s, &p("anything"), json!({"$ref": "pulumi.json#/Any"}));
    check(
        &s,
        &p("labels"),
        json!({"type": "object", "additionalProperties": {"type": "string"}}),
    );
    check(
        &s,
        &p("options"),
        json!({"type": "array", "items": {"type": "string"}}),
    );
    check(
        &s,
        &p("secretKey"),
        json!({"type": "string", "description": "A secret.", "secret": true}),
    );
    check(
        &s,
        &p("passwordWo"),
        json!({
            "type": "string",
            "description": "**NOTE:** This field is write-only and its value will not be updated in state as part of read operations.\nWrite only.",
            "secret": true
        }),
    );
    check(
        &s,
        &p("old"),
        json!({"type": "string", "description": "Old.", "deprecationMessage": "Deprecated"}),
    );
    check(&s, &p("b2BucketId"), json!({"type": "string"}));
    check(&s, &p("endpoint"), reference("BucketEndpoint"));
    check(
        &s,
        &p("corsRules"),
        json!({"type": "array", "items": reference("BucketCorsRule")}),
    );
    check(
        &s,
        &p("defaultServerSideEncryption"),
        reference("BucketDefaultServerSideEncryption"),
    );
    check(
        &s,
        &p("fileLockConfigurations"),
        json!({"type": "array", "items": reference("BucketFileLockConfiguration")}),
    );
    check(
        &s,
        &p("rules"),
        json!({"type": "object", "additionalProperties": reference("BucketRules")}),
    );
    assert_eq!(
        s.pointer(&p("id")),
        None,
        "`id` is never a resource property"
    );

    let state = s
        .pointer(&format!("{BUCKET}/stateInputs"))
        .expect("state inputs");
    assert_eq!(
        state["description"],
        "Input properties used for looking up and filtering Bucket resources.\n"
    );
    assert_eq!(state.get("required"), None);
    assert_eq!(
        state["properties"].as_object().map(|m| m.len()),
        Some(14),
        "every attribute, the renamed `id` included"
    );
}

#[test]
fn nested_types_are_named_shared_and_flattened() {
    let s = b2_schema();
    check(
        &s,
        &types("BucketCorsRule"),
        json!({
            "properties": {
                "allowedOrigins": {"type": "array", "items": {"type": "string"}},
                "corsRuleName": {"type": "string", "description": "A name for humans.\n"},
                "maxAgeSeconds": {"type": "number"}
            },
            "type": "object",
            "required": ["allowedOrigins", "corsRuleName"],
            "language": {"nodejs": {"requiredOutputs": ["allowedOrigins", "corsRuleName", "maxAgeSeconds"]}}
        }),
    );
    check(
        &s,
        &types("BucketFileLockConfiguration"),
        json!({
            "properties": {
                "defaultRetention": reference("BucketFileLockConfigurationDefaultRetention"),
                "isFileLockEnabled": {"type": "boolean"}
            },
            "type": "object",
            "required": ["defaultRetention"]
        }),
    );
    check(
        &s,
        &types("BucketFileLockConfigurationDefaultRetention"),
        json!({
            "properties": {
                "mode": {"type": "string", "description": "Mode.\n"},
                "period": reference("BucketFileLockConfigurationDefaultRetentionPeriod")
            },
            "type": "object",
            "required": ["mode"]
        }),
    );
    check(
        &s,
        &format!(
            "{}/properties/unit",
            types("BucketFileLockConfigurationDefaultRetentionPeriod")
        ),
        json!({"type": "string", "description": "Unit.\n"}),
    );
    check(
        &s,
        &types("BucketEndpoint"),
        json!({
            "properties": {"hostName": {"type": "string"}, "ports": {"type": "array", "items": {"type": "number"}}},
            "type": "object",
            "required": ["hostName"]
        }),
    );
    check(
        &s,
        &format!("{}/required", types("BucketRules")),
        json!(["ruleName"]),
    );
}

#[test]
fn data_sources_are_functions() {
    let s = b2_schema();
    let f = "/functions/b2:index~1getBucket:getBucket";
    check(
        &s,
        &format!("{f}/inputs"),
        json!({
            "description": "A collection of arguments for invoking getBucket.\n",
            "properties": {"bucketName": {"type": "string"}, "id": {"type": "string"}},
            "type": "object",
            "required": ["bucketName"]
        }),
    );
    check(
        &s,
        &format!("{f}/outputs/required"),
        json!(["bucketName", "corsRules", "id", "lifecycles"]),
    );
    check(
        &s,
        &format!("{f}/outputs/description"),
        json!("A collection of values returned by getBucket.\n"),
    );
    check(
        &s,
        &format!("{f}/outputs/properties/corsRules"),
        json!({"type": "array", "items": reference("getBucketCorsRule")}),
    );
    check(
        &s,
        &types("getBucketCorsRule"),
        json!({
            "properties": {"allowedOrigins": {"type": "array", "items": {"type": "string"}}},
            "type": "object"
        }),
    );
    check(
        &s,
        &types("getBucketLifecycle"),
        json!({
            "properties": {"days": {"type": "number", "description": "Days.\n"}},
            "type": "object",
            "required": ["days"],
            "language": {"nodejs": {"requiredInputs": []}}
        }),
    );
}

#[test]
fn provider_and_config() {
    let s = b2_schema();
    check(
        &s,
        "/config",
        json!({
            "variables": {
                "applicationKey": {"type": "string", "description": "B2 Application Key", "secret": true},
                "endpoint": {"type": "string", "description": "Endpoint"},
                "nested": {"$ref": "#/types/b2:config/nested:nested"}
            },
            "defaults": ["endpoint"]
        }),
    );
    check(
        &s,
        "/types/b2:config~1nested:nested",
        json!({
            "properties": {"innerValue": {"type": "string", "description": "Inner.\n"}},
            "type": "object",
            "required": ["innerValue"],
            "language": {"nodejs": {"requiredInputs": []}}
        }),
    );
    let inputs = json!({
        "applicationKey": {"type": "string", "description": "B2 Application Key", "secret": true},
        "endpoint": {"type": "string", "description": "Endpoint"},
        "nested": reference("ProviderNested")
    });
    check(&s, "/provider/inputProperties", inputs.clone());
    check(&s, "/provider/properties", inputs);
    check(&s, "/provider/requiredInputs", json!(["endpoint"]));
    check(&s, "/provider/required", json!(["endpoint"]));
    check(
        &s,
        "/provider/methods",
        json!({"terraformConfig": "pulumi:providers:b2/terraformConfig"}),
    );
    check(
        &s,
        &types("ProviderNested"),
        json!({
            "properties": {"innerValue": {"type": "string", "description": "Inner.\n"}},
            "type": "object",
            "required": ["innerValue"],
            "language": {"nodejs": {"requiredOutputs": []}}
        }),
    );
}

#[test]
fn package_fields_follow_the_source() {
    let s = b2_schema();
    check(
        &s,
        "/repository",
        json!("https://github.com/backblaze/terraform-provider-b2"),
    );
    check(&s, "/publisher", json!("backblaze"));
    check(
        &s,
        "/language/go/importBasePath",
        json!("github.com/pulumi/pulumi-terraform-provider/sdks/go/b2/b2"),
    );

    // A local provider named otherwise: no repository or publisher, `terraform-providers`
    // in the attribution, the custom name in the Go path.
    let mapping = Mapping::new(
        b2(),
        "b2",
        "0.0.0",
        Options {
            provider_name: Some("bee".into()),
            ..Options::default()
        },
    )
    .expect("maps");
    let local = ParameterValue {
        source: Source::Local {
            path: "./terraform-provider-b2".into(),
        },
        includes: vec![],
        excludes: vec![],
        provider_name: "bee".into(),
        auto_names: vec![],
    };
    let s = package_schema(&mapping, &local, "v1.2.3")
        .expect("schema")
        .to_value();
    assert_eq!(s.get("repository"), None);
    assert_eq!(s.get("publisher"), None);
    check(&s, "/name", json!("bee"));
    check(
        &s,
        "/description",
        json!("A Pulumi provider dynamically bridged from b2."),
    );
    check(
        &s,
        "/attribution",
        json!(
            "This Pulumi package is based on the [`bee` Terraform Provider](https://github.com/terraform-providers/terraform-provider-bee)."
        ),
    );
    check(
        &s,
        "/language/go/importBasePath",
        json!("github.com/pulumi/pulumi-terraform-provider/sdks/go/bee/bee"),
    );
    check(
        &s,
        "/parameterization/baseProvider",
        json!({"name": "terraform-provider", "version": "1.2.3"}),
    );
    assert!(s.pointer("/resources/bee:index~1bucket:Bucket").is_some());
}

#[test]
fn names_nested_types_from_singular_titled_property_names() {
    let inner = || block(&[("x", attr(Type::String, OPTIONAL))], &[]);
    let cases = [
        (
            "cors_rule",
            NestingMode::List,
            0,
            "corsRules",
            "ResCorsRule",
        ),
        (
            "lifecycle_rule",
            NestingMode::Set,
            2,
            "lifecycleRules",
            "ResLifecycleRule",
        ),
        ("policy", NestingMode::List, 0, "policies", "ResPolicy"),
        ("address", NestingMode::List, 0, "addresses", "ResAddress"),
        ("status", NestingMode::List, 0, "statuses", "ResStatus"),
        ("index", NestingMode::List, 0, "indices", "ResIndex"),
        ("archive", NestingMode::List, 0, "arc", "ResArc"),
        (
            "encryption",
            NestingMode::List,
            1,
            "encryption",
            "ResEncryption",
        ),
        (
            "_private",
            NestingMode::Single,
            0,
            "_private",
            "Res_Private",
        ),
        ("settings", NestingMode::Map, 0, "settings", "ResSettings"),
    ];
    let resource = block(
        &[("id", attr(Type::String, COMPUTED))],
        &cases
            .iter()
            .map(|(key, nesting, max, _, _)| (*key, nested_block(*nesting, ..=*max, inner())))
            .collect::<Vec<_>>(),
    );
    let schema = ProviderSchema {
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
    let mapping = Mapping::new(schema, "test", "1.0.0", Options::default()).expect("maps");
    let spec = package_schema(
        &mapping,
        &remote("registry.opentofu.org/acme/test", "1.0.0"),
        "2.0.0",
    )
    .expect("schema")
    .to_value();
    for (key, _, _, property, type_name) in cases {
        let token = format!("test:index/{type_name}:{type_name}");
        let p = &spec["resources"]["test:index/res:Res"]["properties"][property];
        let reference = p
            .pointer("/items/$ref")
            .or(p.pointer("/additionalProperties/$ref"))
            .or(p.get("$ref"));
        assert_eq!(reference, Some(&json!(format!("#/types/{token}"))), "{key}");
        assert!(
            spec["types"].get(&token).is_some(),
            "{key}: {token} declared"
        );
    }
}
