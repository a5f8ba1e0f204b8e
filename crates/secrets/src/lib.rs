//! The secret values of this process, and the one way text we hand out is cleared of them.
//!
//! What is secret: every string and number the engine sent wrapped as a secret, learned where
//! the engine's property structs are read (the plugin's `server::wire`, which every RPC goes through, so a new
//! RPC cannot bypass it); and the provider's credentials, the values of configuration attributes
//! its schema marks sensitive or whose names end in a credential word, learned in CheckConfig
//! and Configure. A process serves one engine session, so the set lives as long as the process.
//!
//! Where the plugin applies it: recorded calls (`recording::record`, `tfp_recording::hide`), the
//! provider's log lines (`tfp_goplugin::logs`), events sent to the engine and to stderr
//! (`server::engine`), error statuses and check failures (`server::error`, `server::service`).
//!
//! Matching: a value in a structure (a string or number of a recorded value, a field of a message)
//! is hidden when it equals a secret, and a string of a recorded value also where a text secret
//! of at least `MIN_VALUE_MASKED_CHARS` characters appears inside it ([`Secrets::mask_value`]:
//! not a number's text, which would cut up timestamps and account numbers). In free text every
//! occurrence of a secret of at least `MIN_MASKED_CHARS` characters is replaced by [`REDACTED`]; a
//! shorter one only when it is the whole text, because a two-letter secret would otherwise hide
//! every such pair of letters in every line. Free text is often JSON (a provider's log lines are
//! hclog's JSON objects), where a secret with a quote, a backslash, a control character or one of
//! `<>&` appears escaped as Go's `encoding/json` escapes it, so those escaped forms are hidden too,
//! and so are its URL-encoded forms (form bodies, which AWS logs) and its XML-escaped one. Booleans cannot be told apart
//! by value and are not hidden this way (the schema's `sensitive` and `write_only` flags still hide
//! them in recordings).

use std::{
    borrow::Cow,
    collections::BTreeSet,
    sync::{OnceLock, RwLock},
};

use aho_corasick::{AhoCorasick, MatchKind};
use tfp_values::{PropertyMap, PropertyValue};

/// What replaces a secret, here as in the translation's errors.
pub use tfp_translate::REDACTED;

/// The shortest secret hidden inside longer text.
const MIN_MASKED_CHARS: usize = 4;

/// The shortest secret hidden inside a longer string of a recorded value ([`Secrets::mask_value`]):
/// values hold names, paths and timestamps, which a short secret (a year, a word) would cut up
/// far more often than it appears in them.
const MIN_VALUE_MASKED_CHARS: usize = 8;

/// A set of secret values.
#[derive(Debug, Default)]
pub struct Secrets {
    inner: RwLock<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    texts: BTreeSet<String>,
    /// The texts remembered only as a number's, which a string of a value never hides inside it.
    number_texts: BTreeSet<String>,
    /// The bits of each secret number, as a float64.
    numbers: BTreeSet<u64>,
    /// Finds the secrets long enough to be hidden inside text; rebuilt on the next use after a
    /// secret is added.
    matcher: Option<AhoCorasick>,
    /// Finds the text secrets long enough to be hidden inside a value's string; rebuilt with
    /// `matcher`.
    value_matcher: Option<AhoCorasick>,
    stale: bool,
}

impl Secrets {
    /// The secrets of this process.
    pub fn global() -> &'static Secrets {
        static GLOBAL: OnceLock<Secrets> = OnceLock::new();
        GLOBAL.get_or_init(Secrets::default)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Remembers a secret text; the empty text hides nothing and is ignored.
    pub fn remember_text(&self, text: &str) {
        let known = {
            let inner = self.read();
            inner.texts.contains(text) && !inner.number_texts.contains(text)
        };
        if text.is_empty() || known {
            return;
        }
        let mut inner = self.write();
        inner.texts.insert(text.to_owned());
        inner.number_texts.remove(text);
        inner.stale = true;
    }

