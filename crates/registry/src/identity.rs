//! What the file system tells about a file without reading it, and when that is enough to know
//! that its content has not changed since it was hashed.
//!
//! Size and modification time are not enough: `touch -d` puts an mtime back after an in-place
//! rewrite of the same size. The change time (ctime) is: the kernel sets it to the current time
//! on every write and every metadata change, `touch -d` included, and no system call sets it to
//! a chosen value. Device and inode numbers tell a file replaced by a rename from the one it
//! replaced. So a [`Stamp`] (device, inode, size, mtime, ctime) taken before a file was hashed,
//! and equal again later, means the file still has the content that was hashed, with one
//! exception: a write in the same tick of the file system's clock as the one the stamp shows
//! leaves the ctime as it was (Linux keeps timestamps at the coarse clock's resolution, a few
//! milliseconds, and some file systems at whole seconds). A stamp is therefore trusted only when
//! it has *settled*: its ctime was at least [`SETTLE`] older than the moment it was taken, so that
//! any later write gets a later ctime (git's "racy clean" rule, `Documentation/technical/racy-git`).
//! A file hashed before it settled is hashed again next time.

use std::{
    fs::{self, File},
    io,
    path::{Path, PathBuf},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};

use crate::hash::sha256_reader;

/// How much older than the moment of a stamp its ctime must be for the stamp to be trusted.
/// Larger than any file system's timestamp granularity we know of (FAT's is 2 seconds).
pub const SETTLE: Duration = Duration::from_secs(3);

/// A file's identity and timestamps as `stat` reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// The device the file lives on.
    pub dev: u64,
    /// Its inode number.
    pub ino: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Its change time, in nanoseconds since the epoch.
    pub ctime_ns: i128,
}

impl Stamp {
    /// The stamp of what `meta` describes.
    #[cfg(unix)]
    pub fn of(meta: &fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt as _;
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Without a change time, a stamp never settles: the file is hashed every time.
    #[cfg(not(unix))]
    pub fn of(meta: &fs::Metadata) -> Stamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Stamp {
            size: meta.len(),
            mtime_ns,
            ctime_ns: i128::MAX,
            ..Stamp::default()
        }
    }

    /// Whether this stamp, taken at `taken` (nanoseconds since the epoch, read before the
    /// `stat`), can be trusted to change with the file's next write.
    pub fn settled(&self, taken: i128) -> bool {
        self.ctime_ns.saturating_add(SETTLE.as_nanos() as i128) <= taken
    }
}

/// `path` opened, with its stamp and the time just before it was taken.
fn open(path: &Path) -> io::Result<(File, Stamp, i128)> {
    let taken = now_ns();
    let file = File::open(path)?;
    let stamp = Stamp::of(&file.metadata()?);
    Ok((file, stamp, taken))
}

/// The current time in nanoseconds since the epoch, to compare with stamps.
pub(crate) fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// SHA-256 digests of files, remembered on disk by the [`Stamp`] the file had when it was
/// hashed, so that a provider executable of hundreds of MB is hashed once, not once per process.
///
/// Invariant: a memo file is named by the whole stamp and holds the digest of the content the
/// file had with that stamp; it is written only for a settled stamp that did not change while
/// the file was read, through a temporary file and a rename.
#[derive(Clone, Debug)]
pub struct Digests {
    dir: PathBuf,
}

impl Digests {
    /// Digests remembered in `dir` (created when first needed).
    pub fn new(dir: impl Into<PathBuf>) -> Digests {
        Digests { dir: dir.into() }
    }

    /// The lowercase hex SHA-256 of the content of `path` (symlinks followed), if it was
    /// remembered for the file as it is now, with the stamp it was found by: one `stat` and one
    /// small read.
    pub fn remembered(&self, path: &Path) -> Option<(String, Stamp)> {
        let stamp = Stamp::of(&fs::metadata(path).ok()?);
        let digest = fs::read_to_string(self.dir.join(name(&stamp)))
            .ok()
            .and_then(parse)?;
        Some((digest, stamp))
    }

    /// The lowercase hex SHA-256 of the content of `path` (symlinks followed), remembered or
    /// computed (and then remembered if the file's stamp has settled).
    pub fn sha256(&self, path: &Path) -> io::Result<String> {
        let (file, before, taken) = open(path)?;
        Ok(self.hash(&file, &before, taken)?.0)
    }

