//! What the root package's benchmarks share.

/// Prints our process's peak resident set size (`VmHWM`) as the last JSON line, which xtask
/// reads.
pub(crate) fn print_peak_rss() -> anyhow::Result<()> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    println!("{}", serde_json::json!({ "peak_rss_kib": peak_kib }));
    Ok(())
}
