//! What `ptc serve` lets clients make it do at once: connections, sessions, running
//! programs, request sizes and read timeouts ([`ServeLimits`]), and the gate that holds
//! `tools/call` to `max_concurrent_runs` ([`RunGate`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// Caps and timeouts of `ptc serve` (`[serve]` in `ptc.toml`). Every count is at least 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeLimits {
    /// HTTP connections open at once; further connections wait in the listen backlog
    /// until one closes.
    pub max_connections: usize,
    /// MCP sessions open at once (HTTP); an `initialize` beyond it gets HTTP 503 with a
    /// JSON-RPC error.
    pub max_sessions: usize,
    /// A session that sees no request for this long is closed.
    pub session_idle_timeout: Duration,
    /// `tools/call` requests running at once (programs and native calls alike, over any
    /// transport); later calls wait for a slot.
    pub max_concurrent_runs: usize,
    /// Calls waiting for a slot; a call beyond it is answered at once with a "busy" tool
    /// error.
    pub max_queued_runs: usize,
    /// Time allowed to receive a request's headers (HTTP), and again its body; it also
    /// bounds how long a kept-alive connection may sit between requests.
    pub header_timeout: Duration,
    /// An HTTP connection on which no byte moves either way for this long is closed
    /// (streams in progress send keep-alive events well within it).
    pub idle_timeout: Duration,
    /// Largest request: an HTTP body (413 beyond it) or a stdio line (a JSON-RPC
    /// `-32600` error beyond it, the line skipped without being buffered).
    pub max_request_bytes: usize,
    /// How long an `ask` approval asked through the client (MCP elicitation) may wait for
    /// its answer; then the call is denied as timed out.
    pub approval_timeout: Duration,
    /// A task or terminal started by a request without a session (MCP 2026-07-28), reached
    /// only by its handle, that sees no use for this long is stopped and forgotten.
    pub handle_idle_timeout: Duration,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            max_connections: 128,
            max_sessions: 64,
            session_idle_timeout: Duration::from_secs(300),
            max_concurrent_runs: 8,
            max_queued_runs: 64,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            max_request_bytes: 4 * 1024 * 1024,
            approval_timeout: Duration::from_secs(120),
            handle_idle_timeout: Duration::from_secs(600),
        }
    }
}

/// Admits `tools/call` runs: at most `max_concurrent_runs` at once, at most
/// `max_queued_runs` waiting.
#[derive(Debug)]
pub(crate) struct RunGate {
    permits: Arc<Semaphore>,
    running: usize,
    queued: AtomicUsize,
    max_queued: usize,
}

/// Why a run was not admitted.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The queue is full.
    Busy,
    /// The caller gave up (or ptc is shutting down) while the run waited.
    Cancelled,
}

impl RunGate {
    /// A gate with the caps of `limits`.
    pub(crate) fn new(limits: &ServeLimits) -> Self {
        RunGate {
            permits: Arc::new(Semaphore::new(limits.max_concurrent_runs)),
            running: limits.max_concurrent_runs,
            queued: AtomicUsize::new(0),
            max_queued: limits.max_queued_runs,
        }
    }

    /// A slot for one run, waiting for one (until `signal` fires) when all are taken.
    pub(crate) async fn enter(
        &self,
        signal: &CancellationToken,
    ) -> Result<OwnedSemaphorePermit, Refused> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return Ok(permit);
        }
        if self.queued.fetch_add(1, Ordering::AcqRel) >= self.max_queued {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            return Err(Refused::Busy);
        }
        let outcome = tokio::select! {
            biased;
            _ = signal.cancelled() => Err(Refused::Cancelled),
            permit = self.permits.clone().acquire_owned() => permit.map_err(|_| Refused::Cancelled),
        };
        self.queued.fetch_sub(1, Ordering::AcqRel);
        outcome
    }

    /// The message a refused caller reads.
    pub(crate) fn busy_message(&self) -> String {
        format!(
            "ptc is busy: {} runs are running and {} more are waiting (max_concurrent_runs = {}, \
             max_queued_runs = {}); retry later",
            self.running, self.max_queued, self.running, self.max_queued
        )
    }

    /// Wait until every run has finished, at most `grace`.
    pub(crate) async fn drain(&self, grace: Duration) {
        let all = u32::try_from(self.running).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(grace, self.permits.acquire_many(all)).await;
    }
}
