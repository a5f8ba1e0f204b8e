//! Numbers given as text, the way the Go bridge reads them.
//!
//! The Go bridge turns a string given for a number attribute into a number with
//! `strconv.ParseInt(s, 10, 64)`, falling back to `strconv.ParseFloat(s, 64)`
//! (`pkg/convert/number.go`); both are `tfp_gostd::strconv`'s.

use tfp_cty::Number;
use tfp_gostd::strconv::{parse_float, parse_int};

/// A number attribute given as text: an exact `int64` if the text is one, else the nearest
/// float64. `None` when Go would fail, and for NaN, which cty cannot hold.
pub(crate) fn parse_go_number(text: &str) -> Option<Number> {
    if let Some(i) = parse_int(text) {
        return Some(Number::from_i64(i));
    }
    parse_float(text).and_then(Number::from_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_strconv() {
        let n = |s: &str| parse_go_number(s).map(|n| n.to_string());
        assert_eq!(n("42").as_deref(), Some("42"));
        assert_eq!(
            n("-9223372036854775808").as_deref(),
            Some("-9223372036854775808")
        );
        assert_eq!(n("1e3").as_deref(), Some("1000"));
        assert_eq!(n("-Inf").as_deref(), Some("-Inf"));
        for bad in ["", "abc", "NaN", "1e400", "+-1"] {
            assert!(parse_go_number(bad).is_none(), "{bad:?} must be rejected");
        }
        // Beyond int64 the float64 is taken, printed in its shortest form as Go prints it.
        assert_eq!(
            n("9223372036854775809").as_deref(),
            Some("9223372036854776000")
        );
    }
}
