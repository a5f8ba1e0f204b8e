//! The cache on disk: `<plugin cache>/.schemas/`, one file per entry named by its key, and the
//! digests of provider executables (`.schemas/digests/`, see `tfp_registry::Digests`).
//!
//! Invariants: an entry file appears only by the rename of a fully written temporary file, so
//! a reader sees a whole entry or none, and two processes filling the same entry at once both
//! succeed (the last rename wins, with the same content). An entry that does not decode, or
//! decodes to another key, is reported at warn level, removed and rebuilt by the caller. Failing
//! to read or write the cache never fails a Parameterize: it costs a cold start.
//!
//! Retention: every key holds our executable's digest, so each upgrade of the plugin leaves the
//! entries of the one before unused, megabytes each for a large provider. An entry's
//! modification time says when it was last used (a hit renews it once a day at most, so that
//! warm starts do not write), and entries unused for [`UNUSED`] are removed by the sweep that
//! follows each store, with the temporary files killed writers left, here and among the
//! digests.

use std::{
    fs, io,
    path::{Path, PathBuf},
    sync::OnceLock,
    time::{Duration, SystemTime},
};

use tfp_echo::quoted;

use crate::{
    entry::{Entry, Parts},
    key::{Content, Key, Parameters, Plugin},
};

/// The variable that turns the cache off (`off`, `false` or `0`).
pub const SWITCH: &str = "PULUMI_DYNAMIC_TF_SCHEMA_CACHE";

/// Temporary files older than this were left by a writer that was killed; younger ones may be
/// in use.
const ABANDONED: Duration = Duration::from_secs(600);

/// The directory, under the cache's, of the provider executables' digests.
const DIGESTS: &str = "digests";

/// Entries not used for this long are removed: a project that still pins the plugin version
/// that wrote them renews them on each use, and a later use only costs a cold start.
const UNUSED: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// How stale an entry's modification time may grow before a hit renews it.
const RENEWED_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// The schema cache of this process.
#[derive(Debug)]
pub struct SchemaCache {
    dir: PathBuf,
    digests: tfp_registry::Digests,
    /// Our version, part of every key.
    version: &'static str,
    /// The digest of our own executable, part of every key; computed on first use.
    plugin: OnceLock<Option<String>>,
}

impl SchemaCache {
    /// The cache that the environment asks for: `None` when [`SWITCH`] turns it off, or when
    /// there is no plugin cache directory (no home directory). `version` is the plugin's.
    pub fn from_env(version: &'static str) -> Option<SchemaCache> {
        let env = tfp_registry::Environment::from_process();
        match env.var(SWITCH) {
            None | Some("on" | "true" | "1") => {}
            Some("off" | "false" | "0") => return None,
            Some(other) => {
                tracing::warn!(
                    "{SWITCH}={} is neither on nor off; the schema cache stays on (set it to \
                     `off` to turn the cache off)",
                    quoted(other)
                );
            }
        }
        match tfp_registry::cache_dir(&env) {
            Ok(root) => Some(SchemaCache::new(&root, version)),
            Err(err) => {
                tracing::debug!("no schema cache: {err}");
                None
            }
        }
    }

    /// The cache under the plugin cache directory `root`, for the plugin of version `version`.
    pub fn new(root: &Path, version: &'static str) -> SchemaCache {
        let dir = root.join(".schemas");
        SchemaCache {
            digests: tfp_registry::Digests::new(dir.join(DIGESTS)),
            dir,
            version,
            plugin: OnceLock::new(),
        }
    }

    /// The key of what `parameters` make of `content`; `None` when our own executable cannot be
    /// read, and then nothing is cached.
    pub fn key(&self, content: &Content, parameters: &Parameters<'_>) -> Option<Key> {
        let plugin = self.plugin.get_or_init(|| {
            own_executable()
                .and_then(|path| self.digests.sha256(&path))
                .inspect_err(|err| {
                    tracing::warn!("the schema cache is off: cannot read our own executable: {err}")
                })
                .ok()
        });
        let plugin = Plugin {
            version: self.version,
            sha256: plugin.as_deref()?,
        };
        Some(Key::new(content, plugin, parameters))
    }

