//! What a cache entry is valid for: the provider's content, this plugin's version and the
//! parameters. Two requests share an entry exactly when their package schemas are the same
//! bytes.

use sha2::{Digest as _, Sha256};

use tfp_schema::args::Args;

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

/// A cache key: a canonical text, and the entry's file name derived from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    text: String,
}

impl Key {
    /// The key of the package schema that `args` make of `content`, with this plugin, whose
    /// executable has the SHA-256 `plugin`.
    pub fn new(content: &Content, plugin: &str, args: &Args) -> Key {
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
        let text = serde_json::json!({
            "format": super::entry::FORMAT,
            "plugin": {"version": crate::VERSION, "sha256": plugin},
            "provider": provider,
            "includes": args.includes,
            "excludes": args.excludes,
            "providerName": args.provider_name,
        })
        .to_string();
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
    use tfp_schema::args;

    fn key(content: &Content, arguments: &[&str]) -> Key {
        let arguments: Vec<String> = arguments.iter().map(|a| (*a).to_owned()).collect();
        Key::new(
            content,
            "ours",
            &args::parse(&arguments).expect("valid arguments"),
        )
    }

    fn local(sha256: &str) -> Content {
        Content::Local {
            path: "./terraform-provider-x".into(),
            sha256: sha256.into(),
        }
    }

    #[test]
    fn every_input_of_the_schema_changes_the_key() {
        let base = key(&local("aa"), &["./terraform-provider-x"]);
        let others = [
            key(&local("bb"), &["./terraform-provider-x"]),
            key(
                &Content::Local {
                    path: "/elsewhere/terraform-provider-x".into(),
                    sha256: "aa".into(),
                },
                &["./terraform-provider-x"],
            ),
            key(&local("aa"), &["./terraform-provider-x", "--include=x_a"]),
            key(&local("aa"), &["./terraform-provider-x", "--include="]),
            key(&local("aa"), &["./terraform-provider-x", "--exclude=x_a"]),
            key(
                &local("aa"),
                &["./terraform-provider-x", "--provider-name=y"],
            ),
        ];
        for other in &others {
            assert_ne!(base.file_name(), other.file_name(), "{}", other.text());
        }
        assert_eq!(base, key(&local("aa"), &["./terraform-provider-x"]));
        let arguments = ["./terraform-provider-x".to_owned()];
        let rebuilt = Key::new(
            &local("aa"),
            "rebuilt",
            &args::parse(&arguments).expect("valid"),
        );
        assert_ne!(base.file_name(), rebuilt.file_name());
    }

    #[test]
    fn an_installed_package_is_keyed_by_its_hash() {
        let installed = |h1: &str| Content::Installed {
            source: "registry.terraform.io/hashicorp/random".into(),
            version: "3.6.3".into(),
            platform: "linux_amd64".into(),
            h1: h1.into(),
        };
        let args = ["hashicorp/random", "3.6.3"];
        assert_ne!(
            key(&installed("h1:a"), &args),
            key(&installed("h1:b"), &args)
        );
        assert_eq!(
            key(&installed("h1:a"), &args),
            key(&installed("h1:a"), &["hashicorp/random", "~> 3.6"])
        );
    }
}
