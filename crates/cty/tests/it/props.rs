//! Property tests over generated types and values: msgpack and JSON round trips, canonical
//! set order, and decoders that never panic on mutated or random input.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::strategy::Union;
use tfp_cty::{
    Number, NumberBound, Refinement, Type, Value, from_json, from_msgpack, to_json, to_msgpack,
};

/// What the value generator may produce.
#[derive(Clone, Copy, Debug)]
struct Gen {
    /// Unknowns, refined or not (JSON cannot carry them).
    unknowns: bool,
    /// Only numbers whose JSON text reads back as the same value, and no infinities.
    json_safe: bool,
}

const MSGPACK: Gen = Gen {
    unknowns: true,
    json_safe: false,
};
const JSON: Gen = Gen {
    unknowns: false,
    json_safe: true,
};

fn name() -> impl Strategy<Value = String> {
    "[a-c_]{1,3}"
}

fn text() -> impl Strategy<Value = String> {
    "(?s).{0,12}"
}

fn any_type(depth: u32) -> BoxedStrategy<Type> {
    let leaf = prop_oneof![
        Just(Type::String),
        Just(Type::Number),
        Just(Type::Bool),
        Just(Type::Dynamic),
    ];
    leaf.prop_recursive(depth, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| Type::List(Arc::new(t))),
            inner.clone().prop_map(|t| Type::Set(Arc::new(t))),
            inner.clone().prop_map(|t| Type::Map(Arc::new(t))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Type::Tuple),
            prop::collection::btree_map(name(), inner, 0..4).prop_map(Type::object),
        ]
    })
    .boxed()
}

fn number(g: Gen) -> BoxedStrategy<Number> {
    let ints = any::<i64>().prop_map(Number::from_i64);
    let decimals = ("-?", "[1-9][0-9]{0,40}", -45i64..45).prop_map(|(sign, digits, exp)| {
        let text = format!("{sign}{digits}e{exp}");
        text.parse::<Number>().expect("generated decimal parses")
    });
    if g.json_safe {
        // k / 2^j with few digits: their shortest text is their exact value.
        let dyadic = (-65536i32..65536, 0u32..=10).prop_map(|(k, j)| {
            Number::from_f64(f64::from(k) / f64::from(1u32 << j)).expect("not NaN")
        });
        prop_oneof![ints, decimals, dyadic].boxed()
    } else {
        // Integral floats beyond i64 are written as their shortest text, which reads back as a
        // different exact value; go-cty loses them the same way, so they are left out here.
        let floats = any::<f64>()
            .prop_filter("NaN and huge integral floats", |f| {
                let huge_integral = f.is_finite() && f.fract() == 0.0 && f.abs() >= 9.2e18;
                !f.is_nan() && !huge_integral
            })
            .prop_map(|f| Number::from_f64(f).expect("not NaN"));
        prop_oneof![
            4 => ints,
            4 => decimals,
            4 => floats,
            1 => Just(Number::POSITIVE_INFINITY),
            1 => Just(Number::NEGATIVE_INFINITY),
        ]
        .boxed()
    }
}

fn refined_unknown(ty: &Type) -> BoxedStrategy<Value> {
    let t = ty.clone();
    let build = move |r: Refinement| {
        Value::unknown_refined(t.clone(), r).expect("generated refinements are consistent")
    };
    match ty {
        Type::String => (any::<bool>(), prop::option::of("(?s).{1,8}"))
            .prop_map(move |(not_null, prefix)| {
                build(Refinement {
                    not_null,
                    string_prefix: prefix,
                    ..Refinement::default()
                })
            })
            .boxed(),
        Type::Number => (
            any::<bool>(),
            prop::option::of((any::<i32>(), any::<bool>())),
            prop::option::of((0u32..1000, any::<bool>())),
        )
            .prop_map(move |(not_null, lower, upper)| {
                let lower_value = lower.map_or(0, |(v, _)| i64::from(v));
                let bound = |v: i64, inclusive| NumberBound {
                    value: Number::from_i64(v),
                    inclusive,
                };
                build(Refinement {
                    not_null,
                    number_lower: lower.map(|(v, inc)| bound(i64::from(v), inc)),
                    // Strictly above the lower bound, so the pair is always consistent.
                    number_upper: upper.map(|(d, inc)| bound(lower_value + i64::from(d) + 1, inc)),
                    ..Refinement::default()
                })
            })
            .boxed(),
        Type::List(_) | Type::Set(_) | Type::Map(_) => {
            (any::<bool>(), 0u64..4, prop::option::of(0u64..4))
                .prop_map(move |(not_null, lower, extra)| {
                    build(Refinement {
                        not_null,
                        length_lower: lower,
                        length_upper: extra.map(|e| lower + e),
                        ..Refinement::default()
                    })
                })
                .boxed()
        }
        Type::Dynamic => Just(Value::unknown(Type::Dynamic)).boxed(),
        _ => any::<bool>()
            .prop_map(move |not_null| {
                build(Refinement {
                    not_null,
                    ..Refinement::default()
                })
            })
            .boxed(),
    }
}

