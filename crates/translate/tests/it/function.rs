//! Provider functions: positional arguments, failures, unknowns and results.

use serde_json::json;
use tfp_cty::{Function, Parameter, ProviderSchema, StringKind, Type, Value};
use tfp_mapping::{Mapping, Options};
use tfp_translate::{Failure, FunctionCall, function_call, function_result};

use crate::support::*;

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

fn function(return_type: Type) -> Function {
    Function {
        parameters: vec![
            parameter("input", Type::String, false),
            parameter("max_count", Type::Number, true),
        ],
        variadic_parameter: Some(parameter("rest", Type::String, false)),
        return_type,
        summary: String::new(),
        description: String::new(),
        description_kind: StringKind::Plain,
        deprecation_message: String::new(),
    }
}

fn mapped(f: &Function) -> Mapping {
    let schema = ProviderSchema {
        functions: [("echo".to_owned(), f.clone())].into(),
        ..ProviderSchema::default()
    };
    Mapping::new(schema, "test", "1.0.0", Options::default()).expect("maps")
}

fn call(args: serde_json::Value) -> FunctionCall {
    let f = function(Type::String);
    let m = mapped(&f);
    function_call(&f, m.function("echo").expect("mapped"), &props(args)).expect("no error")
}

#[test]
fn arguments_are_positional_with_variadic_elements_expanded() {
    assert_eq!(
        call(json!({"input": {"<secret>": "a"}, "maxCount": "2", "rest": ["x", "y"]})),
        FunctionCall::Call(vec![
            Value::string("a"),
            Value::number(2),
            Value::string("x"),
            Value::string("y"),
        ])
    );
    assert_eq!(
        call(json!({"input": "a", "maxCount": null})),
        FunctionCall::Call(vec![Value::string("a"), Value::null(Type::Number)])
    );
}

#[test]
fn unknown_arguments_make_every_result_unknown() {
    assert_eq!(
        call(json!({"input": "<unknown>"})),
        FunctionCall::Unknown(props(json!({"result": "<unknown>"})))
    );
    let f = function(ty(r#"["object",{"a_b":"string","n":"number"}]"#));
    let m = mapped(&f);
    let got = function_call(
        &f,
        m.function("echo").expect("mapped"),
        &props(json!({"rest": ["<unknown>"]})),
    )
    .expect("no error");
    assert_eq!(
        got,
        FunctionCall::Unknown(props(json!({"aB": "<unknown>", "n": "<unknown>"})))
    );
}

#[test]
fn bad_arguments_are_failures() {
    let failure = |property: &str, reason: &str| Failure {
        property: property.to_owned(),
        reason: reason.to_owned(),
    };
    assert_eq!(
        call(json!({"input": null, "bogus": 1, "rest": ["x", null]})),
        FunctionCall::Failures(vec![
            failure("bogus", r#"unexpected argument for function "echo""#),
            failure(
                "input",
                r#"function "echo" requires a non-null value for argument "input""#
            ),
            failure(
                "maxCount",
                r#"Not enough function arguments: function "echo" expects 2 argument(s). Missing value for "maxCount"."#
            ),
            failure(
                "rest",
                r#"function "echo" requires a non-null value for argument "rest""#
            ),
        ])
    );
    let f = function(Type::String);
    let m = mapped(&f);
    let err = function_call(
        &f,
        m.function("echo").expect("mapped"),
        &props(json!({"input": "a", "rest": "x"})),
    )
    .expect_err("rest must be a list");
    assert!(err.to_string().contains("`rest`"), "{err}");
}

#[test]
fn results_are_wrapped_unless_objects() {
    let f = function(Type::String);
    let m = mapped(&f);
    let got = function_result(
        &f,
        m.function("echo").expect("mapped"),
        &Value::string("HELLO"),
    )
    .expect("decodes");
    assert_eq!(got, props(json!({"result": "HELLO"})));
    let got = function_result(
        &f,
        m.function("echo").expect("mapped"),
        &Value::null(Type::String),
    )
    .expect("decodes");
    assert!(got.is_empty());

    let object = ty(r#"["object",{"a_b":"string","n":"number"}]"#);
    let f = function(object.clone());
    let m = mapped(&f);
    let value = cty(&object, json!({"a_b": "x"}));
    let got = function_result(&f, m.function("echo").expect("mapped"), &value).expect("decodes");
    assert_eq!(got, props(json!({"aB": "x"})));
}

#[test]
fn a_missing_argument_is_a_failure_as_in_terraform() {
    // Every parameter must be given, null where it allows null (`maxCount`), as Terraform
    // requires.
    assert_eq!(
        call(json!({"maxCount": 1})),
        FunctionCall::Failures(vec![Failure {
            property: "input".to_owned(),
            reason: "Not enough function arguments: function \"echo\" expects 2 argument(s). \
                     Missing value for \"input\"."
                .to_owned(),
        }])
    );
}

#[test]
fn errors_about_secret_arguments_quote_none() {
    let f = function(Type::String);
    let m = mapped(&f);
    let err = function_call(
        &f,
        m.function("echo").expect("mapped"),
        &props(json!({"input": "a", "maxCount": {"<secret>": "many-s3cr3t"}})),
    )
    .expect_err("not a number");
    assert_eq!(
        err.to_string(),
        "invalid value at `maxCount`: expected a number, found string <redacted>"
    );
}
