//! `cargo xtask fixtures`: installs the real peers that tests run against into a cache outside git.
//!
//! The cache is `$TFP_FIXTURES_DIR` if set, else `<workspace>/target/fixtures`. Each fixture is one
//! directory in it holding a `stamp.json` that records the pinned inputs it was built from and the
//! sha256 of its products. A run skips a fixture whose stamp matches and whose products exist and still
//! hash to the recorded values, so a warm run needs no network and takes seconds.
//!
//! Invariants:
//! - A fixture directory is complete or absent: it is built in `<cache>/.tmp-<name>`, stamped, then renamed
//!   into place, so an interrupted run never leaves a half-installed fixture that looks complete.
//! - Every download is pinned by version and hash (wheel and zip sha256, Go `h1:` sums, hash-locked
//!   requirements), and a mismatch fails with both hashes named.
//! - One run at a time: a run holds an exclusive lock on `<cache>/.lock`, which also makes it safe to
//!   delete leftover `.tmp-*` directories.
//!
//! The manifest `<cache>/fixtures.json` is the one way tests find peers. It is a JSON object whose values
//! are absolute paths, with exactly these keys:
//! - `aws_3_39_0`: terraform-provider-aws 3.39.0, the official HashiCorp build (SDKv2, tfplugin5).
//! - `pyvider`: the pyvider 0.8.1 provider (Python, tfplugin6), a symlink whose name contains
//!   `terraform-provider`, as pyvider requires when started by a go-plugin host.
//! - `moto_server`: moto 5.2.5's server, a fake AWS API to run on 127.0.0.1.
//! - `tools_python`: a Python with grpcio, grpcio-health-checking, msgpack and tfplugin-proto-all, the
//!   plain go-plugin client used by benchmarks.
//! - `pulumi_python`: a Python with the pulumi 3.272.0 SDK, whose
//!   `pulumi.runtime.proto.provider_pb2_grpc.ResourceProviderStub` is a real pulumirpc client.
//! - `random_3_6_3`: terraform-provider-random 3.6.3 (plugin framework, but served as tfplugin5), built
//!   from source.
//! - `tls_3_4_0`: terraform-provider-tls 3.4.0 (SDKv2, tfplugin5), built from source.
//! - `tls_4_0_5`: terraform-provider-tls 4.0.5 (plugin framework, but served as tfplugin5), built from
//!   source.
//! - `random_3_7_2`: terraform-provider-random 3.7.2 (plugin framework, but served as tfplugin5), built
//!   from source; its `random_password` is also an ephemeral resource.
//! - `tfptest`: our own provider `testdata/providers/tfptest` (Pyvider 0.8.1, tfplugin6): write-only
//!   arguments, resource identity, import, an ephemeral and a list resource. The launcher of its current
//!   release, whose identity schema is version 1; the name of its directory's only file is the
//!   `terraform-provider-tfptest` that `dev_overrides` looks for.
//! - `tfptest_identity_v0`: the launcher of the release before (identity schema version 0, same file
//!   name), to test UpgradeResourceIdentity by switching releases on one state.
//! - `tofu`: the OpenTofu 1.11.0 CLI, built from its Go module: the oracle that tests compare our bridge
//!   with. Never shipped or linked.
//! - `go_bridge` (only when `cargo xtask bench` installs them): Pulumi's Go binary of the plugin we
//!   replace, built from pulumi-terraform-bridge v3.136.0's Go module, for the bench to measure beside ours.
//!   Never shipped, linked or run by tests.
//! - `pulumi_cli`: the real `pulumi` CLI (Pulumi 3.255.0), built from its Go module.
//! - `pulumi_bin`: the directory holding `pulumi`, `pulumi-language-yaml` (pulumi-yaml 1.38.1) and our
//!   stand-ins `pulumi-language-nodejs` and `pulumi-language-python`, which only generate SDKs (the real
//!   hosts cannot be built here; see `pulumi.rs`), to put first on PATH.
//! - `node_modules`: TypeScript 4.9.5, `@pulumi/pulumi` 3.255.0 and `@types/node` 20, to compile generated
//!   TypeScript SDKs (link it as the SDK's `node_modules`).
//! - `tsc`: the TypeScript compiler in it.
//!
//! So pyvider is the only tfplugin6 peer here: every Go provider answers `1|5|...` to
//! `PLUGIN_PROTOCOL_VERSIONS=5,6`.

