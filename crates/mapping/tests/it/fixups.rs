//! Reserved names and resource IDs (§4.5) and autonaming (§4.6).

use tfp_cty::{Block, NestingMode, Type};
use tfp_mapping::{IdStrategy, Mapping, Options};

use tfp_testkit::schema::{
    COMPUTED, Flags, OPTIONAL, REQUIRED, attr, block, nested_block, provider,
};

/// Maps resource `tf_name` of provider `package` and returns its Pulumi names for `keys`, and
/// its ID strategy.
fn check(package: &str, tf_name: &str, resource: Block, keys: &[(&str, &str)], id: IdStrategy) {
    let mapping = Mapping::new(
        provider(&[(tf_name, resource)], &[]),
        package,
        "1.0.0",
        Options::default(),
    )
    .expect("the mapping builds");
    let r = mapping.resource(tf_name).expect("mapped");
    for (tf, pulumi) in keys {
        assert_eq!(
            r.fields.get(tf).map(|f| f.name.as_str()),
            Some(*pulumi),
            "{tf}"
        );
    }
    assert_eq!(r.id, id);
}

fn id(flags: Flags) -> (&'static str, tfp_cty::Attribute) {
    ("id", attr(Type::String, flags))
}

fn s(flags: Flags) -> tfp_cty::Attribute {
    attr(Type::String, flags)
}

#[test]
fn keeps_a_computed_string_id() {
    check(
        "test",
        "test_res",
        block(&[id(COMPUTED)], &[]),
        &[("id", "id")],
        IdStrategy::Attribute,
    );
}

#[test]
fn renames_and_delegates_a_settable_id() {
    let delegate = |p: &str| IdStrategy::Delegate {
        property: p.to_owned(),
    };
    check(
        "test",
        "test_res",
        block(&[id(OPTIONAL | COMPUTED)], &[]),
        &[("id", "resId")],
        delegate("resId"),
    );
    check(
        "test",
        "test_res",
        block(&[id(REQUIRED)], &[]),
        &[("id", "resId")],
        delegate("resId"),
    );
    check(
        "test",
        "test_res",
        block(&[id(REQUIRED), ("res_id", s(OPTIONAL))], &[]),
        &[("id", "testResId"), ("res_id", "resId")],
        delegate("testResId"),
    );
    check(
        "test",
        "test_res",
        block(
            &[
                id(REQUIRED),
                ("res_id", s(OPTIONAL)),
                ("test_res_id", s(OPTIONAL)),
            ],
            &[],
        ),
        &[("id", "resourceId")],
        delegate("resourceId"),
    );
    check(
        "test",
        "test_res",
        block(
            &[
                id(REQUIRED),
                ("res_id", s(OPTIONAL)),
                ("test_res_id", s(OPTIONAL)),
                ("resource_id", s(OPTIONAL)),
            ],
            &[],
        ),
        &[("id", "testId")],
        delegate("testId"),
    );
    // b2: `b2_bucket` already has `bucket_id`, so its SDKv2 `id` becomes `b2BucketId`.
    check(
        "b2",
        "b2_bucket",
        block(&[id(OPTIONAL | COMPUTED), ("bucket_id", s(COMPUTED))], &[]),
        &[("id", "b2BucketId"), ("bucket_id", "bucketId")],
        delegate("b2BucketId"),
    );
    check(
        "test-provider",
        "test-provider_res",
        block(&[id(REQUIRED), ("res_id", s(OPTIONAL))], &[]),
        &[("id", "testProviderResId")],
        delegate("testProviderResId"),
    );
}

