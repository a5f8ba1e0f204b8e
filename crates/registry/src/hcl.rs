//! A small parser for the HCL subset that OpenTofu's CLI configuration files use (HCL 1:
//! `name = value` attributes, `name "label" { ... }` blocks, strings, numbers, booleans, lists,
//! objects, heredocs and the three comment styles), plus the JSON form of the same files.
//!
//! Invariants: parsing never panics; nesting depth and input size are bounded; every error names
//! the line where it was found; no error repeats a name or value of the input (at most one
//! unexpected character, or the marker a heredoc lacks), since an unquoted value may be a
//! credential.

/// The largest configuration file we read.
pub(crate) const MAX_INPUT: usize = 4 * 1024 * 1024;
const MAX_DEPTH: usize = 32;

/// A parsed value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    String(String),
    Number(String),
    Bool(bool),
    List(Vec<Value>),
    Object(Body),
}

/// One `keys... [=] value` item: a block has its name and labels as keys and an object value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Item {
    pub(crate) keys: Vec<String>,
    pub(crate) assigned: bool,
    pub(crate) value: Value,
    pub(crate) line: usize,
}

/// A sequence of items: the whole file, or the inside of braces.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct Body {
    pub(crate) items: Vec<Item>,
}

/// A syntax error with its line number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub(crate) struct SyntaxError {
    pub(crate) line: usize,
    pub(crate) message: String,
}

