//! Zip extraction for provider packages (go-getter's `ZipDecompressor` with umask 0): Unix modes
//! are kept, entries escaping the target directory are refused, and sizes are bounded.
//!
//! Invariants: nothing is written outside `dest`; an entry with a `..` component, an absolute
//! path or a drive prefix, a part that is not a plain name (one with a `:` anywhere), a symbolic
//! link, or a second entry of the same name fails the whole extraction; the number of entries
//! and the bytes written are bounded by [`Limits`], counted from the data actually decompressed
//! rather than from the headers.

use std::{
    fs::{self, File, OpenOptions},
    io::{self, Read, Write},
    path::{Component, Path, PathBuf},
    sync::atomic::{AtomicBool, Ordering},
};

use sha2::{Digest, Sha256};

/// The most bytes an archive may unpack to, by default.
pub(crate) const MAX_UNPACKED_BYTES: u64 = 4 << 30;

/// Bounds on what one package may contain.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most entries (files and directories).
    pub max_entries: usize,
    /// Most bytes written in total.
    pub max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_entries: 10_000,
            max_bytes: MAX_UNPACKED_BYTES,
        }
    }
}

/// What was wrong with an archive.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// Not a zip file, or a damaged one (for example, truncated).
    #[error("not a valid zip archive: {0}")]
    Invalid(String),
    /// The archive has no entries.
    #[error("empty archive")]
    Empty,
    /// Too many entries.
    #[error("zip archive contains too many files: {count} > {limit}")]
    TooManyEntries {
        /// Entries found.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// Too much data.
    #[error("zip archive larger than limit: {0}")]
    TooLarge(u64),
    /// An entry would land outside the target directory.
    #[error("entry contains '..': {0}")]
    Traversal(String),
    /// An entry has an absolute path.
    #[error("entry has an absolute path: {0}")]
    Absolute(String),
    /// A part of an entry's path is not a plain name: on Windows, `sub/C:evil` would land on
    /// drive C.
    #[error("entry has a part that is not a plain file name (a drive, a device or a ':'): {0}")]
    NotPlain(String),
    /// An entry is a symbolic link.
    #[error("entry is a symbolic link, which provider packages must not contain: {0}")]
    Symlink(String),
    /// Two entries have the same name.
    #[error("duplicate entry: {0}")]
    Duplicate(String),
    /// The install it served was abandoned (a signal, a Cancel).
    #[error("extraction stopped: the install was abandoned")]
    Stopped,
    /// An entry's data is damaged (bad CRC, bad compression stream).
    #[error("entry {name} is damaged: {reason}")]
    Damaged {
        /// The entry.
        name: String,
        /// What the decoder said.
        reason: String,
    },
    /// The archive could not be opened for reading.
    #[error("cannot read {path}")]
    Read {
        /// The archive.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// Writing the extracted file failed.
    #[error("cannot write {path}")]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
}

/// One extracted regular file, for the package hash and the cache record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ExtractedFile {
    /// The `/`-separated name inside the package.
    pub(crate) name: String,
    /// Its SHA-256.
    pub(crate) sha256: [u8; 32],
}

/// Splits an entry name into safe path components, or says why it is unsafe.
fn components(name: &str) -> Result<Vec<&str>, ExtractError> {
    let is_sep = |c: char| c == '/' || c == '\\';
    let drive =
        name.len() >= 2 && name.as_bytes()[1] == b':' && name.as_bytes()[0].is_ascii_alphabetic();
    if name.starts_with(is_sep) || drive {
        return Err(ExtractError::Absolute(name.to_owned()));
    }
    let parts: Vec<&str> = name
        .split(is_sep)
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(ExtractError::Traversal(name.to_owned()));
    }
    if name.contains('\0') {
        return Err(ExtractError::Invalid(format!(
            "entry name {name:?} contains NUL"
        )));
    }
    if !parts.iter().all(|p| is_plain(p)) {
        return Err(ExtractError::NotPlain(name.to_owned()));
    }
    Ok(parts)
}

