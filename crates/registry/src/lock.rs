//! A per-package lock file, held with `std::fs::File::try_lock`, beside the package directory at
//! OpenTofu's path (`<version>/<os>_<arch>.lock`).
//!
//! Invariants: at most one holder per path at a time across threads and processes. On Unix the
//! holder removes the file when it lets go, so no lock files pile up; a waiter that then wins the
//! lock on the removed file notices (the path no longer names the file it locked) and starts
//! over, which keeps the exclusion correct.

use std::{
    fs::{self, File, OpenOptions, TryLockError},
    io,
    path::{Path, PathBuf},
    time::Duration,
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

/// The first pause between two tries while another holder has the lock; it doubles up to
/// [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(10);
/// The longest pause between two tries: how late a waiter may notice that the lock is free.
const MAX_BACKOFF: Duration = Duration::from_millis(250);

/// Waits until the lock at `path` is held; creates the directories and the file as needed.
///
/// The wait polls `try_lock` rather than blocking a thread in `flock`, so that dropping the
/// future (a signal, a Cancel) ends the wait at once: a thread blocked in the kernel could not
/// be stopped, and the runtime would wait for it before the process could exit.
pub(crate) async fn acquire(path: &Path) -> io::Result<LockGuard> {
    let mut announced = false;
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
        let mut backoff = FIRST_BACKOFF;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    if !announced {
                        tracing::info!(lock = %path.display(), "waiting for another installer of this package");
                        announced = true;
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                Err(TryLockError::Error(e)) => return Err(e),
            }
        }
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn tasks_take_turns() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("a/b/x.lock");
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let (path, inside, most) = (path.clone(), inside.clone(), most.clone());
                tokio::spawn(async move {
                    for _ in 0..20 {
                        let guard = acquire(&path).await.expect("lock");
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        tokio::task::yield_now().await;
                        inside.fetch_sub(1, Ordering::SeqCst);
                        drop(guard);
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("task finished");
        }
        assert_eq!(most.load(Ordering::SeqCst), 1, "never two holders at once");
        assert!(!path.exists(), "the lock file is removed after use");
    }

    #[tokio::test]
    async fn a_wait_for_the_lock_ends_when_it_is_dropped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("x.lock");
        let held = acquire(&path).await.expect("first holder");
        let waiter = tokio::spawn({
            let path = path.clone();
            async move { acquire(&path).await.map(drop) }
        });
        tokio::task::yield_now().await;
        waiter.abort();
        assert!(
            waiter.await.expect_err("aborted").is_cancelled(),
            "the waiter was still waiting and stopped when aborted"
        );
        drop(held);
        acquire(&path).await.expect("the lock is free again");
    }
}
