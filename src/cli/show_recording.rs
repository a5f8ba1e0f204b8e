//! `show-recording <recording>`: a recording as JSON lines, one call per line, with every value
//! decoded ([`crate::recording::show`]), to read what a host and a provider exchanged.

use std::{io::Write as _, path::Path};

use anyhow::Context as _;
use tfp_record_replay::replay::read_recording;

use crate::recording::show;

/// Prints every call of the recording at `path`.
pub async fn run(path: &Path) -> anyhow::Result<()> {
    // As `replay` reads it: the same limit, the same errors.
    let records = read_recording(path)?;
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
