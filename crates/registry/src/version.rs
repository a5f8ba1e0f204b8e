//! Provider versions as OpenTofu reads them (apparentlymart/go-versions), including the scanner
//! shared with version constraints and go-versions' ordering of pre-release tags.
//!
//! Invariants: parsing never panics (a number too large for `u64` is an error where go-versions
//! panics); equality includes build metadata while ordering ([`Version::cmp_precedence`]) ignores
//! it, as go-versions does.

use std::{cmp::Ordering, fmt, str::FromStr};

use tfp_echo::quoted;

/// One version: `major.minor.patch[-prerelease][+metadata]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Version {
    /// Major number.
    pub major: u64,
    /// Minor number.
    pub minor: u64,
    /// Patch number.
    pub patch: u64,
    /// Pre-release tag without the `-`, empty for a release.
    pub prerelease: String,
    /// Build metadata without the `+`; ignored by ordering.
    pub metadata: String,
}

/// A version string that could not be parsed; the texts are go-versions'.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct VersionError(pub String);

/// What the scanner recognised at the start of a constraint or version string.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Raw<'a> {
    pub(crate) op: &'a str,
    pub(crate) sep: &'a str,
    pub(crate) nums: [&'a str; 3],
    pub(crate) num_count: usize,
    pub(crate) pre: &'a str,
    pub(crate) meta: &'a str,
}

fn is_op_byte(b: u8) -> bool {
    !(b.is_ascii_digit()
        || b.is_ascii_whitespace()
        || b.is_ascii_alphabetic()
        || b == b'.'
        || b == b'*')
}

fn is_extra_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'-'
}

/// Length of the number starting at `i`: digits, or one wildcard (`*`, `x`, `X`).
fn num_len(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i) {
        Some(b'*' | b'x' | b'X') => 1,
        Some(b) if b.is_ascii_digit() => {
            bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count()
        }
        _ => 0,
    }
}

/// Scans `op sep nums [-pre] [+meta]` and returns what was recognised plus the unconsumed rest,
/// following go-versions' Ragel machine: scanning stops at the first byte that does not fit, and
/// a `-` or `+` with nothing after it is consumed but recorded as nothing.
pub(crate) fn scan(data: &str) -> (Raw<'_>, &str) {
    let bytes = data.as_bytes();
    let mut raw = Raw::default();
    let mut i = bytes.iter().take_while(|&&b| is_op_byte(b)).count();
    raw.op = &data[..i];
    let sep_start = i;
    i += bytes[i..]
        .iter()
        .take_while(|&&b| b.is_ascii_whitespace() || b == b'v')
        .count();
    raw.sep = &data[sep_start..i];
    loop {
        let n = num_len(bytes, i);
        if n == 0 {
            if raw.num_count == 0 && raw.sep.is_empty() {
                // The Ragel machine never enters the separator here, so its start marker is still
                // the operator's and the "separator" it reports is the operator itself; callers
                // then say "only one space is expected after the operator".
                raw.sep = raw.op;
            }
            return (raw, &data[i..]);
        }
        if raw.num_count < 3 {
            raw.nums[raw.num_count] = &data[i..i + n];
        }
        raw.num_count += 1;
        i += n;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
        } else {
            break;
        }
    }
    for (marker, is_pre) in [(b'-', true), (b'+', false)] {
        if bytes.get(i) != Some(&marker) {
            continue;
        }
        // The tag characters never include `+`, so checking `-` before `+` follows the grammar.
        i += 1;
        let n = bytes[i..].iter().take_while(|&&b| is_extra_byte(b)).count();
        if n == 0 {
            return (raw, &data[i..]);
        }
        if is_pre {
            raw.pre = &data[i..i + n];
        } else {
            raw.meta = &data[i..i + n];
        }
        i += n;
    }
    (raw, &data[i..])
}

pub(crate) const NUM_NAMES: [&str; 3] = ["major", "minor", "patch"];

pub(crate) fn is_wildcard(s: &str) -> bool {
    matches!(s, "*" | "x" | "X")
}

/// Parses one number part; an empty part is zero.
pub(crate) fn parse_num(s: &str) -> Result<u64, VersionError> {
    if s.is_empty() {
        return Ok(0);
    }
    s.parse()
        .map_err(|_| VersionError(format!("version number {} is too large", quoted(s))))
}

