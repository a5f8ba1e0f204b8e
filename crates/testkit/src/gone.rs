//! Checks that what a test started is gone: a process reaped, a socket file removed.
//!
//! Neither is an event this process can wait on (the process is not our child, and a socket's
//! removal sends nothing), so each is polled in a bounded loop.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

/// How long a process or a socket may take to go once it was told to.
const LIMIT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(20);

/// Whether process `pid` exists, zombie or not.
pub fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// What a test must find gone after it stopped a provider: its process and its socket.
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
        let deadline = Instant::now() + LIMIT;
        loop {
            let running = self.pid.is_some_and(alive);
            let socket = self.socket.as_ref().is_some_and(|s| s.exists());
            if !running && !socket {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "left behind after {LIMIT:?}: process {:?} alive={running}, socket {:?} exists={socket}",
                self.pid,
                self.socket
            );
            tokio::time::sleep(POLL).await;
        }
    }
}

/// Waits for process `pid` to be reaped.
///
/// # Panics
///
/// When it still exists after 5 s.
pub async fn assert_exited(pid: u32) {
    Traces {
        pid: Some(pid),
        socket: None,
    }
    .assert_gone()
    .await;
}