mod aws;
mod bridge;
mod go;
mod pulumi;
mod python;
mod stamp;
mod tofu;

use std::collections::BTreeMap;
use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use crate::util;
use stamp::{Inputs, Stamp};

/// The environment variable that overrides the cache directory.
pub(crate) const DIR_ENV: &str = "TFP_FIXTURES_DIR";

/// The manifest's file name inside the cache.
const MANIFEST: &str = "fixtures.json";

/// Which fixtures a command installs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Set {
    /// Every fixture: what the tests and end-to-end scenarios run against.
    All,
    /// Only what `cargo xtask demo` runs: AWS 3.39.0, Pyvider and the Pulumi Python SDK.
    Demo,
    /// Every fixture and what `cargo xtask bench` measures ours against: Pulumi's Go binary.
    Bench,
}

/// Installs every fixture that is missing or stale, writes the manifest and returns the cache directory.
pub(crate) fn run() -> Result<PathBuf> {
    install(Set::All)
}

/// Installs the fixtures of `set` that are missing or stale, writes the manifest and returns the cache
/// directory.
///
/// With [`Set::All`] or [`Set::Bench`] the manifest lists exactly the fixtures installed now. A smaller
/// set keeps the manifest's other entries (a later `cargo xtask test` installed them and checks them
/// again), so that a demo run does not hide the toolchain an earlier full run built.
pub(crate) fn install(set: Set) -> Result<PathBuf> {
    let started = Instant::now();
    let cache = Cache::open(cache_dir()?)?;
    let path = cache.root.join(MANIFEST);
    let mut manifest = match set {
        Set::All | Set::Bench => BTreeMap::new(),
        Set::Demo => read_manifest(&path),
    };
    let mut put = |key: &str, value: PathBuf| {
        manifest.insert(key.to_owned(), value);
    };
    put("aws_3_39_0", aws::ensure(&cache)?);
    put("pyvider", python::ensure_pyvider(&cache)?);
    put("pulumi_python", python::ensure_pulumi(&cache)?);
    if set != Set::Demo {
        let tools = python::ensure_tools(&cache)?;
        put("moto_server", tools.moto_server);
        put("tools_python", tools.python);
        for provider in &go::PROVIDERS {
            put(provider.fixture, go::ensure(&cache, provider)?);
        }
        let tfptest = python::ensure_tfptest(&cache)?;
        put("tfptest", tfptest.current);
        put("tfptest_identity_v0", tfptest.identity_v0);
        put("tofu", tofu::ensure(&cache)?);
        let toolchain = pulumi::ensure(&cache)?;
        put("pulumi_cli", toolchain.cli);
        put("pulumi_bin", toolchain.bin);
        put("node_modules", toolchain.node_modules);
        put("tsc", toolchain.tsc);
    }
    if set == Set::Bench {
        put("go_bridge", bridge::ensure(&cache)?);
    }
    let json =
        serde_json::to_string_pretty(&manifest).expect("a map of strings to paths serializes");
    util::replace_file(&path, |tmp| fs::write(tmp, format!("{json}\n")))?;
    eprintln!(
        "fixtures: ready in {:.1} s; manifest {}",
        started.elapsed().as_secs_f64(),
        path.display()
    );
    Ok(cache.root)
}

/// The entries of an existing manifest whose paths still exist; none if there is no readable manifest.
fn read_manifest(path: &Path) -> BTreeMap<String, PathBuf> {
    let Ok(text) = fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    let entries: BTreeMap<String, PathBuf> = serde_json::from_str(&text).unwrap_or_default();
    entries
        .into_iter()
        .filter(|(_, value)| value.symlink_metadata().is_ok())
        .collect()
}

