//! Input quoted in error messages, bounded.
//!
//! An error that names what was wrong quotes the input: an argument, a path, a provider name, a
//! version, a property value. Input can be as large as the engine or a user likes (a 100 MiB
//! Parameterize argument), and an error that carries it whole is worse than none: the gRPC
//! status no longer fits in a header, so the engine reports a metadata size error instead of
//! ours, and every copy of the text costs memory. Every error that quotes input goes through
//! this crate, which keeps the first [`LIMIT`] bytes and says how many more there were.
//!
//! - [`quoted`]: the input in double quotes with Rust's escapes, as `{:?}` writes a string;
//! - [`plain`]: the input as it is, for names, paths and a provider's own text printed without
//!   quotes, but for control characters other than newline and tab, which are escaped as `{:?}`
//!   escapes them (`\u{1b}`): a provider's diagnostic or output cannot drive the terminal that
//!   shows our error;
//! - [`bounded`]: a whole message (a status built from an error chain), cut at a larger limit
//!   in its middle, since its end holds the innermost cause or a provider's last words;
//! - [`chain`]: an error and its causes, each once, as one message.
//!
//! Architecture invariant: pure, no dependencies; cutting never splits a UTF-8 character.

use std::fmt;

/// How many bytes of one input an error quotes.
pub const LIMIT: usize = 256;

/// How many bytes of a whole message [`bounded`] keeps; well under the 8 KiB to 16 KiB header
/// lists that gRPC peers accept.
pub const MESSAGE_LIMIT: usize = 4 * 1024;

/// An input to quote in an error message; see [`quoted`] and [`plain`].
#[derive(Clone, Copy, Debug)]
pub struct Echo<'a> {
    text: &'a str,
    quotes: bool,
}

/// `text` in double quotes with `{:?}`'s escapes, its first [`LIMIT`] bytes only:
/// `"abc…" (1234 more bytes)`.
pub fn quoted(text: &str) -> Echo<'_> {
    Echo { text, quotes: true }
}

/// `text` as it is but for its control characters other than newline and tab, which are
/// escaped (`\u{1b}`), its first [`LIMIT`] bytes only: `abc… (1234 more bytes)`.
pub fn plain(text: &str) -> Echo<'_> {
    Echo {
        text,
        quotes: false,
    }
}

impl fmt::Display for Echo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kept, cut) = split(self.text, LIMIT);
        match (self.quotes, cut) {
            (true, 0) => write!(f, "{kept:?}"),
            (true, cut) => write!(f, "{:?} ({cut} more bytes)", Ellipsis(kept)),
            (false, 0) => write_plain(f, kept),
            (false, cut) => {
                write_plain(f, kept)?;
                write!(f, "… ({cut} more bytes)")
            }
        }
    }
}

/// `text` with its control characters (C0, DEL, C1) escaped, but for newline and tab.
fn write_plain(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    let escaped = |c: char| c.is_control() && c != '\n' && c != '\t';
    let mut rest = text;
    while let Some(at) = rest.find(escaped) {
        f.write_str(&rest[..at])?;
        let c = rest[at..]
            .chars()
            .next()
            .expect("find returned a character's index");
        write!(f, "{}", c.escape_unicode())?;
        rest = &rest[at + c.len_utf8()..];
    }
    f.write_str(rest)
}

/// A string whose `{:?}` form ends with `…` inside the quotes.
struct Ellipsis<'a>(&'a str);

impl fmt::Debug for Ellipsis<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = format!("{:?}", self.0);
        let inner = quoted
            .strip_suffix('"')
            .expect("`{:?}` of a string ends with a quote");
        write!(f, "{inner}…\"")
    }
}

