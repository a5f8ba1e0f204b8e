//! Go's number text: how the bridge parses strings into numbers and prints floats.
//!
//! The Go bridge turns a string given for a number attribute into a number with
//! `strconv.ParseInt(s, 10, 64)`, falling back to `strconv.ParseFloat(s, 64)`
//! (`pkg/convert/number.go`), prints numbers given for string attributes with
//! `strconv.FormatFloat(f, 'f', -1, 64)` (`pkg/convert/string.go`), and writes float64s in JSON
//! the way `encoding/json` does. We follow those rules; hexadecimal floats, which ParseFloat
//! also reads, are not accepted.

use tfp_cty::Number;

/// A number attribute given as text: an exact `int64` if the text is one, else the nearest
/// float64. `None` when Go would fail, for NaN (which cty cannot hold) and for hexadecimal.
pub(crate) fn parse_go_number(text: &str) -> Option<Number> {
    if let Some(i) = parse_go_int(text) {
        return Some(Number::from_i64(i));
    }
    parse_go_float(text).and_then(Number::from_f64)
}

/// `strconv.ParseInt(text, 10, 64)`: an optional sign and decimal digits, in range.
fn parse_go_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `strconv.ParseFloat(text, 64)` for decimal text, infinities and digit-separating
/// underscores; out-of-range values fail as in Go.
fn parse_go_float(text: &str) -> Option<f64> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        return Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    let bytes = body.as_bytes();
    let allowed =
        |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-' | b'_');
    if bytes.is_empty() || !bytes.iter().copied().all(allowed) {
        return None;
    }
    let mut plain = String::with_capacity(text.len());
    if negative {
        plain.push('-');
    }
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            // Go accepts an underscore only between two digits.
            let before = i.checked_sub(1).and_then(|j| bytes.get(j));
            let after = bytes.get(i + 1);
            if !(before.is_some_and(u8::is_ascii_digit) && after.is_some_and(u8::is_ascii_digit)) {
                return None;
            }
            continue;
        }
        plain.push(char::from(b));
    }
    let f: f64 = plain.parse().ok()?;
    // Rust rounds an overflow to infinity where Go reports a range error.
    (!f.is_infinite()).then_some(f)
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: the shortest digits that read back as `f`, without an
/// exponent; `+Inf`, `-Inf` and `NaN` for the special values.
pub(crate) fn format_go_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_owned()
    } else if f == f64::INFINITY {
        "+Inf".to_owned()
    } else if f == f64::NEG_INFINITY {
        "-Inf".to_owned()
    } else {
        // Rust prints the shortest round-tripping digits without an exponent, as Go does.
        f.to_string()
    }
}

/// A float64 as `encoding/json` writes it: plain decimals, or exponent form (`1e+21`, `1e-7`)
/// below 1e-6 and from 1e21 on. `None` for NaN and infinities, which JSON cannot hold.
pub(crate) fn format_json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return Some(f.to_string());
    }
    let text = format!("{f:e}");
    let (mantissa, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    Some(if exponent < 0 {
        format!("{mantissa}e-{}", exponent.unsigned_abs())
    } else {
        format!("{mantissa}e+{exponent:02}")
    })
}

/// Whether `text` is a JSON number (what `encoding/json` accepts for a `json.Number`).
pub(crate) fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_strconv() {
        let n = |s: &str| parse_go_number(s).map(|n| n.to_string());
        assert_eq!(n("42").as_deref(), Some("42"));
        assert_eq!(n("+7").as_deref(), Some("7"));
        assert_eq!(
            n("-9223372036854775808").as_deref(),
            Some("-9223372036854775808")
        );
        assert_eq!(n("1.5").as_deref(), Some("1.5"));
        assert_eq!(n("1e3").as_deref(), Some("1000"));
        assert_eq!(n(".5").as_deref(), Some("0.5"));
        assert_eq!(n("1_000").as_deref(), Some("1000"));
        assert_eq!(n("-Inf").as_deref(), Some("-Inf"));
        assert_eq!(n("infinity").as_deref(), Some("+Inf"));
        for bad in [
            "", "abc", "1__0", "_1", "1_", "NaN", "1e400", "0x10", "1.5.5", " 1",
        ] {
            assert!(parse_go_number(bad).is_none(), "{bad:?} must be rejected");
        }
        // Beyond int64 the float64 is taken, printed in its shortest form as Go prints it.
        assert_eq!(
            n("9223372036854775809").as_deref(),
            Some("9223372036854776000")
        );
    }

    #[test]
    fn formats_like_go() {
        assert_eq!(format_go_float(1.0), "1");
        assert_eq!(format_go_float(123.456), "123.456");
        assert_eq!(format_go_float(1e21), "1000000000000000000000");
        assert_eq!(format_go_float(1e-7), "0.0000001");
        assert_eq!(format_go_float(f64::NEG_INFINITY), "-Inf");
        assert_eq!(format_json_float(1e21).as_deref(), Some("1e+21"));
        assert_eq!(format_json_float(1.5e-7).as_deref(), Some("1.5e-7"));
        assert_eq!(format_json_float(2.5e-10).as_deref(), Some("2.5e-10"));
        assert_eq!(format_json_float(123e120).as_deref(), Some("1.23e+122"));
        assert_eq!(format_json_float(0.000001).as_deref(), Some("0.000001"));
        assert_eq!(format_json_float(-0.0).as_deref(), Some("-0"));
        assert_eq!(format_json_float(f64::NAN), None);
    }

    #[test]
    fn recognises_json_numbers() {
        for good in ["0", "-1", "1.5", "1e5", "1E+5", "-0.0e-1"] {
            assert!(is_json_number(good), "{good}");
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "NaN", "+Inf", "1 "] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }
}