    /// Remembers a secret number, and its text for free text.
    pub fn remember_number(&self, n: f64) {
        let text = n.to_string();
        let mut inner = self.write();
        inner.numbers.insert(n.to_bits());
        if inner.texts.insert(text.clone()) {
            inner.number_texts.insert(text);
            inner.stale = true;
        }
    }

    /// Remembers every string and number inside the secrets of `props`.
    pub fn remember_secrets_in_map(&self, props: &PropertyMap) {
        for value in props.values() {
            self.walk(value, false);
        }
    }

    /// Remembers every string and number of `value`, which is secret as a whole.
    pub fn remember_all_of(&self, value: &PropertyValue) {
        self.walk(value, true);
    }

    fn walk(&self, value: &PropertyValue, secret: bool) {
        match value {
            PropertyValue::Secret(inner) => self.walk(inner, true),
            PropertyValue::Output(output) => {
                if let Some(element) = &output.element {
                    self.walk(element, secret || output.secret);
                }
            }
            PropertyValue::String(s) if secret => self.remember_text(s),
            PropertyValue::Number(n) if secret => self.remember_number(*n),
            PropertyValue::Array(items) => items.iter().for_each(|item| self.walk(item, secret)),
            PropertyValue::Object(map) => map.values().for_each(|item| self.walk(item, secret)),
            _ => {}
        }
    }

    /// Whether `text` is a secret.
    pub fn is_text(&self, text: &str) -> bool {
        !text.is_empty() && self.read().texts.contains(text)
    }

    /// Whether `n` is a secret number.
    pub fn is_number(&self, n: f64) -> bool {
        self.read().numbers.contains(&n.to_bits())
    }

    /// Whether no secret is known yet.
    pub fn is_empty(&self) -> bool {
        let inner = self.read();
        inner.texts.is_empty() && inner.numbers.is_empty()
    }

    /// Whether `bytes` hold a secret: all of them, or one long enough to be hidden inside text
    /// (in any of the forms [`Secrets::mask`] hides).
    pub fn is_in_bytes(&self, bytes: &[u8]) -> bool {
        if std::str::from_utf8(bytes).is_ok_and(|text| self.is_text(text)) {
            return true;
        }
        self.refresh();
        self.read()
            .matcher
            .as_ref()
            .is_some_and(|matcher| matcher.is_match(bytes))
    }

    /// `text` with every secret in it replaced by [`REDACTED`] (see the module documentation).
    pub fn mask<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.mask_with(text, |inner| inner.matcher.as_ref())
    }

    /// `text`, a string of a recorded value, with the secrets in it replaced by [`REDACTED`]: all
    /// of it when it is a secret, else each text secret of at least eight characters inside it.
    pub fn mask_value<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.mask_with(text, |inner| inner.value_matcher.as_ref())
    }

    /// `text`, all [`REDACTED`] if it is a secret, else with what `matcher` finds in it replaced.
    fn mask_with<'t>(
        &self,
        text: &'t str,
        matcher: impl Fn(&Inner) -> Option<&AhoCorasick>,
    ) -> Cow<'t, str> {
        if self.is_text(text) {
            return Cow::Borrowed(REDACTED);
        }
        self.refresh();
        let inner = self.read();
        let Some(matcher) = matcher(&inner).filter(|m| m.is_match(text)) else {
            return Cow::Borrowed(text);
        };
        let mut out = String::with_capacity(text.len());
        matcher.replace_all_with(text, &mut out, |_, _, out| {
            out.push_str(REDACTED);
            true
        });
        Cow::Owned(out)
    }

    /// Rebuilds the matcher of secrets inside text, if a secret was added since it was built.
    fn refresh(&self) {
        if self.read().stale {
            let mut inner = self.write();
            if inner.stale {
                let long: BTreeSet<String> = inner
                    .texts
                    .iter()
                    .filter(|t| t.chars().count() >= MIN_MASKED_CHARS)
                    .flat_map(|t| {
                        let escaped = [(true, true), (true, false), (false, true), (false, false)]
                            .map(|(html, short)| go_json_escaped(t, html, short));
                        let encoded = [url_encoded(t, "+"), url_encoded(t, "%20"), xml_escaped(t)];
                        std::iter::once(t.clone()).chain(escaped).chain(encoded)
                    })
                    .collect();
                inner.matcher = AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(long)
                    .ok();
                let in_values: Vec<&String> = (inner.texts.iter())
                    .filter(|t| t.chars().count() >= MIN_VALUE_MASKED_CHARS)
                    .filter(|t| !inner.number_texts.contains(*t))
                    .collect();
                inner.value_matcher = AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(in_values)
                    .ok();
                inner.stale = false;
            }
        }
    }

    /// [`Secrets::mask`] in place.
    pub fn mask_in_place(&self, text: &mut String) {
        if let Cow::Owned(masked) = self.mask(text) {
            *text = masked;
        }
    }
}

