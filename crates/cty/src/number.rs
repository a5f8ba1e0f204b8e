//! cty numbers: arbitrary-precision decimals, `f64` values and the two infinities.
//!
//! go-cty keeps numbers as `big.Float`s whose precision depends on their origin: 53 bits for a
//! Go `float64`, 64 for an integer, 512 for a parsed string. The precision decides how the number
//! is written: `0.1` that arrived as a float64 is written back as the float64 `0.1` and printed
//! `0.1`, while `0.1` parsed from text is not exactly a float64 and is written as the string
//! `"0.1"`. We model that with three exact representations and never round through `f64`:
//!
//! - `Int`: every integer that fits an `i64` (whatever its origin);
//! - `Float`: a finite `f64` that is not such an integer, printed in its shortest form;
//! - `Decimal`: an exact decimal that is not such an integer, printed exactly.
//!
//! Equality and ordering compare exact values, so `Float(0.5)` equals the decimal `0.5`.
//! Difference from go-cty: decimals longer than ~150 significant digits are kept exactly rather
//! than rounded to 512 bits.

mod decimal;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use tfp_gostd::strconv::{FloatFormat, format_float};

pub(crate) use decimal::Decimal;

/// A cty number.
#[derive(Clone)]
pub struct Number(Repr);

#[derive(Clone, Debug)]
enum Repr {
    Int(i64),
    /// Finite and not an integer in `i64` range.
    Float(f64),
    /// Not an integer in `i64` range; boxed to keep values small.
    Decimal(Box<Decimal>),
    PosInf,
    NegInf,
}

/// A string that is not a number go-cty would accept, or one too large to print.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("a number is required")]
    Syntax,
    #[error("number is out of the supported range")]
    OutOfRange,
}

/// How go-cty's msgpack encoder writes a number (`cty/msgpack/marshal.go`).
pub(crate) enum WireNumber {
    Int(i64),
    Float(f64),
    Text(String),
}

impl Number {
    /// Positive infinity.
    pub const POSITIVE_INFINITY: Number = Number(Repr::PosInf);
    /// Negative infinity.
    pub const NEGATIVE_INFINITY: Number = Number(Repr::NegInf);

    /// An integer.
    pub const fn from_i64(v: i64) -> Number {
        Number(Repr::Int(v))
    }

    /// An unsigned integer, exact beyond `i64::MAX`.
    pub fn from_u64(v: u64) -> Number {
        match i64::try_from(v) {
            Ok(i) => Number(Repr::Int(i)),
            Err(_) => Number::from_decimal(Decimal::from_parts(false, &v.to_string(), 0)),
        }
    }

