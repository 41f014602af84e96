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

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;
use tokio_util::task::TaskTracker;

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

impl Owner {
    /// A new owner, `name` for messages and logs (e.g. `"mcp-session"`).
    pub fn new(name: impl Into<String>) -> Self {
        Owner(Arc::new(OwnerInner {
            name: name.into(),
            handle: OwnerHandle {
                id: NEXT_OWNER.fetch_add(1, Ordering::Relaxed),
                ended: CancellationToken::new(),
                live: TaskTracker::new(),
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
}

impl OwnerHandle {
    /// The owner's id.
    pub fn id(&self) -> u64 {
        self.id
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
