//! `strconv.ParseInt(s, 10, 64)` and `strconv.ParseFloat(s, 64)`.
//!
//! One difference from Go: hexadecimal floats (`0x1p-2`), which ParseFloat reads, are rejected
//! here; nothing we parse carries them.

/// `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits, in range; `None` where Go
/// returns an error.
pub fn parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `strconv.ParseFloat(s, 64)`: decimal text with digit-separating underscores, `inf`,
/// `infinity` and `nan` in any case; `None` where Go returns an error, which includes values
/// too large for a float64 (Go's range error) and hexadecimal floats (see the module note).
pub fn parse_float(s: &str) -> Option<f64> {
    let (sign, body) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        return Some(sign * f64::INFINITY);
    }
    // Go reads `nan` only without a sign.
    if s.eq_ignore_ascii_case("nan") {
        return Some(f64::NAN);
    }
    let bytes = body.as_bytes();
    // One sign only: `+-1` is not a number.
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        return None;
    }
    let allowed =
        |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-' | b'_');
    if bytes.is_empty() || !bytes.iter().copied().all(allowed) {
        return None;
    }
    let mut plain = String::with_capacity(s.len());
    if sign < 0.0 {
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
