//! JSON numbers: float64s and float32s as `encoding/json` writes them, and the number grammar
//! it accepts for a `json.Number`.
//!
//! Go writes a float in `strconv`'s shortest `'f'` form, or in its `'e'` form when the magnitude
//! is below 1e-6 or at least 1e21, with a one-digit negative exponent cleaned up (`1e-07`
//! becomes `1e-7`, `1e+21` stays). NaN and the infinities are an error, as in Go.

use crate::strconv::{
    FloatFormat, format_float as strconv_float, format_float32 as strconv_float32,
};

/// A float JSON cannot hold (Go's `json.UnsupportedValueError`).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("unsupported value: {0}")]
pub struct UnsupportedValue(pub f64);

/// The JSON text of a float64.
pub fn format_float(f: f64) -> Result<String, UnsupportedValue> {
    if !f.is_finite() {
        return Err(UnsupportedValue(f));
    }
    let abs = f.abs();
    let format = if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        FloatFormat::E
    } else {
        FloatFormat::F
    };
    Ok(clean_exponent(strconv_float(f, format)))
}

/// The JSON text of a float32: its own shortest digits, with the same thresholds taken in
/// float32.
pub fn format_float32(f: f32) -> Result<String, UnsupportedValue> {
    if !f.is_finite() {
        return Err(UnsupportedValue(f64::from(f)));
    }
    let abs = f.abs();
    let format = if abs != 0.0 && !(1e-6_f32..1e21_f32).contains(&abs) {
        FloatFormat::E
    } else {
        FloatFormat::F
    };
    Ok(clean_exponent(strconv_float32(f, format)))
}

/// `e-07` becomes `e-7`; positive exponents keep their two digits; `'f'` text has no exponent
/// and stays as it is.
fn clean_exponent(mut text: String) -> String {
    let b = text.as_bytes();
    let n = b.len();
    if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
        text.remove(n - 2);
    }
    text
}

/// Whether `text` is a JSON number: what Go accepts as a `json.Number` and what its decoder
/// reads as one.
pub fn is_number(text: &str) -> bool {
    number_len(text.as_bytes()) == Some(text.len())
}

/// The length of the JSON number at the start of `b`, if one starts there.
pub(super) fn number_len(b: &[u8]) -> Option<usize> {
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut i = usize::from(b.first() == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    Some(i)
}
