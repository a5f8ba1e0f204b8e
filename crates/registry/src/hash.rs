//! Package hashes: `zh:` (SHA-256 of the zip file) and `h1:` (Go's `dirhash.Hash1` over the
//! package contents, the same for a zip and its extracted directory).
//!
//! Invariant: `h1:` lists regular files by their `/`-separated relative names, sorted bytewise;
//! a name containing a newline is refused, as dirhash refuses it.

use std::{
    fs::File,
    io::{self, Read},
    path::Path,
};

use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The `h1:` of a package with no files.
pub const EMPTY_H1: &str = "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";

/// Formats a SHA-256 digest as a `zh:` hash.
pub(crate) fn zh(digest: &[u8]) -> String {
    format!("zh:{}", hex::encode(digest))
}

/// SHA-256 of everything `reader` yields.
pub(crate) fn sha256_reader(mut reader: impl Read) -> io::Result<[u8; 32]> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().into())
}

/// Builds an `h1:` from `(name, sha256)` pairs in any order.
pub(crate) fn h1_from_entries(mut entries: Vec<(String, [u8; 32])>) -> io::Result<String> {
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut summary = Sha256::new();
    for (name, digest) in &entries {
        if name.contains('\n') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("file name {name:?} contains a newline"),
            ));
        }
        summary.update(format!("{}  {}\n", hex::encode(digest), name).as_bytes());
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(summary.finalize());
    Ok(format!("h1:{encoded}"))
}

/// Lists the regular files under `dir` (following symlinks, as Go's `os.Open` does) with their
/// `/`-separated names relative to `dir`. Anything else that is not a directory (a FIFO, a
/// socket, a device, even behind a symlink) is an error: opened, it could block or never end.
pub(crate) fn list_files(dir: &Path) -> io::Result<Vec<(String, std::path::PathBuf)>> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), dir.to_path_buf())];
    while let Some((prefix, path)) = stack.pop() {
        for entry in std::fs::read_dir(&path)? {
            let entry = entry?;
            let name = entry.file_name().into_string().map_err(|n| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("file name {n:?} is not UTF-8"),
                )
            })?;
            let rel = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let file_type = entry.file_type()?;
            if file_type.is_dir() {
                stack.push((rel, entry.path()));
            } else {
                if !file_type.is_file() {
                    // A symlink, or something that is no file: what it is, followed.
                    regular_file(&entry.path())?;
                }
                out.push((rel, entry.path()));
            }
        }
    }
    Ok(out)
}

/// Fails unless `path` is, or links to, a regular file or a directory: what a package holds.
fn regular_file(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() || meta.is_dir() {
        return Ok(());
    }
    Err(not_a_file(path))
}

/// The error of `path` in a package, which is neither a regular file nor a directory.
pub(crate) fn not_a_file(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{} is not a regular file (a FIFO, socket or device): a provider package holds only \
             files and directories",
            path.display()
        ),
    )
}

/// The `h1:` of an unpacked package directory.
pub fn h1_dir(dir: &Path) -> io::Result<String> {
    let mut entries = Vec::new();
    for (name, path) in list_files(dir)? {
        entries.push((name, sha256_reader(File::open(path)?)?));
    }
    h1_from_entries(entries)
}

/// The `zh:` of a zip file on disk.
pub fn zh_file(path: &Path) -> io::Result<String> {
    Ok(zh(&sha256_reader(File::open(path)?)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_in_a_package_is_an_error_not_a_wait() {
        let outside = tempfile::tempdir().expect("temp dir");
        let fifo = outside.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.expect("mkfifo runs").success());
        // The FIFO itself in a package, and a symlink to it.
        for link in [false, true] {
            let dir = tempfile::tempdir().expect("temp dir");
            std::fs::write(dir.path().join("a"), "hello\n").expect("a file");
            let pipe = dir.path().join("pipe");
            if link {
                std::os::unix::fs::symlink(&fifo, &pipe).expect("a symlink");
            } else {
                std::fs::rename(&fifo, &pipe).expect("moved in");
            }
            let err = h1_dir(dir.path()).expect_err("a FIFO is no file");
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
            assert!(err.to_string().contains("is not a regular file"), "{err}");
            if !link {
                std::fs::rename(&pipe, &fifo).expect("moved back");
            }
        }
    }

    #[test]
    fn empty_package_has_dirhash_empty_value() {
        assert_eq!(h1_from_entries(Vec::new()).expect("no names"), EMPTY_H1);
    }

    #[test]
    fn h1_matches_go_dirhash_for_known_input() {
        // Go: dirhash.Hash1([]string{"a"}, open) with "a" holding "hello\n" gives this value.
        let digest = sha256_reader(&b"hello\n"[..]).expect("in memory");
        let h = h1_from_entries(vec![("a".into(), digest)]).expect("valid name");
        let line = format!("{}  a\n", hex::encode(digest));
        let want =
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(line.as_bytes()));
        assert_eq!(h, format!("h1:{want}"));
    }
}