/// Whether one part of an entry's path is a plain name on every platform: no `:` (a drive or an
/// alternate data stream on Windows), and nothing the host's paths read as a prefix or root.
fn is_plain(part: &str) -> bool {
    let mut parsed = Path::new(part).components();
    !part.contains(':')
        && matches!(
            (parsed.next(), parsed.next()),
            (Some(Component::Normal(_)), None)
        )
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ExtractError + '_ {
    move |source| ExtractError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Extracts `zip_path` into the existing directory `dest`, until `stop` is set.
///
/// It runs on a thread that nothing else can end: once its install is dropped (a signal, a
/// Cancel) `stop` tells it to end, and it never creates `dest` itself, so that a staging
/// directory removed meanwhile is not made again, outside the lock, for no one to remove.
pub(crate) fn extract(
    zip_path: &Path,
    dest: &Path,
    limits: Limits,
    stop: &AtomicBool,
) -> Result<Vec<ExtractedFile>, ExtractError> {
    let file = File::open(zip_path).map_err(|source| ExtractError::Read {
        path: zip_path.to_path_buf(),
        source,
    })?;
    let mut archive = zip::ZipArchive::new(io::BufReader::new(file))
        .map_err(|e| ExtractError::Invalid(e.to_string()))?;
    if archive.is_empty() {
        return Err(ExtractError::Empty);
    }
    if archive.len() > limits.max_entries {
        return Err(ExtractError::TooManyEntries {
            count: archive.len(),
            limit: limits.max_entries,
        });
    }
    let mut written: u64 = 0;
    let mut files = Vec::new();
    let mut buf = vec![0u8; 256 * 1024];
    for i in 0..archive.len() {
        if stop.load(Ordering::Relaxed) {
            return Err(ExtractError::Stopped);
        }
        let mut entry = archive
            .by_index(i)
            .map_err(|e| ExtractError::Invalid(e.to_string()))?;
        let name = entry
            .name()
            .map_err(|e| ExtractError::Invalid(e.to_string()))?
            .into_owned();
        let parts = components(&name)?;
        let mut path = dest.to_path_buf();
        path.extend(&parts);
        if entry.is_dir() || name.ends_with('/') {
            create_dirs_below(dest, &parts)?;
            continue;
        }
        if entry.is_symlink() {
            return Err(ExtractError::Symlink(name));
        }
        if parts.is_empty() {
            return Err(ExtractError::Invalid(format!(
                "entry {name:?} has no file name"
            )));
        }
        create_dirs_below(dest, &parts[..parts.len() - 1])?;
        // Go's zip reader reports 0666 for entries without Unix attributes, which go-getter
        // then writes with umask 0; a Unix entry keeps its permission bits exactly.
        let mode = entry.unix_mode().map_or(0o666, |m| m & 0o777);
        let mut out = match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(ExtractError::Duplicate(name));
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        let mut hasher = Sha256::new();
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(ExtractError::Stopped);
            }
            let n = entry.read(&mut buf).map_err(|e| ExtractError::Damaged {
                name: name.clone(),
                reason: e.to_string(),
            })?;
            if n == 0 {
                break;
            }
            written += n as u64;
            if written > limits.max_bytes {
                return Err(ExtractError::TooLarge(limits.max_bytes));
            }
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(io_err(&path))?;
        }
        set_mode(&out, mode).map_err(io_err(&path))?;
        out.sync_all().map_err(io_err(&path))?;
        files.push(ExtractedFile {
            name: parts.join("/"),
            sha256: hasher.finalize().into(),
        });
    }
    Ok(files)
}

/// Creates `dest/parts…` one directory at a time, each only if missing, and never `dest`: if it
/// is gone, so is the extraction.
fn create_dirs_below(dest: &Path, parts: &[&str]) -> Result<(), ExtractError> {
    let mut path = dest.to_path_buf();
    for part in parts {
        path.push(part);
        match fs::create_dir(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => {}
            Err(e) => return Err(io_err(&path)(e)),
        }
    }
    Ok(())
}

