//! Where the tests' inputs are, and reading them: JSON files, and the provider schemas of
//! `testdata/schema/` (read by the workspace's reader, `tfp-testkit`).

use std::path::PathBuf;

use serde_json::Value;
use tfp_cty::ProviderSchema;
pub(crate) use tfp_testkit::schema_json::{Types, provider_schema};

/// The repository root, found from this crate's manifest directory.
pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Go binary's outputs and Pulumi's metaschema, committed with their provenance.
pub(crate) fn conformance_dir() -> PathBuf {
    repo_root().join("testdata/conformance")
}

pub(crate) fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_slice(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// The schema in a fixture of `testdata/schema/`.
pub(crate) fn fixture(name: &str) -> ProviderSchema {
    provider_schema(
        &read_json(&repo_root().join("testdata/schema").join(name)),
        Types::Json,
    )
}
