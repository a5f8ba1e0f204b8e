//! `json.Indent`: JSON text with each element on its own line.
//!
//! As in Go, the first line has neither prefix nor indentation, every later line starts with
//! `prefix` and one `indent` per level, a key is followed by `": "`, empty arrays and objects
//! stay `[]` and `{}`, space before the value is dropped and space after it kept.

use super::parse::{ParseError, parse};

/// `json.Indent(&out, src, prefix, indent)`; the input must be one valid JSON value.
pub fn indent(src: &str, prefix: &str, indent: &str) -> Result<String, ParseError> {
    // Go validates as it goes; any valid value has a depth below its length.
    parse(src.as_bytes(), src.len())?;
    let body = src.trim_start_matches([' ', '\t', '\n', '\r']);
    let end = body.trim_end_matches([' ', '\t', '\n', '\r']).len();
    let (body, trailing) = body.split_at(end);
    let mut out = String::with_capacity(src.len() * 2);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(prefix);
        for _ in 0..depth {
            out.push_str(indent);
        }
    };
    let mut depth = 0;
    let mut chars = body.chars().peekable();
    let mut in_string = false;
    let mut escaped = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            ' ' | '\t' | '\n' | '\r' => {}
            '"' => {
                in_string = true;
                out.push(c);
            }
            '[' | '{' => {
                out.push(c);
                while chars
                    .next_if(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
                    .is_some()
                {}
                if let Some(close) = chars.next_if(|&n| n == if c == '[' { ']' } else { '}' }) {
                    out.push(close);
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            ']' | '}' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out.push_str(trailing);
    Ok(out)
}
