//! `math/big`: `big.Float.Text('g', 10)`, which go-cty prints numbers with in set hash strings.

use tfp_gostd::big::{Decimal, text_g};

use crate::support::{text, vectors};

/// Splits decimal text (`-1.5e+300`) into sign, digits and exponent.
fn decimal(input: &str) -> (bool, String, i64) {
    let (negative, rest) = match input.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, input),
    };
    let (mantissa, exponent) = rest.split_once(['e', 'E']).unwrap_or((rest, "0"));
    let (int, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let exponent: i64 = exponent.parse().expect("an exponent");
    let fraction_len = i64::try_from(fraction.len()).expect("short");
    (
        negative,
        format!("{int}{fraction}"),
        exponent - fraction_len,
    )
}

#[test]
fn text_g_is_big_float_string() {
    for vector in vectors("big_text.jsonl") {
        let input = text(&vector, "input");
        let (negative, digits, exponent) = decimal(input);
        let d = Decimal {
            negative,
            digits: &digits,
            exponent,
        };
        assert_eq!(text_g(d, 10), text(&vector, "output"), "{input}");
    }
}

#[test]
fn ties_round_to_even_and_zero_is_zero() {
    let d = |digits, exponent| Decimal {
        negative: false,
        digits,
        exponent,
    };
    assert_eq!(text_g(d("12345678905", -11), 10), "0.123456789");
    assert_eq!(text_g(d("12345678915", -11), 10), "0.1234567892");
    assert_eq!(text_g(d("125000", -5), 2), "1.2");
    assert_eq!(text_g(d("000", 7), 10), "0");
    assert_eq!(text_g(d("5", 0), 0), "5");
}