    /// The lowercase hex SHA-256 of the content of `path`, as [`Digests::sha256`], but only if
    /// the file still has the stamp `expected` (taken earlier, say before it was run) and kept
    /// it while it was read: `None` if it changed.
    pub fn sha256_if_unchanged(&self, path: &Path, expected: &Stamp) -> io::Result<Option<String>> {
        let (file, before, taken) = open(path)?;
        if before != *expected {
            return Ok(None);
        }
        let (digest, kept) = self.hash(&file, &before, taken)?;
        Ok(kept.then_some(digest))
    }

    /// The digest of `file`, whose stamp was `before` at `taken`, remembered or computed; and
    /// whether the file kept that stamp while it was read.
    fn hash(&self, file: &File, before: &Stamp, taken: i128) -> io::Result<(String, bool)> {
        let memo = self.dir.join(name(before));
        if let Some(digest) = fs::read_to_string(&memo).ok().and_then(parse) {
            return Ok((digest, true));
        }
        let digest = hex::encode(sha256_reader(file)?);
        let kept = Stamp::of(&file.metadata()?) == *before;
        if kept && before.settled(taken) {
            // A memo we cannot write only costs a hash next time.
            if let Err(err) = self.remember(&memo, &digest) {
                tracing::debug!(memo = %memo.display(), "cannot remember a file's digest: {err}");
            }
        }
        Ok((digest, kept))
    }

    fn remember(&self, memo: &Path, digest: &str) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)?;
        io::Write::write_all(&mut tmp, format!("sha256:{digest}\n").as_bytes())?;
        tmp.persist(memo).map_err(|e| e.error)?;
        Ok(())
    }
}

/// The memo file name of a stamp: every field, so that any change misses.
fn name(stamp: &Stamp) -> String {
    format!(
        "{:x}-{:x}-{:x}-{:x}-{:x}",
        stamp.dev, stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns
    )
}

/// The digest in a memo file; `None` for anything else, such as a file cut short.
fn parse(text: String) -> Option<String> {
    let digest = text.strip_prefix("sha256:")?.strip_suffix('\n')?;
    (digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit())).then(|| digest.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_settles_once_its_ctime_is_old_enough() {
        let stamp = Stamp {
            ctime_ns: 10_000_000_000,
            ..Stamp::default()
        };
        assert!(!stamp.settled(10_000_000_000));
        assert!(!stamp.settled(12_999_999_999));
        assert!(stamp.settled(13_000_000_000));
    }

    #[test]
    fn only_a_whole_memo_is_read() {
        let digest = "ab".repeat(32);
        assert_eq!(parse(format!("sha256:{digest}\n")), Some(digest.clone()));
        assert_eq!(parse(format!("sha256:{}\n", &digest[..63])), None);
        assert_eq!(parse(format!("sha256:{digest}")), None);
        assert_eq!(parse(String::new()), None);
    }

    /// A temporary directory with a file `provider` written just now ("hello\n"), and digests
    /// remembered in the same directory.
    fn hello_file() -> (tempfile::TempDir, std::path::PathBuf, Digests) {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("provider");
        fs::write(&file, b"hello\n").expect("write");
        let digests = Digests::new(dir.path().join("digests"));
        (dir, file, digests)
    }

    #[test]
    fn a_fresh_file_is_hashed_and_not_remembered_until_it_settles() {
        let (dir, file, digests) = hello_file();
        assert_eq!(
            digests.sha256(&file).expect("hash"),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        );
        assert!(
            !dir.path().join("digests").exists(),
            "a file written just now is not remembered"
        );
    }

    #[test]
    fn a_file_is_hashed_only_while_it_has_the_stamp_it_had() {
        let (_dir, file, digests) = hello_file();
        let launched = Stamp::of(&fs::metadata(&file).expect("stat"));
        assert_eq!(
            digests.sha256_if_unchanged(&file, &launched).expect("hash"),
            Some("5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03".to_owned())
        );
        // Replaced after the launch: not the content that ran.
        fs::remove_file(&file).expect("remove");
        fs::write(&file, b"replaced\n").expect("write");
        assert_ne!(Stamp::of(&fs::metadata(&file).expect("stat")), launched);
        assert_eq!(
            digests.sha256_if_unchanged(&file, &launched).expect("hash"),
            None
        );
    }
}