    /// A float, as go-cty's `NumberFloatVal`; `None` for NaN, which cty cannot represent.
    pub fn from_f64(v: f64) -> Option<Number> {
        if v.is_nan() {
            return None;
        }
        Some(Number(if v == f64::INFINITY {
            Repr::PosInf
        } else if v == f64::NEG_INFINITY {
            Repr::NegInf
        } else if v.fract() == 0.0
            && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&v)
        {
            // The range is [-2^63, 2^63): exactly the integers an i64 holds.
            Repr::Int(v as i64)
        } else {
            Repr::Float(v)
        }))
    }

    /// Parses decimal text as go-cty's `ParseNumberVal` does (`-12.5e3`, `Inf`, `-inf`), exactly.
    pub fn from_decimal_str(s: &str) -> Result<Number, NumberError> {
        match decimal::parse(s) {
            Ok(decimal::Parsed::Zero) => Ok(Number(Repr::Int(0))),
            Ok(decimal::Parsed::Infinity { negative }) => {
                Ok(Number(if negative { Repr::NegInf } else { Repr::PosInf }))
            }
            Ok(decimal::Parsed::Finite(d)) => Ok(Number::from_decimal(Some(d))),
            Err(decimal::ParseError::Syntax) => Err(NumberError::Syntax),
            Err(decimal::ParseError::OutOfRange) => Err(NumberError::OutOfRange),
        }
    }

    fn from_decimal(d: Option<Decimal>) -> Number {
        match d {
            None => Number(Repr::Int(0)),
            Some(d) => match d.to_i64() {
                Some(i) => Number(Repr::Int(i)),
                None => Number(Repr::Decimal(Box::new(d))),
            },
        }
    }

    /// The value as an `i64`, if it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            Repr::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The value as a `u64`, if it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::Int(i) => u64::try_from(*i).ok(),
            Repr::Decimal(d) => d.to_u64(),
            Repr::Float(f) if f.fract() == 0.0 && *f >= 0.0 => {
                exact(&self.0).and_then(|d| d.to_u64())
            }
            _ => None,
        }
    }

    /// The nearest `f64` (infinities stay infinite; huge values round to infinity).
    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            Repr::Int(i) => *i as f64,
            Repr::Float(f) => *f,
            Repr::Decimal(d) => d.to_plain().parse().unwrap_or(f64::NAN),
            Repr::PosInf => f64::INFINITY,
            Repr::NegInf => f64::NEG_INFINITY,
        }
    }

    /// Whether the value is an integer (infinities are not).
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Int(_) => true,
            Repr::Float(f) => f.fract() == 0.0,
            Repr::Decimal(d) => d.is_integer(),
            Repr::PosInf | Repr::NegInf => false,
        }
    }

    /// Whether the value is +Inf or -Inf.
    pub fn is_infinite(&self) -> bool {
        matches!(self.0, Repr::PosInf | Repr::NegInf)
    }

    /// The plain decimal text go-cty writes (`big.Float.Text('f', -1)`): no exponent, shortest
    /// form for float64-origin values, exact otherwise. Infinities are `+Inf` and `-Inf`.
    pub fn to_decimal_string(&self) -> String {
        match &self.0 {
            Repr::Int(i) => i.to_string(),
            // A 53-bit big.Float prints as its float64 does.
            Repr::Float(f) => format_float(*f, FloatFormat::F),
            Repr::Decimal(d) => d.to_plain(),
            Repr::PosInf => "+Inf".to_owned(),
            Repr::NegInf => "-Inf".to_owned(),
        }
    }

    /// How the msgpack encoder writes this number: an int when it is an `i64` integer, a float64
    /// when it is an exact non-integer `f64`, else its decimal text.
    pub(crate) fn wire_form(&self) -> WireNumber {
        match &self.0 {
            Repr::Int(i) => WireNumber::Int(*i),
            Repr::Float(f) if f.fract() == 0.0 => {
                WireNumber::Text(format_float(*f, FloatFormat::F))
            }
            Repr::Float(f) => WireNumber::Float(*f),
            Repr::Decimal(d) => match (d.is_integer(), d.exact_f64()) {
                (false, Some(f)) => WireNumber::Float(f),
                _ => WireNumber::Text(d.to_plain()),
            },
            Repr::PosInf => WireNumber::Float(f64::INFINITY),
            Repr::NegInf => WireNumber::Float(f64::NEG_INFINITY),
        }
    }

    /// Go's `big.Float.String()` (`Text('g', 10)`), which go-cty uses to order set elements.
    pub(crate) fn to_g10(&self) -> String {
        match &self.0 {
            Repr::PosInf => "+Inf".to_owned(),
            Repr::NegInf => "-Inf".to_owned(),
            Repr::Int(0) => "0".to_owned(),
            repr => {
                let d = exact(repr).expect("finite non-zero numbers have an exact expansion");
                let d = tfp_gostd::big::Decimal {
                    negative: d.negative,
                    digits: &d.digits,
                    exponent: d.exponent,
                };
                tfp_gostd::big::text_g(d, 10)
            }
        }
    }
}

/// The exact decimal of a finite non-zero number.
fn exact(repr: &Repr) -> Option<Decimal> {
    match repr {
        Repr::Int(i) => Decimal::from_parts(*i < 0, &i.unsigned_abs().to_string(), 0),
        Repr::Float(f) => decimal::exact_f64(*f),
        Repr::Decimal(d) => Some((**d).clone()),
        Repr::PosInf | Repr::NegInf => None,
    }
}

