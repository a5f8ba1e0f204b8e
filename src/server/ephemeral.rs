//! Ephemeral resources: opened by Invoke, kept open for the rest of the deployment, renewed
//! before the provider's `renew_at`, and closed exactly once when the plugin stops.
//!
//! Terraform opens an ephemeral resource when a run needs it and closes it when the run ends
//! (OpenTofu `internal/tofu/node_resource_abstract_instance.go`). Our run is the plugin process:
//! the engine starts one per deployment (and one for the preview before it), so an opened
//! resource lives until [`Ephemerals::close_all`], which `Cancel` and shutdown call (the engine
//! sends `Cancel` as it finishes every deployment, then closes our connection and sends SIGINT).
//! A renewal and a close never overlap: both hold the resource's lock, and a closed resource is
//! never renewed again.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use crate::{
    host::Client,
    proto::tfplugin6::{self as v6, Diagnostic},
    server::lock,
};

/// The longest a renewal is made ahead of `renew_at`.
const MAX_RENEW_LEAD: Duration = Duration::from_secs(30);
/// The share of the time left before `renew_at` by which a renewal comes early, so that a slow
/// call still lands in time.
const RENEW_LEAD_DIVISOR: u32 = 10;

/// The ephemeral resources this plugin has open.
#[derive(Debug, Default)]
pub struct Ephemerals {
    open: Mutex<Vec<Arc<Opened>>>,
}

/// One open ephemeral resource.
#[derive(Debug)]
struct Opened {
    type_name: String,
    /// The private state from Open or the last Renew.
    private: tokio::sync::Mutex<Private>,
    /// The task that renews it, if the provider asked for renewals.
    renewer: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// The private state of an ephemeral resource, until it is closed.
#[derive(Debug)]
enum Private {
    Open(Option<Vec<u8>>),
    Closed,
}

impl Ephemerals {
    /// Keeps an ephemeral resource of `type_name` that Open just returned, renewing it before
    /// `renew_at` when the provider gave one.
    pub fn keep(
        &self,
        client: &Client,
        type_name: &str,
        private: Option<Vec<u8>>,
        renew_at: Option<&prost_types::Timestamp>,
    ) {
        let opened = Arc::new(Opened {
            type_name: type_name.to_owned(),
            private: tokio::sync::Mutex::new(Private::Open(private)),
            renewer: Mutex::new(None),
        });
        if let Some(at) = renew_at.and_then(system_time) {
            let task = tokio::spawn(renew(client.clone(), Arc::clone(&opened), at));
            *lock(&opened.renewer) = Some(task);
        }
        lock(&self.open).push(opened);
    }

    /// Closes every open resource, once each; returns how many it closed. A resource opened
    /// while this runs stays open for the next call.
    ///
    /// Each resource stays listed until it is closed: Cancel gives this a time limit, and those
    /// it did not reach when it is dropped are left for the next call (shutdown's), not lost
    /// with their renewers still running.
    pub async fn close_all(&self, client: &Client) -> usize {
        let open_now = lock(&self.open).clone();
        let mut closed = 0;
        for opened in open_now {
            // Another call may have closed it meanwhile; then this one does nothing.
            if opened.close(client).await {
                closed += 1;
            }
            lock(&self.open).retain(|listed| !Arc::ptr_eq(listed, &opened));
        }
        closed
    }
}

impl Opened {
    /// Closes it unless it is closed already; returns whether this call closed it.
    async fn close(&self, client: &Client) -> bool {
        // Waits for a renewal in flight; afterwards the renewer finds nothing to renew.
        let mut state = self.private.lock().await;
        if let Some(task) = lock(&self.renewer).take() {
            task.abort();
        }
        let Private::Open(private) = &*state else {
            return false;
        };
        let request = v6::close_ephemeral_resource::Request {
            type_name: self.type_name.clone(),
            private: private.clone(),
        };
        // Closed only once the provider has answered: a close cut short (Cancel's time limit)
        // leaves it open, for the next `close_all` to close.
        match client.close_ephemeral_resource(request).await {
            Ok(response) => report(&self.type_name, "closing", &response.diagnostics),
            Err(err) => tracing::warn!("closing the ephemeral {} failed: {err:#}", self.type_name),
        }
        *state = Private::Closed;
        true
    }
}

/// Renews `opened` before each `renew_at` the provider gives, until it is closed, a renewal
/// fails, or the provider gives no further `renew_at`.
async fn renew(client: Client, opened: Arc<Opened>, mut renew_at: SystemTime) {
    loop {
        tokio::time::sleep(wait_before_renewal(SystemTime::now(), renew_at)).await;
        let mut private = opened.private.lock().await;
        let Private::Open(current) = &*private else {
            return;
        };
        let request = v6::renew_ephemeral_resource::Request {
            type_name: opened.type_name.clone(),
            private: current.clone(),
        };
        let response = match client.renew_ephemeral_resource(request).await {
            Ok(response) => response,
            Err(err) => {
                tracing::warn!(
                    "renewing the ephemeral {} failed: {err:#}",
                    opened.type_name
                );
                return;
            }
        };
        report(&opened.type_name, "renewing", &response.diagnostics);
        if has_errors(&response.diagnostics) {
            return;
        }
        *private = Private::Open(response.private);
        tracing::debug!("renewed the ephemeral {}", opened.type_name);
        match response.renew_at.as_ref().and_then(system_time) {
            Some(next) => renew_at = next,
            None => return,
        }
    }
}

/// How long to wait at `now` before renewing what must be renewed at `renew_at`: a tenth of the
/// time left early, at most [`MAX_RENEW_LEAD`]; nothing when `renew_at` has passed.
fn wait_before_renewal(now: SystemTime, renew_at: SystemTime) -> Duration {
    let left = renew_at.duration_since(now).unwrap_or_default();
    left - (left / RENEW_LEAD_DIVISOR).min(MAX_RENEW_LEAD)
}

fn system_time(at: &prost_types::Timestamp) -> Option<SystemTime> {
    SystemTime::try_from(*at).ok()
}

fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics
        .iter()
        .any(|d| d.severity <= v6::diagnostic::Severity::Error as i32)
}