    /// The content digest of a local provider executable, hashing it unless it is remembered.
    pub fn digest(&self, path: &Path) -> io::Result<String> {
        self.digests.sha256(path)
    }

    /// The content digest of a local provider executable, as [`SchemaCache::digest`], if the
    /// file still has the `stamp` it had when it was launched: `None` if it was replaced since,
    /// and then what the launch read cannot be keyed by it.
    pub fn digest_if_unchanged(
        &self,
        path: &Path,
        stamp: &tfp_registry::Stamp,
    ) -> io::Result<Option<String>> {
        self.digests.sha256_if_unchanged(path, stamp)
    }

    /// The content digest of a local provider executable if it is remembered, without reading
    /// the executable, with the stamp the file has now.
    pub fn remembered(&self, path: &Path) -> Option<(String, tfp_registry::Stamp)> {
        self.digests.remembered(path)
    }

    /// The entry stored under `key`, if a valid one is there. A damaged one is reported and
    /// removed.
    pub fn load(&self, key: &Key) -> Option<Entry> {
        let path = self.dir.join(key.file_name());
        let (bytes, stamp) = match read(&path) {
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return None,
            Err(err) => {
                tracing::warn!(entry = %path.display(), "cannot read a schema cache entry: {err}");
                return None;
            }
        };
        let problem = match Entry::decode(bytes) {
            Ok(entry) if entry.key == key.text() => {
                renew(&path, &stamp);
                return Some(entry);
            }
            Ok(_) => "it was stored for another key".to_owned(),
            Err(err) => err.to_string(),
        };
        tracing::warn!(
            entry = %path.display(),
            "the schema cache entry is damaged ({problem}); rebuilding it"
        );
        // Unless another process has just replaced it with a whole entry (another file), which
        // is left for the next reader.
        if fs::metadata(&path).is_ok_and(|m| tfp_registry::Stamp::of(&m) == stamp) {
            let _ = fs::remove_file(&path);
        }
        None
    }

    /// Forgets the entry under `key`.
    pub fn evict(&self, key: &Key) {
        let _ = fs::remove_file(self.dir.join(key.file_name()));
    }

    /// Stores `entry` under its key; a failure is logged, the next start is a cold one.
    pub fn store(&self, key: &Key, entry: Parts<'_>) {
        let path = self.dir.join(key.file_name());
        match self.write(&path, entry) {
            Ok(()) => tracing::debug!(entry = %path.display(), "stored the schemas"),
            Err(err) => {
                tracing::warn!(entry = %path.display(), "cannot store the schemas: {err}");
            }
        }
        self.sweep();
    }

    /// Writes `entry` to `path` through a temporary file in the same directory and a rename.
    fn write(&self, path: &Path, entry: Parts<'_>) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)?;
        let mut out = io::BufWriter::new(tmp);
        entry.write_to(&mut out)?;
        let tmp = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Removes the entries unused for [`UNUSED`], and the temporary files of writers that were
    /// killed, here and among the digests.
    fn sweep(&self) {
        let now = SystemTime::now();
        let older_than = |entry: &fs::DirEntry, limit: Duration| {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > limit))
        };
        let abandoned = |name: &str, entry: &fs::DirEntry| {
            name.starts_with(".tmp-") && older_than(entry, ABANDONED)
        };
        remove_where(&self.dir, |name, entry| {
            abandoned(name, entry) || (name.ends_with(".entry") && older_than(entry, UNUSED))
        });
        remove_where(&self.dir.join(DIGESTS), abandoned);
    }
}

/// Removes the files of `dir` for which `gone` holds, given each one's name.
fn remove_where(dir: &Path, gone: impl Fn(&str, &fs::DirEntry) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if gone(&entry.file_name().to_string_lossy(), &entry) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Marks the entry at `path`, read with `stamp`, as used now, if it was last marked more than
/// [`RENEWED_AFTER`] ago; a cache we may not write stays as it is.
fn renew(path: &Path, stamp: &tfp_registry::Stamp) {
    let now = SystemTime::now();
    let ns = |d: Duration| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX);
    let now_ns = now.duration_since(SystemTime::UNIX_EPOCH).map_or(0, ns);
    if now_ns - stamp.mtime_ns > ns(RENEWED_AFTER) {
        let _ = fs::File::options()
            .append(true)
            .open(path)
            .and_then(|file| file.set_modified(now));
    }
}

