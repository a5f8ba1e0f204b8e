//! The marshallable ProviderInfo bytes, worked out by hand from the Go types
//! (`pkg/tfbridge/info/info.go`) and the schema shim (`pkg/pf/proto`), for every kind of
//! attribute and block.

use std::collections::{BTreeMap, BTreeSet};

use tfp_cty::{Block, Function, NestingMode, Parameter, ProviderSchema, Schema, StringKind, Type};
use tfp_mapping::{Mapping, Options};
use tfp_testkit::schema::{
    COMPUTED, DEPRECATED, OPTIONAL, REQUIRED, SENSITIVE, attr, block, nested_attr, nested_block,
};

use super::{
    shim::{self, Member, attribute, block_map},
    *,
};

fn entries<T: Clone>(items: &[(&str, T)]) -> BTreeMap<String, T> {
    items
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn object(attributes: &[(&str, Type)], optional: &[&str]) -> Type {
    Type::Object {
        attributes: entries(attributes),
        optional: optional
            .iter()
            .map(|s| (*s).to_owned())
            .collect::<BTreeSet<_>>(),
    }
}

fn list(t: Type) -> Type {
    Type::List(t.into())
}

/// The one place that writes a single attribute or block; `expected` is Go's exact text.
fn check(member: Member<'_>, expected: &str) {
    let mut out = String::new();
    match member {
        Member::Attribute(a) => attribute(&mut out, a, false),
        Member::Block(b) => shim::nested_block(&mut out, b, false),
    }
    assert_eq!(out, expected);
}

#[test]
fn scalar_and_collection_attributes() {
    let cases = [
        (
            attr(Type::String, OPTIONAL),
            r#"{"type":4,"optional":true}"#,
        ),
        (attr(Type::Bool, REQUIRED), r#"{"type":1,"required":true}"#),
        (
            attr(Type::Number, COMPUTED | SENSITIVE | DEPRECATED),
            r#"{"type":3,"computed":true,"deprecated":"Deprecated","sensitive":true}"#,
        ),
        (
            attr(Type::Dynamic, OPTIONAL | COMPUTED),
            r#"{"type":8,"optional":true,"computed":true}"#,
        ),
        // The shim has no type for tuples, and no element for them.
        (
            attr(Type::Tuple(vec![Type::String]), OPTIONAL),
            r#"{"type":0,"optional":true}"#,
        ),
        (
            attr(list(Type::String), OPTIONAL | SENSITIVE),
            r#"{"type":5,"optional":true,"element":{"schema":{"type":4}},"sensitive":true}"#,
        ),
        // Sets are lists to the shim.
        (
            attr(Type::Set(Type::Number.into()), COMPUTED),
            r#"{"type":5,"computed":true,"element":{"schema":{"type":3}}}"#,
        ),
        (
            attr(Type::Map(list(Type::Bool).into()), REQUIRED),
            r#"{"type":6,"required":true,"element":{"schema":{"type":5,"element":{"schema":{"type":1}}}}}"#,
        ),
    ];
    for (a, expected) in &cases {
        check(Member::Attribute(a), expected);
    }
}

#[test]
fn object_type_attributes() {
    let cases = [
        // Only the attributes a type constraint marks optional are optional…
        (
            attr(
                object(&[("a", Type::String), ("b", Type::Number)], &["a"]),
                OPTIONAL,
            ),
            r#"{"type":6,"optional":true,"element":{"resource":{"a":{"type":4,"optional":true},"b":{"type":3}}}}"#,
        ),
        // …unless none is, when all are.
        (
            attr(
                object(&[("x", Type::Bool), ("y", list(Type::String))], &[]),
                COMPUTED,
            ),
            r#"{"type":6,"computed":true,"element":{"resource":{"x":{"type":1,"optional":true},"y":{"type":5,"optional":true,"element":{"schema":{"type":4}}}}}}"#,
        ),
        (
            attr(object(&[], &[]), OPTIONAL),
            r#"{"type":6,"optional":true,"element":{}}"#,
        ),
        // The element of a list is not optional itself.
        (
            attr(list(object(&[("a", Type::String)], &[])), OPTIONAL),
            r#"{"type":5,"optional":true,"element":{"schema":{"type":6,"element":{"resource":{"a":{"type":4,"optional":true}}}}}}"#,
        ),
    ];
    for (a, expected) in &cases {
        check(Member::Attribute(a), expected);
    }
}

#[test]
fn nested_attributes() {
    let inner = [
        ("inner", attr(Type::String, REQUIRED)),
        ("flag", attr(Type::Bool, OPTIONAL | COMPUTED)),
    ];
    let fields =
        r#"{"flag":{"type":1,"optional":true,"computed":true},"inner":{"type":4,"required":true}}"#;
    let cases = [
        (
            nested_attr(NestingMode::Single, block(&inner, &[]), OPTIONAL),
            format!(r#"{{"type":6,"optional":true,"element":{{"resource":{fields}}}}}"#),
        ),
        (
            nested_attr(NestingMode::List, block(&inner, &[]), REQUIRED),
            format!(r#"{{"type":5,"required":true,"element":{{"resource":{fields}}}}}"#),
        ),
        (
            nested_attr(NestingMode::Set, block(&inner, &[]), COMPUTED | DEPRECATED),
            format!(
                r#"{{"type":5,"computed":true,"element":{{"resource":{fields}}},"deprecated":"Deprecated"}}"#
            ),
        ),
        // A map of objects: its element is the same attribute as a single object.
        (
            nested_attr(NestingMode::Map, block(&inner, &[]), OPTIONAL | SENSITIVE),
            format!(
                r#"{{"type":6,"optional":true,"element":{{"schema":{{"type":6,"optional":true,"element":{{"resource":{fields}}},"sensitive":true}}}},"sensitive":true}}"#
            ),
        ),
        (
            nested_attr(NestingMode::Single, Block::default(), OPTIONAL),
            r#"{"type":6,"optional":true,"element":{}}"#.to_owned(),
        ),
    ];
    for (a, expected) in &cases {
        check(Member::Attribute(a), expected);
    }
}

#[test]
fn blocks() {
    let inner = block(&[("value", attr(Type::String, OPTIONAL))], &[]);
    let fields = r#"{"value":{"type":4,"optional":true}}"#;
    let mut deprecated = inner.clone();
    deprecated.deprecated = true;
    let cases = [
        (
            nested_block(NestingMode::Single, .., inner.clone()),
            format!(r#"{{"type":6,"optional":true,"element":{{"resource":{fields}}}}}"#),
        ),
        (
            nested_block(NestingMode::Group, .., inner.clone()),
            format!(r#"{{"type":6,"optional":true,"element":{{"resource":{fields}}}}}"#),
        ),
        // A block that needs items is required, not optional.
        (
            nested_block(NestingMode::List, 1..=1, inner.clone()),
            format!(
                r#"{{"type":5,"required":true,"element":{{"resource":{fields}}},"maxItems":1,"minItems":1}}"#
            ),
        ),
        (
            nested_block(NestingMode::Set, ..=3, deprecated),
            format!(
                r#"{{"type":5,"optional":true,"element":{{"resource":{fields}}},"maxItems":3,"deprecated":"Deprecated"}}"#
            ),
        ),
        // A map block: its element is the same block as a single block.
        (
            nested_block(NestingMode::Map, 2.., inner.clone()),
            format!(
                r#"{{"type":6,"required":true,"element":{{"schema":{{"type":6,"required":true,"element":{{"resource":{fields}}},"minItems":2}}}},"minItems":2}}"#
            ),
        ),
        (
            nested_block(NestingMode::List, .., block(&[], &[])),
            r#"{"type":5,"optional":true,"element":{}}"#.to_owned(),
        ),
        (
            nested_block(
                NestingMode::List,
                ..,
                block(
                    &[("value", attr(Type::String, OPTIONAL))],
                    &[("sub", nested_block(NestingMode::Single, .., inner.clone()))],
                ),
            ),
            format!(
                r#"{{"type":5,"optional":true,"element":{{"resource":{{"sub":{{"type":6,"optional":true,"element":{{"resource":{fields}}}}},"value":{{"type":4,"optional":true}}}}}}}}"#
            ),
        ),
    ];
    for (b, expected) in &cases {
        check(Member::Block(b), expected);
    }
}

#[test]
fn a_block_wins_over_an_attribute_of_the_same_name() {
    let b = block(
        &[
            ("x", attr(Type::String, OPTIONAL)),
            ("y", attr(Type::Bool, COMPUTED)),
        ],
        &[("x", nested_block(NestingMode::List, .., block(&[], &[])))],
    );
    let mut out = String::new();
    block_map(&mut out, &b);
    assert_eq!(
        out,
        r#"{"x":{"type":5,"optional":true,"element":{}},"y":{"type":1,"computed":true}}"#
    );
}

fn schema_of(b: Block) -> Schema {
    Schema {
        version: 0,
        block: b,
    }
}

fn parameter(name: &str, ty: Type, allow_null_value: bool, description: &str) -> Parameter {
    Parameter {
        name: name.to_owned(),
        ty,
        allow_null_value,
        allow_unknown_values: false,
        description: description.to_owned(),
        description_kind: StringKind::Plain,
    }
}

/// A small provider with every part of the document: config, resources (one ignored),
/// reserved names, autonaming, a data source and a function.
fn demo() -> Mapping {
    let id = attr(Type::String, COMPUTED);
    let schema = ProviderSchema {
        provider: schema_of(block(&[("region", attr(Type::String, OPTIONAL))], &[])),
        resources: entries(&[
            (
                "demo_thing",
                schema_of(block(
                    &[
                        ("id", attr(Type::String, OPTIONAL | COMPUTED)),
                        ("name", attr(Type::String, REQUIRED)),
                        ("pulumi", attr(Type::String, COMPUTED)),
                        ("urn", attr(Type::String, OPTIONAL)),
                    ],
                    &[],
                )),
            ),
            ("demo_plain", schema_of(block(&[("id", id.clone())], &[]))),
            ("demo_skip", schema_of(block(&[("id", id)], &[]))),
        ]),
        data_sources: entries(&[(
            "demo_info",
            schema_of(block(&[("value", attr(Type::String, COMPUTED))], &[])),
        )]),
        functions: entries(&[(
            "echo",
            Function {
                parameters: vec![parameter("input", Type::String, true, "<in>")],
                variadic_parameter: Some(parameter("more", Type::Number, false, "")),
                return_type: list(Type::String),
                summary: "Echo & more".to_owned(),
                description: String::new(),
                description_kind: StringKind::Plain,
                deprecation_message: String::new(),
            },
        )]),
        ..ProviderSchema::default()
    };
    let options = Options {
        excludes: vec!["demo_skip".to_owned()],
        ..Options::default()
    };
    Mapping::new(schema, "demo", "1.2.3", options).expect("the demo provider maps")
}

#[test]
fn the_whole_document() {
    let expected = concat!(
        r#"{"provider":{"#,
        r#""schema":{"region":{"type":4,"optional":true}},"#,
        r#""resources":{"demo_plain":{"id":{"type":4,"computed":true}},"#,
        r#""demo_skip":{"id":{"type":4,"computed":true}},"#,
        r#""demo_thing":{"id":{"type":4,"optional":true,"computed":true},"#,
        r#""name":{"type":4,"required":true},"pulumi":{"type":4,"computed":true},"#,
        r#""urn":{"type":4,"optional":true}}},"#,
        r#""dataSources":{"demo_info":{"value":{"type":4,"computed":true}}},"#,
        r#""functions":{"echo":{"parameters":[{"name":"input","type":"string","allowNullValue":true,"#,
        r#""description":"\u003cin\u003e"}],"variadicParameter":{"name":"more","type":"number"},"#,
        r#""return":["list","string"],"summary":"Echo \u0026 more"}}},"#,
        r#""name":"demo","version":"1.2.3","#,
        r#""resources":{"demo_plain":{"tok":"demo:index/plain:Plain","fields":{},"idFields":null},"#,
        r#""demo_thing":{"tok":"demo:index/thing:Thing","fields":{"#,
        r#""id":{"name":"thingId","typeomitempty":""},"#,
        r#""name":{"name":"name","typeomitempty":"","default":{"autonamed":true,"isFunc":true}},"#,
        r#""pulumi":{"name":"pulumiInfo","typeomitempty":""},"#,
        r#""urn":{"name":"demoUrn","typeomitempty":""}},"idFields":null}},"#,
        r#""dataSources":{"demo_info":{"tok":"demo:index/getInfo:getInfo","fields":{}}},"#,
        r#""functions":{"echo":{"tok":"demo:index/echo:echo"}}}"#,
    );
    let json = provider_info_json(&demo());
    assert_eq!(String::from_utf8(json).expect("UTF-8"), expected);
}

#[test]
fn an_empty_provider_omits_what_it_lacks() {
    let mapping = Mapping::new(
        ProviderSchema::default(),
        "empty",
        "0.0.0",
        Options::default(),
    )
    .expect("maps");
    assert_eq!(
        String::from_utf8(provider_info_json(&mapping)).expect("UTF-8"),
        r#"{"provider":{},"name":"empty","version":"0.0.0"}"#
    );
}
