//! Fuzzes the msgpack decoder: `from_msgpack` under a type that the input also chooses.
//!
//! Input layout. The first byte picks how the type is given: even means a JSON type spec (the
//! form Terraform sends) up to the first NUL byte, which JSON text cannot contain, followed by
//! the msgpack bytes; odd means a type built from the following bytes (small objects, tuples and
//! collections, a few levels deep, sometimes with optional attributes), followed by the msgpack
//! bytes. The JSON form exercises `Type::from_json_bytes` too; the built form reaches deep types
//! that byte mutation would rarely spell as JSON.
//!
//! Invariants checked, beyond "never panics": a decoded value encodes under the same type; what
//! it encodes to decodes to the same value (up to the one loss go-cty also has, below) and
//! re-encodes to the same bytes; and when the value has a JSON form, that form reads back as the
//! same value too.
//!
//! Run with `cargo +nightly fuzz run msgpack -- -dict=fuzz/msgpack.dict -max_total_time=600`
//! in the crate directory (`crates/cty`); the dictionary holds type specs and go-cty's msgpack
//! idioms.

#![no_main]

use std::collections::BTreeSet;
use std::sync::Arc;

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use tfp_cty::{Kind, Number, Type, Value, from_json, from_msgpack, to_json, to_msgpack};

/// How deep a built type may nest; the decoder's own depth cap is exercised by dynamic values.
const MAX_TYPE_DEPTH: u32 = 5;

/// Attribute names: a small alphabet so that random msgpack keys hit them.
const NAMES: [&str; 6] = ["a", "b", "c", "id", "tags", ""];

fuzz_target!(|data: &[u8]| check(data));

fn check(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (ty, bytes) = if mode % 2 == 0 {
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            return;
        };
        let Ok(ty) = Type::from_json_bytes(&rest[..nul]) else {
            return;
        };
        (ty, &rest[nul + 1..])
    } else {
        let mut u = Unstructured::new(rest);
        let Ok(ty) = build_type(&mut u, 0) else {
            return;
        };
        (ty, u.take_rest())
    };
    let Ok(value) = from_msgpack(bytes, &ty) else {
        return;
    };
    round_trip(&value, &ty);
}

/// Encodes a decoded value and checks that the encoding decodes back and is a fixed point.
fn round_trip(value: &Value, ty: &Type) {
    let encoded = to_msgpack(value, ty).expect("a decoded value encodes");
    let again = from_msgpack(&encoded, ty).expect("an encoded value decodes");
    assert_eq!(
        again,
        comparable(value, msgpack_number),
        "decode(encode(v)) == v"
    );
    let re_encoded = to_msgpack(&again, ty).expect("a decoded value encodes");
    assert_eq!(re_encoded, encoded, "encoding is a fixed point");
    if let Ok(json) = to_json(value, ty) {
        let from = from_json(&json, ty).expect("an encoded JSON value decodes");
        assert_eq!(
            from,
            comparable(value, json_number),
            "JSON decode(encode(v)) == v"
        );
    }
}

/// Builds a type from fuzz bytes.
fn build_type(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Type> {
    let leaf = depth >= MAX_TYPE_DEPTH;
    let choice = if leaf {
        u.int_in_range(0..=3)?
    } else {
        u.int_in_range(0..=9)?
    };
    Ok(match choice {
        0 => Type::String,
        1 => Type::Number,
        2 => Type::Bool,
        3 => Type::Dynamic,
        4 => Type::List(Arc::new(build_type(u, depth + 1)?)),
        5 => Type::Set(Arc::new(build_type(u, depth + 1)?)),
        6 => Type::Map(Arc::new(build_type(u, depth + 1)?)),
        7 => {
            let n = u.int_in_range(0..=3)?;
            let mut types = Vec::with_capacity(n);
            for _ in 0..n {
                types.push(build_type(u, depth + 1)?);
            }
            Type::Tuple(types)
        }
        _ => {
            let n = u.int_in_range(0..=4)?;
            let mut attributes = std::collections::BTreeMap::new();
            let mut optional = BTreeSet::new();
            for _ in 0..n {
                let name = *u.choose(&NAMES)?;
                if u.ratio(1, 4)? {
                    optional.insert(name.to_owned());
                }
                attributes.insert(name.to_owned(), build_type(u, depth + 1)?);
            }
            optional.retain(|n| attributes.contains_key(n));
            Type::Object {
                attributes,
                optional,
            }
        }
    })
}

/// The value as it is expected back from the wire, given what a number reads back as.
///
/// Sets are rebuilt because two elements may become equal.
fn comparable(value: &Value, number: fn(&Number) -> Number) -> Value {
    let each = |v: &Value| comparable(v, number);
    let kind = match &value.kind {
        Kind::Number(n) => Kind::Number(number(n)),
        Kind::Unknown(t, Some(r)) => {
            let mut r = r.clone();
            for bound in [&mut r.number_lower, &mut r.number_upper]
                .into_iter()
                .flatten()
            {
                bound.value = number(&bound.value);
            }
            Kind::Unknown(Arc::clone(t), Some(r))
        }
        Kind::List(e, items) => Kind::List(Arc::clone(e), items.iter().map(each).collect()),
        Kind::Set(e, items) => {
            return Value {
                sensitive: value.sensitive,
                ..Value::set_in_order(Arc::clone(e), items.iter().map(each).collect())
            };
        }
        Kind::Map(e, items) => Kind::Map(
            Arc::clone(e),
            items.iter().map(|(k, v)| (k.clone(), each(v))).collect(),
        ),
        Kind::Object(attrs) => {
            Kind::Object(attrs.iter().map(|(k, v)| (k.clone(), each(v))).collect())
        }
        Kind::Tuple(items) => Kind::Tuple(items.iter().map(each).collect()),
        other => other.clone(),
    };
    Value {
        kind,
        sensitive: value.sensitive,
    }
}

/// What a number reads back as from msgpack.
///
/// The one expected loss: an integral `f64` outside the `i64` range is written as its shortest
/// decimal text (go-cty does the same), which reads back as that decimal, not as the binary value.
fn msgpack_number(n: &Number) -> Number {
    if n.is_integer() && n.as_i64().is_none() {
        json_number(n)
    } else {
        n.clone()
    }
}

/// What a number reads back as from JSON: its text, which for a number that came from an `f64`
/// is the shortest form that rounds to it, not its exact binary value (go-cty reads it back at
/// 512 bits, so it loses the same way).
fn json_number(n: &Number) -> Number {
    Number::from_decimal_str(&n.to_decimal_string()).expect("a number's own text parses")
}