/// The cache directory, absolute: `$TFP_FIXTURES_DIR` or `<workspace>/target/fixtures`.
pub(crate) fn cache_dir() -> Result<PathBuf> {
    match std::env::var_os(DIR_ENV) {
        Some(dir) if !dir.is_empty() => std::path::absolute(&dir)
            .with_context(|| format!("{DIR_ENV}={} is not a usable path", dir.display())),
        _ => Ok(util::workspace_root().join("target").join("fixtures")),
    }
}

/// The open, locked cache. The lock is released when the value is dropped.
pub(crate) struct Cache {
    root: PathBuf,
    _lock: File,
}

impl Cache {
    /// Creates and locks the cache directory, then deletes temp directories that an interrupted run left.
    fn open(root: PathBuf) -> Result<Self> {
        fs::create_dir_all(&root)
            .with_context(|| format!("could not create the fixture cache {}", root.display()))?;
        let lock_path = root.join(".lock");
        let lock = File::create(&lock_path)
            .with_context(|| format!("could not create {}", lock_path.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                eprintln!(
                    "fixtures: waiting for another run that holds {}",
                    lock_path.display()
                );
                lock.lock()
                    .with_context(|| format!("could not lock {}", lock_path.display()))?;
            }
            Err(TryLockError::Error(err)) => {
                return Err(err).with_context(|| format!("could not lock {}", lock_path.display()));
            }
        }
        for entry in
            fs::read_dir(&root).with_context(|| format!("could not list {}", root.display()))?
        {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(".tmp-") {
                remove_path(&entry.path())?;
            }
        }
        Ok(Self { root, _lock: lock })
    }

    /// The cache's root directory.
    fn root(&self) -> &Path {
        &self.root
    }

    /// Makes sure the fixture `name` is installed from exactly `inputs` and returns its directory.
    ///
    /// If its stamp is current, nothing else happens. Otherwise `build(tmp, final_dir)` fills the empty
    /// directory `tmp` and returns the products (paths relative to the fixture directory, and whether to
    /// record their sha256); then the stamp is written and `tmp` is renamed to `final_dir`. `build` gets
    /// `final_dir` for contents that must name their final location (a venv's scripts).
    fn ensure(
        &self,
        name: &str,
        inputs: Inputs,
        build: impl FnOnce(&Path, &Path) -> Result<Vec<(String, bool)>>,
    ) -> Result<PathBuf> {
        let started = Instant::now();
        let dir = self.root.join(name);
        let reason = match Stamp::check(&dir, &inputs) {
            Ok(()) => {
                eprintln!(
                    "fixtures: {name:<13} cached     ({:.1} s)",
                    started.elapsed().as_secs_f64()
                );
                return Ok(dir);
            }
            Err(reason) => reason,
        };
        eprintln!("fixtures: {name:<13} installing ({reason})");
        let tmp = self.root.join(format!(".tmp-{name}"));
        remove_path(&tmp)?;
        fs::create_dir(&tmp).with_context(|| format!("could not create {}", tmp.display()))?;
        let products = match build(&tmp, &dir) {
            Ok(products) => products,
            Err(err) => {
                // Best effort: the next run deletes leftover temp directories anyway.
                let _ = remove_path(&tmp);
                return Err(err.context(format!("could not install the `{name}` fixture")));
            }
        };
        let stamp = Stamp::record(name, inputs, &tmp, &products)?;
        util::replace_file(&tmp.join(stamp::FILE), |part| {
            fs::write(part, stamp.to_json())
        })?;
        let old = self.root.join(format!(".tmp-old-{name}"));
        if dir.symlink_metadata().is_ok() {
            fs::rename(&dir, &old)
                .with_context(|| format!("could not move the stale {} aside", dir.display()))?;
        }
        fs::rename(&tmp, &dir)
            .with_context(|| format!("could not rename {} to {}", tmp.display(), dir.display()))?;
        remove_path(&old)?;
        eprintln!(
            "fixtures: {name:<13} installed  ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
        Ok(dir)
    }
}

/// Removes a file, symlink or directory tree if it exists.
fn remove_path(path: &Path) -> Result<()> {
    let Ok(meta) = path.symlink_metadata() else {
        return Ok(());
    };
    let removed = if meta.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    removed.with_context(|| format!("could not remove {}", path.display()))
}
