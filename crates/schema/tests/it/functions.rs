//! Provider-defined functions (§4.15), and the `terraformConfig` method (§4.17).

use std::sync::Arc;

use serde_json::json;
use tfp_cty::{Function, Parameter, ProviderSchema, Schema, StringKind, Type};
use tfp_mapping::{Mapping, Options};
use tfp_schema::{SchemaError, package_schema};

use crate::conformance::remote;

fn parameter(name: &str, ty: Type, allow_null: bool) -> Parameter {
    Parameter {
        name: name.to_owned(),
        ty,
        allow_null_value: allow_null,
        allow_unknown_values: false,
        description: String::new(),
        description_kind: StringKind::Plain,
    }
}

fn function(
    parameters: Vec<Parameter>,
    variadic: Option<Parameter>,
    return_type: Type,
) -> Function {
    Function {
        parameters,
        variadic_parameter: variadic,
        return_type,
        summary: String::new(),
        description: String::new(),
        description_kind: StringKind::Plain,
        deprecation_message: String::new(),
    }
}

fn schema_with(functions: Vec<(&str, Function)>, data_sources: &[&str]) -> ProviderSchema {
    ProviderSchema {
        functions: functions
            .into_iter()
            .map(|(k, f)| (k.to_owned(), f))
            .collect(),
        data_sources: data_sources
            .iter()
            .map(|d| ((*d).to_owned(), Schema::default()))
            .collect(),
        ..ProviderSchema::default()
    }
}

fn generate(schema: ProviderSchema) -> Result<tfp_schema::PackageSpec, SchemaError> {
    let mapping = Mapping::new(schema, "test", "1.0.0", Options::default()).expect("maps");
    package_schema(
        &mapping,
        &remote("registry.opentofu.org/acme/test", "1.0.0"),
        "2.0.0",
    )
}

#[test]
fn positional_arguments_and_direct_results() {
    let echo = Function {
        description: "Upper-cases.".into(),
        ..function(
            vec![parameter("input", Type::String, false)],
            None,
            Type::String,
        )
    };
    let spec = generate(schema_with(vec![("echo_upper", echo)], &[])).expect("schema");
    let echo = spec
        .functions
        .get("test:index/echoUpper:echoUpper")
        .expect("the function is in the schema");
    assert_eq!(
        String::from_utf8(echo.as_bytes().to_vec()).expect("utf-8"),
        r#"{"description":"Upper-cases.\n","inputs":{"properties":{"input":{"type":"string"}},"type":"object","required":["input"]},"multiArgumentInputs":["input"],"outputs":{"type":"string"}}"#
    );
}

/// A provider with the functions of these tests.
pub(crate) fn functions_spec() -> tfp_schema::PackageSpec {
    generate(schema_with(
        vec![
            ("merge_things", merge_things()),
            ("echo", function(vec![], None, Type::Bool)),
        ],
        &[],
    ))
    .expect("schema")
}

fn merge_things() -> Function {
    Function {
        summary: "Merges.".into(),
        description: "Longer.".into(),
        deprecation_message: "Use other.".into(),
        ..function(
            vec![
                parameter("", Type::object([("a_b".to_owned(), Type::String)]), true),
                parameter("x", Type::Number, true),
                parameter("x", Type::Bool, false),
            ],
            Some(parameter("rest", Type::String, true)),
            Type::Object {
                attributes: [
                    ("some_list".to_owned(), Type::List(Arc::new(Type::String))),
                    ("n".to_owned(), Type::Number),
                ]
                .into(),
                optional: ["n".to_owned()].into(),
            },
        )
    }
}

