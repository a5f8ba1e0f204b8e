//! Exact decimal numbers: parsing, plain-text formatting, comparison and the exact decimal
//! expansion of an `f64`.
//!
//! Invariant of [`Decimal`]: `digits` is non-empty ASCII with no leading or trailing zero, so every
//! non-zero value has exactly one representation; zero has none (callers represent it elsewhere).

use std::cmp::Ordering;
use std::fmt::Write as _;

/// The most zeros that formatting a number as plain text may add beyond its significant digits.
///
/// go-cty writes numbers without an exponent, so `1e1000000` from seven input bytes would become
/// a million output bytes; 1100 admits every `f64` (whose exact expansions reach 10^-1074) while
/// bounding that amplification.
pub(crate) const MAX_ZERO_PADDING: i64 = 1100;

/// A non-zero exact decimal: `(-1)^negative × digits × 10^exponent`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub(crate) negative: bool,
    pub(crate) digits: Box<str>,
    pub(crate) exponent: i64,
}

/// Why a string is not a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParseError {
    Syntax,
    OutOfRange,
}

/// What a decimal string parses to.
pub(crate) enum Parsed {
    Zero,
    Infinity { negative: bool },
    Finite(Decimal),
}

/// Parses the syntax go-cty accepts through `big.ParseFloat(s, 10, …)`: an optional sign,
/// digits with an optional point, an optional `e`/`E` exponent, or `Inf`/`inf` with a sign.
pub(crate) fn parse(s: &str) -> Result<Parsed, ParseError> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if body == "Inf" || body == "inf" {
        return Ok(Parsed::Infinity { negative });
    }
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut mantissa = Vec::with_capacity(bytes.len());
    let mut fraction_digits: i64 = 0;
    let mut seen_point = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'0'..=b'9' => {
                mantissa.push(b);
                if seen_point {
                    fraction_digits += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if mantissa.is_empty() {
        return Err(ParseError::Syntax);
    }
    let mut exponent: i64 = 0;
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        let exp_negative = match bytes.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while let Some(&b @ b'0'..=b'9') = bytes.get(i) {
            // Saturate: anything this large is rejected by the range check below.
            exponent = exponent
                .saturating_mul(10)
                .saturating_add(i64::from(b - b'0'));
            i += 1;
        }
        if i == start {
            return Err(ParseError::Syntax);
        }
        if exp_negative {
            exponent = -exponent;
        }
    }
    if i != bytes.len() {
        return Err(ParseError::Syntax);
    }
    let Some(first) = mantissa.iter().position(|&b| b != b'0') else {
        return Ok(Parsed::Zero);
    };
    let last = mantissa
        .iter()
        .rposition(|&b| b != b'0')
        .expect("a non-zero digit exists");
    let trailing = i64::try_from(mantissa.len() - 1 - last).map_err(|_| ParseError::OutOfRange)?;
    let exponent = exponent
        .saturating_sub(fraction_digits)
        .saturating_add(trailing);
    let digits = String::from_utf8(mantissa[first..=last].to_vec())
        .expect("ASCII digits are UTF-8")
        .into_boxed_str();
    let decimal = Decimal {
        negative,
        digits,
        exponent,
    };
    if !decimal.in_range() {
        return Err(ParseError::OutOfRange);
    }
    Ok(Parsed::Finite(decimal))
}

impl Decimal {
    /// Builds a decimal from digits that may carry leading or trailing zeros; `None` for zero.
    pub(crate) fn from_parts(negative: bool, digits: &str, exponent: i64) -> Option<Decimal> {
        let trimmed = digits.trim_start_matches('0');
        let significant = trimmed.trim_end_matches('0');
        if significant.is_empty() {
            return None;
        }
        let trailing = (trimmed.len() - significant.len()) as i64;
        Some(Decimal {
            negative,
            digits: significant.into(),
            exponent: exponent + trailing,
        })
    }

    /// Whether plain-text formatting stays within [`MAX_ZERO_PADDING`].
    pub(crate) fn in_range(&self) -> bool {
        let n = self.digits.len() as i64;
        self.exponent <= MAX_ZERO_PADDING && self.exponent >= -(n + MAX_ZERO_PADDING)
    }

