//! The provider cache in OpenTofu's unpacked layout
//! (`<root>/<host>/<namespace>/<type>/<version>/<os>_<arch>/`), with a record of what was
//! installed beside each entry (`<os>_<arch>.json`, which OpenTofu's own scanner ignores).
//!
//! Invariants: an entry directory appears only by a rename of a fully written staging directory
//! (staging directories live in the version directory and start with `.tmp-<os>_<arch>-`, so that
//! an install touches only its own platform's); an entry whose files no longer hash to the
//! recorded `h1:` is reported damaged; entries written by other tools (no record) are accepted
//! when they have an executable, and their hash is computed.
//!
//! Sizes and modification times only tell that a file changed, not that it did not: a flipped
//! byte with its mtime restored keeps both. So the record keeps each file's full stamp (device,
//! inode, size, mtime and ctime, see `identity`) as it was when the files were last hashed and
//! found as recorded, and when. A lookup trusts an entry without hashing it when its stamps are
//! unchanged and had settled by then; otherwise it hashes the files, compares them with the
//! record and refreshes the stamps. Hashing reads the files once, at disk or page-cache speed
//! (README, Reliability, gives the figure for the 177 MB AWS provider); after that a process
//! only reads the stamps.

use std::{
    collections::BTreeMap,
    fs,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};

use crate::{
    address::Provider,
    error::{Error, Result},
    hash,
    hostname::Hostname,
    identity,
    installed::{Installed, Origin},
    lock::{self, LockGuard},
    platform::Platform,
    unzip::find_executable,
    version::Version,
};

const RECORD_FORMAT: u32 = 1;

/// How long an unmarked staging entry (`.tmp-` without a platform, as versions before the
/// platform was in the name made them) is left alone. Any platform's install may own one, and
/// we hold only our platform's lock, so only its age can tell that it was abandoned. A staging
/// directory waits untouched while its package downloads, which may take long on a slow link;
/// no install takes a day, and until then such a leftover costs only disk space.
const ABANDONED_UNMARKED: Duration = Duration::from_secs(24 * 60 * 60);

/// One file's stamp, to notice changes without hashing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    name: String,
    size: u64,
    mtime_ns: u128,
    /// The rest of the file's stamp; absent from records written before it was kept, which are
    /// then hashed once more.
    #[serde(default)]
    identity: Option<identity::Stamp>,
}

/// What we wrote beside an entry when we installed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    format: u32,
    source: String,
    version: String,
    platform: String,
    pub(crate) h1: String,
    pub(crate) zh: Option<String>,
    pub(crate) protocols: Vec<u64>,
    files: Vec<Stamp>,
    /// When `files` were taken, before the files were hashed and found as recorded (nanoseconds
    /// since the epoch).
    #[serde(default)]
    checked_ns: Option<i128>,
    /// The SHA-256 of the record written without it: a record damaged on disk (a changed byte of
    /// `h1`) is found, not trusted. Absent from records written before it was kept, which are
    /// then hashed once more.
    #[serde(default)]
    check: Option<String>,
}

impl Record {
    /// The record's checksum: the SHA-256, in hex, of its JSON without one.
    fn checksum(&self) -> String {
        use sha2::Digest as _;
        let unchecked = Record {
            check: None,
            ..self.clone()
        };
        let text = serde_json::to_vec(&unchecked).expect("a record always serializes");
        hex::encode(sha2::Sha256::digest(&text))
    }

    /// Whether the files are known to be as recorded while their stamps are `files`: they were
    /// hashed with these stamps, and every stamp had settled by then.
    fn trusted(&self, files: &[Stamp]) -> bool {
        let Some(checked) = self.checked_ns else {
            return false;
        };
        self.files == files
            && files
                .iter()
                .all(|f| f.identity.is_some_and(|id| id.settled(checked)))
    }
}

/// The state of one entry.
#[derive(Debug)]
pub(crate) enum Lookup {
    Missing,
    Valid(Box<Installed>),
    Damaged(String),
}

/// One cache root for one platform.
#[derive(Clone, Debug)]
pub(crate) struct Cache {
    root: PathBuf,
    platform: Platform,
    writable: bool,
    /// The entries whose contents this cache has hashed and found as recorded, with the stamps
    /// their files had then.
    verified: Arc<Mutex<BTreeMap<PathBuf, Vec<Stamp>>>>,
}

