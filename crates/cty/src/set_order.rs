//! go-cty's canonical order of set elements.
//!
//! go-cty (`cty/set_internals.go`, `cty/set/ops.go`) iterates a set sorted by: known non-null
//! elements first, then unknowns, then nulls; strings by bytes, numbers by value, `false` before
//! `true`; elements of any other type by their "hash string" (`?` unknown, `~` null, numbers as
//! `big.Float.String()`, strings Go-quoted, `[e;…]` lists and sets, `{k:v;…}` maps, `<a;…>`
//! objects and tuples), ties kept in insertion order. Matching it makes the sets we build encode
//! exactly as Terraform's do. Where go-cty cannot tell elements apart (unknowns, or values whose
//! hash strings agree) we break the tie by a structural hash instead of insertion order, so the
//! order never depends on the input order. Go quoting of non-ASCII characters is approximated (Go
//! consults the Unicode tables for what is printable), which can only reorder sets holding such
//! strings.

use std::cmp::Ordering;
use std::fmt::Write as _;

use crate::equality::{TypeHashes, fingerprint};
use crate::value::Kind;
use crate::{Type, Value};

/// Sorts elements in go-cty's canonical order.
pub(crate) fn canonical(element_type: &Type, items: Vec<Value>) -> Vec<Value> {
    if items.len() < 2 {
        return items;
    }
    let order = canonical_order(element_type, &items);
    let mut slots: Vec<Option<Value>> = items.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect()
}

/// The positions of `items` in go-cty's canonical order.
fn canonical_order(element_type: &Type, items: &[Value]) -> Vec<usize> {
    let compound = !matches!(element_type, Type::String | Type::Number | Type::Bool);
    let mut types = TypeHashes::default();
    let keys: Vec<(Option<String>, u64)> = items
        .iter()
        .map(|v| {
            let hash = compound.then(|| {
                let mut out = String::new();
                hash_string(v, &mut out);
                out
            });
            (hash, fingerprint(v, false, &mut types))
        })
        .collect();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&i, &j| {
        let ((hi, ti), (hj, tj)) = (&keys[i], &keys[j]);
        compare(hi.as_deref(), &items[i], hj.as_deref(), &items[j]).then_with(|| ti.cmp(tj))
    });
    order
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
        Kind::String(s) => go_quote(s, out),
        Kind::Map(_, items) => {
            out.push('{');
            for (k, e) in items {
                go_quote(k, out);
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
            for i in canonical_order(ety, items) {
                hash_string(&items[i], out);
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

/// Go's `strconv.Quote`, with printability outside ASCII approximated.
fn go_quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if !go_printable(c) => {
                let _ = if (c as u32) < 0x10000 {
                    write!(out, "\\u{:04x}", c as u32)
                } else {
                    write!(out, "\\U{:08x}", c as u32)
                };
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn go_printable(c: char) -> bool {
    let u = c as u32;
    !(c.is_control()
        || c.is_whitespace()
        || u == 0xad
        || (0x200b..=0x200f).contains(&u)
        || (0x202a..=0x202e).contains(&u)
        || (0x2060..=0x206f).contains(&u)
        || u == 0xfeff
        || (0xfff9..=0xfffb).contains(&u)
        || (0xe000..=0xf8ff).contains(&u)
        || u >= 0xf0000)
}