impl Version {
    /// Parses an exact version (go-versions `ParseVersion`); missing minor or patch parts are
    /// zero, so `1.2` is `1.2.0`.
    pub fn parse(vs: &str) -> Result<Self, VersionError> {
        let err = |s: &str| Err(VersionError(s.to_owned()));
        if vs.trim().is_empty() {
            return err("empty specification");
        }
        let (mut raw, remain) = scan(vs);
        match raw.op.trim() {
            ">" | ">=" | "<" | "<=" | "!" | "!=" | "~>" | "^" | "~" => {
                return Err(VersionError(format!(
                    "can't use constraint operator {}; an exact version is required",
                    quoted(raw.op)
                )));
            }
            "" => {
                if !raw.sep.is_empty() {
                    if raw.sep.contains('v') {
                        return err(r#"a "v" prefix should not be used"#);
                    }
                    return err("extraneous spaces at start of specification");
                }
            }
            _ => {
                return Err(VersionError(format!(
                    "invalid sequence {} at start of specification",
                    quoted(raw.op)
                )));
            }
        }
        if !remain.is_empty() {
            let remain = remain.trim();
            return if remain.is_empty() {
                err("extraneous spaces at end of specification")
            } else if vs.starts_with('v') {
                err(r#"a "v" prefix should not be used"#)
            } else if remain.starts_with(',') || remain.starts_with('|') {
                err("can't specify multiple versions; a single exact version is required")
            } else if remain.starts_with('-') {
                err("can't specify version range; a single exact version is required")
            } else if vs.trim().starts_with(remain) {
                err(
                    "invalid specification; required format is three positive integers separated by periods",
                )
            } else {
                Err(VersionError(format!(
                    "invalid characters {}",
                    quoted(remain)
                )))
            };
        }
        if raw.num_count > 3 {
            return err("too many numbered portions; only three are allowed (major, minor, patch)");
        }
        for n in raw.nums.iter_mut().skip(raw.num_count) {
            *n = "0";
        }
        for (name, n) in NUM_NAMES.iter().zip(raw.nums) {
            if is_wildcard(n) {
                return Err(VersionError(format!(
                    "can't use wildcard for {name} number; an exact version is required"
                )));
            }
        }
        Ok(Version {
            major: parse_num(raw.nums[0])?,
            minor: parse_num(raw.nums[1])?,
            patch: parse_num(raw.nums[2])?,
            prerelease: raw.pre.to_owned(),
            metadata: raw.meta.to_owned(),
        })
    }

    /// Whether this is a pre-release.
    pub fn is_prerelease(&self) -> bool {
        !self.prerelease.is_empty()
    }

    /// go-versions' precedence: numbers, then a release above its pre-releases, then the
    /// pre-release tags; build metadata is ignored.
    pub fn cmp_precedence(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(
                || match (self.prerelease.is_empty(), other.prerelease.is_empty()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => cmp_prerelease(&self.prerelease, &other.prerelease),
                },
            )
    }
}

/// go-versions `VersionExtra.LessThan`, turned into an ordering: dot-separated parts compare
/// numerically when both are numeric, numbers sort before words, and a tag that runs out of dots
/// first sorts first (so `rc` sorts before `alpha.1`; this is go-versions' rule, not SemVer's).
fn cmp_prerelease(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (mut s1, mut s2) = (a, b);
    loop {
        match (s1.find('.'), s2.find('.')) {
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => return cmp_part(s1, s2),
            (Some(d1), Some(d2)) => {
                let (p1, p2) = (&s1[..d1], &s2[..d2]);
                if p1 != p2 {
                    return cmp_part(p1, p2);
                }
                s1 = &s1[d1 + 1..];
                s2 = &s2[d2 + 1..];
            }
        }
    }
}

fn cmp_part(a: &str, b: &str) -> Ordering {
    let numeric = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    match (numeric(a), numeric(b)) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
        (false, false) => a.cmp(b),
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    /// Precedence first; metadata only breaks ties so that the order agrees with `==`.
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_precedence(other)
            .then_with(|| self.metadata.cmp(&other.metadata))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.prerelease.is_empty() {
            write!(f, "-{}", self.prerelease)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

impl FromStr for Version {
    type Err = VersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of the table was produced by go-versions' own scanner.
    #[test]
    fn scanner_agrees_with_go_versions() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/registry/go-versions-scan.jsonl"
        );
        let text = std::fs::read_to_string(path).expect("scan table is committed");
        let mut checked = 0;
        for line in text.lines() {
            let case: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            let input = case["in"].as_str().expect("input");
            let (raw, rest) = scan(input);
            let nums: Vec<&str> = case["nums"]
                .as_array()
                .expect("nums")
                .iter()
                .map(|n| n.as_str().expect("num"))
                .collect();
            let want = (
                case["op"].as_str(),
                case["sep"].as_str(),
                nums.as_slice(),
                case["numCt"].as_u64(),
                case["pre"].as_str(),
                case["meta"].as_str(),
                case["rest"].as_str(),
            );
            let got = (
                Some(raw.op),
                Some(raw.sep),
                &raw.nums[..],
                Some(raw.num_count as u64),
                Some(raw.pre),
                Some(raw.meta),
                Some(rest),
            );
            assert_eq!(got, want, "scanning {input:?}");
            checked += 1;
        }
        assert!(checked > 300, "the whole table was read");
    }
}