fn value(ty: &Type, g: Gen, depth: u32) -> BoxedStrategy<Value> {
    let mut options: Vec<(u32, BoxedStrategy<Value>)> =
        vec![(1, Just(Value::null(ty.clone())).boxed())];
    if g.unknowns {
        options.push((1, Just(Value::unknown(ty.clone())).boxed()));
        options.push((1, refined_unknown(ty)));
    }
    options.push((5, known(ty, g, depth)));
    Union::new_weighted(options).boxed()
}

fn known(ty: &Type, g: Gen, depth: u32) -> BoxedStrategy<Value> {
    match ty {
        Type::String => text().prop_map(Value::string).boxed(),
        Type::Number => number(g).prop_map(Value::number).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::bool).boxed(),
        Type::List(e) => {
            let e2 = (**e).clone();
            prop::collection::vec(value(e, g, depth), 0..4)
                .prop_map(move |items| Value::list(e2.clone(), items))
                .boxed()
        }
        Type::Set(e) => {
            let e2 = (**e).clone();
            prop::collection::vec(value(e, g, depth), 0..4)
                .prop_map(move |items| Value::set(e2.clone(), items))
                .boxed()
        }
        Type::Map(e) => {
            let e2 = (**e).clone();
            prop::collection::btree_map(text(), value(e, g, depth), 0..4)
                .prop_map(move |items| Value::map(e2.clone(), items))
                .boxed()
        }
        Type::Tuple(types) => types
            .iter()
            .map(|t| value(t, g, depth))
            .collect::<Vec<_>>()
            .prop_map(Value::tuple)
            .boxed(),
        Type::Object { attributes, .. } => {
            let names: Vec<String> = attributes.keys().cloned().collect();
            attributes
                .values()
                .map(|t| value(t, g, depth))
                .collect::<Vec<_>>()
                .prop_map(move |values| {
                    Value::object(
                        names
                            .iter()
                            .cloned()
                            .zip(values)
                            .collect::<BTreeMap<_, _>>(),
                    )
                })
                .boxed()
        }
        Type::Dynamic if depth >= 2 => prop_oneof![
            text().prop_map(Value::string),
            any::<bool>().prop_map(Value::bool)
        ]
        .boxed(),
        Type::Dynamic => any_type(2)
            .prop_flat_map(move |t| value(&t, g, depth + 1))
            .boxed(),
    }
}

fn typed_value(g: Gen) -> impl Strategy<Value = (Type, Value)> {
    any_type(3).prop_flat_map(move |t| (Just(t.clone()), value(&t, g, 0)))
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn msgpack_round_trips((t, v) in typed_value(MSGPACK)) {
        let bytes = to_msgpack(&v, &t).expect("generated values encode");
        let back = from_msgpack(&bytes, &t).expect("encodings decode");
        prop_assert_eq!(&back, &v);
        let again = to_msgpack(&back, &t).expect("decoded values encode");
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn json_round_trips((t, v) in typed_value(JSON)) {
        let text = to_json(&v, &t).expect("known values encode");
        let back = from_json(&text, &t).expect("encodings decode");
        prop_assert_eq!(&back, &v);
        let again = to_json(&back, &t).expect("decoded values encode");
        prop_assert_eq!(again, text);
    }

    #[test]
    fn set_order_does_not_depend_on_input_order(
        (t, items) in any_type(2).prop_flat_map(|t| {
            (Just(t.clone()), prop::collection::vec(value(&t, MSGPACK, 1), 0..6))
        }),
        rotation in 0usize..6,
    ) {
        let set_type = Type::Set(Arc::new(t.clone()));
        let mut rotated = items.clone();
        rotated.reverse();
        let len = rotated.len().max(1);
        rotated.rotate_left(rotation % len);
        let a = to_msgpack(&Value::set(t.clone(), items), &set_type).expect("encodes");
        let b = to_msgpack(&Value::set(t, rotated), &set_type).expect("encodes");
        prop_assert_eq!(a, b);
    }

    #[test]
    fn mutated_msgpack_never_panics(
        (t, v) in typed_value(MSGPACK),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = to_msgpack(&v, &t).expect("generated values encode");
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        let _ = from_msgpack(&bytes, &t);
        let _ = from_msgpack(&bytes[..cut.index(bytes.len() + 1)], &t);
    }

    #[test]
    fn random_bytes_never_panic(t in any_type(3), bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = from_msgpack(&bytes, &t);
        let _ = from_json(&bytes, &t);
    }
}