#[test]
fn names_objects_variadics_and_optional_arguments() {
    let merge = merge_things();
    let tail = function(
        vec![
            parameter("a", Type::String, false),
            parameter("b", Type::String, true),
        ],
        None,
        Type::Dynamic,
    );
    let spec = generate(schema_with(
        vec![("merge_things", merge), ("tail", tail)],
        &[],
    ))
    .expect("schema");
    let value = spec.to_value();
    let merge = &value["functions"]["test:index/mergeThings:mergeThings"];
    assert_eq!(merge["description"], "Merges.\n\nLonger.\n");
    assert_eq!(merge["deprecationMessage"], "Use other.");
    assert_eq!(
        merge["multiArgumentInputs"],
        json!(["arg1", "x", "x2", "rest"])
    );
    assert_eq!(merge["inputs"]["required"], json!(["arg1", "x", "x2"]));
    assert_eq!(
        merge["inputs"]["properties"]["arg1"],
        json!({"$ref": "#/types/test:index/mergeThingsArg1:mergeThingsArg1"})
    );
    assert_eq!(
        merge["inputs"]["properties"]["rest"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        value["types"]["test:index/mergeThingsArg1:mergeThingsArg1"],
        json!({"properties": {"aB": {"type": "string"}}, "type": "object", "required": ["aB"]})
    );
    assert_eq!(
        merge["outputs"],
        json!({"properties": {"n": {"type": "number"}, "someLists": {"type": "array", "items": {"type": "string"}}}, "required": ["someLists"], "type": "object"})
    );
    let tail = &value["functions"]["test:index/tail:tail"];
    assert_eq!(tail["inputs"]["required"], json!(["a"]));
    assert_eq!(tail["outputs"], json!({"$ref": "pulumi.json#/Any"}));
}

#[test]
fn refuses_tuples_and_token_collisions() {
    let tuple = function(vec![], None, Type::Tuple(vec![Type::String]));
    let err = generate(schema_with(vec![("tupled", tuple)], &[])).expect_err("tuples are refused");
    // Each cause once, though the failure is wrapped in the function's name.
    let text = tfp_echo::chain(&err);
    assert_eq!(
        text.matches("tuple types are not supported").count(),
        1,
        "{text}"
    );

    // A resource's tuple attribute is an error naming it; the Go binary panics in GetSchema.
    let mut tupled = schema_with(vec![], &[]);
    let attribute = tfp_cty::Attribute {
        ty: tfp_cty::AttributeType::Type(Type::Tuple(vec![Type::String, Type::Number])),
        optional: true,
        ..tfp_cty::Attribute::default()
    };
    let mut block = tfp_cty::Block::default();
    block.attributes.insert("pair".to_owned(), attribute);
    tupled
        .resources
        .insert("test_tupled".to_owned(), Schema { version: 0, block });
    let err = generate(tupled).expect_err("tuples are refused");
    let text = tfp_echo::chain(&err);
    assert!(
        text.contains("test_tupled")
            && text.contains("property \"pair\": tuple types are not supported"),
        "{text}"
    );

    let echo = function(vec![], None, Type::String);
    let err =
        generate(schema_with(vec![("get_echo", echo)], &["test_echo"])).expect_err("collision");
    assert!(
        tfp_echo::chain(&err)
            .contains("are both mapped to the Pulumi token \"test:index/getEcho:getEcho\""),
        "{err}"
    );
}

#[test]
fn every_provider_has_terraform_config() {
    let spec = generate(ProviderSchema::default()).expect("schema");
    let value = spec.to_value();
    assert_eq!(
        value["functions"]["pulumi:providers:test/terraformConfig"],
        json!({
            "description": "This function returns a Terraform config object with terraform-namecased keys,to be used with the Terraform Module Provider.",
            "inputs": {
                "properties": {"__self__": {"type": "ref", "$ref": "#/provider"}},
                "type": "pulumi:providers:test/terraformConfig",
                "required": ["__self__"]
            },
            "outputs": {
                "properties": {"result": {"additionalProperties": {"$ref": "pulumi.json#/Any"}, "type": "object"}},
                "required": ["result"],
                "type": "object"
            }
        })
    );
}
