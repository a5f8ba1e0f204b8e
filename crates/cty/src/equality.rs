//! Exact equality of values, and the duplicate detection sets need, in time linear in the size
//! of the values.
//!
//! Equality is go-cty's `RawEquals` with numbers compared by value and sets compared as
//! unordered; "equivalence" (what makes two set elements duplicates) is the same without marks,
//! and holds only between wholly known values, as go-cty's `Equals` is unknown otherwise. A
//! looser equality ignores refinements as well ([`Strictness::Loose`]).
//! Duplicates are found by bucketing elements under a structural hash and comparing within a
//! bucket. Types are hashed once per shared allocation, so a set of many values carrying one
//! large type costs one pass over that type, not one per value.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::value::Kind;
use crate::{Type, Value};

/// What two values must share, beyond their types and content, to be equal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Strictness {
    /// Marks and refinements: go-cty's `RawEquals`, and `Value`'s `PartialEq`.
    Raw,
    /// Refinements, not marks: what makes two set elements duplicates.
    Unmarked,
    /// Neither: `RawEquals` of the unmarked, unrefined values.
    Loose,
}

impl Strictness {
    fn marks(self) -> bool {
        self == Strictness::Raw
    }

    fn refinements(self) -> bool {
        self != Strictness::Loose
    }
}

/// Whether two values are equal.
pub(crate) fn equal(a: &Value, b: &Value, strictness: Strictness) -> bool {
    !(strictness.marks() && a.sensitive != b.sensitive) && equal_kinds(&a.kind, &b.kind, strictness)
}

/// Whether two kinds are equal, the values inside them compared as strictly.
pub(crate) fn equal_kinds(a: &Kind, b: &Kind, strictness: Strictness) -> bool {
    match (a, b) {
        (Kind::Null(x), Kind::Null(y)) => x == y,
        (Kind::Unknown(x, rx), Kind::Unknown(y, ry)) => {
            x == y && (!strictness.refinements() || rx == ry)
        }
        (Kind::String(x), Kind::String(y)) => x == y,
        (Kind::Number(x), Kind::Number(y)) => x == y,
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::List(ex, x), Kind::List(ey, y)) => ex == ey && sequences_equal(x, y, strictness),
        (Kind::Tuple(x), Kind::Tuple(y)) => sequences_equal(x, y, strictness),
        (Kind::Set(ex, x), Kind::Set(ey, y)) => ex == ey && same_elements(x, y, strictness),
        (Kind::Map(ex, x), Kind::Map(ey, y)) => {
            ex == ey
                && x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && equal(vx, vy, strictness))
        }
        (Kind::Object(x), Kind::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && equal(vx, vy, strictness))
        }
        _ => false,
    }
}

fn sequences_equal(x: &[Value], y: &[Value], strictness: Strictness) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b, strictness))
}

/// Whether two element lists hold the same elements in any order.
pub(crate) fn same_elements(a: &[Value], b: &[Value], strictness: Strictness) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if sequences_equal(a, b, strictness) {
        return true;
    }
    let mut index = Index::new(b, strictness);
    let mut used = vec![false; b.len()];
    a.iter().all(|v| {
        match index
            .candidates(v)
            .iter()
            .find(|&&j| !used[j] && equal(v, &b[j], strictness))
        {
            Some(&j) => {
                used[j] = true;
                true
            }
            None => false,
        }
    })
}

/// The indices, in order, of the elements of `a` that equal (as `==` has it: marks and
/// refinements counting) no element of `b`: what a set difference keeps. Linear in the size of
/// both, where asking `b.contains` of each would be quadratic.
pub fn elements_not_in(a: &[Value], b: &[Value]) -> Vec<usize> {
    let strictness = Strictness::Raw;
    if b.len() <= SMALL_SET {
        return (0..a.len())
            .filter(|&i| !b.iter().any(|y| equal(&a[i], y, strictness)))
            .collect();
    }
    let mut index = Index::new(b, strictness);
    (0..a.len())
        .filter(|&i| !(index.candidates(&a[i]).iter()).any(|&j| equal(&a[i], &b[j], strictness)))
        .collect()
}

/// The positions of a list's elements under their fingerprints: the only ones a value can equal.
struct Index {
    buckets: HashMap<u64, Vec<usize>>,
    types: TypeHashes,
    strictness: Strictness,
}

impl Index {
    fn new(items: &[Value], strictness: Strictness) -> Index {
        let mut types = TypeHashes::default();
        let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, v) in items.iter().enumerate() {
            buckets
                .entry(fingerprint(v, strictness, &mut types))
                .or_default()
                .push(i);
        }
        Index {
            buckets,
            types,
            strictness,
        }
    }

    /// The positions of the elements `v` may equal.
    fn candidates(&mut self, v: &Value) -> &[usize] {
        let key = fingerprint(v, self.strictness, &mut self.types);
        self.buckets.get(&key).map_or(&[], Vec::as_slice)
    }
}

