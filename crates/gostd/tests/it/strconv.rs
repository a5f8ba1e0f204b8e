//! `strconv`: Quote, IsPrint, FormatFloat, ParseInt, ParseFloat.

use tfp_gostd::strconv::{self, FloatFormat};

use crate::support::{Float, check_text_writer, float, text, vectors};

#[test]
fn quote_is_go_quote() {
    check_text_writer(
        "strconv_quote.jsonl",
        strconv::append_quote_bytes,
        strconv::append_quote,
    );
}

#[test]
fn every_rune_is_printable_exactly_when_go_says_so() {
    let ranges: Vec<(u32, u32)> = vectors("strconv_printable.jsonl")
        .iter()
        .map(|v| {
            let bound = |f: &str| u32::try_from(v[f].as_u64().expect("a rune")).expect("a rune");
            (bound("first"), bound("last"))
        })
        .collect();
    // Walk the runes in order alongside the ranges, which are sorted.
    let mut next = ranges.iter().peekable();
    for c in (0..=0x10ffff).filter_map(char::from_u32) {
        let code = u32::from(c);
        while next.next_if(|&&(_, last)| last < code).is_some() {}
        let go = next.peek().is_some_and(|&&(first, _)| first <= code);
        assert_eq!(strconv::is_print(c), go, "U+{code:04X}");
    }
}

#[test]
fn floats_are_formatted_as_go_formats_them() {
    for vector in vectors("strconv_floats.jsonl") {
        for (field, format) in [
            ("f", FloatFormat::F),
            ("e", FloatFormat::E),
            ("g", FloatFormat::G),
        ] {
            let ours = match float(&vector) {
                Float::F64(f) => strconv::format_float(f, format),
                Float::F32(f) => strconv::format_float32(f, format),
            };
            assert_eq!(ours, text(&vector, field), "{field} of {vector}");
        }
        // `%v` prints floats in the 'g' form.
        assert_eq!(text(&vector, "v"), text(&vector, "g"), "{vector}");
    }
}

#[test]
fn parsing_accepts_what_go_accepts() {
    for vector in vectors("strconv_parse.jsonl") {
        let input = text(&vector, "input");
        assert_eq!(
            strconv::parse_int(input).map(|i| i.to_string()).as_deref(),
            vector["int"].as_str(),
            "ParseInt {input:?}"
        );
        let go = vector["float_bits"]
            .as_str()
            .map(|bits| f64::from_bits(u64::from_str_radix(bits, 16).expect("hex bits")));
        let ours = strconv::parse_float(input);
        match (ours, go) {
            (Some(ours), Some(go)) if go.is_nan() => assert!(ours.is_nan(), "ParseFloat {input:?}"),
            (Some(ours), Some(go)) => {
                assert_eq!(ours.to_bits(), go.to_bits(), "ParseFloat {input:?}");
            }
            (None, None) => {}
            // The one documented difference: hexadecimal floats are not read.
            (None, Some(_)) if input.starts_with("0x") => {}
            (ours, go) => panic!("ParseFloat {input:?}: ours {ours:?}, Go {go:?}"),
        }
    }
}
