//! Test support: the real provider binaries from the fixture manifest, a test CA, test OpenPGP
//! keys, an HTTPS server on 127.0.0.1 and a registry publisher on top of it.

pub(crate) mod keys;
pub(crate) mod package;
pub(crate) mod pki;
pub(crate) mod server;

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
};

use tfp_registry::{Environment, Installer, ProgressMode, Settings};

/// The fixture manifest: `$TFP_FIXTURES_DIR/fixtures.json`, else `<workspace>/target/fixtures`.
fn manifest() -> serde_json::Value {
    let dir = std::env::var_os("TFP_FIXTURES_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fixtures"),
        PathBuf::from,
    );
    let path = dir.join("fixtures.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the fixture manifest {} is missing ({e}); run `cargo xtask fixtures` (or set TFP_FIXTURES_DIR)",
            path.display()
        )
    });
    serde_json::from_str(&text).expect("fixtures.json is JSON")
}

/// The path of a fixture binary by manifest key, such as `random_3_6_3`.
pub(crate) fn fixture(key: &str) -> PathBuf {
    let m = manifest();
    let path = m[key]
        .as_str()
        .unwrap_or_else(|| panic!("fixtures.json has no {key:?}; run `cargo xtask fixtures`"));
    PathBuf::from(path)
}

/// The real terraform-provider-random 3.6.3 binary, read once.
pub(crate) fn random_binary() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES
        .get_or_init(|| std::fs::read(fixture("random_3_6_3")).expect("fixture binary is readable"))
}

/// A test's private world: a temporary home and cache directory and the test CA.
pub(crate) struct World {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) pki: pki::Pki,
}

impl World {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let pki = pki::Pki::new(dir.path());
        std::fs::create_dir_all(dir.path().join("home")).expect("home dir");
        World { dir, pki }
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub(crate) fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// The environment a user would have: HOME, the cache directory and the test CA.
    pub(crate) fn env(&self) -> Environment {
        Environment::from_vars([
            ("HOME", self.home().display().to_string()),
            (
                "PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR",
                self.cache().display().to_string(),
            ),
            ("SSL_CERT_FILE", self.pki.ca_file.display().to_string()),
        ])
    }

    /// Settings from `env`, with retries that do not wait, and no progress bar.
    pub(crate) fn settings(&self, env: &Environment) -> Settings {
        let mut s = Settings::from_environment(env).expect("settings from the test environment");
        s.retry_wait = std::time::Duration::ZERO;
        s.progress = ProgressMode::Events;
        s
    }

    pub(crate) fn installer(&self) -> Installer {
        Installer::new(self.settings(&self.env())).expect("installer")
    }

    /// Every file under the cache, relative, excluding nothing.
    pub(crate) fn cache_files(&self) -> Vec<String> {
        let mut out = Vec::new();
        walk(&self.cache(), &self.cache(), &mut out);
        out.sort();
        out
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let rel = p
            .strip_prefix(root)
            .expect("under root")
            .display()
            .to_string();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.push(format!("{rel}/"));
            walk(root, &p, out);
        } else {
            out.push(rel);
        }
    }
}

pub(crate) use tfp_echo::chain;
