//! cty values: typed nulls, unknowns (plain or refined), primitives and collections, each with
//! a sensitivity mark.
//!
//! A [`Value`] is a [`Kind`] plus a `sensitive` flag, our simplification of go-cty's marks: the
//! only mark the bridge needs is "sensitive", it may sit on any value at any depth, and the codecs
//! ignore it (go-cty refuses to serialise marked values; Terraform strips marks before it calls a
//! provider, and so do we). Collections carry their element type so that an empty or all-null
//! collection still knows its type, which a dynamic value must write on the wire.
//!
//! Types inside values are shared (`Arc<Type>`): a decoder hands every null, unknown and
//! collection at one schema position the same allocation, so a large schema type is never copied
//! once per value and hostile input cannot multiply it.
//!
//! Sets keep their elements in a stored order without duplicates: [`Value::set`] sorts them in
//! go-cty's canonical order (so our requests match Terraform's byte for byte), while decoders keep
//! the wire order (so a decoded value re-encodes byte-identical). Equality ignores set order.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::equality::{self, Strictness};
use crate::refinement::{Collapsed, Normalized, RefinementError};
use crate::{Number, Refinement, Type, set_order};

/// A cty value. Equality is exact, as go-cty's `RawEquals`: same types, refinements and marks;
/// numbers compare by value and sets ignore element order.
#[derive(Clone, Debug)]
pub struct Value {
    pub kind: Kind,
    /// The value is sensitive (go-cty's `marks.Sensitive`); it never reaches the wire.
    pub sensitive: bool,
}

/// The shape and content of a value.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A null of the given type (`dynamic` for an untyped null).
    Null(Arc<Type>),
    /// An unknown of the given type (`dynamic` for go-cty's `DynamicVal`), with what is known.
    Unknown(Arc<Type>, Option<Box<Refinement>>),
    String(String),
    Number(Number),
    Bool(bool),
    /// Element type and elements.
    List(Arc<Type>, Vec<Value>),
    /// Element type and distinct elements, in stored order.
    Set(Arc<Type>, Vec<Value>),
    /// Element type and elements by key.
    Map(Arc<Type>, BTreeMap<String, Value>),
    Object(BTreeMap<String, Value>),
    Tuple(Vec<Value>),
}

impl From<Kind> for Value {
    fn from(kind: Kind) -> Value {
        Value {
            kind,
            sensitive: false,
        }
    }
}

impl Value {
    /// A null of type `ty`.
    pub fn null(ty: impl Into<Arc<Type>>) -> Value {
        Kind::Null(ty.into()).into()
    }

    /// An unknown of type `ty` about which nothing is known.
    pub fn unknown(ty: impl Into<Arc<Type>>) -> Value {
        Kind::Unknown(ty.into(), None).into()
    }

    /// An unknown of type `ty` with refinements, normalised as go-cty does: refinements that do
    /// not apply to `ty` are dropped, and refinements that pin the value down give a known value
    /// (a number with equal inclusive bounds, an empty collection, a list of unknowns).
    pub fn unknown_refined(
        ty: impl Into<Arc<Type>>,
        refinement: Refinement,
    ) -> Result<Value, RefinementError> {
        let ty = ty.into();
        // A collapsed collection takes its element type from `ty`, which shares it.
        Ok(match refinement.normalize(&ty)? {
            Normalized::Unknown(r) => Kind::Unknown(ty, r).into(),
            Normalized::Known(Collapsed::Number(n)) => Value::number(n),
            Normalized::Known(Collapsed::EmptyCollection) => match &*ty {
                Type::List(e) => Value::list(e.clone(), Vec::new()),
                Type::Set(e) => Value::set(e.clone(), Vec::new()),
                Type::Map(e) => Value::map(e.clone(), BTreeMap::new()),
                _ => Value::unknown(ty),
            },
            Normalized::Known(Collapsed::UnknownElements(n)) => match &*ty {
                Type::List(e) => Value::list(e.clone(), vec![Value::unknown(e.clone()); n]),
                Type::Set(e) => Value::set(e.clone(), vec![Value::unknown(e.clone()); n]),
                _ => Value::unknown(ty),
            },
        })
    }

