//! What the root package's benchmarks share.

use std::future::Future;

/// A field of a process's `/proc/<process>/status` counted in KiB (`VmHWM:` the peak resident
/// set, `VmRSS:` the current one); `process` is a PID, or `self`.
pub(crate) fn status_kib(process: &str, field: &str) -> anyhow::Result<u64> {
    let path = format!("/proc/{process}/status");
    let status = std::fs::read_to_string(&path)?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no {field} in {path}"))
}

/// `work` run to its end, unless the bench is interrupted first: SIGINT (Ctrl-C, which the
/// terminal sends the bench, xtask and our plugins alike) or SIGTERM. Then `work` is dropped,
/// which stops the providers, plugins and moto it started and removes its temporary
/// directories, and the bench fails saying so. Killed by the signal instead, a bench left the
/// providers its own host had launched (each in a process group of its own, so the terminal's
/// signal misses them) running under init, and its schema caches in the temp directory.
pub(crate) async fn until_interrupted<T>(
    work: impl Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let signal = tokio::select! {
        done = work => return done,
        _ = interrupt.recv() => "SIGINT",
        _ = terminate.recv() => "SIGTERM",
    };
    anyhow::bail!("interrupted by {signal}; stopped what this bench had started")
}
