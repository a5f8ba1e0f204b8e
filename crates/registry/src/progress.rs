//! Download progress: a bar on stderr when stderr is a terminal, `tracing` events otherwise.
//!
//! Invariant: nothing is ever written to stdout, which belongs to the plugin protocol.

use std::{
    io::IsTerminal,
    sync::atomic::{AtomicU64, Ordering},
};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How download progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ProgressMode {
    /// A bar when stderr is a terminal, events otherwise.
    #[default]
    Auto,
    /// Always a bar on stderr.
    Bar,
    /// Only `tracing` events.
    Events,
}

/// Progress of one download.
#[derive(Debug)]
pub(crate) struct Progress {
    label: String,
    bar: Option<ProgressBar>,
    done: AtomicU64,
}

impl Progress {
    pub(crate) fn new(mode: ProgressMode, label: String) -> Self {
        let bar = match mode {
            ProgressMode::Bar => true,
            ProgressMode::Auto => std::io::stderr().is_terminal(),
            ProgressMode::Events => false,
        }
        .then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
                )
                .expect("the template is a valid constant")
                .progress_chars("=> "),
            );
            bar.set_message(label.clone());
            bar
        });
        Progress {
            label,
            bar,
            done: AtomicU64::new(0),
        }
    }

    pub(crate) fn start(&self, total: Option<u64>) {
        match &self.bar {
            Some(bar) => {
                if let Some(t) = total {
                    bar.set_length(t);
                }
            }
            None => tracing::info!(package = %self.label, bytes = total, "downloading"),
        }
    }

    pub(crate) fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    /// Ends the bar (or logs the end) with a short outcome such as "verified".
    pub(crate) fn finish(&self, outcome: &str) {
        let bytes = self.done.load(Ordering::Relaxed);
        match &self.bar {
            Some(bar) => bar.finish_with_message(format!("{} {outcome}", self.label)),
            None => tracing::info!(package = %self.label, bytes, outcome, "download finished"),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar
            && !bar.is_finished()
        {
            bar.abandon();
        }
    }
}
