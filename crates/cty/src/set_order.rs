//! go-cty's canonical order of set elements.
//!
//! go-cty (`cty/set_internals.go`, `cty/set/ops.go`) iterates a set sorted by: known non-null
//! elements first, then unknowns, then nulls; strings by bytes, numbers by value, `false` before
//! `true`; elements of any other type by their "hash string" (`?` unknown, `~` null, numbers as
//! `big.Float.String()`, strings Go-quoted, `[e;…]` lists and sets, `{k:v;…}` maps, `<a;…>`
//! objects and tuples), ties kept in insertion order. Matching it makes the sets we build encode
//! exactly as Terraform's do. Where go-cty cannot tell elements apart (unknowns, or values whose
//! hash strings agree) we break the tie by a structural hash instead of insertion order, so the
//! order never depends on the input order.

use std::cmp::Ordering;

use tfp_gostd::strconv::append_quote;

use crate::equality::{Strictness, TypeHashes, fingerprint};
use crate::value::Kind;
use crate::{Type, Value};

/// Sorts elements in go-cty's canonical order.
pub(crate) fn canonical(element_type: &Type, items: Vec<Value>) -> Vec<Value> {
    if items.len() < 2 {
        return items;
    }
    let (order, _) = ordered(element_type, &items);
    let mut slots: Vec<Option<Value>> = items.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect()
}

/// The positions of `items` in go-cty's canonical order, and the hash string of each element
/// of a compound type (computed once: a set nested in a set is not hashed again, which would
/// double the work at every level).
fn ordered(element_type: &Type, items: &[Value]) -> (Vec<usize>, Vec<Option<String>>) {
    let compound = !matches!(element_type, Type::String | Type::Number | Type::Bool);
    let mut types = TypeHashes::default();
    let hashes: Vec<Option<String>> = items
        .iter()
        .map(|v| {
            compound.then(|| {
                let mut out = String::new();
                hash_string(v, &mut out);
                out
            })
        })
        .collect();
    let fingerprints: Vec<u64> = items
        .iter()
        .map(|v| fingerprint(v, Strictness::Unmarked, &mut types))
        .collect();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&i, &j| {
        compare(
            hashes[i].as_deref(),
            &items[i],
            hashes[j].as_deref(),
            &items[j],
        )
        .then_with(|| fingerprints[i].cmp(&fingerprints[j]))
    });
    (order, hashes)
}

fn class(v: &Value) -> u8 {
    match v.kind {
        Kind::Null(_) => 2,
        Kind::Unknown(..) => 1,
        _ => 0,
    }
}

fn compare(ha: Option<&str>, a: &Value, hb: Option<&str>, b: &Value) -> Ordering {
    class(a).cmp(&class(b)).then_with(|| {
        if class(a) != 0 {
            return Ordering::Equal;
        }
        match (&a.kind, &b.kind, ha, hb) {
            (_, _, Some(ha), Some(hb)) => ha.cmp(hb),
            (Kind::String(x), Kind::String(y), ..) => x.as_bytes().cmp(y.as_bytes()),
            (Kind::Number(x), Kind::Number(y), ..) => x.cmp(y),
            (Kind::Bool(x), Kind::Bool(y), ..) => x.cmp(y),
            _ => Ordering::Equal,
        }
    })
}

/// go-cty's `appendSetHashBytes`.
fn hash_string(v: &Value, out: &mut String) {
    match &v.kind {
        Kind::Unknown(..) => out.push('?'),
        Kind::Null(_) => out.push('~'),
        Kind::Number(n) => out.push_str(&n.to_g10()),
        Kind::Bool(b) => out.push(if *b { 'T' } else { 'F' }),
        Kind::String(s) => append_quote(out, s),
        Kind::Map(_, items) => {
            out.push('{');
            for (k, e) in items {
                append_quote(out, k);
                out.push(':');
                hash_string(e, out);
                out.push(';');
            }
            out.push('}');
        }
        Kind::List(_, items) => {
            out.push('[');
            for e in items {
                hash_string(e, out);
                out.push(';');
            }
            out.push(']');
        }
        Kind::Set(ety, items) => {
            out.push('[');
            let (order, hashes) = ordered(ety, items);
            for i in order {
                match &hashes[i] {
                    Some(hash) => out.push_str(hash),
                    None => hash_string(&items[i], out),
                }
                out.push(';');
            }
            out.push(']');
        }
        Kind::Object(attrs) => {
            out.push('<');
            for e in attrs.values() {
                hash_string(e, out);
                out.push(';');
            }
            out.push('>');
        }
        Kind::Tuple(items) => {
            out.push('<');
            for e in items {
                hash_string(e, out);
                out.push(';');
            }
            out.push('>');
        }
    }
}
