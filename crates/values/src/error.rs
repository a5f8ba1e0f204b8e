//! Errors of the Struct codec: what is wrong, and at which property path.
//!
//! Every message is bounded: paths cut long keys, and text taken from the input (an unknown
//! signature) is cut to [`MAX_QUOTED_CHARS`] characters.

use crate::property_path::Path;

/// The longest piece of input text quoted in a message.
const MAX_QUOTED_CHARS: usize = 64;

/// A `Result` of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A value could not be encoded or decoded; [`Error::kind`] says why and [`Error::path`] where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid property value{}", at(.path))]
pub struct Error {
    path: String,
    #[source]
    kind: ErrorKind,
}

/// Formats " at `path`", or nothing for the top level.
fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" at `{path}`")
    }
}

impl Error {
    pub(crate) fn new(path: &Path<'_>, kind: ErrorKind) -> Error {
        Error {
            path: path.render(),
            kind,
        }
    }

    /// The property path of the offending value in Pulumi's syntax (`a.b[0]["x.y"]`); empty for
    /// the top level.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong.
    #[must_use]
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

/// What is wrong with a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A `google.protobuf.Value` with none of its fields set.
    #[error("protobuf value has no kind set")]
    MissingKind,
    /// The signature key holds something other than a string.
    #[error("signature key holds a {found}, not a string")]
    SignatureNotString {
        /// The kind of value found.
        found: &'static str,
    },
    /// The signature key holds a string that is not a known signature.
    #[error("unrecognized signature `{0}`")]
    UnknownSignature(String),
    /// A special object lacks a field it must have.
    #[error("{object} has no `{field}` field")]
    MissingField {
        /// The special object, with its article (`a secret`).
        object: &'static str,
        /// The missing field.
        field: &'static str,
    },
    /// A field of a special object has the wrong type.
    #[error("`{field}` of {object} must be {expected}, found {found}")]
    FieldType {
        /// The special object, with its article (`a resource reference`).
        object: &'static str,
        /// The field.
        field: &'static str,
        /// The expected kind, with its article.
        expected: &'static str,
        /// The kind found.
        found: &'static str,
    },
    /// An asset or archive names more than one source (text, path, URI or members).
    #[error("{object} has more than one source")]
    AmbiguousSource {
        /// `an asset` or `an archive`.
        object: &'static str,
    },
    /// A member of an archive is neither an asset nor an archive.
    #[error("archive member is neither an asset nor an archive")]
    ArchiveMember,
    /// A byte string's value is not standard base64.
    #[error("byte string is not valid base64")]
    ByteStringBase64,
    /// A byte string's bytes are not UTF-8, which a Rust string cannot hold.
    #[error("byte string is not valid utf-8")]
    ByteStringUtf8,
    /// An unknown where the options reject unknowns.
    #[error("unknown values are not allowed here")]
    UnexpectedUnknown,
    /// An asset or archive where the options reject them.
    #[error("{0}s are not allowed here")]
    UnexpectedAsset(&'static str),
    /// The value nests deeper than the options allow.
    #[error("value nests deeper than {limit} levels")]
    TooDeep {
        /// The limit in force.
        limit: usize,
    },
}

impl ErrorKind {
    /// An [`ErrorKind::UnknownSignature`] quoting at most [`MAX_QUOTED_CHARS`] characters.
    pub(crate) fn unknown_signature(signature: &str) -> ErrorKind {
        let mut chars = signature.chars();
        let mut quoted: String = chars.by_ref().take(MAX_QUOTED_CHARS).collect();
        if chars.next().is_some() {
            quoted.push('…');
        }
        ErrorKind::UnknownSignature(quoted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn message_names_the_path_and_chains_the_kind() {
        let root = Path::Root;
        let a = root.key("a");
        let err = Error::new(&a.index(1), ErrorKind::UnexpectedUnknown);
        assert_eq!(err.to_string(), "invalid property value at `a[1]`");
        assert_eq!(err.path(), "a[1]");
        assert_eq!(
            err.source().map(ToString::to_string).as_deref(),
            Some("unknown values are not allowed here")
        );
        let top = Error::new(&root, ErrorKind::MissingKind);
        assert_eq!(top.to_string(), "invalid property value");
    }

    #[test]
    fn unknown_signatures_are_cut() {
        let kind = ErrorKind::unknown_signature(&"x".repeat(500));
        assert_eq!(
            kind.to_string(),
            format!("unrecognized signature `{}…`", "x".repeat(MAX_QUOTED_CHARS))
        );
    }
}
