//! Go's `big.Float.Text('g', 10)` (what `big.Float.String()` prints), for non-zero finite numbers.
//!
//! go-cty orders the elements of a set of non-primitive values by a "hash string" in which
//! numbers are printed this way (`cty/set_internals.go`), so canonical set order depends on it.
//! The algorithm follows `math/big/ftoa.go`: round the exact decimal to ten significant digits
//! (ties to even), then use `%e` form when the decimal exponent is below -4 or at least the
//! precision, `%f` form otherwise, without trailing zeros.

use super::Decimal;

const PRECISION: usize = 10;

/// Formats a non-zero exact decimal.
pub(super) fn format_g10(d: &Decimal) -> String {
    // Go's decimal is 0.mant × 10^exp.
    let mut mant: Vec<u8> = d.digits.as_bytes().to_vec();
    let mut exp = d.exponent + mant.len() as i64;
    round(&mut mant, &mut exp, PRECISION);

    let mut out = String::new();
    if d.negative {
        out.push('-');
    }
    let len = mant.len() as i64;
    let mut eprec = PRECISION as i64;
    if eprec > len && len >= exp {
        eprec = len;
    }
    let x = exp - 1;
    if x < -4 || x >= eprec {
        // %e with the digits that are left after trimming.
        let prec = (PRECISION as i64).min(len) - 1;
        out.push(char::from(mant[0]));
        if prec > 0 {
            out.push('.');
            out.extend(mant[1..].iter().map(|&b| char::from(b)));
        }
        out.push('e');
        out.push(if x < 0 { '-' } else { '+' });
        let magnitude = x.unsigned_abs();
        if magnitude < 10 {
            out.push('0');
        }
        out.push_str(&magnitude.to_string());
        return out;
    }
    let mut prec = PRECISION as i64;
    if prec > exp {
        prec = len;
    }
    let fraction = (prec - exp).max(0);
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
