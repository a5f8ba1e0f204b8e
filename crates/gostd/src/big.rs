//! Go's `math/big`: `big.Float.Text('g', precision)` of an exact decimal.
//!
//! go-cty orders the elements of a set of non-primitive values by a "hash string" in which
//! numbers are printed as `big.Float.String()`, which is `Text('g', 10)` (`cty/set_internals.go`),
//! so canonical set order depends on it. The algorithm follows `math/big/ftoa.go`: round the
//! decimal to `precision` significant digits (ties to even), then use the `%e` form when the
//! decimal exponent is below -4 or at least the precision, the `%f` form otherwise, without
//! trailing zeros. Go rounds the binary value of a `big.Float`; a decimal that is exactly half
//! way at the rounding digit can therefore round the other way in Go, which is why callers hand
//! us exact decimals of values Go holds exactly.

use crate::strconv::push_exponent;

/// A decimal: `(-1)^negative × digits × 10^exponent`, `digits` being ASCII digits.
#[derive(Clone, Copy, Debug)]
pub struct Decimal<'a> {
    pub negative: bool,
    pub digits: &'a str,
    pub exponent: i64,
}

/// `big.Float.Text('g', precision)` of `d`; a precision of 0 counts as 1, as in Go. Characters
/// other than digits in `d.digits` are skipped.
pub fn text_g(d: Decimal<'_>, precision: usize) -> String {
    let precision = precision.max(1);
    let mut out = String::new();
    if d.negative {
        out.push('-');
    }
    // Go's decimal is 0.mant × 10^exp, without leading zeros.
    let mut mant: Vec<u8> = d
        .digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .collect();
    if mant.is_empty() {
        out.push('0');
        return out;
    }
    let mut exp = d
        .exponent
        .saturating_add(i64::try_from(mant.len()).unwrap_or(i64::MAX));
    round(&mut mant, &mut exp, precision);
    let len = i64::try_from(mant.len()).unwrap_or(i64::MAX);
    let precision = i64::try_from(precision).unwrap_or(i64::MAX);
    let mut eprec = precision;
    if eprec > len && len >= exp {
        eprec = len;
    }
    let x = exp - 1;
    if x < -4 || x >= eprec {
        // %e with the digits that are left after trimming.
        out.push(char::from(mant[0]));
        if len > 1 {
            out.push('.');
            out.extend(mant[1..].iter().map(|&b| char::from(b)));
        }
        push_exponent(&mut out, x);
        return out;
    }
    let digits = if precision > exp { len } else { precision };
    let fraction = (digits - exp).max(0);
    // %f: integer part, padded with zeros, then the fraction digits.
    if exp > 0 {
        for i in 0..exp {
            out.push(digit_at(&mant, i));
        }
    } else {
        out.push('0');
    }
    if fraction > 0 {
        out.push('.');
        for i in 0..fraction {
            out.push(digit_at(&mant, exp + i));
        }
    }
    out
}

fn digit_at(mant: &[u8], i: i64) -> char {
    usize::try_from(i)
        .ok()
        .and_then(|i| mant.get(i))
        .map_or('0', |&b| char::from(b))
}

/// Rounds `mant` to `n` digits as Go's `decimal.round` does, then trims trailing zeros.
fn round(mant: &mut Vec<u8>, exp: &mut i64, n: usize) {
    while mant.last() == Some(&b'0') {
        mant.pop();
    }
    if n >= mant.len() {
        return;
    }
    let up = if mant[n] == b'5' && n + 1 == mant.len() {
        // Exactly half way: round to even.
        n > 0 && (mant[n - 1] - b'0') % 2 == 1
    } else {
        mant[n] >= b'5'
    };
    mant.truncate(n);
    if up {
        let mut i = n;
        loop {
            if i == 0 {
                // All nines: 0.999… becomes 0.1 × 10^(exp+1).
                mant.clear();
                mant.push(b'1');
                *exp += 1;
                break;
            }
            i -= 1;
            if mant[i] < b'9' {
                mant[i] += 1;
                mant.truncate(i + 1);
                break;
            }
        }
    }
    while mant.last() == Some(&b'0') {
        mant.pop();
    }
}
