//! Waits on what the file system tells of files.

use std::{
    path::Path,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

/// Waits until every file at or below `path` last changed (its ctime, which no one can set
/// back) at least `age` ago: what a cache that trusts only settled stamps waits for
/// (`tfp_registry::SETTLE`). The wait is on the clock, and lasts exactly until then.
///
/// # Panics
///
/// When `path` cannot be read.
pub fn wait_until_unchanged_for(path: &Path, age: Duration) {
    let newest = newest_change(path);
    let settled = newest + age.as_nanos();
    loop {
        let now = since_epoch(SystemTime::now());
        if now >= settled {
            return;
        }
        // A sleep on the clock itself, bounded by the settling time computed above.
        let left = u64::try_from(settled - now).unwrap_or(u64::MAX);
        std::thread::sleep(Duration::from_nanos(left).min(age));
    }
}

/// The latest change time, in nanoseconds since the epoch, of `path` and what is below it.
fn newest_change(path: &Path) -> u128 {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::symlink_metadata(path)
        .unwrap_or_else(|err| panic!("cannot stat {}: {err}", path.display()));
    let own = u128::try_from(meta.ctime()).unwrap_or(0) * 1_000_000_000
        + u128::try_from(meta.ctime_nsec()).unwrap_or(0);
    if !meta.is_dir() {
        return own;
    }
    std::fs::read_dir(path)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", path.display()))
        .flatten()
        .map(|entry| newest_change(&entry.path()))
        .fold(own, u128::max)
}

fn since_epoch(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos())
}
