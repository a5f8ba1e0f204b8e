//! The real peers that `cargo xtask fixtures` installed, found through the manifest
//! `$TFP_FIXTURES_DIR/fixtures.json` (else `<workspace>/target/fixtures/fixtures.json`).
//!
//! A missing peer fails the test that needs it, saying what to run: nothing is skipped.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

/// The fixture manifest: which peer is where.
pub struct Fixtures {
    manifest: serde_json::Map<String, Json>,
}

impl Fixtures {
    /// Reads the manifest.
    ///
    /// # Panics
    ///
    /// When the fixtures are not installed, saying how to install them.
    pub fn load() -> Fixtures {
        let dir = std::env::var_os("TFP_FIXTURES_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fixtures"),
            PathBuf::from,
        );
        let path = dir.join("fixtures.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
            panic!(
                "cannot read {}: {err}; run `cargo xtask fixtures` (or `cargo xtask test`)",
                path.display()
            )
        });
        let Ok(Json::Object(manifest)) = serde_json::from_str(&text) else {
            panic!(
                "{} is not a JSON object; run `cargo xtask fixtures`",
                path.display()
            );
        };
        Fixtures { manifest }
    }

    /// The path of the peer `key` (such as `aws_3_39_0`).
    ///
    /// # Panics
    ///
    /// When the manifest does not name it or it is not where the manifest says.
    pub fn path(&self, key: &str) -> PathBuf {
        let path = self
            .manifest
            .get(key)
            .and_then(Json::as_str)
            .unwrap_or_else(|| panic!("fixtures.json has no {key:?}; run `cargo xtask fixtures`"));
        let path = PathBuf::from(path);
        assert!(
            path.exists(),
            "fixture {key} is missing at {}; run `cargo xtask fixtures`",
            path.display()
        );
        path
    }
}
