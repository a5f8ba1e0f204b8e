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

use tfp_testkit::fixtures::Fixtures;

use tfp_registry::{Environment, Installer, ProgressMode, Settings};

/// The real terraform-provider-random 3.6.3 binary, read once.
pub(crate) fn random_binary() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        std::fs::read(Fixtures::load().path("random_3_6_3")).expect("fixture binary is readable")
    })
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
