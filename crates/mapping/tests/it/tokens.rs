//! Tokens (§4.2–§4.4, §4.15): prefix inference, camel-casing, `get`, digits, dedup, the
//! provider fix-up, include/exclude and `--provider-name`.

use std::collections::BTreeMap;

use tfp_cty::{Function, ProviderSchema, Type};
use tfp_mapping::{Invoke, Mapping, Options, infer_prefix};

use tfp_testkit::schema::{block, provider, with_id};

fn schema(resources: &[&str], data_sources: &[&str], functions: &[&str]) -> ProviderSchema {
    let empty = |names: &[&str]| -> Vec<(String, tfp_cty::Block)> {
        names
            .iter()
            .map(|n| ((*n).to_owned(), with_id(block(&[], &[]))))
            .collect()
    };
    let resources = empty(resources);
    let data_sources = empty(data_sources);
    let mut schema = provider(&as_refs(&resources), &as_refs(&data_sources));
    schema.functions = functions
        .iter()
        .map(|n| {
            let f = Function {
                parameters: vec![],
                variadic_parameter: None,
                return_type: Type::String,
                summary: String::new(),
                description: String::new(),
                description_kind: tfp_cty::StringKind::Plain,
                deprecation_message: String::new(),
            };
            ((*n).to_owned(), f)
        })
        .collect();
    schema
}

fn as_refs(v: &[(String, tfp_cty::Block)]) -> Vec<(&str, tfp_cty::Block)> {
    v.iter().map(|(k, b)| (k.as_str(), b.clone())).collect()
}

/// Maps `schema` as provider `test` and compares every Terraform name's token.
fn check(schema: ProviderSchema, options: Options, expected: &[(&str, &str)]) {
    let mapping = Mapping::new(schema, "test", "1.0.0", options).expect("the mapping builds");
    let mut actual = BTreeMap::new();
    for r in mapping.resources() {
        actual.insert(r.tf_name.clone(), r.token.clone());
        assert_eq!(
            mapping.resource_by_token(&r.token).map(|m| &m.tf_name),
            Some(&r.tf_name)
        );
    }
    for d in mapping.data_sources() {
        actual.insert(d.tf_name.clone(), d.token.clone());
        assert!(
            matches!(mapping.invoke_by_token(&d.token), Some(Invoke::DataSource(m)) if m.tf_name == d.tf_name)
        );
    }
    for f in mapping.functions() {
        actual.insert(f.tf_name.clone(), f.token.clone());
        assert!(
            matches!(mapping.invoke_by_token(&f.token), Some(Invoke::Function(m)) if m.tf_name == f.tf_name)
        );
    }
    let expected: BTreeMap<String, String> = expected
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    assert_eq!(actual, expected);
}

#[test]
fn infers_the_prefix() {
    for (names, prefix) in [
        (&["prefix_res1", "prefix_res2"][..], "prefix"),
        (&["test_res1", "test2_res"][..], ""),
        (&["aws_s3_bucket", "aws_instance", "noprefix"][..], "aws"),
        (&["_odd", "a_b"][..], "a"),
        (&[][..], ""),
    ] {
        assert_eq!(infer_prefix(names.iter().copied()), prefix, "{names:?}");
    }
}

#[test]
fn maps_resources_data_sources_and_functions() {
    check(
        schema(
            &[
                "test_string",
                "test_bucket_file_version",
                "test_my-token",
                "test_many-hyphenated-blocks",
            ],
            &["test_bucket_file_signed_url", "test_bucket"],
            &["echo_upper", "parse-arn"],
        ),
        Options::default(),
        &[
            ("test_string", "test:index/string:String"),
            (
                "test_bucket_file_version",
                "test:index/bucketFileVersion:BucketFileVersion",
            ),
            ("test_my-token", "test:index/myToken:MyToken"),
            (
                "test_many-hyphenated-blocks",
                "test:index/manyHyphenatedBlocks:ManyHyphenatedBlocks",
            ),
            (
                "test_bucket_file_signed_url",
                "test:index/getBucketFileSignedUrl:getBucketFileSignedUrl",
            ),
            ("test_bucket", "test:index/getBucket:getBucket"),
            ("echo_upper", "test:index/echoUpper:echoUpper"),
            ("parse-arn", "test:index/parseArn:parseArn"),
        ],
    );
}

#[test]
fn spells_out_digits_after_the_fallback_prefix() {
    // The prefixes disagree, so the prefix falls back to the package name `test`, which
    // prefixes `test2_res` as plain text.
    check(
        schema(&["test_res1", "test2_res"], &[], &["2fa_check"]),
        Options::default(),
        &[
            ("test_res1", "test:index/res1:Res1"),
            ("test2_res", "test:index/twoRes:TwoRes"),
            ("2fa_check", "test:index/twoFaCheck:TwoFaCheck"),
        ],
    );
}

