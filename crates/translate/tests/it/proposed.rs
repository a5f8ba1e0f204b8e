//! ProposedNewState table tests, written from `objchange.ProposedNew`'s semantics: every
//! nesting mode, computed/optional combinations, sets and unknowns.

use serde_json::{Value as Json, json};
use tfp_cty::{Block, Kind, NestingMode, Type, Value};
use tfp_translate::proposed_new_state;

use crate::support::*;

/// `x` optional, `y` computed: the element of every nested collection below.
fn element() -> Block {
    block(
        &[
            ("x", attr(Type::String, OPTIONAL)),
            ("y", attr(Type::String, COMPUTED)),
        ],
        &[],
    )
}

fn schema() -> Block {
    let oc_element = block(
        &[
            ("x", attr(Type::String, OPTIONAL)),
            ("y", attr(Type::String, OPTIONAL | COMPUTED)),
        ],
        &[],
    );
    block(
        &[
            ("req", attr(Type::String, REQUIRED)),
            ("opt", attr(Type::String, OPTIONAL)),
            ("comp", attr(Type::String, COMPUTED)),
            ("oc", attr(Type::String, OPTIONAL | COMPUTED)),
            ("tags", attr(ty(r#"["map","string"]"#), OPTIONAL | COMPUTED)),
            (
                "n_single",
                nested_attr(NestingMode::Single, element(), OPTIONAL),
            ),
            (
                "n_oc",
                nested_attr(NestingMode::Single, element(), OPTIONAL | COMPUTED),
            ),
            (
                "n_list",
                nested_attr(NestingMode::List, element(), OPTIONAL),
            ),
            ("n_set", nested_attr(NestingMode::Set, element(), OPTIONAL)),
            ("n_map", nested_attr(NestingMode::Map, element(), OPTIONAL)),
        ],
        &[
            ("single", nested_block(NestingMode::Single, .., element())),
            ("group", nested_block(NestingMode::Group, .., element())),
            ("list", nested_block(NestingMode::List, .., element())),
            ("set", nested_block(NestingMode::Set, .., element())),
            ("set_oc", nested_block(NestingMode::Set, .., oc_element)),
            ("map", nested_block(NestingMode::Map, .., element())),
        ],
    )
}

fn value(json: &Json) -> Value {
    if json.is_null() {
        Value::null(schema().implied_type())
    } else {
        cty(&schema().implied_type(), json.clone())
    }
}

/// Proposes from `prior` (null to create) and `config`, and compares the attributes `expected`
/// names; the others must be null.
fn check(prior: Json, config: Json, expected: Json) {
    let got = proposed_new_state(&schema(), &value(&prior), &value(&config));
    check_value(&got, &expected);
}

fn check_value(got: &Value, expected: &Json) {
    if expected.is_null() {
        assert!(got.is_null(), "expected null, got {got:?}");
        return;
    }
    assert_eq!(
        json_of(got, &schema().implied_type()),
        json_of(&value(expected), &schema().implied_type())
    );
}

/// Replaces attribute `name` of an object value.
fn with(mut v: Value, name: &str, attr: Value) -> Value {
    if let Kind::Object(attrs) = &mut v.kind {
        attrs.insert(name.to_owned(), attr);
    }
    v
}

#[test]
fn top_level_attributes() {
    // Create: config as given, computed attributes null (the prior is the empty block, whose
    // group block is an object of nulls).
    check(
        Json::Null,
        json!({"req": "r", "opt": "o"}),
        json!({"req": "r", "opt": "o", "group": {}}),
    );
    // Config wins for non-computed attributes, even when null; computed ones keep the prior.
    check(
        json!({"req": "r", "opt": "o", "comp": "c", "oc": "p", "tags": {"a": "b"}}),
        json!({"req": "r2"}),
        json!({"req": "r2", "comp": "c", "oc": "p", "tags": {"a": "b"}}),
    );
    // Optional+computed: a configured value wins.
    check(
        json!({"req": "r", "oc": "p", "tags": {"a": "b"}}),
        json!({"req": "r", "oc": "new", "tags": {}}),
        json!({"req": "r", "oc": "new", "tags": {}}),
    );
    // Both null: null. Null config (not a real case, kept safe): the prior.
    check(Json::Null, Json::Null, Json::Null);
    check(
        json!({"req": "r", "comp": "c"}),
        Json::Null,
        json!({"req": "r", "comp": "c"}),
    );
}

#[test]
fn unknown_config_values_pass_through() {
    let prior = value(&json!({"req": "r", "comp": "c", "oc": "p"}));
    let config = with(
        value(&json!({"req": "r"})),
        "opt",
        Value::unknown(Type::String),
    );
    let config = with(config, "oc", Value::unknown(Type::String));
    let got = proposed_new_state(&schema(), &prior, &config);
    assert_eq!(got.attr("opt"), Some(&Value::unknown(Type::String)));
    assert_eq!(got.attr("oc"), Some(&Value::unknown(Type::String)));
    assert_eq!(got.attr("comp"), Some(&Value::string("c")));
    // A wholly unknown block collection (a dynamic block with unknown for_each) stays unknown.
    let list_ty = schema().block_types["list"].implied_type();
    let config = with(
        value(&json!({"req": "r"})),
        "list",
        Value::unknown(list_ty.clone()),
    );
    let got = proposed_new_state(
        &schema(),
        &value(&json!({"req": "r", "list": [{"x": "a", "y": "c"}]})),
        &config,
    );
    assert_eq!(got.attr("list"), Some(&Value::unknown(list_ty)));
    // A wholly unknown config is the proposal.
    let unknown = Value::unknown(schema().implied_type());
    assert_eq!(proposed_new_state(&schema(), &prior, &unknown), unknown);
}

#[test]
fn single_and_group_blocks() {
    check(
        json!({"single": {"x": "a", "y": "computed"}, "group": {"x": "g", "y": "gc"}}),
        json!({"single": {"x": "a2"}, "group": {}}),
        json!({"single": {"x": "a2", "y": "computed"}, "group": {"x": null, "y": "gc"}}),
    );
    // An absent single block is null; nothing of the prior survives.
    check(
        json!({"single": {"x": "a", "y": "computed"}}),
        json!({"single": null}),
        json!({"single": null}),
    );
    // Create: a configured single block gets null computed attributes.
    check(
        Json::Null,
        json!({"single": {"x": "a"}}),
        json!({"single": {"x": "a"}, "group": {}}),
    );
}

#[test]
fn list_blocks_correlate_by_index() {
    check(
        json!({"list": [{"x": "1", "y": "c1"}, {"x": "2", "y": "c2"}]}),
        json!({"list": [{"x": "1"}, {"x": "3"}, {"x": "4"}]}),
        json!({"list": [{"x": "1", "y": "c1"}, {"x": "3", "y": "c2"}, {"x": "4"}]}),
    );
    check(
        json!({"list": [{"x": "1", "y": "c1"}]}),
        json!({"list": []}),
        json!({"list": []}),
    );
}

#[test]
fn map_blocks_correlate_by_key() {
    check(
        json!({"map": {"k1": {"x": "a", "y": "c"}, "gone": {"x": "z", "y": "cz"}}}),
        json!({"map": {"k1": {"x": "a2"}, "k2": {"x": "b"}}}),
        json!({"map": {"k1": {"x": "a2", "y": "c"}, "k2": {"x": "b"}}}),
    );
}

#[test]
fn set_blocks_correlate_by_non_computed_values() {
    check(
        json!({"set": [{"x": "a", "y": "ca"}, {"x": "b", "y": "cb"}]}),
        json!({"set": [{"x": "b"}, {"x": "c"}]}),
        json!({"set": [{"x": "b", "y": "cb"}, {"x": "c"}]}),
    );
    // A prior element is used once: of two config elements that both fit, the first takes it.
    check(
        json!({"set_oc": [{"x": "a", "y": "p"}]}),
        json!({"set_oc": [{"x": "a"}, {"x": "a", "y": "v"}]}),
        json!({"set_oc": [{"x": "a", "y": "p"}, {"x": "a", "y": "v"}]}),
    );
    // An optional+computed value set in config only matches a prior with the same value.
    check(
        json!({"set_oc": [{"x": "a", "y": "p"}]}),
        json!({"set_oc": [{"x": "a", "y": "other"}]}),
        json!({"set_oc": [{"x": "a", "y": "other"}]}),
    );
    // An unknown config element stays unknown.
    let set_ty = element().implied_type();
    let config = with(
        value(&json!({})),
        "set",
        Value::set(set_ty.clone(), vec![Value::unknown(set_ty.clone())]),
    );
    let got = proposed_new_state(
        &schema(),
        &value(&json!({"set": [{"x": "a", "y": "c"}]})),
        &config,
    );
    assert_eq!(
        got.attr("set"),
        Some(&Value::set(set_ty.clone(), vec![Value::unknown(set_ty)]))
    );
}

#[test]
fn nested_attributes() {
    // Single nested attribute: merged attribute by attribute.
    check(
        json!({"n_single": {"x": "1", "y": "comp"}}),
        json!({"n_single": {"x": "2"}}),
        json!({"n_single": {"x": "2", "y": "comp"}}),
    );
    check(
        json!({"n_single": {"x": "1", "y": "comp"}}),
        json!({}),
        json!({}),
    );
    // Optional+computed nested attribute left null: the prior, unless the prior holds
    // non-computed values, which only config can have set.
    check(
        json!({"n_oc": {"y": "server"}}),
        json!({}),
        json!({"n_oc": {"y": "server"}}),
    );
    check(
        json!({"n_oc": {"x": "mine", "y": "server"}}),
        json!({}),
        json!({}),
    );
    // Lists by index, maps by key, sets by matching.
    check(
        json!({"n_list": [{"x": "1", "y": "c1"}], "n_map": {"k": {"x": "a", "y": "ck"}},
               "n_set": [{"x": "s", "y": "cs"}, {"x": "t", "y": "ct"}]}),
        json!({"n_list": [{"x": "1"}, {"x": "2"}], "n_map": {"k": {"x": "a"}, "j": {"x": "b"}},
               "n_set": [{"x": "t"}]}),
        json!({"n_list": [{"x": "1", "y": "c1"}, {"x": "2"}],
               "n_map": {"k": {"x": "a", "y": "ck"}, "j": {"x": "b"}},
               "n_set": [{"x": "t", "y": "ct"}]}),
    );
    // An unknown nested attribute stays unknown.
    let n_list_ty = schema().attributes["n_list"].implied_type();
    let config = with(
        value(&json!({})),
        "n_list",
        Value::unknown(n_list_ty.clone()),
    );
    let got = proposed_new_state(&schema(), &value(&json!({"n_list": [{"x": "1"}]})), &config);
    assert_eq!(got.attr("n_list"), Some(&Value::unknown(n_list_ty)));
}

#[test]
fn nested_sets_must_be_equal_to_correlate() {
    let inner = block(
        &[
            ("tags", attr(ty(r#"["set","string"]"#), OPTIONAL)),
            ("id", attr(Type::String, COMPUTED)),
        ],
        &[],
    );
    let schema = block(&[], &[("rule", nested_block(NestingMode::Set, .., inner))]);
    let ty = schema.implied_type();
    let prior = cty(
        &ty,
        json!({"rule": [{"tags": ["a"], "id": "1"}, {"tags": ["b"], "id": "2"}]}),
    );
    let config = cty(
        &ty,
        json!({"rule": [{"tags": ["b"]}, {"tags": ["a", "c"]}]}),
    );
    let got = proposed_new_state(&schema, &prior, &config);
    let want = cty(
        &ty,
        json!({"rule": [{"tags": ["b"], "id": "2"}, {"tags": ["a", "c"]}]}),
    );
    assert_eq!(got, want);
}

#[test]
fn nested_sets_of_a_hundred_thousand_tags_correlate() {
    // A set block element holding 100,000 tags, its computed `id` left null in config: its
    // tags are compared with the prior's to correlate the two, which by looking up each tag
    // among all the others took minutes.
    const COUNT: usize = 100_000;
    let inner = block(
        &[
            ("tags", attr(ty(r#"["set","string"]"#), OPTIONAL)),
            ("id", attr(Type::String, COMPUTED)),
        ],
        &[],
    );
    let schema = block(&[], &[("rule", nested_block(NestingMode::Set, .., inner))]);
    let tags: Vec<String> = (0..COUNT).map(|i| format!("tag-{i:08}")).collect();
    let ty = schema.implied_type();
    let prior = cty(&ty, json!({"rule": [{"tags": tags, "id": "kept"}]}));
    let mut reversed = tags.clone();
    reversed.reverse();
    let config = cty(&ty, json!({"rule": [{"tags": reversed}]}));
    let got = proposed_new_state(&schema, &prior, &config);
    assert_eq!(got, prior, "the prior element correlates and keeps its id");
}

#[test]
fn list_blocks_with_dynamic_attributes_travel_as_tuples() {
    let inner = block(
        &[
            ("v", attr(Type::Dynamic, OPTIONAL)),
            ("c", attr(Type::String, COMPUTED)),
        ],
        &[],
    );
    let schema = block(&[], &[("dyn", nested_block(NestingMode::List, .., inner))]);
    let ty = schema.implied_type();
    let prior = cty(
        &ty,
        json!({"dyn": {"value": [{"v": "a", "c": "x"}],
                       "type": ["tuple", [["object", {"v": "string", "c": "string"}]]]}}),
    );
    let config = cty(
        &ty,
        json!({"dyn": {"value": [{"v": 1, "c": null}, {"v": true, "c": null}],
                       "type": ["tuple", [["object", {"v": "number", "c": "string"}],
                                          ["object", {"v": "bool", "c": "string"}]]]}}),
    );
    let want = cty(
        &ty,
        json!({"dyn": {"value": [{"v": 1, "c": "x"}, {"v": true, "c": null}],
                       "type": ["tuple", [["object", {"v": "number", "c": "string"}],
                                          ["object", {"v": "bool", "c": "string"}]]]}}),
    );
    assert_eq!(proposed_new_state(&schema, &prior, &config), want);
}
