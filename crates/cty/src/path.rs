//! Paths into a value, and the error type of the value codecs, which always says where.

use std::fmt;

use crate::TypeError;

/// One step into a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    /// An object attribute.
    Attr(String),
    /// A list, set or tuple element (sets: the position on the wire).
    Index(u64),
    /// A map element.
    Key(String),
}

/// Where in a value something happened; displayed as `$`, `$.tags["Name"]`, `$.rule[0].port`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path(pub Vec<PathStep>);

impl Path {
    /// The root of a value.
    pub fn root() -> Path {
        Path(Vec::new())
    }

    /// The steps from the root.
    pub fn steps(&self) -> &[PathStep] {
        &self.0
    }

    /// The path in Terraform's own notation (tftypes `AttributePath.String()`, which quotes
    /// with Go's `%q`), for messages without a schema: `AttributeName("a").ElementKeyInt(0)`.
    pub fn terraform_text(&self) -> String {
        use tfp_gostd::strconv::quote;
        let steps: Vec<String> = self
            .0
            .iter()
            .map(|step| match step {
                PathStep::Attr(name) => format!("AttributeName({})", quote(name)),
                PathStep::Key(key) => format!("ElementKeyString({})", quote(key)),
                PathStep::Index(i) => format!("ElementKeyInt({i})"),
            })
            .collect();
        steps.join(".")
    }

    pub(crate) fn push(&mut self, step: PathStep) {
        self.0.push(step);
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for step in &self.0 {
            match step {
                PathStep::Attr(name) => write!(f, ".{name}")?,
                PathStep::Index(i) => write!(f, "[{i}]")?,
                PathStep::Key(key) => write!(f, "[{key:?}]")?,
            }
        }
        Ok(())
    }
}

/// A value that cannot be decoded from, or encoded to, msgpack or JSON.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is malformed or does not match the type.
    #[error("invalid value at {path}: {reason}")]
    Decode { path: Path, reason: String },
    /// The value cannot be written with the given type.
    #[error("cannot encode value at {path}: {reason}")]
    Encode { path: Path, reason: String },
    /// The type element of a dynamic value is not a valid type spec.
    #[error("invalid type of dynamic value at {path}")]
    DynamicType {
        path: Path,
        #[source]
        source: TypeError,
    },
}

impl Error {
    /// Where the problem is.
    pub fn path(&self) -> &Path {
        match self {
            Error::Decode { path, .. }
            | Error::Encode { path, .. }
            | Error::DynamicType { path, .. } => path,
        }
    }

    pub(crate) fn decode(path: &Path, reason: impl Into<String>) -> Error {
        Error::Decode {
            path: path.clone(),
            reason: reason.into(),
        }
    }

    pub(crate) fn encode(path: &Path, reason: impl Into<String>) -> Error {
        Error::Encode {
            path: path.clone(),
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_terraform_paths() {
        let p = Path(vec![
            PathStep::Attr("rule".into()),
            PathStep::Index(0),
            PathStep::Key("k".into()),
        ]);
        assert_eq!(
            p.terraform_text(),
            r#"AttributeName("rule").ElementKeyInt(0).ElementKeyString("k")"#
        );
        // Go's %q, not Rust's {:?}: DEL is written \x7f, not \u{7f}.
        let odd = Path(vec![PathStep::Key("a\u{7f}é".into())]);
        assert_eq!(odd.terraform_text(), r#"ElementKeyString("a\x7fé")"#);
    }
}