    /// Whether the value is an integer.
    pub(crate) fn is_integer(&self) -> bool {
        self.exponent >= 0
    }

    /// The value as an `i64`, when it is an integer in range.
    pub(crate) fn to_i64(&self) -> Option<i64> {
        self.to_i128().and_then(|v| i64::try_from(v).ok())
    }

    /// The value as a `u64`, when it is a non-negative integer in range.
    pub(crate) fn to_u64(&self) -> Option<u64> {
        self.to_i128().and_then(|v| u64::try_from(v).ok())
    }

    fn to_i128(&self) -> Option<i128> {
        if self.exponent < 0 || self.digits.len() as i64 + self.exponent > 20 {
            return None;
        }
        let mut v: i128 = 0;
        for b in self.digits.bytes() {
            v = v * 10 + i128::from(b - b'0');
        }
        for _ in 0..self.exponent {
            v *= 10;
        }
        Some(if self.negative { -v } else { v })
    }

    /// Plain decimal text with no exponent, as Go's `big.Float.Text('f', -1)` writes it.
    pub(crate) fn to_plain(&self) -> String {
        let n = self.digits.len() as i64;
        let mut out = String::with_capacity((n + self.exponent.abs() + 3) as usize);
        if self.negative {
            out.push('-');
        }
        if self.exponent >= 0 {
            out.push_str(&self.digits);
            out.extend(std::iter::repeat_n('0', self.exponent as usize));
        } else {
            let k = -self.exponent;
            if k >= n {
                out.push_str("0.");
                out.extend(std::iter::repeat_n('0', (k - n) as usize));
                out.push_str(&self.digits);
            } else {
                let split = (n - k) as usize;
                out.push_str(&self.digits[..split]);
                out.push('.');
                out.push_str(&self.digits[split..]);
            }
        }
        out
    }

    /// Compares magnitudes, ignoring signs.
    pub(crate) fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        // The position of the most significant digit decides first.
        let a_top = self.digits.len() as i64 + self.exponent;
        let b_top = other.digits.len() as i64 + other.exponent;
        a_top.cmp(&b_top).then_with(|| {
            // Same scale: digit strings compare lexicographically, and with no trailing zeros
            // a longer string that agrees on the shorter one's length is larger.
            self.digits.as_bytes().cmp(other.digits.as_bytes())
        })
    }

    /// Compares signed values.
    pub(crate) fn cmp_value(&self, other: &Decimal) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }

    /// The exact `f64` with this value, if there is one.
    pub(crate) fn exact_f64(&self) -> Option<f64> {
        // An f64's exact expansion never has more than 767 significant digits.
        if self.digits.len() > 767 {
            return None;
        }
        let f: f64 = self.to_plain().parse().ok()?;
        if !f.is_finite() || f == 0.0 {
            return None;
        }
        (exact_f64(f).as_ref() == Some(self)).then_some(f)
    }
}

/// The exact decimal value of a finite, non-zero `f64`; `None` for zero and non-finite values.
pub(crate) fn exact_f64(f: f64) -> Option<Decimal> {
    if !f.is_finite() || f == 0.0 {
        return None;
    }
    let bits = f.to_bits();
    let negative = bits >> 63 == 1;
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let (mut mantissa, mut exp2) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    let zeros = mantissa.trailing_zeros();
    mantissa >>= zeros;
    exp2 += i64::from(zeros);
    let mut big = BigDecimal::from_u64(mantissa);
    let exponent = if exp2 >= 0 {
        big.mul_pow(2, 29, exp2);
        0
    } else {
        // m × 2^-k = m × 5^k × 10^-k.
        big.mul_pow(5, 13, -exp2);
        exp2
    };
    Decimal::from_parts(negative, &big.to_digits(), exponent)
}

/// A non-negative integer in base 10^9 limbs, least significant first: just enough arithmetic to
/// expand an `f64` exactly.
struct BigDecimal(Vec<u64>);

