//! Pulumi property paths as text, `a.b[0]["key.with.dots"]`, as pulumi/pulumi's
//! `resource.PropertyPath` writes (`String`) and reads (`ParsePropertyPath`) them
//! (`sdk/go/common/resource/properties_path.go`).
//!
//! A key made only of ASCII letters, digits and `_` follows a dot (or starts the path); any
//! other key is written `["key"]` with `"` escaped as `\"`. As in Go, the empty key counts as
//! plain: it is nothing at the start of a path and `.` after a step (`a.`). An index is `[n]`. In
//! a parsed path, `*` (or `[*]`) stands for every key or element.
//!
//! The same text serves two purposes, and [`render`] is the one writer of both. The wire form
//! (the keys of `detailedDiff`, the `ignoreChanges` the engine sends) shows keys whole. Error
//! messages about values from the wire ([`crate::Error::path`]) cut each key to
//! [`MAX_KEY_CHARS`] characters and a `…`, so that a hostile key cannot make them huge.

use std::fmt::Write as _;

/// The longest key an error message shows; longer keys end in `…`.
pub const MAX_KEY_CHARS: usize = 64;

/// One step of a property path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// How keys are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keys {
    /// Whole: the wire form, which the engine reads back.
    Whole,
    /// Cut to [`MAX_KEY_CHARS`] characters: for error messages.
    Cut,
}

/// A property path that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid property path {text:?}: {reason}")]
pub struct ParseError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// The path as `PropertyPath.String()` writes it, keys whole or cut; empty for no steps.
pub fn render(steps: &[Step], keys: Keys) -> String {
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Key(key) => push_key(&mut out, key, i == 0, keys),
            Step::Index(index) => push_index(&mut out, *index),
        }
    }
    out
}

fn push_index(out: &mut String, index: usize) {
    let _ = write!(out, "[{index}]");
}

/// Appends one key: plain after a dot (none for the first step) when it can be, else quoted in
/// brackets.
fn push_key(out: &mut String, key: &str, first: bool, keys: Keys) {
    let plain = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut chars = key.chars();
    let shown: String = match keys {
        Keys::Whole => chars.by_ref().collect(),
        Keys::Cut => chars.by_ref().take(MAX_KEY_CHARS).collect(),
    };
    let cut = chars.next().is_some();
    if plain {
        if !first {
            out.push('.');
        }
        out.push_str(&shown);
    } else {
        out.push_str("[\"");
        out.push_str(&shown.replace('"', "\\\""));
    }
    if cut {
        out.push('…');
    }
    if !plain {
        out.push_str("\"]");
    }
}

/// Reads a path as `ParsePropertyPath` does; `*` and `[*]` become the key `*`.
pub fn parse(text: &str) -> Result<Vec<Step>, ParseError> {
    let invalid = |reason| ParseError {
        text: text.to_owned(),
        reason,
    };
    let mut steps = Vec::new();
    let mut chars = text.chars().peekable();
    let mut key = String::new();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if !key.is_empty() {
                    steps.push(Step::Key(std::mem::take(&mut key)));
                } else if steps.is_empty() {
                    return Err(invalid("expected a name or index before '.'"));
                }
                // Dots in a row are one, as Go reads them (`a..b`).
            }
            '[' => {
                if !key.is_empty() {
                    steps.push(Step::Key(std::mem::take(&mut key)));
                }
                if chars.next_if_eq(&'"').is_some() {
                    let mut quoted = String::new();
                    loop {
                        match chars.next() {
                            // Only `\"` is an escape; any other backslash is itself, as in Go.
                            Some('\\') if chars.next_if_eq(&'"').is_some() => quoted.push('"'),
                            Some('"') => break,
                            Some(other) => quoted.push(other),
                            None => return Err(invalid("unterminated string")),
                        }
                    }
                    if chars.next() != Some(']') {
                        return Err(invalid("expected ']'"));
                    }
                    steps.push(Step::Key(quoted));
                } else {
                    let mut inner = String::new();
                    loop {
                        match chars.next() {
                            Some(']') => break,
                            Some(other) => inner.push(other),
                            None => return Err(invalid("expected ']'")),
                        }
                    }
                    if inner == "*" {
                        steps.push(Step::Key(inner));
                    } else {
                        let index = inner
                            .parse()
                            .map_err(|_| invalid("expected an index or a quoted key"))?;
                        steps.push(Step::Index(index));
                    }
                }
                // A key may follow a bracket after a dot only.
                if chars.next_if_eq(&'.').is_some() && chars.peek().is_none() {
                    return Err(invalid("unexpected '.' at the end"));
                }
            }
            other => key.push(other),
        }
    }
    if !key.is_empty() {
        steps.push(Step::Key(key));
    } else if text.ends_with('.') {
        return Err(invalid("unexpected '.' at the end"));
    }
    Ok(steps)
}