/// An entry's bytes and the stamp of the file they were read from.
fn read(path: &Path) -> io::Result<(Vec<u8>, tfp_registry::Stamp)> {
    let mut file = fs::File::open(path)?;
    let stamp = tfp_registry::Stamp::of(&file.metadata()?);
    let mut bytes = Vec::with_capacity(usize::try_from(stamp.size).unwrap_or(0));
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok((bytes, stamp))
}

/// Our running executable: on Linux the very file we were started from, even if it has been
/// replaced since.
fn own_executable() -> io::Result<PathBuf> {
    if cfg!(target_os = "linux") {
        Ok(PathBuf::from("/proc/self/exe"))
    } else {
        std::env::current_exe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Content, Parameters, Plugin};

    fn days_ago(path: &Path, days: u64) {
        let then = SystemTime::now() - Duration::from_secs(days * 24 * 60 * 60 + 60);
        fs::File::options()
            .append(true)
            .open(path)
            .and_then(|file| file.set_modified(then))
            .expect("set the modification time");
    }

    fn modified(path: &Path) -> SystemTime {
        fs::metadata(path)
            .and_then(|m| m.modified())
            .expect("modified")
    }

    /// The entries of a plugin version no project uses any more go, a month after their last
    /// use; so do the temporary files of killed writers, here and among the digests.
    #[test]
    fn a_sweep_removes_unused_entries_and_abandoned_temporary_files() {
        let root = tempfile::tempdir().expect("temp dir");
        let cache = SchemaCache::new(root.path(), "1.0.0");
        let dir = root.path().join(".schemas");
        fs::create_dir_all(dir.join("digests")).expect("mkdir");
        let files = [
            ("old.entry", 60, false),
            ("fresh.entry", 2, true),
            (".tmp-killed", 1, false),
            ("digests/.tmp-killed", 1, false),
            ("digests/remembered", 60, true),
        ];
        for (name, days, _) in files {
            fs::write(dir.join(name), b"x").expect("write");
            days_ago(&dir.join(name), days);
        }
        fs::write(dir.join(".tmp-writing"), b"x").expect("write");
        cache.sweep();
        for (name, _, kept) in files {
            assert_eq!(dir.join(name).exists(), kept, "{name}");
        }
        assert!(
            dir.join(".tmp-writing").exists(),
            "a write in progress stays"
        );
    }

    /// A hit renews its entry's time once a day at most, so that warm starts do not write.
    #[test]
    fn a_hit_marks_its_entry_used() {
        let root = tempfile::tempdir().expect("temp dir");
        let cache = SchemaCache::new(root.path(), "1.0.0");
        let content = Content::Local {
            path: "./terraform-provider-x".into(),
            sha256: "aa".into(),
        };
        let plugin = Plugin {
            version: "1.0.0",
            sha256: "ours",
        };
        let parameters = Parameters {
            includes: None,
            excludes: &[],
            provider_name: None,
            go_local_type: false,
            auto_names: &[],
        };
        let key = Key::new(&content, plugin, &parameters);
        let entry = Entry {
            key: key.text().to_owned(),
            name: "x".into(),
            version: "1.0.0".into(),
            tf_schema: vec![1, 2, 3],
            package_schema: "{}".into(),
        };
        let pieces = [entry.package_schema.as_bytes()];
        cache.store(&key, entry.parts(&pieces));
        let path = root.path().join(".schemas").join(key.file_name());
        days_ago(&path, 20);
        let stale = modified(&path);
        assert_eq!(cache.load(&key), Some(entry.clone()));
        let renewed = modified(&path);
        assert!(renewed > stale + Duration::from_secs(19 * 24 * 60 * 60));
        // Within the day, a hit writes nothing.
        days_ago(&path, 0);
        let recent = modified(&path);
        assert_eq!(cache.load(&key), Some(entry));
        assert_eq!(modified(&path), recent);
    }
}