/// Removes later elements equivalent to an earlier one. Values that are not wholly known are
/// never equivalent to anything, so they are all kept.
pub(crate) fn dedupe(items: Vec<Value>) -> Vec<Value> {
    if items.len() < 2 {
        return items;
    }
    if items.len() <= SMALL_SET {
        return dedupe_small(items);
    }
    let mut types = TypeHashes::default();
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut kept: Vec<Value> = Vec::with_capacity(items.len());
    for v in items {
        if v.is_wholly_known() {
            let bucket = buckets
                .entry(fingerprint(&v, Strictness::Unmarked, &mut types))
                .or_default();
            if bucket
                .iter()
                .any(|&i| equal(&kept[i], &v, Strictness::Unmarked))
            {
                continue;
            }
            bucket.push(kept.len());
        }
        kept.push(v);
    }
    kept
}

/// Up to this many elements, comparing each with those kept before it is cheaper than hashing
/// them all, and the quadratic count of comparisons stays small.
const SMALL_SET: usize = 8;

/// [`dedupe`] by comparing each element with the wholly known ones kept before it.
fn dedupe_small(items: Vec<Value>) -> Vec<Value> {
    let mut kept: Vec<Value> = Vec::with_capacity(items.len());
    // Whether each kept element is wholly known, and so may be equivalent to a later one.
    let mut known = [false; SMALL_SET];
    for v in items {
        let wholly_known = v.is_wholly_known();
        if wholly_known
            && kept
                .iter()
                .zip(known)
                .any(|(k, k_known)| k_known && equal(k, &v, Strictness::Unmarked))
        {
            continue;
        }
        known[kept.len()] = wholly_known;
        kept.push(v);
    }
    kept
}

/// A structural hash consistent with [`equal`]: equal values hash alike.
pub(crate) fn fingerprint(v: &Value, strictness: Strictness, types: &mut TypeHashes) -> u64 {
    let mut h = DefaultHasher::new();
    hash_value(v, strictness, types, &mut h);
    h.finish()
}

/// Hashes of types, computed once per shared allocation.
#[derive(Default)]
pub(crate) struct TypeHashes(HashMap<*const Type, u64>);

impl TypeHashes {
    fn get(&mut self, t: &Arc<Type>) -> u64 {
        *self.0.entry(Arc::as_ptr(t)).or_insert_with(|| {
            let mut h = DefaultHasher::new();
            t.hash(&mut h);
            h.finish()
        })
    }
}

fn hash_value(v: &Value, strictness: Strictness, types: &mut TypeHashes, h: &mut DefaultHasher) {
    if strictness.marks() {
        v.sensitive.hash(h);
    }
    match &v.kind {
        Kind::Null(t) => {
            0u8.hash(h);
            types.get(t).hash(h);
        }
        Kind::Unknown(t, r) => {
            1u8.hash(h);
            types.get(t).hash(h);
            if let Some(r) = r.as_ref().filter(|_| strictness.refinements()) {
                r.not_null.hash(h);
                r.string_prefix.hash(h);
                for bound in [&r.number_lower, &r.number_upper].into_iter().flatten() {
                    bound.value.hash(h);
                    bound.inclusive.hash(h);
                }
                r.length_lower.hash(h);
                r.length_upper.hash(h);
            }
        }
        Kind::String(s) => {
            2u8.hash(h);
            s.hash(h);
        }
        Kind::Number(n) => {
            3u8.hash(h);
            n.hash(h);
        }
        Kind::Bool(b) => {
            4u8.hash(h);
            b.hash(h);
        }
        Kind::List(t, items) => {
            5u8.hash(h);
            types.get(t).hash(h);
            items.len().hash(h);
            for item in items {
                hash_value(item, strictness, types, h);
            }
        }
        Kind::Tuple(items) => {
            6u8.hash(h);
            items.len().hash(h);
            for item in items {
                hash_value(item, strictness, types, h);
            }
        }
        Kind::Set(t, items) => {
            7u8.hash(h);
            types.get(t).hash(h);
            items.len().hash(h);
            // Order-insensitive: combine the element hashes commutatively.
            let combined = items.iter().fold(0u64, |acc, item| {
                acc.wrapping_add(fingerprint(item, strictness, types))
            });
            combined.hash(h);
        }
        Kind::Map(t, items) => {
            8u8.hash(h);
            types.get(t).hash(h);
            items.len().hash(h);
            for (k, item) in items {
                k.hash(h);
                hash_value(item, strictness, types, h);
            }
        }
        Kind::Object(attrs) => {
            9u8.hash(h);
            attrs.len().hash(h);
            for (k, item) in attrs {
                k.hash(h);
                hash_value(item, strictness, types, h);
            }
        }
    }
}
