//! The cache on disk: `<plugin cache>/.schemas/`, one file per entry named by its key, and the
//! digests of provider executables (`.schemas/digests/`, see `tfp_registry::Digests`).
//!
//! Invariants: an entry file appears only by the rename of a fully written temporary file, so
//! a reader sees a whole entry or none, and two processes filling the same entry at once both
//! succeed (the last rename wins, with the same content). An entry that does not decode, or
//! decodes to another key, is reported at warn level, removed and rebuilt by the caller. Failing
//! to read or write the cache never fails a Parameterize: it costs a cold start.

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
            digests: tfp_registry::Digests::new(dir.join("digests")),
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
    /// the executable.
    pub fn remembered(&self, path: &Path) -> Option<String> {
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
            Ok(entry) if entry.key == key.text() => return Some(entry),
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

    /// Removes the temporary files of writers that were killed.
    fn sweep(&self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        for entry in entries.flatten() {
            let abandoned = entry.file_name().to_string_lossy().starts_with(".tmp-")
                && entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > ABANDONED));
            if abandoned {
                let _ = fs::remove_file(entry.path());
            }
        }
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
