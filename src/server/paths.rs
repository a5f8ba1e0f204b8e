//! Pulumi property paths as text: `a.b[0]["key.with.dots"]`, how the engine writes
//! `ignoreChanges` and reads `detailedDiff` keys (pulumi/pulumi `resource.PropertyPath`).
//!
//! A key is written after a dot when it has only ASCII letters, digits and `_`, and as
//! `["key"]` otherwise, with `"` escaped; `*` (or `[*]`) in a parsed path matches every key or
//! element.

use std::fmt::Write as _;

/// One step of a property path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Writes a path as the engine does (`PropertyPath.String`).
pub fn render(steps: &[Step]) -> String {
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Index(n) => {
                let _ = write!(out, "[{n}]");
            }
            Step::Key(key) => {
                let plain = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if plain {
                    if i > 0 {
                        out.push('.');
                    }
                    out.push_str(key);
                } else {
                    out.push_str("[\"");
                    out.push_str(&key.replace('"', "\\\""));
                    out.push_str("\"]");
                }
            }
        }
    }
    out
}

/// Reads a path as the engine does (`ParsePropertyPath`).
pub fn parse(text: &str) -> Result<Vec<Step>, String> {
    let invalid = |why: &str| format!("invalid property path {text:?}: {why}");
    let mut steps = Vec::new();
    let mut chars = text.chars().peekable();
    let mut key = String::new();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if key.is_empty() {
                    return Err(invalid("expected a key before '.'"));
                }
                steps.push(Step::Key(std::mem::take(&mut key)));
            }
            '[' => {
                if !key.is_empty() {
                    steps.push(Step::Key(std::mem::take(&mut key)));
                }
                match chars.peek() {
                    Some('"') => {
                        chars.next();
                        let mut quoted = String::new();
                        loop {
                            match chars.next() {
                                Some('\\') => match chars.next() {
                                    Some(escaped) => quoted.push(escaped),
                                    None => return Err(invalid("unterminated string")),
                                },
                                Some('"') => break,
                                Some(other) => quoted.push(other),
                                None => return Err(invalid("unterminated string")),
                            }
                        }
                        if chars.next() != Some(']') {
                            return Err(invalid("expected ']'"));
                        }
                        steps.push(Step::Key(quoted));
                    }
                    _ => {
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
                }
                // A key may follow a bracket after a dot only.
                if chars.peek() == Some(&'.') {
                    chars.next();
                    if chars.peek().is_none() {
                        return Err(invalid("unexpected '.' at the end"));
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Step {
        Step::Key(k.to_owned())
    }

    #[test]
    fn renders_like_the_engine() {
        assert_eq!(
            render(&[key("rules"), Step::Index(0), key("fromPort")]),
            "rules[0].fromPort"
        );
        assert_eq!(
            render(&[key("tags"), key("a.b"), key("say \"hi\"")]),
            r#"tags["a.b"]["say \"hi\""]"#
        );
        assert_eq!(render(&[key("kebab-case")]), r#"["kebab-case"]"#);
    }

    #[test]
    fn parses_what_it_renders() {
        for steps in [
            vec![key("a"), key("b"), Step::Index(3), key("c")],
            vec![key("tags"), key("x.y"), key("q\"")],
            vec![key("list"), Step::Index(0), Step::Index(1)],
        ] {
            assert_eq!(parse(&render(&steps)), Ok(steps));
        }
        assert_eq!(
            parse("a[*].b").expect("a glob"),
            vec![key("a"), key("*"), key("b")]
        );
        assert_eq!(parse("*").expect("a glob"), vec![key("*")]);
        assert!(parse("a.").is_err());
        assert!(parse("a[x]").is_err());
        assert!(parse("a[\"x").is_err());
    }
}
