//! Service hostnames and provider address parts, normalised the way OpenTofu's `svchost` and
//! `registry-address` packages do it.
//!
//! Invariants: a [`Hostname`] is always in comparison form (lower case, Punycode for non-ASCII
//! labels, an optional `:port` with the default `:443` dropped), so two hostnames that name the
//! same service compare equal with `==`. A normalised provider part is lower case and valid as a
//! single DNS label.

use std::fmt;

use tfp_echo::quoted;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};

/// A registry hostname in comparison form (svchost `ForComparison`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hostname(String);

/// Why a hostname was refused; the texts are svchost's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostnameError {
    /// A URL was given where a hostname belongs.
    #[error("need just a hostname and optional port number, not a full URL")]
    Url,
    /// The text after the first colon is not a port number.
    #[error("port portion contains non-digit characters")]
    PortNotDigits,
    /// The port number is out of range.
    #[error("port number is greater than 65535")]
    PortTooLarge,
    /// Nothing was given.
    #[error("empty string is not a valid hostname")]
    Empty,
    /// Two dots in a row, or a leading or trailing dot.
    #[error("hostname contains empty label (two consecutive periods)")]
    EmptyLabel,
    /// Users must write Unicode, not Punycode.
    #[error(
        "hostname label {} specified in punycode format; service hostnames must be given in unicode",
        quoted(.0)
    )]
    Punycode(String),
    /// A character that hostnames may not contain (Go's idna text).
    #[error("idna: disallowed rune U+{0:04X}")]
    DisallowedRune(u32),
    /// A label with a leading, trailing or third-and-fourth-position dash (Go's idna text).
    #[error("idna: invalid label {}", quoted(.0))]
    InvalidLabel(String),
    /// Any other breach of the IDNA lookup rules.
    #[error("idna: invalid hostname {}", quoted(.0))]
    Idna(String),
}

/// The default `:443` port is dropped; any other port is kept without leading zeros.
fn normalize_port(port: &str) -> Result<String, HostnameError> {
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(HostnameError::PortNotDigits);
    }
    let digits = port.trim_start_matches('0');
    if digits.len() > 5 {
        return Err(HostnameError::PortTooLarge);
    }
    let number: u32 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| HostnameError::PortNotDigits)?
    };
    match number {
        443 => Ok(String::new()),
        n if n > 65535 => Err(HostnameError::PortTooLarge),
        n => Ok(format!(":{n}")),
    }
}

/// Label separators that IDNA treats like a full stop.
fn is_label_separator(c: char) -> bool {
    matches!(c, '.' | '\u{3002}' | '\u{ff0e}' | '\u{ff61}')
}

/// Names the first problem the way Go's idna package does, for the common ASCII cases.
fn idna_error(host: &str) -> HostnameError {
    if let Some(c) = host
        .chars()
        .find(|c| c.is_ascii() && !(c.is_ascii_alphanumeric() || *c == '-' || *c == '.'))
    {
        return HostnameError::DisallowedRune(u32::from(c));
    }
    for label in host.split(is_label_separator) {
        let dashes_at_3_4 = label.get(2..4) == Some("--");
        if label.starts_with('-') || label.ends_with('-') || dashes_at_3_4 {
            return HostnameError::InvalidLabel(label.to_owned());
        }
    }
    HostnameError::Idna(host.to_owned())
}

impl Hostname {
    /// Normalises a user-given hostname, optionally with a port (svchost `ForComparison`).
    pub fn parse(given: &str) -> Result<Self, HostnameError> {
        let (host, port) = match given.find(':') {
            Some(i) => (&given[..i], Some(&given[i + 1..])),
            None => (given, None),
        };
        let port = match port {
            None => String::new(),
            Some(p) => match normalize_port(p) {
                Ok(p) => p,
                Err(e) => {
                    let lower = host.to_ascii_lowercase();
                    if lower == "http" || lower == "https" {
                        return Err(HostnameError::Url);
                    }
                    return Err(e);
                }
            },
        };
        if host.is_empty() {
            return Err(HostnameError::Empty);
        }
        // svchost's label iterator splits on `.` only and skips one trailing empty label, so a
        // fully qualified `example.com.` is accepted.
        let labels = host.strip_suffix('.').unwrap_or(host);
        for label in labels.split('.') {
            if label.is_empty() {
                return Err(HostnameError::EmptyLabel);
            }
            if label
                .get(..4)
                .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
            {
                return Err(HostnameError::Punycode(label.to_owned()));
            }
        }
        let ascii = Uts46::new()
            .to_ascii(
                host.as_bytes(),
                AsciiDenyList::STD3,
                Hyphens::Check,
                DnsLength::Ignore,
            )
            .map_err(|_| idna_error(host))?;
        // Mapping may leave nothing of a label (U+200B and U+00AD are dropped) or make a dot of
        // another character (U+3002), which svchost does not check again: the result is.
        let labels = ascii.strip_suffix('.').unwrap_or(&ascii);
        if labels.is_empty() {
            return Err(HostnameError::Empty);
        }
        if labels.split('.').any(str::is_empty) {
            return Err(HostnameError::EmptyLabel);
        }
        Ok(Hostname(format!("{ascii}{port}")))
    }