/// `message` if it fits in [`MESSAGE_LIMIT`] bytes, else its start and its end, with how much
/// was cut between them: an error chain ends with its innermost cause, and a provider's crash
/// with the last lines it wrote, where the reason usually is.
pub fn bounded(message: String) -> String {
    if message.len() <= MESSAGE_LIMIT {
        return message;
    }
    let (head, _) = split(&message, MESSAGE_LIMIT / 4);
    let mut tail_at = message.len() - (MESSAGE_LIMIT - head.len());
    while !message.is_char_boundary(tail_at) {
        tail_at += 1;
    }
    let cut = tail_at - head.len();
    format!("{head}… ({cut} bytes cut) …{}", &message[tail_at..])
}

/// `err` and each of its causes, joined by `: `, as Go joins wrapped errors. An error names its
/// cause through `source()` and never also in its own message, so each appears once.
pub fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(err) = cause {
        text.push_str(": ");
        text.push_str(&err.to_string());
        cause = err.source();
    }
    text
}

/// The longest start of `text` of at most `limit` bytes that ends on a character boundary, and
/// how many bytes are left after it.
fn split(text: &str, limit: usize) -> (&str, usize) {
    if text.len() <= limit {
        return (text, 0);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_input_is_quoted_whole() {
        assert_eq!(quoted("a\"b\n").to_string(), r#""a\"b\n""#);
        assert_eq!(
            plain("./terraform-provider-x").to_string(),
            "./terraform-provider-x"
        );
    }

    #[test]
    fn plain_text_escapes_what_would_drive_a_terminal() {
        assert_eq!(
            plain("\u{1b}[2J\u{1b}]0;title\u{7}red\r\u{7f}\u{9b}").to_string(),
            r"\u{1b}[2J\u{1b}]0;title\u{7}red\u{d}\u{7f}\u{9b}"
        );
        // Lines and columns stay as they are, and so does text that is not a control character.
        assert_eq!(plain("a\n\tb é ✓").to_string(), "a\n\tb é ✓");
        let long = format!("\u{1b}{}", "x".repeat(LIMIT));
        assert_eq!(
            plain(&long).to_string(),
            format!(r"\u{{1b}}{}… (1 more bytes)", "x".repeat(LIMIT - 1))
        );
    }

    #[test]
    fn long_input_is_cut_and_says_how_much() {
        let long = "x".repeat(LIMIT + 1000);
        let text = quoted(&long).to_string();
        assert_eq!(
            text,
            format!("\"{}…\" (1000 more bytes)", "x".repeat(LIMIT))
        );
        let text = plain(&long).to_string();
        assert_eq!(text, format!("{}… (1000 more bytes)", "x".repeat(LIMIT)));
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let long = "é".repeat(LIMIT);
        let text = plain(&long).to_string();
        assert!(text.starts_with(&"é".repeat(LIMIT / 2)), "{text}");
        assert!(
            text.ends_with(&format!("… ({} more bytes)", LIMIT)),
            "{text}"
        );
    }

    #[test]
    fn a_whole_message_is_bounded_too_keeping_its_start_and_end() {
        assert_eq!(bounded("short".to_owned()), "short");
        let exact = "z".repeat(MESSAGE_LIMIT);
        assert_eq!(bounded(exact.clone()), exact);
        let long = format!(
            "failed to launch: {}; the reason: é",
            "y".repeat(MESSAGE_LIMIT * 3)
        );
        let text = bounded(long.clone());
        assert!(text.len() < MESSAGE_LIMIT + 40, "{}", text.len());
        assert!(text.starts_with("failed to launch: yyy"), "{text}");
        assert!(text.ends_with("yyy; the reason: é"), "{text}");
        let cut = long.len() - MESSAGE_LIMIT;
        assert!(text.contains(&format!("y… ({cut} bytes cut) …y")), "{text}");
        // A cut at either end never splits a character.
        let wide = bounded("é".repeat(MESSAGE_LIMIT));
        assert!(wide.starts_with('é') && wide.ends_with('é'), "{wide}");
        assert!(wide.len() <= MESSAGE_LIMIT + 40, "{}", wide.len());
    }
}
