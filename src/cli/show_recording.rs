//! `show-recording <recording>`: a recording as JSON lines, one call per line, with every value
//! decoded ([`crate::recording::show`]), to read what a host and a provider exchanged.

use std::{io::Write as _, path::Path};

use anyhow::Context as _;

use tfp_record_replay::replay::MAX_RECORDING_BYTES;

use crate::recording::{parse_recording, show};

/// Prints every call of the recording at `path`.
pub async fn run(path: &Path) -> anyhow::Result<()> {
    let size = tokio::fs::metadata(path)
        .await
        .with_context(|| format!("failed to read {}", path.display()))?
        .len();
    if size > MAX_RECORDING_BYTES {
        anyhow::bail!(
            "recording {} is larger than {MAX_RECORDING_BYTES} bytes, the most that replay reads too",
            path.display()
        );
    }
    let text = tokio::fs::read_to_string(path)
        .await
        .with_context(|| format!("failed to read {}", path.display()))?;
    let records =
        parse_recording(&text).with_context(|| format!("{} is not a recording", path.display()))?;
    if records.is_empty() {
        // Nothing on stdout, as for any recording, and a word on stderr for whoever looks.
        eprintln!("{} holds no calls", path.display());
    }
    let mut out = std::io::stdout().lock();
    for (index, record) in records.iter().enumerate() {
        let call = show(record)
            .with_context(|| format!("record {index} of {} cannot be shown", path.display()))?;
        writeln!(out, "{call}")?;
    }
    out.flush()?;
    Ok(())
}
