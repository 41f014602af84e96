//! Owners: who the work that outlives a call belongs to (background tasks, terminals).
//!
//! An [`Owner`] is one session of a host: the `ptc run` process, one MCP session of
//! `ptc serve`, or whatever a library host decides. The host attaches it to the calling
//! [`Agent`](crate::Agent) ([`Agent::with_owner`](crate::Agent::with_owner)); `run_code`
//! sub-calls carry their program's agent, so a program's background work belongs to the
//! outer call's owner and the next run of the same session can read it.
//!
//! An owner ends when [`Owner::end`] (or [`Owner::close`]) is called, or when its last clone
//! is dropped; then everything it owns is killed. Stores keep only an [`OwnerHandle`] (never
//! an `Owner`), so they never keep an owner alive.
//!
//! [`Holding`] says where the work lives and how it is reached: the instance of a server
//! that runs as several instances (the ids of its work name it), and whether the owner
//! stands for one session or is **shared** by requests that carry no session (MCP
//! 2026-07-28): then an id is a capability handle (whoever holds it may use it), a
//! request lists only the work its own run started, and work left idle longer than the
//! owner's idle lifetime is reaped.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;
use tokio_util::task::TaskTracker;

/// SEP-2243's `x-mcp-header` name of every parameter that carries a handle (and of
/// `run_code`'s `route`): a 2026-07-28 client sends it as `Mcp-Param-Ptc-Route`, and a load
/// balancer routes on the `@<instance>` it ends with.
pub const ROUTE_HEADER: &str = "Ptc-Route";

static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// One owner of background work. Cloning shares it; equality is identity.
#[derive(Clone)]
pub struct Owner(Arc<OwnerInner>);

struct OwnerInner {
    name: String,
    handle: OwnerHandle,
}

impl Drop for OwnerInner {
    fn drop(&mut self) {
        self.handle.end();
    }
}

/// Where an owner's work lives and how it is reached (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holding {
    /// The server instance that holds the work; the ids of its work end in `@<instance>`.
    pub instance: Option<Arc<str>>,
    /// `Some(idle)`: the owner is shared by requests without a session; its work is reached
    /// by handle, listed per run, and reaped after `idle` without use.
    pub shared_idle: Option<Duration>,
}

impl Owner {
    /// A new owner, `name` for messages and logs (e.g. `"mcp-session"`).
    pub fn new(name: impl Into<String>) -> Self {
        Owner::holding(name, Holding::default())
    }

    /// A new owner whose work lives and is reached as `holding` says.
    pub fn holding(name: impl Into<String>, holding: Holding) -> Self {
        Owner(Arc::new(OwnerInner {
            name: name.into(),
            handle: OwnerHandle {
                id: NEXT_OWNER.fetch_add(1, Ordering::Relaxed),
                ended: CancellationToken::new(),
                live: TaskTracker::new(),
                holding: Arc::new(holding),
                stopped: Arc::default(),
            },
        }))
    }

    /// A process-unique id.
    pub fn id(&self) -> u64 {
        self.0.handle.id
    }

    /// The name given at creation.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// End the owner now: everything it owns is killed (in the background), and nothing new
    /// may start for it.
    pub fn end(&self) {
        self.0.handle.end();
    }

    /// Whether the owner has ended.
    pub fn is_ended(&self) -> bool {
        self.0.handle.is_ended()
    }

    /// End the owner and wait until every process it owned is gone.
    pub async fn close(&self) {
        self.0.handle.close().await;
    }

    /// What ending the owner stopped while it was still running (e.g. `background task
    /// task-… (Start the dev server)`), in the order it was stopped; complete once
    /// [`Owner::close`] has returned. A host says so (`ptc run` prints it), since what was
    /// stopped never finished.
    pub fn stopped(&self) -> Vec<String> {
        self.0
            .handle
            .stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// What stores keep: the id and the end signal, without keeping the owner alive.
    pub fn handle(&self) -> OwnerHandle {
        self.0.handle.clone()
    }
}

impl PartialEq for Owner {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}
impl Eq for Owner {}

impl fmt::Debug for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Owner({}#{})", self.0.name, self.id())
    }
}

/// An owner as a store sees it: its id, its end, and a count of what it still holds.
#[derive(Clone)]
pub struct OwnerHandle {
    id: u64,
    ended: CancellationToken,
    live: TaskTracker,
    holding: Arc<Holding>,
    /// What ending the owner stopped while it ran (see [`Owner::stopped`]).
    stopped: Arc<Mutex<Vec<String>>>,
}

impl OwnerHandle {
    /// The owner's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Where its work lives and how it is reached.
    pub fn holding(&self) -> &Holding {
        &self.holding
    }

    /// End the owner (see [`Owner::end`]).
    pub fn end(&self) {
        self.ended.cancel();
        self.live.close();
    }

    /// Whether the owner has ended.
    pub fn is_ended(&self) -> bool {
        self.ended.is_cancelled()
    }

    /// Fires when the owner ends.
    pub fn ended(&self) -> CancellationToken {
        self.ended.clone()
    }

    /// End the owner and wait until every [`OwnerHandle::hold`] is released.
    pub async fn close(&self) {
        self.end();
        self.live.wait().await;
    }

    /// Record that ending the owner stopped `what` while it was still running (see
    /// [`Owner::stopped`]); a store calls it before it kills `what`.
    pub fn stopped_at_end(&self, what: impl Into<String>) {
        self.stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(what.into());
    }

    /// Count something as still held by the owner until the token is dropped ([`Owner::close`]
    /// waits for it).
    pub fn hold(&self) -> TaskTrackerToken {
        self.live.token()
    }
}

impl fmt::Debug for OwnerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OwnerHandle(#{}, ended: {})", self.id, self.is_ended())
    }
}