const LIMB: u64 = 1_000_000_000;

impl BigDecimal {
    fn from_u64(mut v: u64) -> BigDecimal {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push(v % LIMB);
            v /= LIMB;
        }
        BigDecimal(limbs)
    }

    fn mul_small(&mut self, factor: u64) {
        let mut carry = 0;
        for limb in &mut self.0 {
            let product = *limb * factor + carry;
            *limb = product % LIMB;
            carry = product / LIMB;
        }
        while carry > 0 {
            self.0.push(carry % LIMB);
            carry /= LIMB;
        }
    }

    /// Multiplies by `base^exp`, `chunk` powers at a time (the chunk power must stay below 2^31).
    fn mul_pow(&mut self, base: u64, chunk: u32, mut exp: i64) {
        let step = base.pow(chunk);
        while exp >= i64::from(chunk) {
            self.mul_small(step);
            exp -= i64::from(chunk);
        }
        if exp > 0 {
            self.mul_small(base.pow(exp as u32));
        }
    }

    fn to_digits(&self) -> String {
        let mut out = String::with_capacity(self.0.len() * 9);
        let mut limbs = self.0.iter().rev();
        if let Some(top) = limbs.next() {
            out.push_str(&top.to_string());
        }
        for limb in limbs {
            let _ = write!(out, "{limb:09}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        match parse(s) {
            Ok(Parsed::Finite(d)) => d.to_plain(),
            Ok(Parsed::Zero) => "0".into(),
            Ok(Parsed::Infinity { negative }) => if negative { "-Inf" } else { "+Inf" }.into(),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn parses_and_formats_plain() {
        for (input, want) in [
            ("0", "0"),
            ("-0.000", "0"),
            ("007", "7"),
            ("1.50", "1.5"),
            (".5", "0.5"),
            ("5.", "5"),
            ("+12e3", "12000"),
            ("1.25E-3", "0.00125"),
            ("-123.456", "-123.456"),
            ("18446744073709551616", "18446744073709551616"),
            ("Inf", "+Inf"),
            ("-inf", "-Inf"),
            ("", "Syntax"),
            (".", "Syntax"),
            ("1e", "Syntax"),
            ("1.2.3", "Syntax"),
            ("0x10", "Syntax"),
            ("1_000", "Syntax"),
            (" 1", "Syntax"),
            ("NaN", "Syntax"),
            ("1e1101", "OutOfRange"),
            ("1e99999999999999999999999", "OutOfRange"),
            ("0e99999999999999999999999", "0"),
        ] {
            assert_eq!(plain(input), want, "{input}");
        }
    }

    #[test]
    fn expands_f64_exactly() {
        let d = exact_f64(0.1).expect("non-zero");
        assert_eq!(
            d.to_plain(),
            "0.1000000000000000055511151231257827021181583404541015625"
        );
        assert_eq!(exact_f64(-2.5).expect("non-zero").to_plain(), "-2.5");
        assert_eq!(
            exact_f64(2f64.powi(70)).expect("non-zero").to_plain(),
            "1180591620717411303424"
        );
        let tiny = exact_f64(f64::from_bits(1)).expect("non-zero");
        assert_eq!(tiny.exponent, -1074);
        assert_eq!(tiny.exact_f64(), Some(f64::from_bits(1)));
        assert!(tiny.in_range());
    }

    #[test]
    fn compares_values() {
        let d = |s| match parse(s) {
            Ok(Parsed::Finite(d)) => d,
            _ => panic!("test input {s} is a non-zero number"),
        };
        assert_eq!(d("1.5").cmp_value(&d("1.25")), Ordering::Greater);
        assert_eq!(d("-1.5").cmp_value(&d("-1.25")), Ordering::Less);
        assert_eq!(d("100").cmp_value(&d("99.999")), Ordering::Greater);
        assert_eq!(d("1e2").cmp_value(&d("100.0")), Ordering::Equal);
        assert_eq!(d("0.5").exact_f64(), Some(0.5));
        assert_eq!(d("0.1").exact_f64(), None);
    }
}
