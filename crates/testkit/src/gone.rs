//! Checks that what a test started is gone: a process reaped or exited, a socket file removed.
//!
//! Neither is an event this process can wait on (the process is not our child, and a socket's
//! removal sends nothing), so each is polled in a bounded loop; async, so that the runtime
//! that reaps our children keeps running meanwhile.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use crate::processes::{poll_for, running};

/// How long a process or a socket may take to go once it was told to.
const LIMIT: Duration = Duration::from_secs(5);

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
        if poll_for(LIMIT, || left().is_none().then_some(()))
            .await
            .is_none()
        {
            panic!(
                "left behind after {LIMIT:?}: {}",
                left().unwrap_or_default()
            );
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
    if poll_for(LIMIT, || (!running(pid)).then_some(()))
        .await
        .is_none()
    {
        panic!("process {pid} still runs after {LIMIT:?}");
    }
}
