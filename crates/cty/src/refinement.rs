//! Refinements of unknown values: what is already known about a value that is not.
//!
//! go-cty (`cty/unknown_refinement.go`) lets an unknown be definitely not null, and then per type
//! a string prefix, inclusive or exclusive number bounds, or collection length bounds. A provider
//! that returns a refined unknown in a plan must honour it at apply, so we keep refinements rather
//! than dropping them. A "definitely null" refinement makes the value a known null, and go-cty
//! collapses some other refinements into known values too; [`Refinement::normalize`] does the same,
//! so that every refined unknown has a single representation.

use crate::{Number, Type};

/// What is known about an unknown value. The default is "nothing".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Refinement {
    /// The value will not be null.
    pub not_null: bool,
    /// Strings only: the value starts with this (non-empty) prefix.
    pub string_prefix: Option<String>,
    /// Numbers only: a lower bound other than -Inf.
    pub number_lower: Option<NumberBound>,
    /// Numbers only: an upper bound other than +Inf.
    pub number_upper: Option<NumberBound>,
    /// Lists, sets and maps only: the least length (0 means no bound).
    pub length_lower: u64,
    /// Lists, sets and maps only: the greatest length.
    pub length_upper: Option<u64>,
}

/// One end of a number range.
#[derive(Clone, Debug, PartialEq)]
pub struct NumberBound {
    pub value: Number,
    pub inclusive: bool,
}

/// Refinements that contradict each other.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RefinementError {
    #[error("number lower bound is greater than upper bound")]
    NumberBounds,
    #[error("collection length lower bound is greater than upper bound")]
    LengthBounds,
}

/// The result of normalising a refinement for a type.
#[derive(Debug)]
pub(crate) enum Normalized {
    /// Still unknown, with these refinements (`None` when nothing is known).
    Unknown(Option<Box<Refinement>>),
    /// The refinements pin the value down: go-cty's `RefinementBuilder.NewValue` collapses these.
    Known(Collapsed),
}

/// A known value implied by refinements.
#[derive(Debug)]
pub(crate) enum Collapsed {
    Number(Number),
    EmptyCollection,
    /// A list of this many unknown elements, or a one-element set of an unknown.
    UnknownElements(usize),
}

/// go-cty builds a list of N unknown elements from a not-null refinement of exact length N; we do
/// so only up to this N, so that a few input bytes cannot stand for a huge list. A longer list
/// stays a refined unknown, which says the same.
const MAX_COLLAPSED_LIST: u64 = 16;

impl Refinement {
    /// A refinement saying only that the value is not null.
    pub fn not_null() -> Refinement {
        Refinement {
            not_null: true,
            ..Refinement::default()
        }
    }

    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        *self == Refinement::default()
    }

    /// Drops refinements that do not apply to `ty` (all of them for `dynamic`), drops empty and
    /// infinite bounds, checks bounds for consistency and collapses what go-cty collapses.
    pub(crate) fn normalize(mut self, ty: &Type) -> Result<Normalized, RefinementError> {
        match ty {
            Type::Dynamic => return Ok(Normalized::Unknown(None)),
            Type::String => {
                self.clear_numbers();
                self.clear_lengths();
                if self.string_prefix.as_deref() == Some("") {
                    self.string_prefix = None;
                }
            }
            Type::Number => {
                self.string_prefix = None;
                self.clear_lengths();
                if self
                    .number_lower
                    .as_ref()
                    .is_some_and(|b| b.value == Number::NEGATIVE_INFINITY)
                {
                    self.number_lower = None;
                }
                if self
                    .number_upper
                    .as_ref()
                    .is_some_and(|b| b.value == Number::POSITIVE_INFINITY)
                {
                    self.number_upper = None;
                }
                if let (Some(lo), Some(hi)) = (&self.number_lower, &self.number_upper) {
                    let consistent = if lo.inclusive && hi.inclusive {
                        lo.value <= hi.value
                    } else {
                        lo.value < hi.value
                    };
                    if !consistent {
                        return Err(RefinementError::NumberBounds);
                    }
                }
            }
            Type::List(_) | Type::Set(_) | Type::Map(_) => {
                self.string_prefix = None;
                self.clear_numbers();
                if self.length_upper.is_some_and(|hi| hi < self.length_lower) {
                    return Err(RefinementError::LengthBounds);
                }
            }
            Type::Bool | Type::Object { .. } | Type::Tuple(_) => {
                self.string_prefix = None;
                self.clear_numbers();
                self.clear_lengths();
            }
        }
        if self.not_null
            && let Some(known) = self.collapse(ty)
        {
            return Ok(Normalized::Known(known));
        }
        Ok(Normalized::Unknown(
            (!self.is_empty()).then(|| Box::new(self)),
        ))
    }

    fn collapse(&self, ty: &Type) -> Option<Collapsed> {
        if let (Some(lo), Some(hi)) = (&self.number_lower, &self.number_upper)
            && lo.inclusive
            && hi.inclusive
            && lo.value == hi.value
        {
            return Some(Collapsed::Number(lo.value.clone()));
        }
        let exact = self.length_upper.filter(|&hi| hi == self.length_lower)?;
        match (ty, exact) {
            (Type::List(_) | Type::Set(_) | Type::Map(_), 0) => Some(Collapsed::EmptyCollection),
            (Type::List(_), n) if n <= MAX_COLLAPSED_LIST => {
                Some(Collapsed::UnknownElements(n as usize))
            }
            (Type::Set(_), 1) => Some(Collapsed::UnknownElements(1)),
            _ => None,
        }
    }

    fn clear_numbers(&mut self) {
        self.number_lower = None;
        self.number_upper = None;
    }

    fn clear_lengths(&mut self) {
        self.length_lower = 0;
        self.length_upper = None;
    }
}
