//! Version constraints in OpenTofu's syntax (go-versions `ParseRubyStyleMulti` and
//! `MeetingConstraints`): `=`, `!=`, `>`, `>=`, `<`, `<=`, `~>`, a bare version meaning `=`, and
//! commas meaning "and".
//!
//! Invariants: an empty constraint allows every release; a pre-release is allowed only when an
//! `=` (or bare) selection names exactly that version and every other selection allows it.

use std::fmt;

use tfp_echo::quoted;

use crate::version::{NUM_NAMES, Version, is_wildcard, parse_num, scan};

/// The operator of one selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Equal,
    NotEqual,
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
    /// `~>` with one or two numbers: same major.
    Pessimistic,
    /// `~>` with three numbers: same major and minor.
    PessimisticPatch,
}

/// One `op version` term, its boundary already widened to a full version (missing parts are 0).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Selection {
    op: Op,
    bound: Version,
}

/// A set of constraints that must all hold.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Constraints {
    text: String,
    selections: Vec<Selection>,
}

/// A constraint string that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("could not parse version constraint {}: {message}", quoted(.input))]
pub struct ConstraintError {
    /// What was given.
    pub input: String,
    /// go-versions' explanation.
    pub message: String,
}

/// Parses one selection from the start of `s`, returning it and the unconsumed rest
/// (go-versions `parseRubyStyle`).
fn parse_one(s: &str) -> (Result<Selection, String>, &str) {
    let (raw, remain) = scan(s);
    let op = match raw.op {
        "=" | "" => Op::Equal,
        "!=" => Op::NotEqual,
        ">" => Op::Greater,
        ">=" => Op::GreaterOrEqual,
        "<" => Op::Less,
        "<=" => Op::LessOrEqual,
        "~>" if raw.num_count == 3 => Op::PessimisticPatch,
        "~>" => Op::Pessimistic,
        "=<" => {
            return (
                Err(r#"invalid constraint operator "=<"; did you mean "<="?"#.into()),
                remain,
            );
        }
        "=>" => {
            return (
                Err(r#"invalid constraint operator "=>"; did you mean ">="?"#.into()),
                remain,
            );
        }
        other => {
            return (
                Err(format!("invalid constraint operator {}", quoted(other))),
                remain,
            );
        }
    };
    match raw.sep {
        "" => {}
        " " if !raw.op.is_empty() => {}
        " " => {
            return (
                Err("extraneous spaces at start of specification".into()),
                remain,
            );
        }
        sep if sep.contains('v') => {
            return (
                Err(r#"a "v" prefix should not be used when specifying versions"#.into()),
                remain,
            );
        }
        _ if raw.op.is_empty() => {
            return (
                Err("extraneous spaces at start of specification".into()),
                remain,
            );
        }
        _ => {
            return (
                Err(format!(
                    "only one space is expected after the operator {}",
                    quoted(raw.op)
                )),
                remain,
            );
        }
    }
    if raw.num_count > 3 {
        return (
            Err("too many numbered portions; only three are allowed (major, minor, patch)".into()),
            remain,
        );
    }
    for (name, n) in NUM_NAMES.iter().zip(raw.nums) {
        if is_wildcard(n) {
            return (
                Err(format!(
                    "can't use wildcard for {name} number; omit segments that should be unconstrained"
                )),
                remain,
            );
        }
    }
    // A boundary with fewer than three numbers is widened to zeros, and then (go-versions
    // `ConstrainToZero`) loses any pre-release tag; only `=` and `!=` keep build metadata.
    let complete = raw.num_count == 3 || !raw.pre.is_empty() || !raw.meta.is_empty();
    let num = |i: usize| parse_num(raw.nums[i]).map_err(|e| e.0);
    let bound = match (num(0), num(1), num(2)) {
        (Ok(major), Ok(minor), Ok(patch)) => Version {
            major,
            minor,
            patch,
            prerelease: if complete {
                raw.pre.to_owned()
            } else {
                String::new()
            },
            metadata: if complete && matches!(op, Op::Equal | Op::NotEqual) {
                raw.meta.to_owned()
            } else {
                String::new()
            },
        },
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return (Err(e), remain),
    };
    (Ok(Selection { op, bound }), remain)
}

impl Constraints {
    /// Parses a comma-separated list of constraints; the empty string allows any release.
    pub fn parse(input: &str) -> Result<Self, ConstraintError> {
        let fail = |message: String| ConstraintError {
            input: input.to_owned(),
            message,
        };
        let mut selections = Vec::new();
        let mut remain = input.trim();
        while !remain.is_empty() {
            let (selection, rest) = parse_one(remain);
            let consumed = &remain[..remain.len() - rest.len()];
            let selection = selection
                .map_err(|e| fail(format!("invalid specification {}: {e}", quoted(consumed))))?;
            remain = rest.trim();
            if !remain.is_empty() {
                if remain.starts_with('v') {
                    return Err(fail(
                        r#"a "v" prefix should not be used when specifying versions"#.into(),
                    ));
                }
                let Some(after) = remain.strip_prefix(',') else {
                    return Err(fail(format!("missing comma after {}", quoted(consumed))));
                };
                remain = after.trim();
            }
            selections.push(selection);
        }
        Ok(Constraints {
            text: input.to_owned(),
            selections,
        })
    }

    /// Whether no constraint was given.
    pub fn is_empty(&self) -> bool {
        self.selections.is_empty()
    }

    /// Whether `v` meets every selection, with go-versions' pre-release rule.
    pub fn allows(&self, v: &Version) -> bool {
        let in_all = self.selections.iter().all(|s| s.contains(v));
        if !in_all {
            return false;
        }
        !v.is_prerelease()
            || self
                .selections
                .iter()
                .any(|s| s.op == Op::Equal && s.bound == *v)
    }

    /// The newest version in `available` that the constraints allow.
    pub fn newest<'a>(
        &self,
        available: impl IntoIterator<Item = &'a Version>,
    ) -> Option<&'a Version> {
        available.into_iter().filter(|v| self.allows(v)).max()
    }
}

impl Selection {
    fn contains(&self, v: &Version) -> bool {
        use std::cmp::Ordering::{Greater, Less};
        let b = &self.bound;
        let ord = v.cmp_precedence(b);
        match self.op {
            Op::Equal => v == b,
            Op::NotEqual => v != b,
            Op::Greater => ord == Greater,
            Op::GreaterOrEqual => ord != Less,
            Op::Less => ord == Less,
            Op::LessOrEqual => ord != Greater,
            Op::Pessimistic | Op::PessimisticPatch => {
                let upper = if self.op == Op::Pessimistic {
                    Version {
                        major: b.major.saturating_add(1),
                        ..Version::default()
                    }
                } else {
                    Version {
                        major: b.major,
                        minor: b.minor.saturating_add(1),
                        ..Version::default()
                    }
                };
                ord != Less && v.cmp_precedence(&upper) == Less
            }
        }
    }
}

impl fmt::Display for Constraints {
    /// The constraint as the user wrote it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for Constraints {
    type Err = ConstraintError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Constraints::parse(s)
    }
}