/// `text` as Go's `url.QueryEscape` writes it (a form-encoded request body, which AWS's query
/// APIs log at trace level), a space as `space` (`+`, or `%20` as in a path).
fn url_encoded(text: &str, space: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte));
            }
            b' ' => out.push_str(space),
            _ => {
                use std::fmt::Write as _;
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

/// `text` as Go's `xml.EscapeText` writes it (an XML response body, logged at trace level).
fn xml_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` inside a JSON string as Go's `encoding/json` writes it: with or without its HTML
/// escaping of `<`, `>` and `&` (`html`; hclog's JSON lines have it unless turned off), and with
/// backspace and form feed as `\b` and `\f` (`short`, Go 1.22 and later) or as `\u0008` and
/// `\u000c` (providers built before).
fn go_json_escaped(text: &str, html: bool, short: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' if short => out.push_str("\\b"),
            '\u{c}' if short => out.push_str("\\f"),
            '<' | '>' | '&' if html => unicode_escape(&mut out, c),
            '\u{0}'..='\u{1f}' | '\u{2028}' | '\u{2029}' => unicode_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// `c` as a JSON `\uXXXX` escape, in lower-case hexadecimal as Go writes it.
fn unicode_escape(out: &mut String, c: char) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let code = u32::from(c);
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((code >> shift) & 0xf) as usize]));
    }
}

/// Standard error with every secret masked, as a `tracing` writer: the formatting layer writes
/// each event with one `write_all` to a writer it makes for that event, and the event is masked
/// and written when that writer is dropped.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaskedStderr;

impl tracing_subscriber::fmt::MakeWriter<'_> for MaskedStderr {
    type Writer = MaskedEvent;

    fn make_writer(&self) -> MaskedEvent {
        MaskedEvent(Vec::new())
    }
}

/// One event on its way to [`MaskedStderr`].
#[derive(Debug)]
pub struct MaskedEvent(Vec<u8>);

impl std::io::Write for MaskedEvent {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for MaskedEvent {
    fn drop(&mut self) {
        use std::io::Write as _;
        let text = String::from_utf8_lossy(&self.0);
        let masked = Secrets::global().mask(&text);
        // A failed write to stderr has nowhere to be reported.
        let _ = std::io::stderr().write_all(masked.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_learned_from_secret_values_only() {
        let secrets = Secrets::default();
        let props = PropertyMap::from([
            ("plain".to_owned(), PropertyValue::String("visible".into())),
            (
                "hidden".to_owned(),
                PropertyValue::secret(PropertyValue::Array(vec![
                    PropertyValue::String("s3cr3t-value".into()),
                    PropertyValue::Number(4242.0),
                ])),
            ),
        ]);
        secrets.remember_secrets_in_map(&props);
        assert!(secrets.is_text("s3cr3t-value"));
        assert!(secrets.is_number(4242.0));
        assert!(!secrets.is_text("visible"));
        assert_eq!(
            secrets.mask("got s3cr3t-value and 4242, not visible"),
            "got <redacted> and <redacted>, not visible"
        );
    }

    #[test]
    fn secrets_are_hidden_as_json_escapes_them() {
        let secrets = Secrets::default();
        secrets.remember_text("p&ss\"w<0>\\\n");
        // hclog's line, as Go's encoding/json escapes the message: HTML-safe, then not.
        let line =
            r#"{"@level":"error","@message":"login with p\u0026ss\"w\u003c0\u003e\\\n failed"}"#;
        assert_eq!(
            secrets.mask(line),
            r#"{"@level":"error","@message":"login with <redacted> failed"}"#
        );
        let line = r#"{"@message":"p&ss\"w<0>\\\n"}"#;
        assert_eq!(secrets.mask(line), r#"{"@message":"<redacted>"}"#);
        // A provider built before Go 1.22 writes a form feed as `\u000c`.
        secrets.remember_text("form\u{c}feed");
        assert_eq!(
            secrets.mask(r#"["form\fFeed","form\fFEED","form\u000cfeed","form\ffeed"]"#),
            r#"["form\fFeed","form\fFEED","<redacted>","<redacted>"]"#
        );
        // The raw secret still goes in plain text.
        assert_eq!(secrets.mask("pw: p&ss\"w<0>\\\n."), "pw: <redacted>.");
    }

    #[test]
    fn secrets_are_hidden_url_encoded_and_xml_escaped() {
        let secrets = Secrets::default();
        secrets.remember_text("sekrit tag/9009+x=y");
        // AWS's query APIs log their form-encoded bodies, and their XML answers.
        assert_eq!(
            secrets
                .mask("Action=CreateUser&Tags.member.1.Value=sekrit+tag%2F9009%2Bx%3Dy&UserName=u"),
            "Action=CreateUser&Tags.member.1.Value=<redacted>&UserName=u"
        );
        assert_eq!(
            secrets.mask("GET /items/sekrit%20tag%2F9009%2Bx%3Dy"),
            "GET /items/<redacted>"
        );
        secrets.remember_text("it's <b>&amp</b>");
        assert_eq!(
            secrets.mask("<Value>it&#39;s &lt;b&gt;&amp;amp&lt;/b&gt;</Value>"),
            "<Value><redacted></Value>"
        );
    }

    #[test]
    fn in_values_only_long_text_secrets_are_hidden_inside_strings() {
        let secrets = Secrets::default();
        secrets.remember_number(2024.0);
        secrets.remember_text("prod");
        secrets.remember_text("sekrit-name-3003");
        assert_eq!(
            secrets.mask_value("2024-01-05T10:00:00Z"),
            "2024-01-05T10:00:00Z",
            "a number's text is not looked for inside"
        );
        assert_eq!(secrets.mask_value("production"), "production");
        assert_eq!(secrets.mask_value("2024"), REDACTED, "a whole secret is");
        assert_eq!(secrets.mask_value("prod"), REDACTED);
        assert_eq!(
            secrets.mask_value("/srv/items/sekrit-name-3003"),
            "/srv/items/<redacted>"
        );
        // Free text still hides all of them.
        assert_eq!(
            secrets.mask("built in 2024 for prod"),
            "built in <redacted> for <redacted>"
        );
        // A text remembered as a text after a number's keeps being looked for inside.
        secrets.remember_number(20_242_024.0);
        secrets.remember_text("20242024");
        assert_eq!(secrets.mask_value("id-20242024"), "id-<redacted>");
    }

    #[test]
    fn secrets_are_found_in_bytes() {
        let secrets = Secrets::default();
        assert!(!secrets.is_in_bytes(b"anything"));
        secrets.remember_text("journal-4004");
        secrets.remember_text("ab");
        assert!(secrets.is_in_bytes(b"\x83\xa7journal\xd9\x3b/tmp/journal-4004.txt"));
        assert!(secrets.is_in_bytes(b"ab"), "a short secret, whole");
        assert!(
            !secrets.is_in_bytes(b"abc"),
            "a short secret is not looked for inside"
        );
        assert!(!secrets.is_in_bytes(&[0xff, 0x00, 0x41]));
    }

    #[test]
    fn short_secrets_are_hidden_only_whole() {
        let secrets = Secrets::default();
        secrets.remember_text("ab");
        assert_eq!(secrets.mask("ab"), REDACTED);
        assert_eq!(secrets.mask("abc cab"), "abc cab");
        secrets.remember_text("abcd");
        assert_eq!(secrets.mask("xabcdx"), "x<redacted>x");
        assert_eq!(secrets.mask(""), "");
    }
}