fn rank(repr: &Repr) -> i8 {
    match repr {
        Repr::NegInf => -2,
        Repr::PosInf => 2,
        Repr::Int(i) => i.signum() as i8,
        Repr::Float(f) => {
            if *f < 0.0 {
                -1
            } else {
                1
            }
        }
        Repr::Decimal(d) => {
            if d.negative {
                -1
            } else {
                1
            }
        }
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => a.cmp(b),
            (Repr::Float(a), Repr::Float(b)) => a.total_cmp(b),
            (a, b) => rank(a)
                .cmp(&rank(b))
                .then_with(|| match (exact(a), exact(b)) {
                    (Some(x), Some(y)) => x.cmp_value(&y),
                    // Same rank and no expansion: both zero or both the same infinity.
                    _ => Ordering::Equal,
                }),
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Number {}

impl Hash for Number {
    /// Consistent with equality: a decimal that is exactly some `f64` hashes as that float.
    fn hash<H: Hasher>(&self, h: &mut H) {
        match &self.0 {
            Repr::Int(i) => (0u8, *i).hash(h),
            Repr::Float(f) => (1u8, f.to_bits()).hash(h),
            Repr::Decimal(d) => match d.exact_f64() {
                Some(f) => (1u8, f.to_bits()).hash(h),
                None => (2u8, d.negative, &d.digits, d.exponent).hash(h),
            },
            Repr::PosInf => 3u8.hash(h),
            Repr::NegInf => 4u8.hash(h),
        }
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({})", self.to_decimal_string())
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_decimal_string())
    }
}

impl FromStr for Number {
    type Err = NumberError;

    fn from_str(s: &str) -> Result<Number, NumberError> {
        Number::from_decimal_str(s)
    }
}

impl From<i64> for Number {
    fn from(v: i64) -> Number {
        Number::from_i64(v)
    }
}

impl From<i32> for Number {
    fn from(v: i32) -> Number {
        Number::from_i64(i64::from(v))
    }
}

impl From<u64> for Number {
    fn from(v: u64) -> Number {
        Number::from_u64(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Number {
        Number::from_decimal_str(s).expect("test input is a number")
    }

    #[test]
    fn normalises_integers_to_int() {
        assert_eq!(n("12.000").as_i64(), Some(12));
        assert_eq!(n("-9223372036854775808").as_i64(), Some(i64::MIN));
        assert_eq!(n("9223372036854775808").as_i64(), None);
        assert_eq!(Number::from_f64(-0.0).and_then(|v| v.as_i64()), Some(0));
        assert_eq!(
            Number::from_f64(4e18).and_then(|v| v.as_i64()),
            Some(4_000_000_000_000_000_000)
        );
        assert_eq!(Number::from_u64(u64::MAX).as_u64(), Some(u64::MAX));
        assert!(Number::from_f64(f64::NAN).is_none());
    }

    #[test]
    fn compares_across_representations() {
        let half = Number::from_f64(0.5).expect("not NaN");
        assert_eq!(half, n("0.5"));
        assert_ne!(Number::from_f64(0.1).expect("not NaN"), n("0.1"));
        assert!(n("-Inf") < n("-1e300"));
        assert!(n("1e300") < Number::POSITIVE_INFINITY);
        assert!(Number::from_i64(3) < n("3.0000000000000000000001"));
        assert!(Number::from_f64(1e20).expect("not NaN") == n("100000000000000000000"));
        assert!(Number::from_i64(-1) < Number::from_i64(0));
    }

    #[test]
    fn prints_like_go() {
        assert_eq!(Number::from_f64(0.1).expect("not NaN").to_string(), "0.1");
        assert_eq!(
            Number::from_f64(1e-7).expect("not NaN").to_string(),
            "0.0000001"
        );
        assert_eq!(
            Number::from_f64(1e21).expect("not NaN").to_string(),
            "1000000000000000000000"
        );
        assert_eq!(n("1.10").to_string(), "1.1");
        assert_eq!(Number::POSITIVE_INFINITY.to_string(), "+Inf");
    }

    #[test]
    fn chooses_the_wire_form_like_go_cty() {
        let form = |v: &Number| match v.wire_form() {
            WireNumber::Int(i) => format!("int {i}"),
            WireNumber::Float(f) => format!("float {f}"),
            WireNumber::Text(t) => format!("text {t}"),
        };
        assert_eq!(form(&n("42")), "int 42");
        assert_eq!(form(&n("0.5")), "float 0.5");
        assert_eq!(form(&n("0.1")), "text 0.1");
        assert_eq!(form(&Number::from_f64(0.1).expect("not NaN")), "float 0.1");
        assert_eq!(
            form(&n("18446744073709551616")),
            "text 18446744073709551616"
        );
        assert_eq!(
            form(&Number::from_f64(1e20).expect("not NaN")),
            "text 100000000000000000000"
        );
        assert_eq!(form(&Number::NEGATIVE_INFINITY), "float -inf");
    }

    #[test]
    fn formats_g10_like_go_big_float_string() {
        for (input, want) in [
            ("3", "3"),
            ("100", "100"),
            ("-0.5", "-0.5"),
            ("10000000000", "1e+10"),
            ("12345678901", "1.23456789e+10"),
            ("1234567890", "1234567890"),
            ("0.0001", "0.0001"),
            ("0.00001", "1e-05"),
            ("3.14159265358979", "3.141592654"),
            ("9.9999999999", "10"),
            ("0.12345678905", "0.123456789"),
            ("0.12345678915", "0.1234567892"),
        ] {
            assert_eq!(n(input).to_g10(), want, "{input}");
        }
        assert_eq!(Number::from_f64(0.1).expect("not NaN").to_g10(), "0.1");
    }
}
