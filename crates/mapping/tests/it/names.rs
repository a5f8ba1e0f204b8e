//! Property names (§4.7) and token camel-casing (§4.4).

use std::sync::Arc;

use tfp_cty::{NestingMode, Type};
use tfp_mapping::{Options, camel_case_property, camel_case_token, upper_camel_case_token};

use crate::support::map;
use tfp_testkit::schema::{OPTIONAL, attr, block, nested_attr, nested_block, provider, with_id};

#[test]
fn camel_cases_property_names() {
    for (tf, pulumi) in [
        ("min_upper", "minUpper"),
        ("b64_std", "b64Std"),
        ("_leading", "_leading"),
        ("__two_leading", "__twoLeading"),
        ("trailing_", "trailing_"),
        ("a__b", "aB"),
        ("with-hyphen_x", "with-hyphenX"),
        ("digit_1", "digit1"),
        ("Upper_Case", "UpperCase"),
        ("already", "already"),
        ("_", "__"),
        ("é_x", "éX"),
        ("x_é_ß", "xéß"),
    ] {
        assert_eq!(camel_case_property(tf), pulumi, "{tf}");
    }
}

#[test]
fn camel_cases_tokens() {
    for (tf, lower, upper) in [
        ("my-token", "myToken", "MyToken"),
        ("_string", "String", "String"),
        (
            "many-hyphenated-blocks",
            "manyHyphenatedBlocks",
            "ManyHyphenatedBlocks",
        ),
        (
            "bucket_file_version",
            "bucketFileVersion",
            "BucketFileVersion",
        ),
        ("echo_upper", "echoUpper", "EchoUpper"),
        ("a__b_", "aB", "AB"),
    ] {
        assert_eq!(camel_case_token(tf), lower, "{tf}");
        assert_eq!(upper_camel_case_token(tf), upper, "{tf}");
    }
}

/// The Pulumi names the mapping gives each top-level key of resource `test_res`.
fn check(resource: tfp_cty::Block, expected: &[(&str, &str)]) {
    let mapping = map(
        provider(&[("test_res", with_id(resource))], &[]),
        "test",
        Options::default(),
    );
    let fields = &mapping.resource("test_res").expect("mapped").fields;
    for (tf, pulumi) in expected {
        assert_eq!(
            fields.get(tf).map(|f| f.name.as_str()),
            Some(*pulumi),
            "{tf}"
        );
        assert_eq!(
            fields.by_pulumi(pulumi).map(|(k, _)| k),
            Some(*tf),
            "{pulumi}"
        );
    }
}

#[test]
fn pluralizes_lists_and_sets_only() {
    let inner = block(&[("x", attr(Type::String, OPTIONAL))], &[]);
    check(
        block(
            &[
                ("tag", attr(Type::List(Arc::new(Type::String)), OPTIONAL)),
                ("zone", attr(Type::Set(Arc::new(Type::String)), OPTIONAL)),
                ("label", attr(Type::Map(Arc::new(Type::String)), OPTIONAL)),
                ("name_prefix", attr(Type::String, OPTIONAL)),
                (
                    "rule",
                    nested_attr(NestingMode::List, inner.clone(), OPTIONAL),
                ),
                (
                    "setting",
                    nested_attr(NestingMode::Single, inner.clone(), OPTIONAL),
                ),
            ],
            &[
                (
                    "cors_rule",
                    nested_block(NestingMode::List, .., inner.clone()),
                ),
                (
                    "lifecycle_rule",
                    nested_block(NestingMode::Set, ..=10, inner.clone()),
                ),
                (
                    "encryption",
                    nested_block(NestingMode::List, ..=1, inner.clone()),
                ),
                ("timeouts", nested_block(NestingMode::Single, .., inner)),
            ],
        ),
        &[
            ("tag", "tags"),
            ("zone", "zones"),
            ("label", "label"),
            ("name_prefix", "namePrefix"),
            ("rule", "rules"),
            ("setting", "setting"),
            ("cors_rule", "corsRules"),
            ("lifecycle_rule", "lifecycleRules"),
            ("encryption", "encryption"),
            ("timeouts", "timeouts"),
        ],
    );
}

#[test]
fn keeps_singular_when_the_plural_is_taken() {
    check(
        block(
            &[
                ("rule", attr(Type::List(Arc::new(Type::String)), OPTIONAL)),
                ("rules", attr(Type::String, OPTIONAL)),
            ],
            &[],
        ),
        &[("rule", "rule"), ("rules", "rules")],
    );
}

#[test]
fn trims_a_trailing_colon() {
    check(
        block(&[("odd_key:", attr(Type::String, OPTIONAL))], &[]),
        &[("odd_key:", "oddKey")],
    );
}

#[test]
fn a_shared_pulumi_name_belongs_to_the_last_key_in_sorted_order() {
    // `a__b` sorts before `a_b`; both are `aB`. Keys before and after check the lookup's edges.
    let resource = block(
        &[
            ("a_b", attr(Type::String, OPTIONAL)),
            ("a__b", attr(Type::String, OPTIONAL)),
            ("z_last", attr(Type::String, OPTIONAL)),
            ("_first", attr(Type::String, OPTIONAL)),
        ],
        &[],
    );
    let mapping = map(
        provider(&[("test_res", with_id(resource))], &[]),
        "test",
        Options::default(),
    );
    let fields = &mapping.resource("test_res").expect("mapped").fields;
    assert_eq!(fields.get("a__b").map(|f| f.name.as_str()), Some("aB"));
    assert_eq!(fields.by_pulumi("aB").map(|(k, _)| k), Some("a_b"));
    assert_eq!(fields.by_pulumi("zLast").map(|(k, _)| k), Some("z_last"));
    assert_eq!(fields.by_pulumi("_first").map(|(k, _)| k), Some("_first"));
    assert_eq!(fields.by_pulumi("missing"), None);
    let keys: Vec<&str> = fields.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["_first", "a__b", "a_b", "id", "z_last"]);
}
