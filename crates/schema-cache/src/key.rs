//! What a cache entry is valid for: the provider's content, this plugin's version and the
//! parameters. Two requests share an entry exactly when their package schemas are the same
//! bytes.

use sha2::{Digest as _, Sha256};

/// The provider content a key names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// A provider executable given by path: the path as given (the package schema embeds it and
    /// the provider type comes from it) and the SHA-256 of the file's content.
    Local { path: String, sha256: String },
    /// An installed package: its address, version and platform, and the `h1:` hash of its
    /// contents the installer checked.
    Installed {
        source: String,
        version: String,
        platform: String,
        h1: String,
    },
}

/// The arguments of `package add` that shape the package schema beyond the provider itself.
#[derive(Clone, Copy, Debug)]
pub struct Parameters<'a> {
    /// `None` when `--include` was not given; `Some(empty)` for `--include=`.
    pub includes: Option<&'a [String]>,
    pub excludes: &'a [String],
    pub provider_name: Option<&'a str>,
    /// A local provider's type read as the Go binary reads it (`tfp_schema::Args::go_local_type`).
    pub go_local_type: bool,
    /// The attributes `--auto-name` asks to autoname, as `<resource>.<attribute>`.
    pub auto_names: &'a [String],
}

/// The plugin that makes the package schema: its version and its executable's SHA-256.
#[derive(Clone, Copy, Debug)]
pub struct Plugin<'a> {
    pub version: &'a str,
    pub sha256: &'a str,
}

/// A cache key: a canonical text, and the entry's file name derived from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    text: String,
}

impl Key {
    /// The key of the package schema that `parameters` make of `content` with `plugin`.
    pub fn new(content: &Content, plugin: Plugin<'_>, parameters: &Parameters<'_>) -> Key {
        let provider = match content {
            Content::Local { path, sha256 } => serde_json::json!({
                "path": path,
                "sha256": sha256,
            }),
            Content::Installed {
                source,
                version,
                platform,
                h1,
            } => serde_json::json!({
                "source": source,
                "version": version,
                "platform": platform,
                "h1": h1,
            }),
        };
        // Our executable's digest stands for everything of ours that shapes the output, so a
        // rebuild with the same version number is not served an older build's schema.
        // `includes` keeps the difference between no `--include` and an empty one. The version
        // constraint is left out: the version it resolved to is in the key.
        let mut text = serde_json::json!({
            "format": super::entry::FORMAT,
            "plugin": {"version": plugin.version, "sha256": plugin.sha256},
            "provider": provider,
            "includes": parameters.includes,
            "excludes": parameters.excludes,
            "providerName": parameters.provider_name,
        });
        // Only when set, so that every other key stays as it was.
        if parameters.go_local_type {
            text["goLocalType"] = serde_json::Value::Bool(true);
        }
        if !parameters.auto_names.is_empty() {
            text["autoNames"] = serde_json::json!(parameters.auto_names);
        }
        let text = text.to_string();
        Key { text }
    }

    /// The canonical text, stored in the entry and compared on reading.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The entry's file name: the SHA-256 of the text.
    pub fn file_name(&self) -> String {
        format!("{:x}.entry", Sha256::digest(self.text.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OURS: Plugin<'static> = Plugin {
        version: "2.0.0",
        sha256: "ours",
    };

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| (*item).to_owned()).collect()
    }

    fn local(sha256: &str) -> Content {
        Content::Local {
            path: "./terraform-provider-x".into(),
            sha256: sha256.into(),
        }
    }

    #[test]
    fn every_input_of_the_schema_changes_the_key() {
        let none = Parameters {
            includes: None,
            excludes: &[],
            provider_name: None,
            go_local_type: false,
            auto_names: &[],
        };
        let x_a = strings(&["x_a"]);
        let base = Key::new(&local("aa"), OURS, &none);
        let others = [
            Key::new(&local("bb"), OURS, &none),
            Key::new(
                &Content::Local {
                    path: "/elsewhere/terraform-provider-x".into(),
                    sha256: "aa".into(),
                },
                OURS,
                &none,
            ),
            Key::new(
                &local("aa"),
                OURS,
                &Parameters {
                    includes: Some(&x_a),
                    ..none
                },
            ),
            Key::new(
                &local("aa"),
                OURS,
                &Parameters {
                    includes: Some(&[]),
                    ..none
                },
            ),
            Key::new(
                &local("aa"),
                OURS,
                &Parameters {
                    excludes: &x_a,
                    ..none
                },
            ),
            Key::new(
                &local("aa"),
                OURS,
                &Parameters {
                    provider_name: Some("y"),
                    ..none
                },
            ),
            Key::new(
                &local("aa"),
                OURS,
                &Parameters {
                    go_local_type: true,
                    ..none
                },
            ),
            Key::new(
                &local("aa"),
                OURS,
                &Parameters {
                    auto_names: &strings(&["x_a.title"]),
                    ..none
                },
            ),
            Key::new(
                &local("aa"),
                Plugin {
                    sha256: "rebuilt",
                    ..OURS
                },
                &none,
            ),
            Key::new(
                &local("aa"),
                Plugin {
                    version: "2.0.1",
                    ..OURS
                },
                &none,
            ),
        ];
        for other in &others {
            assert_ne!(base.file_name(), other.file_name(), "{}", other.text());
        }
        assert_eq!(base, Key::new(&local("aa"), OURS, &none));
    }

    #[test]
    fn an_installed_package_is_keyed_by_its_hash() {
        let installed = |h1: &str| Content::Installed {
            source: "registry.terraform.io/hashicorp/random".into(),
            version: "3.6.3".into(),
            platform: "linux_amd64".into(),
            h1: h1.into(),
        };
        let none = Parameters {
            includes: None,
            excludes: &[],
            provider_name: None,
            go_local_type: false,
            auto_names: &[],
        };
        assert_ne!(
            Key::new(&installed("h1:a"), OURS, &none),
            Key::new(&installed("h1:b"), OURS, &none)
        );
        assert_eq!(
            Key::new(&installed("h1:a"), OURS, &none),
            Key::new(&installed("h1:a"), OURS, &none)
        );
    }
}
