//! Reading the fixture manifest that `fixtures` writes, for the subcommands that run peers.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The path of fixture `key` in the manifest of `cache`.
pub(crate) fn path(cache: &Path, key: &str) -> Result<PathBuf> {
    let manifest = cache.join("fixtures.json");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("could not read {}", manifest.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", manifest.display()))?;
    let path = json
        .get(key)
        .and_then(serde_json::Value::as_str)
        .with_context(|| {
            format!(
                "{} has no {key:?}: run `cargo xtask fixtures`",
                manifest.display()
            )
        })?;
    Ok(PathBuf::from(path))
}
