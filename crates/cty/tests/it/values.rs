//! Value construction, accessors, equality and go-cty's canonical set order.

use std::collections::BTreeMap;
use std::sync::Arc;

use tfp_cty::{Number, Type, Value, to_msgpack};

use crate::{hex, num, ty};

/// `Value::set` over `items` encodes its elements in the order of `want` (msgpack hex of the
/// whole set), whatever order they are given in.
fn check_set_order(element: &str, items: Vec<Value>, want: &str) {
    let element = ty(element);
    let set_type = Type::Set(Arc::new(element.clone()));
    for rotation in 0..items.len().max(1) {
        let mut rotated = items.clone();
        rotated.rotate_left(rotation);
        rotated.reverse();
        let set = Value::set(element.clone(), rotated);
        let bytes = to_msgpack(&set, &set_type).expect("set encodes");
        assert_eq!(hex(&bytes), want, "rotation {rotation}");
    }
}

#[test]
fn sets_follow_go_cty_order() {
    // Strings by bytes, then unknowns, then null.
    check_set_order(
        r#""string""#,
        vec![
            Value::null(Type::String),
            Value::unknown(Type::String),
            "b".into(),
            "B".into(),
            "a".into(),
        ],
        "95 a1 42 a1 61 a1 62 d4 00 00 c0",
    );
    // Numbers by value, whatever their representation.
    check_set_order(
        r#""number""#,
        vec![
            Value::number(10),
            Value::number(num("-2.5")),
            Value::number(num("100000000000000000000")),
            Value::number(2),
        ],
        "94 cb c0 04 00 00 00 00 00 00 02 0a b5 31 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30",
    );
    check_set_order(
        r#""bool""#,
        vec![Value::bool(true), Value::bool(false)],
        "92 c2 c3",
    );
    // Objects by their go-cty hash string, compared as bytes: "<10;>" before "<1;>" (because
    // '0' < ';') before "<9;>".
    let obj = |v: Value| Value::object([("k", v)]);
    check_set_order(
        r#"["object",{"k":"number"}]"#,
        vec![
            obj(Value::number(9)),
            obj(Value::number(10)),
            obj(Value::number(1)),
        ],
        "93 81 a1 6b 0a 81 a1 6b 01 81 a1 6b 09",
    );
    // Large numbers hash in %g form: 1e+20 ("<1e+20;>") sorts before 2 ("<2;>").
    check_set_order(
        r#"["object",{"k":"number"}]"#,
        vec![obj(Value::number(2)), obj(Value::number(num("1e20")))],
        "92 81 a1 6b b5 31 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 81 a1 6b 02",
    );
    // Strings hash as Go's strconv.Quote writes them, which escapes what Go's tables do not call
    // printable: the unassigned U+0378 hashes as `"\u0378"`, whose backslash sorts before the
    // `ÿ` of U+00FF (the old approximation kept U+0378 as it is and sorted it after).
    let obj = |v: &str| Value::object([("k", Value::from(v))]);
    check_set_order(
        r#"["object",{"k":"string"}]"#,
        vec![obj("\u{ff}"), obj("\u{378}")],
        "92 81 a1 6b a2 cd b8 81 a1 6b a2 c3 bf",
    );
}