impl Value {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// What kind of value this is, for messages, which must not show the value: it may be a
    /// credential.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::List(_) => "a list",
            Value::Object(_) => "an object",
        }
    }
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    /// Where the current line starts, for columns.
    line_start: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// A parser at the start of `text`, if it is not too large to read.
    fn new(text: &'a str) -> Result<Parser<'a>, SyntaxError> {
        if text.len() > MAX_INPUT {
            return Err(SyntaxError {
                line: 1,
                message: "file is too large".into(),
            });
        }
        Ok(Parser {
            src: text.as_bytes(),
            pos: 0,
            line: 1,
            line_start: 0,
            depth: 0,
        })
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            line: self.line,
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.line_start = self.pos;
        }
        Some(b)
    }

    /// The column, counted in characters from 1, of the byte at `at` on the line that starts
    /// at `line_start`. It counts the line up to `at`, so it is for error messages only: an item
    /// counting its column as it starts would make a long line take quadratic time.
    fn column(&self, line_start: usize, at: usize) -> usize {
        let before = self.src.get(line_start..at).unwrap_or_default();
        std::str::from_utf8(before).map_or(before.len(), |s| s.chars().count()) + 1
    }

    /// Skips spaces, newlines and comments.
    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            match (self.peek(), self.src.get(self.pos + 1).copied()) {
                (Some(b' ' | b'\t' | b'\r' | b'\n'), _) => {
                    self.bump();
                }
                (Some(b'#'), _) | (Some(b'/'), Some(b'/')) => {
                    while let Some(b) = self.peek() {
                        if b == b'\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    self.pos += 2;
                    loop {
                        match self.bump() {
                            None => return self.err("unterminated comment"),
                            Some(b'*') if self.peek() == Some(b'/') => {
                                self.bump();
                                break;
                            }
                            Some(_) => {}
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn is_ident_byte(b: u8) -> bool {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.') || b >= 0x80
    }

    fn ident(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        while self.peek().is_some_and(Self::is_ident_byte) {
            self.bump();
        }
        if start == self.pos {
            return self.err(format!(
                "expected a name, found {}",
                self.peek()
                    .map_or("end of file".to_owned(), |b| format!("{:?}", b as char))
            ));
        }
        Ok(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.bump();
        let mut out = Vec::new();
        loop {
            if matches!(self.peek(), None | Some(b'\n')) {
                return self.err("unterminated string");
            }
            match self.bump() {
                None => return self.err("unterminated string"),
                Some(b'"') => break,
                Some(b'\\') => match self.bump() {
                    Some(b'n') => out.push(b'\n'),
                    Some(b't') => out.push(b'\t'),
                    Some(b'r') => out.push(b'\r'),
                    Some(b'"') => out.push(b'"'),
                    Some(b'\\') => out.push(b'\\'),
                    Some(b'/') => out.push(b'/'),
                    Some(b'b') => out.push(0x08),
                    Some(b'f') => out.push(0x0c),
                    Some(b'u') => {
                        let Some(c) = self.unicode_escape() else {
                            return self.err("invalid \\u escape");
                        };
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                    _ => return self.err("invalid escape in string"),
                },
                Some(b) => out.push(b),
            }
        }
        String::from_utf8(out).or_else(|_| self.err("string is not UTF-8"))
    }

    /// The character of a `\\u` escape whose four hex digits come next, a UTF-16 surrogate
    /// pair written as two escapes (as JSON writes characters beyond the BMP) included.
    fn unicode_escape(&mut self) -> Option<char> {
        let high = self.hex4()?;
        if !(0xd800..0xdc00).contains(&high) {
            return char::from_u32(high);
        }
        if self.src.get(self.pos..self.pos + 2) != Some(b"\\u") {
            return None;
        }
        self.pos += 2;
        let low = self.hex4().filter(|low| (0xdc00..0xe000).contains(low))?;
        char::from_u32(0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00))
    }

    /// Four hex digits, as a number.
    fn hex4(&mut self) -> Option<u32> {
        let digits = self.src.get(self.pos..self.pos + 4)?;
        let code = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
        self.pos += 4;
        Some(code)
    }

    fn heredoc(&mut self) -> Result<String, SyntaxError> {
        self.pos += 2;
        let indented = self.peek() == Some(b'-');
        if indented {
            self.pos += 1;
        }
        let marker = self.ident()?;
        while let Some(b) = self.bump() {
            if b == b'\n' {
                break;
            }
        }
        let mut lines = Vec::new();
        loop {
            let start = self.pos;
            while self.peek().is_some_and(|b| b != b'\n') {
                self.bump();
            }
            let line = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
            if line.trim() == marker {
                // `<<-`: the closing line's indentation comes off every line, if every line
                // has it (HCL 1 `unindentHeredoc`).
                let indentation = &line[..line.len() - line.trim_start().len()];
                if indented && lines.iter().all(|l: &String| l.starts_with(indentation)) {
                    for l in &mut lines {
                        l.drain(..indentation.len());
                    }
                }
                break;
            }
            if self.bump().is_none() {
                return self.err(format!("heredoc without its closing {marker}"));
            }
            lines.push(line);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        Ok(text)
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        self.skip_trivia()?;
        match self.peek() {
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'<') if self.src.get(self.pos + 1) == Some(&b'<') => {
                Ok(Value::String(self.heredoc()?))
            }
            Some(b'{') => Ok(Value::Object(self.object()?)),
            Some(b'[') => self.list(),
            Some(b) if b.is_ascii_digit() || b == b'-' || b == b'+' => Ok(self.number()),
            Some(_) => {
                let start = self.pos;
                match self.ident()?.as_str() {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    _ => self.err(format!(
                        "unquoted text at column {} where a value belongs; strings must be in \
                         double quotes",
                        self.column(self.line_start, start)
                    )),
                }
            }
            None => self.err("expected a value, found end of file"),
        }
    }

    fn number(&mut self) -> Value {
        let start = self.pos;
        self.bump();
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'+')
        {
            self.bump();
        }
        Value::Number(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("nesting is too deep");
        }
        Ok(())
    }

    fn list(&mut self) -> Result<Value, SyntaxError> {
        Ok(Value::List(self.sequence(b']', "a list", Self::value)?))
    }

    /// The items `item` reads between the opening bracket at the current position and `close`,
    /// separated by commas, a trailing one allowed; `within` names the construct in errors.
    fn sequence<T>(
        &mut self,
        close: u8,
        within: &str,
        mut item: impl FnMut(&mut Self) -> Result<T, SyntaxError>,
    ) -> Result<Vec<T>, SyntaxError> {
        self.enter()?;
        self.bump();
        let mut items = Vec::new();
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(close) {
                self.bump();
                break;
            }
            items.push(item(self)?);
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => {
                    self.bump();
                }
                Some(c) if c == close => {}
                _ => {
                    let close = close as char;
                    return self.err(format!("expected \",\" or \"{close}\" in {within}"));
                }
            }
        }
        self.depth -= 1;
        Ok(items)
    }

    fn object(&mut self) -> Result<Body, SyntaxError> {
        self.enter()?;
        self.bump();
        let body = self.body(true)?;
        self.depth -= 1;
        Ok(body)
    }

    fn key(&mut self) -> Result<String, SyntaxError> {
        if self.peek() == Some(b'"') {
            self.string()
        } else {
            self.ident()
        }
    }

    /// Items up to `}` (when `nested`) or the end of the input.
    fn body(&mut self, nested: bool) -> Result<Body, SyntaxError> {
        let mut body = Body::default();
        loop {
            self.skip_trivia()?;
            match self.peek() {
                None if nested => return self.err("expected \"}\""),
                None => return Ok(body),
                Some(b'}') if nested => {
                    self.bump();
                    return Ok(body);
                }
                Some(b',') if nested => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            let (line, line_start, start) = (self.line, self.line_start, self.pos);
            let mut keys = vec![self.key()?];
            loop {
                self.skip_trivia()?;
                match self.peek() {
                    Some(b'=') => {
                        self.bump();
                        let value = self.value()?;
                        body.items.push(Item {
                            keys,
                            assigned: true,
                            value,
                            line,
                        });
                        break;
                    }
                    Some(b'{') => {
                        let value = Value::Object(self.object()?);
                        body.items.push(Item {
                            keys,
                            assigned: false,
                            value,
                            line,
                        });
                        break;
                    }
                    Some(b'"') => keys.push(self.string()?),
                    Some(b) if Self::is_ident_byte(b) => keys.push(self.ident()?),
                    // The name is not repeated: a value written without its name looks like one.
                    _ => {
                        let column = self.column(line_start, start);
                        return Err(SyntaxError {
                            line,
                            message: format!(
                                "expected \"=\" or \"{{\" after the name at column {column}"
                            ),
                        });
                    }
                }
            }
        }
    }

    /// A JSON value, in document order, repeated object keys kept.
    fn json(&mut self) -> Result<Json, SyntaxError> {
        self.skip_trivia()?;
        match self.peek() {
            Some(b'"') => Ok(Json::Scalar(Value::String(self.string()?))),
            Some(b'{') => Ok(Json::Object(self.sequence(
                b'}',
                "an object",
                Self::json_member,
            )?)),
            Some(b'[') => Ok(Json::Array(self.sequence(b']', "an array", Self::json)?)),
            Some(b) if b.is_ascii_digit() || b == b'-' => Ok(Json::Scalar(self.number())),
            Some(_) => match self.ident()?.as_str() {
                "true" => Ok(Json::Scalar(Value::Bool(true))),
                "false" => Ok(Json::Scalar(Value::Bool(false))),
                "null" => Ok(Json::Scalar(Value::String(String::new()))),
                _ => self.err("unquoted text where a JSON value belongs"),
            },
            None => self.err("expected a value, found end of file"),
        }
    }

    /// One `"name": value` member of a JSON object, with the line of its name.
    fn json_member(&mut self) -> Result<(String, usize, Json), SyntaxError> {
        if self.peek() != Some(b'"') {
            return self.err("expected a quoted name or \"}\" in an object");
        }
        let line = self.line;
        let key = self.string()?;
        self.skip_trivia()?;
        if self.bump() != Some(b':') {
            return self.err("expected \":\" after a name in an object");
        }
        Ok((key, line, self.json()?))
    }
}

/// Parses HCL text.
pub(crate) fn parse(text: &str) -> Result<Body, SyntaxError> {
    Parser::new(text)?.body(false)
}

/// A JSON value as read, before HCL 1's flattening: objects keep their members' order, repeated
/// names and lines.
enum Json {
    Scalar(Value),
    Array(Vec<Json>),
    Object(Vec<(String, usize, Json)>),
}

/// Whether `text` is the JSON form: HCL 1 (`hcl.Parse`) reads a file as JSON when its first
/// character other than white space is `{`, whatever the file is named.
pub(crate) fn is_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// Turns the JSON form of a configuration file into the same shape as HCL 1 does: an object
/// member whose value is an object is a block, and an array of objects is a list of blocks with
/// the same name. Members stay in the file's order, a name given twice included (OpenTofu's own
/// test configuration lists two `filesystem_mirror`s), each with its line.
pub(crate) fn from_json(text: &str) -> Result<Body, SyntaxError> {
    let mut parser = Parser::new(text)?;
    let value = parser.json()?;
    parser.skip_trivia()?;
    if parser.peek().is_some() {
        return parser.err("unexpected text after the JSON value");
    }
    let Json::Object(members) = value else {
        return Err(SyntaxError {
            line: 1,
            message: "the top level must be a JSON object".into(),
        });
    };
    Ok(json_body(members))
}

fn json_body(members: Vec<(String, usize, Json)>) -> Body {
    let mut body = Body::default();
    for (key, line, value) in members {
        let item = |assigned, value| Item {
            keys: vec![key.clone()],
            assigned,
            value,
            line,
        };
        match value {
            Json::Array(elements)
                if !elements.is_empty()
                    && elements.iter().all(|e| matches!(e, Json::Object(_))) =>
            {
                for element in elements {
                    body.items.push(item(false, json_value(element)));
                }
            }
            Json::Object(members) => body
                .items
                .push(item(false, Value::Object(json_body(members)))),
            other => body.items.push(item(true, json_value(other))),
        }
    }
    body
}

fn json_value(value: Json) -> Value {
    match value {
        Json::Scalar(value) => value,
        Json::Array(elements) => Value::List(elements.into_iter().map(json_value).collect()),
        Json::Object(members) => Value::Object(json_body(members)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cli_config_shapes() {
        let text = r#"
# comment
plugin_cache_dir = "$HOME/.terraform.d/plugin-cache" // trailing
credentials "app.example.com" {
  token = "abc\"def"
}
/* block
comment */
provider_installation {
  filesystem_mirror {
    path    = "/opt/mirror"
    include = ["example.com/*/*", ]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
host "example.com" {
  services = {
    "providers.v1" = "https://example.com/p/"
  }
}
"#;
        let body = parse(text).expect("valid HCL");
        assert_eq!(body.items.len(), 4);
        assert_eq!(body.items[1].keys, vec!["credentials", "app.example.com"]);
        let Value::Object(cred) = &body.items[1].value else {
            panic!("credentials is a block")
        };
        assert_eq!(cred.items[0].value, Value::String("abc\"def".into()));
        let Value::Object(pi) = &body.items[2].value else {
            panic!("provider_installation is a block")
        };
        assert_eq!(pi.items.len(), 2);
        assert_eq!(body.items[3].line, 18);
    }

    proptest::proptest! {
        /// No input makes the parser panic, including deep nesting and broken UTF-8 escapes.
        #[test]
        fn never_panics(s in "[a-z{}\\[\\]=\",#/*<\\\\ \n\u{e9}u0-9-]{0,60}") {
            let _ = parse(&s);
            let _ = from_json(&s);
        }
    }

    #[test]
    fn reports_the_line_of_an_error() {
        let err = parse("a = 1\nb = \"x\nc = 2").expect_err("unterminated");
        assert_eq!(err.line, 2);
        assert!(parse("x {").is_err());
        assert!(parse(&format!("a = {}", "[".repeat(100))).is_err());
        // The column is the name's, on the line where the item starts.
        for text in ["x = 1\n  ab \"k\" ]", "x = 1\n  ab\n\"k\" ]"] {
            let err = parse(text).expect_err("no value");
            assert_eq!(err.line, 2, "{text:?}");
            assert!(
                err.message
                    .ends_with("expected \"=\" or \"{\" after the name at column 3"),
                "{text:?}: {}",
                err.message
            );
        }
    }

    #[test]
    fn json_keeps_the_files_order_repeated_names_and_lines() {
        // OpenTofu's own `testdata/provider-installation.json` lists a filesystem_mirror twice,
        // around a network_mirror: the order decides which method is asked first.
        let text = r#"{
  "provider_installation": {
    "filesystem_mirror": [{"path": "/tmp/example1", "include": ["example.com/*/*"]}],
    "network_mirror": [{"url": "https://tf-Mirror.example.com/", "exclude": ["x/*/*"]}],
    "filesystem_mirror": [{"path": "/tmp/example2"}],
    "direct": [{"exclude": ["example.com/*/*"]}]
  },
  "credentials": {"app.example.com": {"token": "a\u00e9\ud83d\ude00\/"}}
}"#;
        let body = from_json(text).expect("valid JSON");
        let Value::Object(methods) = &body.items[0].value else {
            panic!("provider_installation is a block")
        };
        let kinds: Vec<(&str, usize)> = (methods.items.iter())
            .map(|i| (i.keys[0].as_str(), i.line))
            .collect();
        assert_eq!(
            kinds,
            [
                ("filesystem_mirror", 3),
                ("network_mirror", 4),
                ("filesystem_mirror", 5),
                ("direct", 6)
            ]
        );
        let Value::Object(credentials) = &body.items[1].value else {
            panic!("credentials is a block")
        };
        let Value::Object(host) = &credentials.items[0].value else {
            panic!("a host is a block")
        };
        assert_eq!(
            host.items[0].value,
            Value::String("a\u{e9}\u{1f600}/".into())
        );
        // JSON whatever the file's name, and errors with their lines.
        assert!(is_json("\n  {\"a\": 1}") && !is_json("a = {}"));
        assert_eq!(
            from_json("{\n\"a\": 1,\n\"b\" 2}")
                .expect_err("no colon")
                .line,
            3
        );
        assert!(from_json("{} x").is_err());
        assert!(from_json("[]").is_err());
    }

    #[test]
    fn an_indented_heredoc_loses_its_closing_lines_indentation() {
        let body = parse("a = <<-EOT\n    x\n      y\n    EOT\nb = <<EOT\n  x\n  EOT\n")
            .expect("valid HCL");
        assert_eq!(body.items[0].value, Value::String("x\n  y\n".into()));
        assert_eq!(body.items[1].value, Value::String("  x\n".into()));
        // A line less indented than the closing one leaves every line as it is.
        let body = parse("a = <<-EOT\n    x\n  y\n    EOT\n").expect("valid HCL");
        assert_eq!(body.items[0].value, Value::String("    x\n  y\n".into()));
    }

    #[test]
    fn a_line_of_a_million_items_parses() {
        // A million items on one line: counting each one's column from the line's start took
        // minutes.
        let text = "a=1 ".repeat(MAX_INPUT / 4);
        let body = parse(&text).expect("valid HCL");
        assert_eq!(body.items.len(), MAX_INPUT / 4);
    }
}