fn stamps(dir: &Path) -> std::io::Result<Vec<Stamp>> {
    let mut out = Vec::new();
    for (name, path) in hash::list_files(dir)? {
        let meta = fs::metadata(&path)?;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        out.push(Stamp {
            name,
            size: meta.len(),
            mtime_ns,
            identity: Some(identity::Stamp::of(&meta)),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

impl Cache {
    /// A cache we install into.
    pub(crate) fn new(root: PathBuf, platform: Platform) -> Self {
        Cache {
            root,
            platform,
            writable: true,
            verified: Arc::default(),
        }
    }

    /// A cache we only read from (the Terraform plugin cache).
    pub(crate) fn read_only(root: PathBuf, platform: Platform) -> Self {
        Cache {
            root,
            platform,
            writable: false,
            verified: Arc::default(),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    fn provider_dir(&self, p: &Provider) -> PathBuf {
        self.root
            .join(p.hostname.for_display())
            .join(&p.namespace)
            .join(&p.r#type)
    }

    fn version_dir(&self, p: &Provider, v: &Version) -> PathBuf {
        self.provider_dir(p).join(v.to_string())
    }

    /// The entry directory of a package.
    pub(crate) fn entry_dir(&self, p: &Provider, v: &Version) -> PathBuf {
        self.version_dir(p, v).join(self.platform.to_string())
    }

    fn record_path(&self, p: &Provider, v: &Version) -> PathBuf {
        self.version_dir(p, v)
            .join(format!("{}.json", self.platform))
    }

    /// Versions with an entry directory for our platform, newest first.
    pub(crate) fn versions(&self, p: &Provider) -> Vec<Version> {
        let Ok(read) = fs::read_dir(self.provider_dir(p)) else {
            return Vec::new();
        };
        let mut out: Vec<Version> = read
            .filter_map(|e| {
                let e = e.ok()?;
                let v = Version::parse(e.file_name().to_str()?).ok()?;
                e.path()
                    .join(self.platform.to_string())
                    .is_dir()
                    .then_some(v)
            })
            .collect();
        out.sort_by(|a, b| b.cmp(a));
        out
    }

    fn read_record(&self, p: &Provider, v: &Version) -> Option<Record> {
        let path = self.record_path(p, v);
        let text = fs::read(&path).ok()?;
        let mut record: Record = serde_json::from_slice(&text).ok()?;
        let matches = record.format == RECORD_FORMAT
            && record.source == p.to_string()
            && record.version == v.to_string()
            && record.platform == self.platform.to_string();
        if !matches {
            return None;
        }
        match &record.check {
            Some(check) if *check == record.checksum() => {}
            Some(_) => {
                tracing::warn!(
                    record = %path.display(),
                    "the install record is damaged (its checksum does not match); hashing the \
                     package again"
                );
                return None;
            }
            // Written before records had a checksum: its stamps are not trusted, so the entry is
            // hashed once more and the record written again with one.
            None => record.checked_ns = None,
        }
        Some(record)
    }

    /// Writes the record through a temporary file and a rename, so readers see all or nothing.
    fn write_record(&self, p: &Provider, v: &Version, record: &Record) -> Result<()> {
        let path = self.record_path(p, v);
        let dir = self.version_dir(p, v);
        let record = Record {
            check: Some(record.checksum()),
            ..record.clone()
        };
        let text = serde_json::to_vec_pretty(&record).expect("a record always serializes");
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&dir)
            .map_err(|e| Error::io("cannot create a file in", &dir, e))?;
        std::io::Write::write_all(&mut tmp, &text)
            .map_err(|e| Error::io("cannot write", tmp.path(), e))?;
        tmp.persist(&path)
            .map_err(|e| Error::io("cannot write", &path, e.error))?;
        Ok(())
    }

    /// Whether this cache has hashed the entry at `dir` while its files had the stamps `now`.
    fn verified(&self, dir: &Path, now: &[Stamp]) -> bool {
        self.verified
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(dir)
            .is_some_and(|stamps| stamps == now)
    }

    fn remember_verified(&self, dir: &Path, now: Vec<Stamp>) {
        self.verified
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(dir.to_path_buf(), now);
    }

    /// Checks an entry. `Valid` entries have an executable and content matching their record
    /// (hashed on this cache's first lookup of the entry); an entry without a record (written
    /// by another tool) has its hash computed.
    pub(crate) fn lookup(&self, p: &Provider, v: &Version) -> Result<Lookup> {
        let dir = self.entry_dir(p, v);
        // What cannot be read or hashed in the entry (a stray FIFO or symlink, a name that is
        // not UTF-8) makes it damaged, to be moved aside and installed again, not an error that
        // would refuse this version for good.
        let unreadable = |what: &str, e: std::io::Error| {
            Ok(Lookup::Damaged(format!(
                "cannot {what} {}: {e}",
                dir.display()
            )))
        };
        // An entry may be a symlink to a directory; one to nowhere is damaged, not missing.
        match fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Ok(Lookup::Damaged("it is not a directory".to_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if fs::symlink_metadata(&dir).is_err() {
                    return Ok(Lookup::Missing);
                }
                return unreadable("follow", e);
            }
            Err(e) => return unreadable("read", e),
        }
        let executable = match find_executable(&dir, &p.r#type) {
            Ok(found) => found,
            Err(e) => return unreadable("read", e),
        };
        let Some(executable) = executable else {
            return Ok(Lookup::Damaged(format!(
                "could not find executable file starting with terraform-provider-{}",
                p.r#type
            )));
        };
        let looked = identity::now_ns();
        let now = match stamps(&dir) {
            Ok(now) => now,
            Err(e) => return unreadable("read", e),
        };
        let record = self.read_record(p, v);
        let (h1, zh, protocols) = match record {
            Some(r) if r.files == now && (r.trusted(&now) || self.verified(&dir, &now)) => {
                (r.h1, r.zh, r.protocols)
            }
            Some(r) => {
                let h1 = match hash::h1_dir(&dir) {
                    Ok(h1) => h1,
                    Err(e) => return unreadable("hash", e),
                };
                if h1 != r.h1 {
                    return Ok(Lookup::Damaged(format!(
                        "its contents hash to {h1}, but {} was installed",
                        r.h1
                    )));
                }
                self.remember_verified(&dir, now.clone());
                let refreshed = Record {
                    files: now,
                    checked_ns: Some(looked),
                    ..r.clone()
                };
                if self.writable {
                    // The record was not trusted with these stamps; now it is, once they have
                    // settled. A stale record only costs a rehash next time, so failing to
                    // refresh it is not an error.
                    let _ = self.write_record(p, v, &refreshed);
                }
                (r.h1, r.zh, r.protocols)
            }
            None => {
                let h1 = match hash::h1_dir(&dir) {
                    Ok(h1) => h1,
                    Err(e) => return unreadable("hash", e),
                };
                self.remember_verified(&dir, now.clone());
                if self.writable {
                    let record = self.record(p, v, &h1, None, &[], (now, looked));
                    let _ = self.write_record(p, v, &record);
                }
                (h1, None, Vec::new())
            }
        };
        Ok(Lookup::Valid(Box::new(Installed {
            source: p.clone(),
            version: v.clone(),
            platform: self.platform.clone(),
            dir,
            executable,
            protocols,
            h1,
            zh,
            origin: Origin::Cache,
            warnings: Vec::new(),
        })))
    }

    fn record(
        &self,
        p: &Provider,
        v: &Version,
        h1: &str,
        zh: Option<&str>,
        protocols: &[u64],
        (files, checked_ns): (Vec<Stamp>, i128),
    ) -> Record {
        Record {
            format: RECORD_FORMAT,
            source: p.to_string(),
            version: v.to_string(),
            platform: self.platform.to_string(),
            h1: h1.to_owned(),
            zh: zh.map(str::to_owned),
            protocols: protocols.to_vec(),
            files,
            checked_ns: Some(checked_ns),
            check: None,
        }
    }

    /// Takes the package's lock, waiting for other installers; dropping the future stops the
    /// wait.
    pub(crate) async fn lock(&self, p: &Provider, v: &Version) -> Result<LockGuard> {
        let path = self
            .version_dir(p, v)
            .join(format!("{}.lock", self.platform));
        lock::acquire(&path)
            .await
            .map_err(|e| Error::io("cannot lock", &path, e))
    }

    /// The start of the names of this platform's staging directories and partial downloads.
    fn staging_prefix(&self) -> String {
        format!(".tmp-{}-", self.platform)
    }

    /// Whether the `.tmp-` entry `e` of a version directory is ours to remove: this platform's,
    /// or an unmarked one left long ago. Another platform's belongs to an install that holds
    /// that platform's lock, not ours, and may be in progress on another machine.
    fn is_ours_to_sweep(&self, name: &str, e: &fs::DirEntry) -> bool {
        let Some(rest) = name.strip_prefix(".tmp-") else {
            return false;
        };
        // Temporary names add only letters and digits, so a `_` before the first `-` marks a
        // platform.
        match rest.split_once('-').and_then(|(p, _)| Platform::parse(p)) {
            Some(platform) => platform == self.platform,
            None => e.metadata().and_then(|m| m.modified()).is_ok_and(|t| {
                SystemTime::now()
                    .duration_since(t)
                    .is_ok_and(|age| age > ABANDONED_UNMARKED)
            }),
        }
    }

    /// Removes staging directories and partial downloads that a killed installer left in the
    /// version directory. The caller holds the package lock, so none of this platform's is in
    /// use: they are only ever created under it. A record being written, which takes no lock, is
    /// a `.tmp-` file without the platform in its name, so it is removed only when a day old:
    /// what a process killed mid-write left.
    pub(crate) fn sweep(&self, p: &Provider, v: &Version) {
        let Ok(entries) = fs::read_dir(self.version_dir(p, v)) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            if !self.is_ours_to_sweep(name, &e) {
                continue;
            }
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let removed = if is_dir {
                fs::remove_dir_all(e.path())
            } else {
                fs::remove_file(e.path())
            };
            if removed.is_ok() {
                tracing::debug!(path = %e.path().display(), "removed what an interrupted install left");
            }
        }
    }

    /// A new staging directory beside the entry; removed on drop unless committed.
    pub(crate) fn stage(&self, p: &Provider, v: &Version) -> Result<tempfile::TempDir> {
        let dir = self.version_dir(p, v);
        fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
        tempfile::Builder::new()
            .prefix(&self.staging_prefix())
            .tempdir_in(&dir)
            .map_err(|e| Error::io("cannot create a directory in", &dir, e))
    }

    /// A temporary file for a download, in the version directory so it is on the cache's file
    /// system; removed on drop.
    pub(crate) fn temp_file(&self, p: &Provider, v: &Version) -> Result<tempfile::NamedTempFile> {
        let dir = self.version_dir(p, v);
        fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
        tempfile::Builder::new()
            .prefix(&self.staging_prefix())
            .suffix(".zip")
            .tempfile_in(&dir)
            .map_err(|e| Error::io("cannot create a file in", &dir, e))
    }

    /// Moves a staged package into place (replacing a damaged entry) and records it. The caller
    /// holds the package lock.
    pub(crate) fn commit(
        &self,
        p: &Provider,
        v: &Version,
        staged: tempfile::TempDir,
        zh: Option<&str>,
        protocols: &[u64],
        h1: Option<&str>,
    ) -> Result<(PathBuf, String)> {
        let entry = self.entry_dir(p, v);
        let staged_at = identity::now_ns();
        let files =
            stamps(staged.path()).map_err(|e| Error::io("cannot read", staged.path(), e))?;
        let h1 = match h1 {
            Some(h) => h.to_owned(),
            None => hash::h1_dir(staged.path())
                .map_err(|e| Error::io("cannot hash", staged.path(), e))?,
        };
        let mut old = None;
        // Whatever is there, a symlink to nowhere included, is moved aside.
        if fs::symlink_metadata(&entry).is_ok() {
            // Renaming the old entry aside first keeps a running provider's executable intact
            // (no ETXTBSY, no half-replaced directory).
            let trash = tempfile::Builder::new()
                .prefix(&format!("{}old-", self.staging_prefix()))
                .tempdir_in(self.version_dir(p, v))
                .map_err(|e| {
                    Error::io("cannot create a directory in", self.version_dir(p, v), e)
                })?;
            let aside = trash.path().join("entry");
            fs::rename(&entry, &aside).map_err(|e| Error::io("cannot move aside", &entry, e))?;
            old = Some(trash);
        }
        let staged_path = staged.keep();
        if let Err(e) = fs::rename(&staged_path, &entry) {
            let _ = fs::remove_dir_all(&staged_path);
            return Err(Error::io("cannot move into place", &entry, e));
        }
        drop(old);
        self.remember_verified(&entry, files.clone());
        // The files were hashed (or checked against the package's hash) while staged; a rename
        // of their directory keeps their stamps. The entry is in place: without its record the
        // next lookup hashes it again, so failing to write one (a full disk) is no failure.
        let record = self.record(p, v, &h1, zh, protocols, (files, staged_at));
        if let Err(err) = self.write_record(p, v, &record) {
            tracing::warn!(
                entry = %entry.display(),
                "installed, but could not record its hash; the next use hashes it again: {err}"
            );
        }
        Ok((entry, h1))
    }

    /// Removes the empty directories a failed install left on the way to the entry.
    pub(crate) fn prune(&self, p: &Provider, v: &Version) {
        let mut dir = Some(self.version_dir(p, v));
        while let Some(d) = dir {
            if d == self.root || fs::remove_dir(&d).is_err() {
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
        }
    }
}

/// Parses a cache or mirror directory name as a hostname.
pub(crate) fn hostname_from_dir(name: &str) -> Option<Hostname> {
    Hostname::parse(name).ok()
}
