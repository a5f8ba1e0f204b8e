//! A per-package lock file, held with `std::fs::File::lock`, beside the package directory at
//! OpenTofu's path (`<version>/<os>_<arch>.lock`).
//!
//! Invariants: at most one holder per path at a time across threads and processes. On Unix the
//! holder removes the file when it lets go, so no lock files pile up; a waiter that then wins the
//! lock on the removed file notices (the path no longer names the file it locked) and starts
//! over, which keeps the exclusion correct.

use std::{
    fs::{self, File, OpenOptions},
    io,
    path::{Path, PathBuf},
};

/// The most times a waiter starts over because the file it locked was removed.
const MAX_RETRIES: usize = 10_000;

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub(crate) struct LockGuard {
    file: Option<File>,
    path: PathBuf,
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let held = file.metadata()?;
    match fs::metadata(path) {
        Ok(now) => Ok(held.dev() == now.dev() && held.ino() == now.ino()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, _path: &Path) -> io::Result<bool> {
    Ok(true)
}

/// Blocks until the lock at `path` is held; creates the directories and the file as needed.
pub(crate) fn acquire(path: &Path) -> io::Result<LockGuard> {
    for _ in 0..MAX_RETRIES {
        if let Some(parent) = path.parent() {
            match fs::create_dir_all(parent) {
                Ok(()) => {}
                // A failed installer pruning empty directories raced with us; start over.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
        }
        let file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
        {
            Ok(f) => f,
            // Another holder removed the directory between our mkdir and open.
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        file.lock()?;
        if same_file(&file, path)? {
            return Ok(LockGuard {
                file: Some(file),
                path: path.to_path_buf(),
            });
        }
    }
    Err(io::Error::other(format!(
        "gave up waiting for the lock {} after {MAX_RETRIES} attempts",
        path.display()
    )))
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if cfg!(unix) {
            // Removing while still holding is what makes the start-over check above sound.
            let _ = fs::remove_file(&self.path);
        }
        if let Some(file) = self.file.take() {
            let _ = file.unlock();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    };

    #[test]
    fn threads_take_turns() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("a/b/x.lock");
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (path, inside, most) = (path.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let guard = acquire(&path).expect("lock");
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                        drop(guard);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread finished");
        }
        assert_eq!(most.load(Ordering::SeqCst), 1, "never two holders at once");
        assert!(!path.exists(), "the lock file is removed after use");
    }
}