/// Logs what the provider said while renewing or closing: no one waits for these calls, so
/// even an error is only a warning.
fn report(type_name: &str, doing: &str, diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        tracing::warn!(
            "{doing} the ephemeral {type_name}: {}{}{}",
            d.summary,
            if d.detail.is_empty() { "" } else { ": " },
            d.detail
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renewals_come_a_tenth_early_at_most_thirty_seconds() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let at = |secs: u64| now + Duration::from_secs(secs);
        assert_eq!(
            wait_before_renewal(now, at(2)),
            Duration::from_millis(1_800)
        );
        assert_eq!(
            wait_before_renewal(now, at(3_600)),
            Duration::from_secs(3_570)
        );
        assert_eq!(wait_before_renewal(at(5), now), Duration::ZERO);
        assert_eq!(wait_before_renewal(now, now), Duration::ZERO);
    }

    #[tokio::test]
    async fn a_close_all_cut_short_leaves_the_rest_for_the_next() {
        let client = Client::unreachable();
        let ephemerals = Ephemerals::default();
        for name in ["first", "second", "third"] {
            lock(&ephemerals.open).push(opened(name));
        }
        // A renewal of the second in flight holds its close up.
        let second = Arc::clone(&lock(&ephemerals.open)[1]);
        let renewal = second.private.lock().await;
        // Boxed, so that dropping it drops the future and its wait for the second's lock.
        let mut closing = Box::pin(ephemerals.close_all(&client));
        // Driven until the first is closed (its call fails at once: nothing listens), then cut
        // short, as Cancel's time limit cuts it; the bound is against a hang, not a timing.
        let first_closed = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                tokio::select! {
                    _ = &mut closing => panic!("the close of the second waits for its renewal"),
                    () = tokio::time::sleep(Duration::from_millis(10)) => {
                        if listed(&ephemerals) == ["second", "third"] {
                            break;
                        }
                    }
                }
            }
        })
        .await;
        assert!(
            first_closed.is_ok(),
            "the first is closed: {:?}",
            listed(&ephemerals)
        );
        drop(closing);
        assert_eq!(listed(&ephemerals), ["second", "third"]);
        drop(renewal);
        assert_eq!(ephemerals.close_all(&client).await, 2);
        assert!(listed(&ephemerals).is_empty());
        assert!(matches!(*second.private.lock().await, Private::Closed));
    }

    /// A close cut short while the provider has not answered leaves the resource open and
    /// listed: the provider may never have seen the call.
    #[tokio::test]
    async fn a_close_cut_short_in_flight_leaves_it_open() {
        // Accepts connections (the kernel does) but never answers.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let client = Client::at(silent.local_addr().expect("an address"));
        let ephemerals = Ephemerals::default();
        lock(&ephemerals.open).push(opened("hung"));
        let cut = tokio::time::timeout(Duration::from_millis(200), ephemerals.close_all(&client));
        assert!(cut.await.is_err(), "the provider never answers");
        assert_eq!(listed(&ephemerals), ["hung"]);
        let hung = Arc::clone(&lock(&ephemerals.open)[0]);
        assert!(matches!(*hung.private.lock().await, Private::Open(_)));
    }

    #[tokio::test]
    async fn a_resource_opened_while_close_all_runs_stays_open() {
        let client = Client::unreachable();
        let ephemerals = Ephemerals::default();
        lock(&ephemerals.open).push(opened("old"));
        let old = Arc::clone(&lock(&ephemerals.open)[0]);
        let renewal = old.private.lock().await;
        let mut closing = std::pin::pin!(ephemerals.close_all(&client));
        let early = tokio::time::timeout(Duration::from_millis(50), &mut closing).await;
        assert!(early.is_err(), "the close of the old waits for its renewal");
        lock(&ephemerals.open).push(opened("new"));
        drop(renewal);
        assert_eq!(closing.await, 1);
        assert_eq!(listed(&ephemerals), ["new"]);
    }

    fn opened(type_name: &str) -> Arc<Opened> {
        Arc::new(Opened {
            type_name: type_name.to_owned(),
            private: tokio::sync::Mutex::new(Private::Open(None)),
            renewer: Mutex::new(None),
        })
    }

    fn listed(ephemerals: &Ephemerals) -> Vec<String> {
        (lock(&ephemerals.open).iter())
            .map(|opened| opened.type_name.clone())
            .collect()
    }
}