/// Where the codec is in a value: the top level, or a key or index below a parent. The codec
/// passes it down the recursion as a chain of borrowed links, so keeping it costs nothing until
/// an error renders it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Path<'a> {
    /// The value handed to the codec.
    Root,
    /// A field of an object (or a member of an archive).
    Key(&'a Path<'a>, &'a str),
    /// An element of an array.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The path of field `key` below this one.
    pub(crate) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The path of element `index` below this one.
    pub(crate) fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    /// The path for an error message: keys cut.
    pub(crate) fn render(&self) -> String {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root => break,
                Path::Key(parent, key) => {
                    steps.push(Step::Key((*key).to_owned()));
                    at = parent;
                }
                Path::Index(parent, index) => {
                    steps.push(Step::Index(*index));
                    at = parent;
                }
            }
        }
        steps.reverse();
        render(&steps, Keys::Cut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Step {
        Step::Key(k.to_owned())
    }

    #[test]
    fn renders_like_pulumi() {
        let whole = |steps: &[Step]| render(steps, Keys::Whole);
        assert_eq!(
            whole(&[key("rules"), Step::Index(0), key("fromPort")]),
            "rules[0].fromPort"
        );
        assert_eq!(
            whole(&[key("tags"), key("a.b"), key("say \"hi\"")]),
            r#"tags["a.b"]["say \"hi\""]"#
        );
        assert_eq!(whole(&[key("kebab-case")]), r#"["kebab-case"]"#);
        assert_eq!(whole(&[Step::Index(2), key("x")]), "[2].x");
        assert_eq!(whole(&[]), "");
    }

    #[test]
    fn the_empty_key_is_plain_as_in_pulumi() {
        // `requiresQuote` is false for every rune of "", so Go writes it bare: nothing first,
        // `.` after a step. The codec's copy wrote `[""]`, the server's wrote it bare.
        let whole = |steps: &[Step]| render(steps, Keys::Whole);
        assert_eq!(whole(&[key("")]), "");
        assert_eq!(whole(&[key("a"), key("")]), "a.");
        assert_eq!(whole(&[key(""), Step::Index(3)]), "[3]");
        let root = Path::Root;
        let empty = root.key("");
        assert_eq!(empty.index(3).render(), "[3]");
    }

    #[test]
    fn error_messages_cut_long_keys() {
        let long = "k".repeat(1000);
        let root = Path::Root;
        assert_eq!(
            root.key(&long).render(),
            format!("{}…", "k".repeat(MAX_KEY_CHARS))
        );
        let quoted = "é".repeat(100);
        assert_eq!(
            root.key(&quoted).render(),
            format!("[\"{}…\"]", "é".repeat(MAX_KEY_CHARS))
        );
        assert_eq!(render(&[key(&long)], Keys::Whole), long);
        let a = root.key("a");
        let b = a.key("b_1");
        let zero = b.index(0);
        assert_eq!(
            zero.key("key.with \"dots\"").render(),
            r#"a.b_1[0]["key.with \"dots\""]"#
        );
    }

    #[test]
    fn parses_what_it_renders() {
        for steps in [
            vec![key("a"), key("b"), Step::Index(3), key("c")],
            vec![key("tags"), key("x.y"), key("q\"")],
            vec![key("list"), Step::Index(0), Step::Index(1)],
            vec![key("back\\slash"), key("a\\\"b")],
        ] {
            assert_eq!(parse(&render(&steps, Keys::Whole)), Ok(steps));
        }
        assert_eq!(
            parse("a[*].b").expect("a glob"),
            vec![key("a"), key("*"), key("b")]
        );
        assert_eq!(parse("*").expect("a glob"), vec![key("*")]);
        // Go's reader skips dots in a row, and takes a dot before a bracket, but a path may not
        // start or end with one.
        assert_eq!(parse("a..b"), Ok(vec![key("a"), key("b")]));
        assert_eq!(
            parse("a[0]..b.[1]"),
            Ok(vec![key("a"), Step::Index(0), key("b"), Step::Index(1)])
        );
        for bad in ["a.", "a[0].", "a..", ".a", "..a", ".", "tags[-1]"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse("a[x]").is_err());
        assert!(parse("a[\"x").is_err());
    }
}