    pub fn string(s: impl Into<String>) -> Value {
        Kind::String(s.into()).into()
    }

    pub fn number(n: impl Into<Number>) -> Value {
        Kind::Number(n.into()).into()
    }

    /// A number from an `f64`; `None` for NaN.
    pub fn from_f64(f: f64) -> Option<Value> {
        Number::from_f64(f).map(Value::number)
    }

    pub fn bool(b: bool) -> Value {
        Kind::Bool(b).into()
    }

    pub fn list(element_type: impl Into<Arc<Type>>, items: Vec<Value>) -> Value {
        Kind::List(element_type.into(), items).into()
    }

    /// A set: duplicates removed, elements in go-cty's canonical order.
    pub fn set(element_type: impl Into<Arc<Type>>, items: Vec<Value>) -> Value {
        let element_type = element_type.into();
        let items = set_order::canonical(&element_type, equality::dedupe(items));
        Kind::Set(element_type, items).into()
    }

    /// A set: duplicates removed (the first is kept), elements in the given order.
    pub fn set_in_order(element_type: impl Into<Arc<Type>>, items: Vec<Value>) -> Value {
        Kind::Set(element_type.into(), equality::dedupe(items)).into()
    }

    pub fn map(element_type: impl Into<Arc<Type>>, items: BTreeMap<String, Value>) -> Value {
        Kind::Map(element_type.into(), items).into()
    }

    pub fn object<K: Into<String>>(attrs: impl IntoIterator<Item = (K, Value)>) -> Value {
        Kind::Object(attrs.into_iter().map(|(k, v)| (k.into(), v)).collect()).into()
    }

    pub fn empty_object() -> Value {
        Kind::Object(BTreeMap::new()).into()
    }

    pub fn tuple(items: Vec<Value>) -> Value {
        Kind::Tuple(items).into()
    }

    /// The same value marked sensitive.
    pub fn mark_sensitive(mut self) -> Value {
        self.sensitive = true;
        self
    }

    /// Whether this value or anything inside it is sensitive.
    pub fn contains_sensitive(&self) -> bool {
        self.sensitive || self.children().any(Value::contains_sensitive)
    }

    /// The same value with every sensitivity mark removed, at every depth.
    pub fn unmark_deep(mut self) -> Value {
        self.clear_marks();
        self
    }

    fn clear_marks(&mut self) {
        self.sensitive = false;
        self.for_each_child_mut(Value::clear_marks);
    }

    /// The same value with every known number rounded to float64 precision, at every depth, as
    /// the Go bridge rounds a state the provider upgraded (it decodes numbers into `float64`s).
    pub fn rounded_to_f64(mut self) -> Value {
        self.round_to_f64();
        self
    }

    fn round_to_f64(&mut self) {
        if let Kind::Number(n) = &mut self.kind
            && !n.is_infinite()
            && let Some(rounded) = Number::from_f64(n.to_f64())
        {
            *n = rounded;
        }
        self.for_each_child_mut(Value::round_to_f64);
    }

    /// The type of the value, as go-cty's `Value.Type()` (collections use their element type).
    pub fn ty(&self) -> Type {
        match &self.kind {
            Kind::Null(t) | Kind::Unknown(t, _) => (**t).clone(),
            Kind::String(_) => Type::String,
            Kind::Number(_) => Type::Number,
            Kind::Bool(_) => Type::Bool,
            Kind::List(e, _) => Type::List(e.clone()),
            Kind::Set(e, _) => Type::Set(e.clone()),
            Kind::Map(e, _) => Type::Map(e.clone()),
            Kind::Object(attrs) => Type::object(attrs.iter().map(|(k, v)| (k.clone(), v.ty()))),
            Kind::Tuple(items) => Type::Tuple(items.iter().map(Value::ty).collect()),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null(_))
    }