#[test]
fn falls_back_to_missing_id() {
    check(
        "test",
        "test_res",
        block(&[id(OPTIONAL)], &[]),
        &[("id", "resId")],
        IdStrategy::Missing,
    );
    check(
        "test",
        "test_res",
        block(&[("other", s(OPTIONAL))], &[]),
        &[],
        IdStrategy::Missing,
    );
    check(
        "test",
        "test_res",
        block(&[("id", attr(Type::Number, COMPUTED))], &[]),
        &[("id", "resId")],
        IdStrategy::Missing,
    );
    check(
        "test",
        "test_res",
        block(
            &[],
            &[("id", nested_block(NestingMode::List, .., block(&[], &[])))],
        ),
        &[("id", "resId")],
        IdStrategy::Missing,
    );
}

#[test]
fn renames_urn_and_pulumi() {
    check(
        "random",
        "random_res",
        block(
            &[id(COMPUTED), ("urn", s(OPTIONAL)), ("pulumi", s(OPTIONAL))],
            &[],
        ),
        &[("urn", "randomUrn"), ("pulumi", "pulumiInfo")],
        IdStrategy::Attribute,
    );
}

/// A block of resource `test_res` (of package `test`) whose settable `id` has no free name to
/// move to.
fn settable_id_without_a_free_name() -> Block {
    block(
        &[
            id(REQUIRED),
            ("res_id", s(OPTIONAL)),
            ("test_res_id", s(OPTIONAL)),
            ("resource_id", s(OPTIONAL)),
            ("test_id", s(OPTIONAL)),
        ],
        &[],
    )
}

#[test]
fn reports_reserved_names_without_a_free_replacement() {
    let fails = |resource: Block, text: &str| {
        let err = Mapping::new(
            provider(&[("test_res", resource)], &[]),
            "test",
            "1.0.0",
            Options::default(),
        )
        .expect_err("no free name");
        assert!(err.to_string().contains(text), "{err}");
    };
    fails(
        settable_id_without_a_free_name(),
        "test_res: id: no available new name",
    );
    fails(
        block(
            &[
                id(COMPUTED),
                ("urn", s(OPTIONAL)),
                ("test_urn", s(OPTIONAL)),
            ],
            &[],
        ),
        "urn: no available new name",
    );
    fails(
        block(
            &[
                id(COMPUTED),
                ("pulumi", s(OPTIONAL)),
                ("pulumi_info", s(OPTIONAL)),
            ],
            &[],
        ),
        "'pulumi'",
    );
}

#[test]
fn reports_every_problem_fixups_first() {
    // `test_res` has no free name for its ID and `other_thing` lacks the prefix: both are
    // reported, the fix-ups' first, though fix-ups are made with the fields, on every core
    // (enough resources for two threads).
    let resources: Vec<String> = (0..40).map(|i| format!("test_ok{i}")).collect();
    let mut all: Vec<(&str, Block)> = resources
        .iter()
        .map(|name| (name.as_str(), block(&[id(COMPUTED)], &[])))
        .collect();
    all.push(("test_res", settable_id_without_a_free_name()));
    all.push(("other_thing", block(&[id(COMPUTED)], &[])));
    let err = Mapping::new(provider(&all, &[]), "test", "1.0.0", Options::default())
        .expect_err("two problems")
        .to_string();
    let fixup = err.find("test_res: id: no available new name");
    let token = err.find("missing package prefix");
    assert!(fixup.is_some() && token.is_some(), "{err}");
    assert!(fixup < token, "{err}");
}

#[test]
fn autonames_input_string_names_only() {
    let autonamed = |resource: Block| {
        let mapping = Mapping::new(
            provider(&[("test_res", resource)], &[]),
            "test",
            "1.0.0",
            Options::default(),
        )
        .expect("maps");
        mapping
            .resource("test_res")
            .expect("mapped")
            .autoname
            .clone()
    };
    let named =
        autonamed(block(&[id(COMPUTED), ("name", s(REQUIRED))], &[])).expect("required name");
    assert_eq!(
        (
            named.property.as_str(),
            named.max_length,
            named.separator.as_str(),
            named.random_chars
        ),
        ("name", 255, "-", 7)
    );
    assert!(autonamed(block(&[id(COMPUTED), ("name", s(OPTIONAL))], &[])).is_some());
    assert!(
        autonamed(block(
            &[id(COMPUTED), ("name", s(OPTIONAL | COMPUTED))],
            &[]
        ))
        .is_some()
    );
    assert!(autonamed(block(&[id(COMPUTED), ("name", s(COMPUTED))], &[])).is_none());
    assert!(
        autonamed(block(
            &[id(COMPUTED), ("name", attr(Type::Number, OPTIONAL))],
            &[]
        ))
        .is_none()
    );
    assert!(autonamed(block(&[id(COMPUTED), ("display_name", s(OPTIONAL))], &[])).is_none());
}