/// The package's executable: the first regular file, in name order, called
/// `terraform-provider-<type>` optionally followed by `_…` or `.…` (providercache
/// `ExecutableFile`).
pub(crate) fn find_executable(dir: &Path, provider_type: &str) -> io::Result<Option<PathBuf>> {
    let prefix = format!("terraform-provider-{provider_type}");
    let mut names: Vec<(String, fs::FileType)> = fs::read_dir(dir)?
        .filter_map(|e| {
            let e = e.ok()?;
            Some((e.file_name().into_string().ok()?, e.file_type().ok()?))
        })
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(names.into_iter().find_map(|(name, kind)| {
        let rest = name.strip_prefix(&prefix)?;
        let delimited = rest.is_empty() || rest.starts_with('_') || rest.starts_with('.');
        (delimited && kind.is_file()).then(|| dir.join(&name))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_checked() {
        assert!(matches!(
            components("a/../../x"),
            Err(ExtractError::Traversal(_))
        ));
        assert!(matches!(
            components("..\\x"),
            Err(ExtractError::Traversal(_))
        ));
        assert!(matches!(
            components("/etc/passwd"),
            Err(ExtractError::Absolute(_))
        ));
        assert!(matches!(components("C:x"), Err(ExtractError::Absolute(_))));
        assert_eq!(components("./a//b").expect("safe"), vec!["a", "b"]);
        assert_eq!(components("a..b").expect("safe"), vec!["a..b"]);
    }

    /// On Windows a part such as `C:evil` makes the joined path jump to drive C, wherever the
    /// part is in the name; no platform accepts one.
    #[test]
    fn parts_that_are_not_plain_names_are_refused() {
        for name in ["a/C:x", "a\\C:x", "sub/dir/b:c", "a/:x/b"] {
            assert!(
                matches!(components(name), Err(ExtractError::NotPlain(ref n)) if n == name),
                "{name} is refused"
            );
        }
        assert!(matches!(components("C:x"), Err(ExtractError::Absolute(_))));
        let dir = tempfile::tempdir().expect("temp dir");
        let zip_path = dir.path().join("package.zip");
        let mut writer = zip::ZipWriter::new(File::create(&zip_path).expect("create zip"));
        let options = zip::write::SimpleFileOptions::default();
        writer
            .start_file("sub/C:evil", options)
            .expect("start file");
        writer.write_all(b"gotcha").expect("write file");
        writer.finish().expect("finish zip");
        let dest = dir.path().join("out");
        fs::create_dir(&dest).expect("mkdir");
        let err = extract(&zip_path, &dest, Limits::default(), &AtomicBool::new(false))
            .expect_err("a drive in a part");
        assert_eq!(
            err.to_string(),
            "entry has a part that is not a plain file name (a drive, a device or a ':'): \
             sub/C:evil"
        );
        assert_eq!(fs::read_dir(&dest).expect("readable").count(), 0);
    }

    #[test]
    fn an_abandoned_extraction_stops_and_never_makes_its_directory_again() {
        let dir = tempfile::tempdir().expect("temp dir");
        let zip_path = dir.path().join("package.zip");
        let mut writer = zip::ZipWriter::new(File::create(&zip_path).expect("create zip"));
        let options = zip::write::SimpleFileOptions::default();
        for name in ["terraform-provider-x", "docs/README"] {
            writer.start_file(name, options).expect("start file");
            writer.write_all(b"content").expect("write file");
        }
        writer.finish().expect("finish zip");
        let dest = dir.path().join("staged");
        fs::create_dir(&dest).expect("mkdir");
        let err = extract(&zip_path, &dest, Limits::default(), &AtomicBool::new(true))
            .expect_err("stopped");
        assert!(matches!(err, ExtractError::Stopped), "{err}");
        assert_eq!(fs::read_dir(&dest).expect("readable").count(), 0);
        // The staging directory removed under it (its install was dropped): the extraction
        // fails rather than making it again, and so the subdirectory it needs.
        fs::remove_dir(&dest).expect("rmdir");
        let err = extract(&zip_path, &dest, Limits::default(), &AtomicBool::new(false))
            .expect_err("no directory");
        assert!(matches!(err, ExtractError::Io { .. }), "{err}");
        assert!(!dest.exists(), "the staging directory is not made again");
    }

    #[test]
    fn a_zip_that_cannot_be_opened_is_a_read_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("missing.zip");
        let err = extract(
            &missing,
            dir.path(),
            Limits::default(),
            &AtomicBool::new(false),
        )
        .expect_err("no such file");
        assert!(
            matches!(&err, ExtractError::Read { path, .. } if *path == missing),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            format!("cannot read {}", missing.display())
        );
    }

    #[test]
    fn symlink_entries_are_refused() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().expect("temp dir");
        let zip_path = dir.path().join("package.zip");
        let mut writer = zip::ZipWriter::new(File::create(&zip_path).expect("create zip"));
        let options = zip::write::SimpleFileOptions::default();
        writer.start_file("README", options).expect("start file");
        writer.write_all(b"a provider").expect("write file");
        writer
            .add_symlink("terraform-provider-x", "/etc/passwd", options)
            .expect("add symlink");
        writer.finish().expect("finish zip");
        let dest = dir.path().join("out");
        fs::create_dir(&dest).expect("mkdir");
        let err = extract(&zip_path, &dest, Limits::default(), &AtomicBool::new(false))
            .expect_err("a symlink entry");
        assert!(
            matches!(&err, ExtractError::Symlink(name) if name == "terraform-provider-x"),
            "{err}"
        );
        assert!(
            !dest.join("terraform-provider-x").exists(),
            "nothing is written for the symlink"
        );
    }

    #[test]
    fn executable_is_first_delimited_regular_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        for name in [
            "terraform-provider-randomx",
            "terraform-provider-random_v2_x5",
            "terraform-provider-random.exe",
            "LICENSE",
        ] {
            fs::write(dir.path().join(name), b"x").expect("write");
        }
        fs::create_dir(dir.path().join("terraform-provider-random")).expect("mkdir");
        let found = find_executable(dir.path(), "random").expect("readable");
        assert_eq!(
            found,
            Some(dir.path().join("terraform-provider-random.exe"))
        );
    }
}