    /// Whether the value itself is known (its elements may still be unknown).
    pub fn is_known(&self) -> bool {
        !matches!(self.kind, Kind::Unknown(..))
    }

    /// Whether the two values are equal as go-cty's `RawEquals` has them once their marks and
    /// refinements are dropped: sets compared as unordered, in time linear in their size.
    pub fn loosely_equals(&self, other: &Value) -> bool {
        equality::equal(self, other, Strictness::Loose)
    }

    /// Whether the value and everything inside it is known.
    pub fn is_wholly_known(&self) -> bool {
        self.is_known() && self.children().all(Value::is_wholly_known)
    }

    /// The refinements of an unknown value, if any.
    pub fn refinement(&self) -> Option<&Refinement> {
        match &self.kind {
            Kind::Unknown(_, r) => r.as_deref(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            Kind::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match &self.kind {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as an `i64`, if it is one.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    /// The number as the nearest `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().map(Number::to_f64)
    }

    /// An attribute of a known object.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        self.as_object().and_then(|attrs| attrs.get(name))
    }

    /// The attributes of a known object.
    pub fn as_object(&self) -> Option<&BTreeMap<String, Value>> {
        match &self.kind {
            Kind::Object(attrs) => Some(attrs),
            _ => None,
        }
    }

    /// The elements of a known map.
    pub fn as_map(&self) -> Option<&BTreeMap<String, Value>> {
        match &self.kind {
            Kind::Map(_, items) => Some(items),
            _ => None,
        }
    }

    /// The elements of a known list, set (stored order) or tuple.
    pub fn elements(&self) -> Option<&[Value]> {
        match &self.kind {
            Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items) => Some(items),
            _ => None,
        }
    }

    /// The number of elements or attributes of a known collection, tuple or object.
    pub fn len(&self) -> Option<usize> {
        match &self.kind {
            Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items) => Some(items.len()),
            Kind::Map(_, items) | Kind::Object(items) => Some(items.len()),
            _ => None,
        }
    }

    /// Whether a known collection, tuple or object is empty (`None` for other values).
    pub fn is_empty(&self) -> Option<bool> {
        self.len().map(|n| n == 0)
    }

    /// The direct children: elements or attribute values, in stored order.
    pub fn children(&self) -> impl Iterator<Item = &Value> {
        // A sequence and a map iterator, one of them empty, rather than a boxed iterator: this is
        // called for every node of a value walked whole (`is_wholly_known`, sensitivity), and a
        // box would allocate each time.
        let (elements, by_key) = match &self.kind {
            Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items) => (&items[..], None),
            Kind::Map(_, items) | Kind::Object(items) => (&[][..], Some(items.values())),
            _ => (&[][..], None),
        };
        elements.iter().chain(by_key.into_iter().flatten())
    }

    fn for_each_child_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        match &mut self.kind {
            Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items) => {
                items.iter_mut().for_each(f);
            }
            Kind::Map(_, items) | Kind::Object(items) => items.values_mut().for_each(&mut f),
            _ => {}
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        equality::equal(self, other, Strictness::Raw)
    }
}

impl PartialEq for Kind {
    fn eq(&self, other: &Kind) -> bool {
        equality::equal_kinds(self, other, Strictness::Raw)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::string(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::string(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::number(i)
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::number(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_rounded_to_float64() {
        let big = Number::from_decimal_str("9007199254740993").expect("a number");
        let value = Value::object([("n", Value::number(big))]);
        let rounded = value.rounded_to_f64();
        assert_eq!(
            rounded.attr("n").and_then(Value::as_f64),
            Some(9_007_199_254_740_992.0)
        );
        assert_eq!(
            rounded
                .attr("n")
                .and_then(Value::as_number)
                .map(Number::to_decimal_string)
                .as_deref(),
            Some("9007199254740992")
        );
    }
}
