//! Reading JSON as a `json.Decoder` with `UseNumber` reads it: numbers keep their literal text,
//! strings are decoded as Go decodes them.
//!
//! The syntax is RFC 8259's, which is Go's: whitespace is space, tab, CR and LF only, no
//! byte-order mark, control characters are not allowed in strings. Inside strings, each byte
//! that is not valid UTF-8 becomes U+FFFD, and so does a `\u` escape of a lone surrogate (a high
//! surrogate followed by anything but a low one is replaced and what follows is read on its
//! own). Nesting deeper than the caller's limit is an error, so no input can exhaust the stack.

use super::number::number_len;
use super::value::Value;
use crate::utf8::push_lossy;

/// JSON that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason} at byte {offset}")]
pub struct ParseError {
    /// Where in the input reading stopped.
    pub offset: usize,
    /// What was wrong there.
    pub reason: &'static str,
}

/// Reads one JSON value surrounded only by whitespace; a value inside more than `max_depth`
/// arrays and objects is an error.
pub fn parse(input: &[u8], max_depth: usize) -> Result<Value, ParseError> {
    let mut parser = Parser {
        input,
        pos: 0,
        max_depth,
    };
    let value = parser.value(0)?;
    parser.whitespace();
    if parser.pos != input.len() {
        return Err(parser.fail("unexpected data after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    input: &'a [u8],
    pos: usize,
    max_depth: usize,
}

impl Parser<'_> {
    fn fail(&self, reason: &'static str) -> ParseError {
        ParseError {
            offset: self.pos,
            reason,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, ParseError> {
        if self.input[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.fail("invalid literal"))
        }
    }

    /// A value inside `depth` arrays and objects.
    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > self.max_depth {
            return Err(self.fail("JSON nested too deeply"));
        }
        self.whitespace();
        match self.peek() {
            None => Err(self.fail("unexpected end of input")),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => {
                let len = number_len(&self.input[self.pos..])
                    .ok_or_else(|| self.fail("invalid number"))?;
                let text = &self.input[self.pos..self.pos + len];
                self.pos += len;
                Ok(Value::Number(String::from_utf8_lossy(text).into_owned()))
            }
            Some(open @ (b'[' | b'{')) => {
                self.pos += 1;
                if open == b'[' {
                    self.array(depth + 1)
                } else {
                    self.object(depth + 1)
                }
            }
            Some(_) => Err(self.fail("invalid character")),
        }
    }

    /// The elements of an array whose `[` has been read.
    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        let mut items = Vec::new();
        self.whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.fail("expected ',' or ']'")),
            }
        }
    }

    /// The members of an object whose `{` has been read.
    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        let mut members = Vec::new();
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.fail("expected an object key"));
            }
            let key = self.string()?;
            self.whitespace();
            if self.peek() != Some(b':') {
                return Err(self.fail("expected ':'"));
            }
            self.pos += 1;
            members.push((key, self.value(depth)?));
            self.whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.fail("expected ',' or '}'")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .input
            .get(self.pos..self.pos + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.fail("invalid \\u escape"))?;
        let code = digits.iter().fold(0, |acc, &d| {
            acc * 16
                + char::from(d)
                    .to_digit(16)
                    .expect("checked to be a hex digit")
        });
        self.pos += 4;
        Ok(code)
    }

    /// A string whose opening quote is at the current position.
    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            push_lossy(&mut out, &self.input[start..self.pos]);
            match self.peek() {
                None => return Err(self.fail("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.fail("control character in string")),
            }
        }
    }

    /// One escape whose backslash has been read.
    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let escape = self.peek();
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
                let first = self.hex4()?;
                let c = if (0xd800..0xdc00).contains(&first)
                    && self.input.get(self.pos..self.pos + 2) == Some(b"\\u")
                {
                    let save = self.pos;
                    self.pos += 2;
                    let second = self.hex4()?;
                    if (0xdc00..0xe000).contains(&second) {
                        char::from_u32(0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00))
                    } else {
                        // Not a pair: Go replaces the lone half and reads the next escape on
                        // its own.
                        self.pos = save;
                        None
                    }
                } else {
                    char::from_u32(first)
                };
                out.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            _ => {
                self.pos -= 1;
                return Err(self.fail("invalid escape"));
            }
        }
        Ok(())
    }
}
