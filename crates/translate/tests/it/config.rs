//! Provider configuration: the JSON-in-strings encoding both ways, `terraformConfig`, and
//! secrets marked by the schema.

use serde_json::json;
use tfp_cty::{Block, NestingMode, Type};
use tfp_translate::{
    ObjectSchema, fold_config, legacy_config, mark_secrets, terraform_config, unfold_config,
};
use tfp_values::PropertyValue;

use crate::support::*;

fn config_schema() -> Block {
    block(
        &[
            ("region", attr(Type::String, OPTIONAL)),
            ("max_retries", attr(Type::Number, OPTIONAL)),
            ("skip", attr(Type::Bool, OPTIONAL)),
            ("endpoints", attr(ty(r#"["list","string"]"#), OPTIONAL)),
            ("tags", attr(ty(r#"["map","string"]"#), OPTIONAL)),
            ("api_token", attr(Type::String, OPTIONAL | SENSITIVE)),
        ],
        &[(
            "assume_role",
            nested_block(
                NestingMode::Single,
                ..,
                block(&[("role_arn", attr(Type::String, OPTIONAL))], &[]),
            ),
        )],
    )
}

fn check_unfold(input: serde_json::Value, expected: serde_json::Value) {
    let m = mapping(block(&[], &[]), config_schema());
    let got = unfold_config(&ObjectSchema::config(&m), props(input)).expect("unfolds");
    assert_eq!(got, props(expected));
}

fn check_fold(input: serde_json::Value, expected: serde_json::Value) {
    let m = mapping(block(&[], &[]), config_schema());
    let got = fold_config(&ObjectSchema::config(&m), props(input)).expect("folds");
    assert_eq!(got, props(expected));
}

#[test]
fn strings_for_other_types_are_json() {
    check_unfold(
        json!({"region": "us", "maxRetries": "5", "skip": "true", "endpoints": "[\"a\"]",
               "tags": "{\"k\":\"v\"}", "assumeRole": "{\"roleArn\":\"x\"}", "other": "7",
               "apiToken": "[1]"}),
        json!({"region": "us", "maxRetries": 5, "skip": true, "endpoints": ["a"],
               "tags": {"k": "v"}, "assumeRole": {"roleArn": "x"}, "other": "7",
               "apiToken": "[1]"}),
    );
    // "" is the zero value of the type; values that are not strings pass.
    check_unfold(
        json!({"maxRetries": "", "skip": "", "endpoints": "", "tags": "", "assumeRole": "",
               "region": "", "other": 3}),
        json!({"maxRetries": 0, "skip": false, "endpoints": [], "tags": {}, "assumeRole": {},
               "region": "", "other": 3}),
    );
    // Secrets inside the JSON are honoured.
    check_unfold(
        json!({"endpoints": r#"[{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","value":"s"},"t"]"#}),
        json!({"endpoints": [{"<secret>": "s"}, "t"]}),
    );
    let m = mapping(block(&[], &[]), config_schema());
    let err = unfold_config(
        &ObjectSchema::config(&m),
        props(json!({"maxRetries": "abc"})),
    )
    .expect_err("not JSON");
    assert!(err.to_string().contains("`maxRetries`"), "{err}");
}

#[test]
fn checked_configuration_is_folded_back() {
    check_fold(
        json!({"region": "us", "maxRetries": 5, "skip": true, "endpoints": ["a"], "tags": null,
               "assumeRole": {"field1": "true", "field2": false}, "apiToken": {"<secret>": "t"},
               "other": 7, "version": "1.0.0"}),
        json!({"region": "us", "maxRetries": "5", "skip": "true", "endpoints": "[\"a\"]",
               "tags": "", "assumeRole": "{\"field1\":\"true\",\"field2\":false}",
               "apiToken": {"<secret>": "t"}, "other": 7, "version": "1.0.0"}),
    );
    // A nested secret makes the whole encoded value secret; an unknown makes it unknown.
    check_fold(
        json!({"endpoints": [{"<secret>": "a"}, "b"], "tags": {"k": "<unknown>"}, "maxRetries": 1e21}),
        json!({"endpoints": {"<secret>": "[\"a\",\"b\"]"}, "tags": "<unknown>", "maxRetries": "1e+21"}),
    );
}

#[test]
fn terraform_config_is_the_secret_json_of_the_configuration() {
    let m = mapping(block(&[], &[]), config_schema());
    let got = terraform_config(
        &ObjectSchema::config(&m),
        &props(json!({"region": "us", "maxRetries": 5, "assumeRole": {"roleArn": "x"}})),
    )
    .expect("known configuration");
    let s = |v: serde_json::Value| json!({"<secret>": v});
    assert_eq!(
        got,
        props(json!({"result": {
            "region": s(json!("us")), "max_retries": s(json!(5)),
            "assume_role": s(json!({"role_arn": "x"})), "api_token": s(json!(null)),
            "endpoints": s(json!(null)), "skip": s(json!(null)), "tags": s(json!(null))
        }}))
    );
    let err = terraform_config(
        &ObjectSchema::config(&m),
        &props(json!({"region": "<unknown>"})),
    )
    .expect_err("unknowns are refused");
    assert!(err.to_string().starts_with(
        "It looks like you're trying to use the provider's terraformConfig function."
    ));
}

#[test]
fn sensitive_values_are_marked_secret() {
    let m = mapping(crate::translate::schema(), block(&[], &[]));
    let got = mark_secrets(
        &resource(&m),
        props(
            json!({"password": "p", "secretToken": "t", "nestedObj": {"innerSecret": "s", "innerValue": "v"},
                     "nestedItems": [{"innerSecret": null}], "name": "n", "bogus": "b",
                     "config": {"mode": "m"}}),
        ),
    );
    assert_eq!(
        got,
        props(
            json!({"password": {"<secret>": "p"}, "secretToken": {"<secret>": "t"},
                     "nestedObj": {"innerSecret": {"<secret>": "s"}, "innerValue": "v"},
                     "nestedItems": [{"innerSecret": {"<secret>": null}}], "name": "n",
                     "bogus": "b", "config": {"mode": "m"}})
        )
    );
    // Secrets are not wrapped twice; unknowns are wrapped as Go wraps them.
    let got = mark_secrets(&resource(&m), props(json!({"password": {"<secret>": "p"}})));
    assert_eq!(got["password"], pv(json!({"<secret>": "p"})));
    let got = mark_secrets(&resource(&m), props(json!({"password": "<unknown>"})));
    assert_eq!(
        got["password"],
        PropertyValue::secret(PropertyValue::unknown())
    );
}

#[test]
fn legacy_variables_are_json_or_text() {
    let props = legacy_config([
        ("pyvider:config:apiRetries", "3"),
        ("pyvider:apiEndpoint", "http://x"),
    ]);
    assert_eq!(props["apiRetries"], PropertyValue::Number(3.0));
    assert_eq!(
        props["apiEndpoint"],
        PropertyValue::String("http://x".into())
    );
}

#[test]
fn unknown_configuration_keys_fail_and_reserved_ones_do_not() {
    let m = mapping(block(&[], &[]), config_schema());
    let schema = ObjectSchema::config(&m);
    let subject = tfp_translate::failures::Subject::provider(
        "urn:pulumi:test::proj::pulumi:providers:test::explicit",
        "explicit",
        "test",
    );
    let config = props(json!({
        "region": "eu-west-1",
        "bogusKey": "x",
        "version": "1.0.0",
        "pluginDownloadURL": "https://example.com",
        "__internal": "y",
    }));
    let reasons: Vec<String> =
        tfp_translate::failures::unknown_config_keys(subject, &schema, &config)
            .into_iter()
            .map(|failure| failure.reason)
            .collect();
    assert_eq!(
        reasons,
        vec![
            "could not validate provider configuration: Invalid or unknown key. Examine values at \
             'explicit.bogusKey'."
        ]
    );
}

#[test]
fn renamed_configuration_keys_are_quoted_both_ways() {
    let m = mapping(block(&[], &[]), config_schema());
    let renames = tfp_translate::config_key_renames(&m);
    assert!(renames.contains(&("\"max_retries\"".to_owned(), "\"maxRetries\"".to_owned())));
    assert!(renames.contains(&("\"api_token\"".to_owned(), "\"apiToken\"".to_owned())));
    // A key whose name does not change is not rewritten.
    assert!(!renames.iter().any(|(from, _)| from == "\"region\""));
}
