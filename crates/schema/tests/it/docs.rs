//! Description rewriting (§4.13): note markers, links, language spans, code blocks, trimming
//! and the trailing-newline asymmetry between top-level and nested properties.

use tfp_cty::{
    Attribute, AttributeType, Block, NestedBlock, NestingMode, ProviderSchema, Schema, Type,
};
use tfp_mapping::{Mapping, Options};
use tfp_schema::package_schema;

use crate::conformance::remote;

fn attribute(description: &str) -> Attribute {
    Attribute {
        ty: AttributeType::Type(Type::String),
        description: description.to_owned(),
        optional: true,
        ..Attribute::default()
    }
}

/// The description `text` becomes on a top-level property and on a nested one, in a
/// provider `test` with resource `test_thing` and data source `test_info`.
fn rewrite(text: &str) -> (String, String) {
    let nested = Block {
        attributes: [("inner".to_owned(), attribute(text))].into(),
        ..Block::default()
    };
    let block = Block {
        attributes: [
            (
                "id".to_owned(),
                Attribute {
                    computed: true,
                    optional: false,
                    ..attribute("")
                },
            ),
            ("described".to_owned(), attribute(text)),
        ]
        .into(),
        block_types: [(
            "wrapper".to_owned(),
            NestedBlock {
                block: nested,
                nesting: NestingMode::Single,
                min_items: 0,
                max_items: 0,
            },
        )]
        .into(),
        ..Block::default()
    };
    let schema = ProviderSchema {
        resources: [("test_thing".to_owned(), Schema { version: 0, block })].into(),
        data_sources: [("test_info".to_owned(), Schema::default())].into(),
        ..ProviderSchema::default()
    };
    let mapping = Mapping::new(schema, "test", "1.0.0", Options::default()).expect("maps");
    let spec = package_schema(
        &mapping,
        &remote("registry.opentofu.org/acme/test", "1.0.0"),
        "2.0.0",
    )
    .expect("schema");
    let value = spec.to_value();
    // An empty description is not written at all.
    let description = |property: &serde_json::Value| {
        property["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let top = description(&value["resources"]["test:index/thing:Thing"]["properties"]["described"]);
    let inner =
        description(&value["types"]["test:index/ThingWrapper:ThingWrapper"]["properties"]["inner"]);
    (top, inner)
}

fn check(cases: &[(&str, &str)]) {
    for (input, expected) in cases {
        let (top, nested) = rewrite(input);
        assert_eq!(top, *expected, "top-level rewrite of {input:?}");
        let nested_expected = if expected.is_empty() {
            String::new()
        } else {
            format!("{expected}\n")
        };
        assert_eq!(nested, nested_expected, "nested rewrite of {input:?}");
    }
}

fn span(node: &str, dotnet: &str, go: &str, python: &str, hcl: &str) -> String {
    format!(
        "<span pulumi-lang-nodejs=\"{node}\" pulumi-lang-dotnet=\"{dotnet}\" pulumi-lang-go=\"{go}\" pulumi-lang-python=\"{python}\" pulumi-lang-yaml=\"{node}\" pulumi-lang-java=\"{node}\" pulumi-lang-hcl=\"{hcl}\">{node}</span>"
    )
}

#[test]
fn rewrites_notes_links_and_whitespace() {
    check(&[
        ("", ""),
        ("  plain text \n", "plain text"),
        ("-> **Note** this", "> **Note** this"),
        ("~> careful !> stop", "> careful > stop"),
        ("\n(Required)\nThe value.", "The value."),
        ("\n(Optional)\nThe value.", "The value."),
        (
            "See [the main provider documentation](../index.html) for more information.",
            "See the main provider documentation for more information.",
        ),
        (
            "[docs](https://example.com/x)",
            "[docs](https://example.com/x)",
        ),
        (
            "[site](/docs/providers/x.html)",
            "[site](https://www.terraform.io/docs/providers/x.html)",
        ),
        ("[here](#anchor) and [there](other.html)", "here and there"),
        (
            "[1]: /docs/providers/aws/d/instance.html",
            "[1]: https://www.terraform.io/docs/providers/aws/d/instance.html",
        ),
    ]);
}

#[test]
fn wraps_code_like_words_in_language_spans() {
    let min_upper = span(
        "`minUpper`",
        "`MinUpper`",
        "`minUpper`",
        "`min_upper`",
        "`min_upper`",
    );
    let truth = span("`true`", "`True`", "`true`", "`true`", "`true`");
    let zero = span("`0`", "`0`", "`0`", "`0`", "`0`");
    let quoted = span(
        "\"fooBar\"",
        "\"FooBar\"",
        "\"fooBar\"",
        "\"foo_bar\"",
        "\"foo_bar\"",
    );
    let spaced = span(" fooBar ", " FooBar ", " fooBar ", " foo_bar ", " foo_bar ");
    let bracketed = span("[fooBar]", "[FooBar]", "[fooBar]", "[foo_bar]", "[foo_bar]");
    let resource = span(
        "`test.Thing`",
        "`test.Thing`",
        "`Thing`",
        "`Thing`",
        "`test_thing`",
    );
    let data_source = span(
        "`test.getInfo`",
        "`test.getInfo`",
        "`getInfo`",
        "`get_info`",
        "`data.test_info`",
    );
    check(&[
        (
            "Sum of (`min_upper` + x)",
            &format!("Sum of ({min_upper} + x)"),
        ),
        (
            "Default value is `true`.",
            &format!("Default value is {truth}."),
        ),
        (
            "Default value is `0`.",
            &format!("Default value is {zero}."),
        ),
        ("Set \"foo_bar\" here", &format!("Set {quoted} here")),
        ("Use foo_bar here", &format!("Use{spaced}here")),
        ("Use [foo_bar] here", &format!("Use {bracketed} here")),
        ("See `test_thing`.", &format!("See {resource}.")),
        ("See `test_info`.", &format!("See {data_source}.")),
        // Upper case, symbols and snake words at the very start are left alone.
        ("`Upper` and `a-b` and `!@#`", "`Upper` and `a-b` and `!@#`"),
        ("foo_bar starts", "foo_bar starts"),
        // Fenced code is left as it is.
        (
            "Example:\n```hcl\nfoo_bar = `true`\n```\nUse `true`",
            &format!("Example:\n```hcl\nfoo_bar = `true`\n```\nUse {truth}"),
        ),
        // The closing delimiter is consumed, so a following word loses its opening one.
        (
            " a_b c_d x",
            &format!("{}c_d x", span(" aB ", " AB ", " aB ", " a_b ", " a_b ")),
        ),
    ]);
}
