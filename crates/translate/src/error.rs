//! Errors of the translation, and the Pulumi property paths they name.
//!
//! Every value error says where it happened as a Pulumi property path (`rules[0].fromPort`,
//! `tags["Name"]`), because that is what the user wrote and what the engine shows.

use std::fmt;

use tfp_values::property_path::{self, Keys, Step};

/// A `Result` of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a translation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value does not fit the schema at a property path.
    #[error("invalid value{}: {reason}", at(.path))]
    Value {
        /// The Pulumi property path, empty for the top level.
        path: String,
        reason: String,
    },
    /// A resource's state (outputs the engine sent as prior state) holds an unknown: a state
    /// never does, so it cannot be given to the provider.
    #[error(
        "the state has an unknown value at `{path}`: a resource's state never holds unknowns, so \
         this state cannot be given to the provider"
    )]
    UnknownInState { path: String },
    /// An apply (a Create or Update that is not a preview) has an unknown input.
    #[error(
        "the input at `{path}` is unknown: unknown inputs are only allowed in a preview, and an \
         apply needs every input known"
    )]
    UnknownInApply { path: String },
    /// The `__meta` property is not what the bridge writes.
    #[error("invalid `__meta` property: {reason}")]
    Meta { reason: String },
    /// The `__pulumi_raw_state_delta` property cannot be read or does not fit the state.
    #[error("invalid `__pulumi_raw_state_delta`{}: {reason}", at(.path))]
    Delta { path: String, reason: String },
    /// The raw state rebuilt from a freshly computed delta differs from the provider's state, so
    /// the delta must not be written (the Go bridge's turnaround check).
    #[error("recovered raw state does not byte-for-byte match the original raw state")]
    Turnaround,
    /// `terraformConfig` was called while the provider configuration has unknowns (the Go
    /// bridge's message, word for word).
    #[error(
        "It looks like you're trying to use the provider's terraformConfig function. The result \
         of this function is meant for use as the config value of a required provider for a \
         Pulumi Terraform Module. All inputs to provider configuration must be known for this \
         feature to work."
    )]
    UnknownConfig,
    /// A cty value could not be written as JSON.
    #[error("cannot encode the state as JSON")]
    Json(#[source] tfp_cty::Error),
}

fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" at `{path}`")
    }
}

impl Error {
    pub(crate) fn value(path: &PropertyPath, reason: impl Into<String>) -> Error {
        Error::Value {
            path: path.to_string(),
            reason: reason.into(),
        }
    }

    pub(crate) fn delta(path: &PropertyPath, reason: impl Into<String>) -> Error {
        Error::Delta {
            path: path.to_string(),
            reason: reason.into(),
        }
    }
}

/// A Pulumi property path, built while walking a value and rendered (as the engine writes
/// paths, `tfp_values::property_path`) only on error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PropertyPath(Vec<Step>);

impl PropertyPath {
    pub(crate) fn root() -> PropertyPath {
        PropertyPath::default()
    }

    pub(crate) fn push_key(&mut self, key: &str) {
        self.0.push(Step::Key(key.to_owned()));
    }

    pub(crate) fn push_index(&mut self, index: usize) {
        self.0.push(Step::Index(index));
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }
}

impl fmt::Display for PropertyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&property_path::render(&self.0, Keys::Whole))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_pulumi_paths() {
        let mut path = PropertyPath::root();
        path.push_key("rules");
        path.push_index(0);
        path.push_key("tags");
        path.push_key("a.b");
        assert_eq!(path.to_string(), r#"rules[0].tags["a.b"]"#);
        for _ in 0..4 {
            path.pop();
        }
        assert_eq!(path.to_string(), "");
        let err = Error::value(&path, "expected a number");
        assert_eq!(err.to_string(), "invalid value: expected a number");
    }
}