#[test]
fn deduplicates_case_insensitively() {
    check(
        schema(
            &[
                "test_s3_bucket",
                "test_s3bucket",
                "test_s3_Bucket",
                "test_s3bucketV2",
            ],
            &["test_foo_bar", "test_foobar"],
            &[],
        ),
        Options::default(),
        &[
            // Sorted order: `test_s3_Bucket` < `test_s3_bucket` < `test_s3bucket` < `…V2`.
            ("test_s3_Bucket", "test:index/s3Bucket:S3Bucket"),
            ("test_s3_bucket", "test:index/s3BucketV2:S3BucketV2"),
            ("test_s3bucket", "test:index/s3bucketV3:S3bucketV3"),
            ("test_s3bucketV2", "test:index/s3bucketV2V2:S3bucketV2V2"),
            ("test_foo_bar", "test:index/getFooBar:getFooBar"),
            ("test_foobar", "test:index/getFoobarV2:getFoobarV2"),
        ],
    );
}

#[test]
fn renames_the_provider_resource() {
    check(
        schema(&["test_provider", "test_index"], &[], &[]),
        Options::default(),
        &[
            ("test_provider", "test:index/testProvider:TestProvider"),
            ("test_index", "test:index/index:Index"),
        ],
    );
    check(
        schema(&["test_provider", "test_test_provider"], &[], &[]),
        Options::default(),
        &[
            (
                "test_provider",
                "test:index/providerResource:ProviderResource",
            ),
            ("test_test_provider", "test:index/testProvider:TestProvider"),
        ],
    );
}

#[test]
fn uses_the_whole_name_when_it_is_the_prefix() {
    check(
        schema(&["test"], &[], &[]),
        Options::default(),
        &[("test", "test:index/test:Test")],
    );
    check(
        schema(&[], &["test"], &[]),
        Options::default(),
        &[("test", "test:index/getTest:getTest")],
    );
}

#[test]
fn include_names_the_provider_does_not_have_are_reported_with_near_names() {
    let mapping = Mapping::new(
        schema(&["test_bucket", "test_buckets"], &["test_zone"], &["f"]),
        "test",
        "1.0.0",
        Options {
            // Repeated, known (a resource, a data source, a function) and unknown.
            includes: [
                "test_buckt",
                "test_bucket",
                "f",
                "test_zone",
                "nothing",
                "test_buckt",
            ]
            .map(String::from)
            .to_vec(),
            ..Options::default()
        },
    )
    .expect("maps");
    assert_eq!(
        mapping.unknown_includes(),
        [
            ("nothing", vec![]),
            ("test_buckt", vec!["test_bucket", "test_buckets"]),
        ]
    );
}

#[test]
fn filters_and_renames_the_package() {
    let all = || schema(&["test_a", "test_b"], &["test_c"], &["f"]);
    check(
        all(),
        Options {
            includes: vec!["test_a".into(), "test_c".into()],
            ..Options::default()
        },
        &[
            ("test_a", "test:index/a:A"),
            ("test_c", "test:index/getC:getC"),
        ],
    );
    check(
        all(),
        Options {
            excludes: vec!["test_a".into(), "f".into()],
            ..Options::default()
        },
        &[
            ("test_b", "test:index/b:B"),
            ("test_c", "test:index/getC:getC"),
        ],
    );
    let mapping = Mapping::new(
        schema(&["original_resource"], &[], &[]),
        "original",
        "1.0.0",
        Options {
            provider_name: Some("override".into()),
            ..Options::default()
        },
    )
    .expect("maps");
    assert_eq!(mapping.package(), "override");
    assert_eq!(mapping.provider_type(), "original");
    assert_eq!(
        mapping
            .resource("original_resource")
            .map(|r| r.token.as_str()),
        Some("override:index/resource:Resource")
    );
}

#[test]
fn fails_on_a_name_without_the_prefix() {
    // `other_thing` disagrees with `test_a`, so the prefix is the package name `test`.
    let err = Mapping::new(
        schema(&["test_a", "other_thing"], &[], &[]),
        "test",
        "1.0.0",
        Options::default(),
    )
    .expect_err("other_thing lacks the prefix");
    assert_eq!(
        err.to_string(),
        "resources: \"other_thing\": token 'other_thing' missing package prefix 'test'"
    );
}

#[test]
fn fifty_thousand_arguments_of_one_name_are_numbered() {
    // 50,000 parameters named `x` (a provider's mistake, or a hostile one): numbering each by
    // scanning from `x2` again took minutes.
    const COUNT: usize = 50_000;
    let parameter = |name: &str| tfp_cty::Parameter {
        name: name.to_owned(),
        ty: Type::String,
        allow_null_value: false,
        allow_unknown_values: false,
        description: String::new(),
        description_kind: tfp_cty::StringKind::Plain,
    };
    let mut schema = schema(&[], &[], &["many"]);
    let function = schema.functions.get_mut("many").expect("the function");
    // A name taken before the duplicates (`x_2` is `x2`) is skipped when they are numbered.
    function.parameters = std::iter::once(parameter("x_2"))
        .chain((0..COUNT).map(|_| parameter("x")))
        .collect();
    function.variadic_parameter = Some(parameter(""));
    let mapping = Mapping::new(schema, "test", "1.0.0", Options::default()).expect("maps");
    let names: Vec<&str> = mapping
        .function("many")
        .expect("mapped")
        .arguments
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names.len(), COUNT + 2);
    assert_eq!(&names[..4], ["x2", "x", "x3", "x4"]);
    assert_eq!(names[COUNT], format!("x{}", COUNT + 1));
    assert_eq!(names[COUNT + 1], format!("arg{}", COUNT + 2));
}
