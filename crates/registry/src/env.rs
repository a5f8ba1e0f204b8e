//! The environment the installer reads: variables and the home directory, captured once.
//!
//! Invariant: nothing in this crate reads the process environment except
//! [`Environment::from_process`]; tests build an [`Environment`] explicitly, so they never need
//! `std::env::set_var`.

use std::{collections::BTreeMap, path::PathBuf};

/// A snapshot of environment variables, the home directory and the working directory.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    vars: BTreeMap<String, String>,
    home: Option<PathBuf>,
    cwd: Option<PathBuf>,
}

impl Environment {
    /// Captures the process environment. Variables that are not valid UTF-8 are left out; the
    /// home directory is `HOME`, or the platform's notion of it.
    pub fn from_process() -> Self {
        let vars: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
        let cwd = std::env::current_dir().ok();
        Environment { vars, home, cwd }.with_home_from_vars()
    }

    /// An environment with exactly these variables; the home directory is `HOME` if given.
    pub fn from_vars<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Environment {
            vars: vars
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            home: None,
            cwd: None,
        }
        .with_home_from_vars()
    }

    /// `HOME` wins over the platform's answer, as OpenTofu's CLI config loader does.
    fn with_home_from_vars(mut self) -> Self {
        if let Some(home) = self.var("HOME") {
            self.home = Some(PathBuf::from(home));
        }
        self
    }

    /// Sets one variable.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        let name = name.into();
        let value = value.into();
        if name == "HOME" && !value.is_empty() {
            self.home = Some(PathBuf::from(&value));
        }
        self.vars.insert(name, value);
        self
    }

    /// A variable's value, or `None` when it is unset or empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Whether a variable is exactly `true` (OpenTofu's test for its `OPENTOFU_ENFORCE_*` flags).
    pub fn is_true(&self, name: &str) -> bool {
        self.var(name) == Some("true")
    }

    /// All variables, for prefix scans such as `TF_TOKEN_*`.
    pub fn vars(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The home directory, if known.
    pub fn home(&self) -> Option<&PathBuf> {
        self.home.as_ref()
    }

    /// The working directory, whose `terraform.d/plugins` is an implied mirror; the process's
    /// (the Pulumi project's, for a plugin the engine starts), or none in a snapshot made from
    /// variables until [`Environment::set_cwd`].
    pub fn cwd(&self) -> Option<&PathBuf> {
        self.cwd.as_ref()
    }

    /// Sets the working directory.
    pub fn set_cwd(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Expands `$NAME` and `${NAME}` from these variables, as Go's `os.ExpandEnv` does
    /// (unset names become empty).
    pub fn expand(&self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let (name, consumed) = if let Some(inner) = after.strip_prefix('{') {
                match inner.find('}') {
                    Some(end) => (&inner[..end], end + 2),
                    None => ("", 0),
                }
            } else {
                let n = after
                    .char_indices()
                    .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                    .map_or(after.len(), |(i, _)| i);
                (&after[..n], n)
            };
            if consumed == 0 {
                out.push('$');
                rest = after;
                continue;
            }
            out.push_str(self.vars.get(name).map_or("", String::as_str));
            rest = &after[consumed..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_like_go() {
        let env = Environment::from_vars([("A", "x"), ("HOME", "/h")]);
        assert_eq!(env.expand("$HOME/c/${A}y/$B."), "/h/c/xy/.");
        assert_eq!(env.home(), Some(&PathBuf::from("/h")));
    }
}
