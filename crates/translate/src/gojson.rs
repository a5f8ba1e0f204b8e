//! JSON as Go's `encoding/json` reads and writes it, for the JSON the bridge keeps inside Pulumi
//! state: `__meta`, the raw state inside `__pulumi_raw_state_delta`, JSON-encoded provider
//! configuration.
//!
//! Go decodes JSON numbers into float64s and writes float64s in its own format
//! ([`format_json_float`]); it sorts object keys and escapes `<`, `>`, `&`, U+2028 and U+2029.
//! Byte-identical output matters: the raw state rebuilt from Pulumi state is compared byte for
//! byte and handed to the provider. The parser keeps number text exact so callers decide how to
//! read it. Nesting is bounded.

use std::collections::BTreeMap;

use crate::number::format_json_float;

/// How deeply parsed JSON may nest.
const MAX_DEPTH: usize = 128;

/// A JSON tree to be written the way Go writes it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// A float64, written in Go's float format.
    Float(f64),
    /// Text written verbatim: a `json.Number`, or compact JSON kept as it is (`json.RawMessage`).
    Raw(String),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

/// A parsed JSON document; numbers keep their text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Parsed {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Parsed>),
    /// Keys in sorted order; a repeated key keeps its last value, as in Go.
    Object(BTreeMap<String, Parsed>),
}

/// JSON that cannot be written (a non-finite float).
#[derive(Debug)]
pub(crate) struct NotFinite;

impl Json {
    /// The compact JSON text.
    pub(crate) fn to_text(&self) -> Result<String, NotFinite> {
        let mut out = String::new();
        self.write(&mut out)?;
        Ok(out)
    }

    fn write(&self, out: &mut String) -> Result<(), NotFinite> {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Float(f) => out.push_str(&format_json_float(*f).ok_or(NotFinite)?),
            Json::Raw(text) => out.push_str(text),
            Json::String(s) => write_string(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out)?;
                }
                out.push(']');
            }
            Json::Object(map) => {
                out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    item.write(out)?;
                }
                out.push('}');
            }
        }
        Ok(())
    }
}

/// Go's escaping of JSON strings, shared with go-cty's writer in `tfp-cty`.
pub(crate) use tfp_cty::write_go_json_string as write_string;

/// Parses one JSON document; trailing non-space text is an error.
pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let mut parser = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    let value = parser.value(0)?;
    parser.space();
    if parser.pos != parser.s.len() {
        return Err(format!("unexpected text at offset {}", parser.pos));
    }
    Ok(value)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while matches!(self.s.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at offset {}", self.pos))
    }

    fn literal(&mut self, word: &str, value: Parsed) -> Result<Parsed, String> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            self.fail("invalid literal")
        }
    }

    fn value(&mut self, depth: usize) -> Result<Parsed, String> {
        if depth > MAX_DEPTH {
            return self.fail("JSON nested too deeply");
        }
        self.space();
        match self.s.get(self.pos) {
            None => self.fail("unexpected end of JSON"),
            Some(b'n') => self.literal("null", Parsed::Null),
            Some(b't') => self.literal("true", Parsed::Bool(true)),
            Some(b'f') => self.literal("false", Parsed::Bool(false)),
            Some(b'"') => self.string().map(Parsed::String),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.space();
                if self.s.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Ok(Parsed::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Parsed::Array(items));
                        }
                        _ => return self.fail("expected , or ]"),
                    }
                }
            }
            Some(b'{') => {
                self.pos += 1;
                let mut map = BTreeMap::new();
                self.space();
                if self.s.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Ok(Parsed::Object(map));
                }
                loop {
                    self.space();
                    if self.s.get(self.pos) != Some(&b'"') {
                        return self.fail("expected an object key");
                    }
                    let key = self.string()?;
                    self.space();
                    if self.s.get(self.pos) != Some(&b':') {
                        return self.fail("expected :");
                    }
                    self.pos += 1;
                    let value = self.value(depth + 1)?;
                    map.insert(key, value);
                    self.space();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Parsed::Object(map));
                        }
                        _ => return self.fail("expected , or }"),
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                while matches!(
                    self.s.get(self.pos),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.pos])
                    .expect("the scanned bytes are ASCII");
                if crate::number::is_json_number(text) {
                    Ok(Parsed::Number(text.to_owned()))
                } else {
                    self.fail("invalid number")
                }
            }
            Some(_) => self.fail("unexpected character"),
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .s
            .get(self.pos..self.pos + 4)
            .ok_or("truncated \\u escape")?;
        let text = std::str::from_utf8(digits).map_err(|_| "invalid \\u escape")?;
        let code = u32::from_str_radix(text, 16).map_err(|_| "invalid \\u escape")?;
        self.pos += 4;
        Ok(code)
    }

    fn string(&mut self) -> Result<String, String> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let start = self.pos;
            while !matches!(self.s.get(self.pos), None | Some(b'"' | b'\\')) {
                if self.s[self.pos] < 0x20 {
                    return self.fail("control character in string");
                }
                self.pos += 1;
            }
            out.push_str(
                std::str::from_utf8(&self.s[start..self.pos])
                    .expect("the input is a str and the run stops at ASCII"),
            );
            match self.s.get(self.pos) {
                None => return self.fail("unterminated string"),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(_) => {
                    self.pos += 1;
                    let escape = self.s.get(self.pos).copied();
                    self.pos += 1;
                    match escape {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&hi)
                                && self.s.get(self.pos..self.pos + 2) == Some(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                                } else {
                                    // Not a pair: Go replaces the lone half and reads on.
                                    self.pos = save;
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            out.push(c.unwrap_or('\u{fffd}'));
                        }
                        _ => return self.fail("invalid escape"),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_like_go() {
        let json = Json::Object(BTreeMap::from([
            ("b".to_owned(), Json::Float(1e21)),
            ("a".to_owned(), Json::String("<x>&\u{2028}".to_owned())),
            (
                "c".to_owned(),
                Json::Array(vec![Json::Null, Json::Raw("1.50".to_owned())]),
            ),
        ]));
        assert_eq!(
            json.to_text().expect("finite"),
            r#"{"a":"\u003cx\u003e\u0026\u2028","b":1e+21,"c":[null,1.50]}"#
        );
        assert!(Json::Float(f64::NAN).to_text().is_err());
    }

    #[test]
    fn parses_and_keeps_number_text() {
        let parsed = parse(r#" {"k": [1.50, -0, "a\u00e9\ud83d\ude00\ud800x"], "k": true} "#)
            .expect("valid");
        assert_eq!(
            parsed,
            Parsed::Object(BTreeMap::from([("k".to_owned(), Parsed::Bool(true))]))
        );
        let parsed = parse(r#"[1.50,-0,"a\u00e9\ud83d\ude00\ud800x"]"#).expect("valid");
        assert_eq!(
            parsed,
            Parsed::Array(vec![
                Parsed::Number("1.50".to_owned()),
                Parsed::Number("-0".to_owned()),
                Parsed::String("aé😀\u{fffd}x".to_owned()),
            ])
        );
        for bad in [
            "",
            "[1,]",
            "{\"a\"}",
            "01",
            "nul",
            "\"a",
            "[1] x",
            "\"\u{1}\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert!(parse(&"[".repeat(1000)).is_err());
    }
}
