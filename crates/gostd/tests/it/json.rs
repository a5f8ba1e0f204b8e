//! `encoding/json`: strings, floats, decoding with `UseNumber`, `Indent`.

use tfp_gostd::json::{self, Value};

use crate::support::{Float, bytes, check_text_writer, float, text, vectors};

#[test]
fn strings_are_escaped_as_go_escapes_them() {
    check_text_writer(
        "json_strings.jsonl",
        json::write_string_bytes,
        json::write_string,
    );
}

#[test]
fn floats_are_written_as_go_writes_them() {
    for vector in vectors("json_floats.jsonl") {
        let ours = match float(&vector) {
            Float::F64(f) => json::format_float(f),
            Float::F32(f) => json::format_float32(f),
        };
        assert_eq!(ours.ok().as_deref(), vector["output"].as_str(), "{vector}");
    }
}

/// Our tree as the tokens a Go `json.Decoder` reads (see the capture program).
fn tokens(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Null => out.push("null".into()),
        Value::Bool(b) => out.push(b.to_string()),
        Value::Number(text) => out.push(format!("n:{text}")),
        Value::String(s) => out.push(format!("s:{s}")),
        Value::Array(items) => {
            out.push("[".into());
            items.iter().for_each(|item| tokens(item, out));
            out.push("]".into());
        }
        Value::Object(members) => {
            out.push("{".into());
            for (key, item) in members {
                out.push(format!("s:{key}"));
                tokens(item, out);
            }
            out.push("}".into());
        }
    }
}

#[test]
fn decoding_reads_what_go_reads_and_rejects_what_it_rejects() {
    for vector in vectors("json_decode.jsonl") {
        let input = bytes(&vector, "input");
        let ours = json::parse(&input, 64).map(|value| {
            let mut out = Vec::new();
            tokens(&value, &mut out);
            out
        });
        let go: Option<Vec<String>> =
            serde_json::from_value(vector["tokens"].clone()).expect("tokens are strings");
        match (ours, go) {
            (Ok(ours), Some(go)) => {
                assert_eq!(ours, go, "input {:?}", String::from_utf8_lossy(&input))
            }
            (Err(_), None) => {}
            (ours, go) => panic!(
                "input {:?}: ours {ours:?}, Go {go:?}",
                String::from_utf8_lossy(&input)
            ),
        }
    }
}

#[test]
fn what_is_read_is_written_back_as_go_marshals_it() {
    let value = json::parse(br#" {"b":[1.50,-0,"<\u2028>"],"a":{"":null}} "#, 8).expect("valid");
    assert_eq!(
        value.to_text(),
        r#"{"b":[1.50,-0,"\u003c\u2028\u003e"],"a":{"":null}}"#
    );
    let sorted = Value::sorted_object([
        ("z".to_owned(), Value::Bool(true)),
        ("a".to_owned(), Value::float(1e21).expect("finite")),
        ("z".to_owned(), Value::Null),
    ]);
    assert_eq!(sorted.to_text(), r#"{"a":1e+21,"z":null}"#);
    assert!(Value::float(f64::NAN).is_err());
}

#[test]
fn nesting_beyond_the_limit_is_an_error() {
    assert!(json::parse(b"[[1]]", 2).is_ok());
    assert!(json::parse(b"[[1]]", 1).is_err());
    let deep = "[".repeat(100_000);
    let err = json::parse(deep.as_bytes(), 128).expect_err("too deep");
    assert_eq!(err.to_string(), "JSON nested too deeply at byte 129");
}

#[test]
fn numbers_follow_go_grammar() {
    for good in [
        "0",
        "-0",
        "1.5",
        "1e5",
        "1E+5",
        "-0.0e-1",
        "123456789012345678901234567890",
    ] {
        assert!(json::is_number(good), "{good}");
    }
    for bad in [
        "", "-", "01", "1.", ".5", "+1", "1e", "NaN", "+Inf", "1 ", "0x1",
    ] {
        assert!(!json::is_number(bad), "{bad}");
    }
}

#[test]
fn indent_is_go_indent() {
    for vector in vectors("json_indent.jsonl") {
        let ours = json::indent(
            text(&vector, "input"),
            text(&vector, "prefix"),
            text(&vector, "indent"),
        )
        .expect("the input is valid");
        assert_eq!(ours, text(&vector, "output"), "{vector}");
    }
    assert!(json::indent("[1,", "", " ").is_err());
}

/// Go's escaping, character by character: what the run-copying writer must agree with
/// wherever in a long text a character that needs care falls.
fn escaped_char_by_char(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                write!(out, "\\u{:04x}", u32::from(c)).expect("writing to a String cannot fail");
            }
            c => out.push(c),
        }
    }
    out + "\""
}

#[test]
fn long_text_is_escaped_wherever_the_escapes_fall() {
    let notable = [
        "\"", "\\", "\n", "\u{1}", "\u{1f}", "<", ">", "&", "\u{2028}", "\u{2029}", "\u{2027}",
        "\u{e2}", "\u{7f}", "é", " ",
    ];
    // Short texts too, which are looked at in one padded group, and a second escape after the
    // first.
    for len in [0, 1, 7, 15, 16, 17, 31, 33, 48] {
        for at in 0..=len {
            for c in notable {
                let once = format!("{}{c}{}", "a".repeat(at), "b".repeat(len - at));
                for text in [once.clone(), format!("{once}{c}")] {
                    let mut ours = String::new();
                    json::write_string(&mut ours, &text);
                    assert_eq!(ours, escaped_char_by_char(&text), "{text:?}");
                    let mut bytes = Vec::new();
                    json::write_string(&mut bytes, &text);
                    assert_eq!(bytes, ours.as_bytes(), "{text:?}");
                }
            }
        }
    }
}