    /// Like [`Hostname::parse`], but Punycode labels are taken too, turned into Unicode first
    /// (svchost `ForDisplay`, then `ForComparison`): OpenTofu reads the host of a `TF_TOKEN_`
    /// variable and of a network mirror's URL so, since those may only be written in ASCII.
    pub fn parse_ascii_or_unicode(given: &str) -> Result<Self, HostnameError> {
        let (host, port) = given.split_at(given.find(':').unwrap_or(given.len()));
        let (unicode, result) =
            Uts46::new().to_unicode(host.as_bytes(), AsciiDenyList::STD3, Hyphens::Check);
        match result {
            Ok(()) => Hostname::parse(&format!("{unicode}{port}")),
            // `ForDisplay` gives back what it cannot normalise, for `ForComparison` to refuse.
            Err(_) => Hostname::parse(given),
        }
    }

    /// Wraps a string already in comparison form, as found in trusted internal data.
    pub(crate) fn from_normalized(s: &str) -> Self {
        Hostname(s.to_owned())
    }

    /// The comparison form: Punycode, lower case, with a non-default port.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form shown to people and used in cache paths: Unicode labels (svchost `ForDisplay`).
    pub fn for_display(&self) -> String {
        let (host, port) = match self.0.find(':') {
            Some(i) => (&self.0[..i], &self.0[i..]),
            None => (self.0.as_str(), ""),
        };
        let (unicode, result) =
            Uts46::new().to_unicode(host.as_bytes(), AsciiDenyList::STD3, Hyphens::Check);
        match result {
            Ok(()) => format!("{unicode}{port}"),
            Err(_) => self.0.clone(),
        }
    }
}

impl fmt::Display for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a namespace or type was refused; the texts are registry-address's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartError {
    /// The part is empty.
    #[error("must have at least one character")]
    Empty,
    /// Dots would make the part look like a hostname.
    #[error("dots are not allowed")]
    Dots,
    /// `--` looks wrong and would also introduce Punycode.
    #[error("cannot use multiple consecutive dashes")]
    DoubleDash,
    /// Anything else the DNS label rules refuse.
    #[error(
        "must contain only letters, digits, and dashes, and may not use leading or trailing dashes"
    )]
    Invalid,
}

/// Normalises a provider namespace or type the way a DNS label is normalised
/// (registry-address `ParseProviderPart`): case-folded, letters, digits and inner dashes only.
pub(crate) fn parse_part(given: &str) -> Result<String, PartError> {
    if given.is_empty() {
        return Err(PartError::Empty);
    }
    if given.contains('.') {
        return Err(PartError::Dots);
    }
    if given.contains("--") {
        return Err(PartError::DoubleDash);
    }
    let (unicode, result) =
        Uts46::new().to_unicode(given.as_bytes(), AsciiDenyList::STD3, Hyphens::Check);
    match result {
        Ok(()) if !unicode.is_empty() && !unicode.contains(is_label_separator) => {
            Ok(unicode.into_owned())
        }
        _ => Err(PartError::Invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punycode_is_taken_where_a_host_can_only_be_ascii() {
        let unicode = Hostname::parse("café.fr:8443").expect("valid");
        let ascii = Hostname::parse_ascii_or_unicode("xn--caf-dma.fr:8443").expect("valid");
        assert_eq!(ascii, unicode);
        assert!(
            Hostname::parse("xn--caf-dma.fr").is_err(),
            "not in configuration"
        );
        assert!(Hostname::parse_ascii_or_unicode("bad_host.example").is_err());
    }

    #[test]
    fn ports_are_normalised() {
        assert_eq!(
            Hostname::parse("Example.COM:443").map(|h| h.0),
            Ok("example.com".into())
        );
        assert_eq!(
            Hostname::parse("example.com:0080").map(|h| h.0),
            Ok("example.com:80".into())
        );
        assert_eq!(Hostname::parse("https://x"), Err(HostnameError::Url));
        assert_eq!(Hostname::parse("a:99999"), Err(HostnameError::PortTooLarge));
    }

    #[test]
    fn what_mapping_empties_is_refused() {
        // Zero-width space and soft hyphen map to nothing; U+3002 and U+FF0E map to a dot.
        for (given, err) in [
            ("\u{200b}", HostnameError::Empty),
            ("\u{200b}:8443", HostnameError::Empty),
            ("\u{ad}.com", HostnameError::EmptyLabel),
            ("\u{3002}com", HostnameError::EmptyLabel),
            ("ex.\u{ff0e}ple", HostnameError::EmptyLabel),
        ] {
            assert_eq!(Hostname::parse(given), Err(err), "{given:?}");
        }
        assert_eq!(
            Hostname::parse("ex\u{3002}ample").map(|h| h.0),
            Ok("ex.ample".into())
        );
        assert_eq!(
            Hostname::parse("example.com.").map(|h| h.0),
            Ok("example.com.".into())
        );
    }

    #[test]
    fn unicode_round_trips_through_punycode() {
        let h = Hostname::parse("bücher.example").expect("valid IDN");
        assert_eq!(h.as_str(), "xn--bcher-kva.example");
        assert_eq!(h.for_display(), "bücher.example");
    }

    #[test]
    fn parts_fold_case() {
        assert_eq!(parse_part("Backblaze"), Ok("backblaze".into()));
        assert_eq!(parse_part("-x"), Err(PartError::Invalid));
        assert_eq!(parse_part("a_b"), Err(PartError::Invalid));
    }
}