/// `--auto-name <resource>.<attribute>` (ours): another string attribute is autonamed in place
/// of `name`, with its own property name; what cannot be honoured fails the mapping, naming
/// the request and why.
#[test]
fn auto_name_chooses_the_attribute_and_says_why_it_cannot() {
    let resource = block(
        &[
            id(COMPUTED),
            ("name", s(REQUIRED)),
            ("bucket_name", s(OPTIONAL)),
            ("size", attr(Type::Number, OPTIONAL)),
            ("arn", s(COMPUTED)),
            ("secret_wo", s(OPTIONAL | tfp_testkit::schema::WRITE_ONLY)),
        ],
        &[(
            "rule",
            nested_block(NestingMode::List, .., block(&[("x", s(OPTIONAL))], &[])),
        )],
    );
    let schema = || {
        provider(
            &[
                ("test_bucket", resource.clone()),
                ("test_other", resource.clone()),
            ],
            &[],
        )
    };
    let map = |auto_names: &[&str], excludes: &[&str]| {
        let options = Options {
            auto_names: auto_names.iter().map(|a| (*a).to_owned()).collect(),
            excludes: excludes.iter().map(|e| (*e).to_owned()).collect(),
            ..Options::default()
        };
        Mapping::new(schema(), "test", "1.0.0", options)
    };
    let mapping = map(&["test_bucket.bucket_name"], &[]).expect("maps");
    let chosen = (mapping
        .resource("test_bucket")
        .expect("mapped")
        .autoname
        .clone())
    .expect("autonamed");
    assert_eq!(
        (chosen.tf_name.as_str(), chosen.property.as_str()),
        ("bucket_name", "bucketName")
    );
    assert_eq!((chosen.max_length, chosen.random_chars), (255, 7));
    // The other resource keeps the autonaming of its `name`.
    let other = (mapping
        .resource("test_other")
        .expect("mapped")
        .autoname
        .clone())
    .expect("autonamed");
    assert_eq!(other.tf_name, "name");

    for (asked, excludes, why) in [
        (
            "test_buckt.bucket_name",
            &[][..],
            r#"--auto-name test_buckt.bucket_name: the provider has no resource test_buckt; did you mean "test_bucket"?"#,
        ),
        (
            "test_bucket.bucket_nam",
            &[],
            r#"--auto-name test_bucket.bucket_nam: the resource has no attribute bucket_nam; did you mean "bucket_name"?"#,
        ),
        (
            "test_bucket.size",
            &[],
            "--auto-name test_bucket.size: size is not a string",
        ),
        (
            "test_bucket.arn",
            &[],
            "--auto-name test_bucket.arn: arn is computed by the provider alone",
        ),
        (
            "test_bucket.secret_wo",
            &[],
            "--auto-name test_bucket.secret_wo: secret_wo is write-only",
        ),
        (
            "test_bucket.rule",
            &[],
            "--auto-name test_bucket.rule: rule is a nested block",
        ),
        (
            "test_bucket.bucket_name",
            &["test_bucket"],
            "--auto-name test_bucket.bucket_name: test_bucket is left out of the package",
        ),
    ] {
        let err = map(&[asked], excludes).expect_err(asked).to_string();
        assert!(err.starts_with(why), "{asked}: {err}");
    }
}