#[test]
fn sets_drop_duplicates_but_not_unknowns() {
    let set = Value::set(
        Type::Number,
        vec![
            Value::number(1),
            Value::number(num("1.0")),
            Value::from_f64(1.0).expect("not NaN"),
            Value::unknown(Type::Number),
            Value::unknown(Type::Number),
        ],
    );
    assert_eq!(set.len(), Some(3));
    let objects = Value::set_in_order(
        ty(r#"["object",{"a":"string"}]"#),
        vec![
            Value::object([("a", Value::string("x"))]),
            Value::object([("a", Value::string("x").mark_sensitive())]),
            Value::object([("a", Value::unknown(Type::String))]),
            Value::object([("a", Value::unknown(Type::String))]),
        ],
    );
    assert_eq!(
        objects.len(),
        Some(3),
        "marks do not make elements distinct"
    );
}

#[test]
fn equality_ignores_set_order_but_not_marks() {
    let a = Value::set_in_order(Type::String, vec!["x".into(), "y".into()]);
    let b = Value::set_in_order(Type::String, vec!["y".into(), "x".into()]);
    assert_eq!(a, b);
    let c = Value::list(Type::String, vec!["x".into(), "y".into()]);
    let d = Value::list(Type::String, vec!["y".into(), "x".into()]);
    assert_ne!(c, d);
    assert_ne!(Value::string("x"), Value::string("x").mark_sensitive());
    assert_eq!(
        Value::number(num("0.5")),
        Value::from_f64(0.5).expect("not NaN")
    );
    assert_ne!(Value::null(Type::String), Value::null(Type::Number));
}

#[test]
fn loose_equality_ignores_marks_refinements_and_set_order() {
    let refined = Value::unknown_refined(
        Type::String,
        tfp_cty::Refinement {
            not_null: true,
            ..Default::default()
        },
    )
    .expect("refines");
    let unknown = Value::unknown(Type::String);
    assert_ne!(refined, unknown);
    assert!(refined.loosely_equals(&unknown));
    let marked = Value::string("x").mark_sensitive();
    assert!(marked.loosely_equals(&Value::string("x")));
    assert!(!Value::string("x").loosely_equals(&Value::string("y")));
    // Sets hold their elements in any order, and each element matches one element only: two
    // unknowns are not one unknown and a known string, whichever side asks.
    let set = |items: Vec<Value>| Value::set_in_order(Type::String, items);
    let a = set(vec!["x".into(), refined.clone(), "y".into()]);
    let b = set(vec!["y".into(), "x".into(), unknown.clone()]);
    assert!(a.loosely_equals(&b) && b.loosely_equals(&a));
    let two_unknowns = set(vec![unknown.clone(), unknown.clone()]);
    let one_unknown = set(vec![unknown.clone(), "a".into()]);
    assert!(!two_unknowns.loosely_equals(&one_unknown));
    assert!(!one_unknown.loosely_equals(&two_unknowns));
}

#[test]
fn the_elements_one_set_has_and_another_lacks() {
    let strings = |items: &[&str]| items.iter().map(|&s| Value::string(s)).collect::<Vec<_>>();
    let a = strings(&["a", "b", "c"]);
    assert_eq!(tfp_cty::elements_not_in(&a, &strings(&["c", "a"])), [1]);
    assert_eq!(
        tfp_cty::elements_not_in(&a, &[]),
        [0, 1, 2],
        "nothing is in an empty set"
    );
    // Marks count, as `==` has them; past eight elements the other set is hashed, with the
    // same answers.
    let marked = vec![Value::string("b").mark_sensitive()];
    assert_eq!(tfp_cty::elements_not_in(&a, &marked), [0, 1, 2]);
    let many: Vec<Value> = (0..20).map(|i| Value::string(format!("{i}"))).collect();
    let mut others = many[5..].to_vec();
    others.push(Value::string("7").mark_sensitive());
    assert_eq!(tfp_cty::elements_not_in(&many, &others), [0, 1, 2, 3, 4]);
}

#[test]
fn sets_of_two_hundred_thousand_elements_compare() {
    // 200,000 strings a side: comparing each element with every element of the other set took
    // minutes.
    const COUNT: usize = 200_000;
    let strings = |prefix: &str| -> Vec<Value> {
        (0..COUNT)
            .map(|i| Value::string(format!("{prefix}-{i:08}")))
            .collect()
    };
    let (a, b) = (strings("a"), strings("b"));
    assert_eq!(tfp_cty::elements_not_in(&a, &b).len(), COUNT);
    let mut reversed = a.clone();
    reversed.reverse();
    assert!(tfp_cty::elements_not_in(&a, &reversed).is_empty());
    let set = |items: Vec<Value>| Value::set_in_order(Type::String, items);
    assert!(set(a.clone()).loosely_equals(&set(reversed)));
    assert!(!set(a).loosely_equals(&set(b)));
}

#[test]
fn accessors() {
    let v = Value::object([
        ("name", Value::string("web")),
        ("count", Value::number(3)),
        ("ratio", Value::from_f64(0.25).expect("not NaN")),
        ("on", Value::bool(true)),
        (
            "tags",
            Value::map(Type::String, BTreeMap::from([("k".to_owned(), "v".into())])),
        ),
        ("ports", Value::list(Type::Number, vec![Value::number(80)])),
        ("secret", Value::string("s").mark_sensitive()),
        ("later", Value::unknown(Type::String)),
    ]);
    assert_eq!(v.attr("name").and_then(Value::as_str), Some("web"));
    assert_eq!(v.attr("count").and_then(Value::as_i64), Some(3));
    assert_eq!(v.attr("ratio").and_then(Value::as_f64), Some(0.25));
    assert_eq!(v.attr("on").and_then(Value::as_bool), Some(true));
    assert_eq!(
        v.attr("tags")
            .and_then(Value::as_map)
            .and_then(|m| m.get("k"))
            .and_then(Value::as_str),
        Some("v")
    );
    assert_eq!(
        v.attr("ports")
            .and_then(Value::elements)
            .map(<[Value]>::len),
        Some(1)
    );
    assert!(v.contains_sensitive() && !v.sensitive);
    assert!(!v.clone().unmark_deep().contains_sensitive());
    assert!(v.is_known() && !v.is_wholly_known());
    assert_eq!(
        v.ty().to_json_string(),
        r#"["object",{"count":"number","later":"string","name":"string","on":"bool","ports":["list","number"],"ratio":"number","secret":"string","tags":["map","string"]}]"#
    );
    assert_eq!(Number::from_i64(5).as_u64(), Some(5));
}
