//! Checks that what a test started is gone: a process reaped or exited, a socket file removed.
//!
//! Neither is an event this process can wait on (the process is not our child, and a socket's
//! removal sends nothing), so each is polled in a bounded loop; async, so that the runtime
//! that reaps our children keeps running meanwhile.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use crate::processes::running;

/// How long a process or a socket may take to go once it was told to.
const LIMIT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(20);

/// Whether process `pid` exists, zombie or not.
pub fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// What a test must find gone after it stopped a provider it launched: its process, reaped,
/// and its socket.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    pub pid: Option<u32>,
    pub socket: Option<PathBuf>,
}

impl Traces {
    /// Waits for the process to be reaped and the socket to be removed.
    ///
    /// # Panics
    ///
    /// When either is still there after 5 s, naming it.
    pub async fn assert_gone(&self) {
        let left = || {
            let process = self.pid.filter(|&pid| alive(pid));
            let socket = self.socket.as_ref().filter(|s| s.exists());
            (process.is_some() || socket.is_some())
                .then(|| format!("process {process:?}, socket {socket:?}"))
        };
        if let Some(left) = poll(left).await {
            panic!("left behind after {LIMIT:?}: {left}");
        }
    }
}

/// Waits for process `pid`, which need not be our child, to stop running: a zombie that its
/// new parent has not reaped yet has stopped.
///
/// # Panics
///
/// When it still runs after 5 s.
pub async fn assert_exited(pid: u32) {
    if poll(|| running(pid).then_some(())).await.is_some() {
        panic!("process {pid} still runs after {LIMIT:?}");
    }
}

/// Polls `left` until it finds nothing or [`LIMIT`] has passed; returns what it found last.
async fn poll<T>(mut left: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + LIMIT;
    loop {
        let found = left()?;
        if Instant::now() >= deadline {
            return Some(found);
        }
        tokio::time::sleep(POLL).await;
    }
}
