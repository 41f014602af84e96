//! The interception points around every call: three waterfalls
//! ([`pre_execute`], [`execute`], [`post_execute`]), monotonic [`guard`]s and
//! `tools/result` observers ([`observer`]), and the code-mode `tools/ptc-dispatch-log`
//! waterfall ([`dispatch_log`]).
//!
//! A waterfall listener receives the execution and a consuming `Next`; calling
//! `next.run(..)` delegates to the rest of the chain, returning without calling it
//! short-circuits. Listeners may be scoped to one agent: they then see only that
//! agent's calls. Listeners run in registration order (first registered = outermost).

pub mod dispatch_log;
pub mod execute;
pub mod guard;
pub mod observer;
pub mod post_execute;
pub mod pre_execute;
mod waterfall;

pub(crate) use waterfall::chain;
pub use waterfall::Next;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

static NEXT_LISTENER: AtomicU64 = AtomicU64::new(1);

/// One registered listener and the scope it is limited to.
pub(crate) struct Listener<T: ?Sized> {
    id: u64,
    pub(crate) scope: Option<u64>,
    pub(crate) hook: Arc<T>,
}

impl<T: ?Sized> Clone for Listener<T> {
    fn clone(&self) -> Self {
        Listener {
            id: self.id,
            scope: self.scope,
            hook: self.hook.clone(),
        }
    }
}

impl<T: ?Sized> Listener<T> {
    /// Whether this listener sees a call made in `scope`.
    pub(crate) fn applies_to(&self, scope: Option<u64>) -> bool {
        self.scope.is_none() || self.scope == scope
    }
}

/// A copy-on-write list of listeners; each call takes a cheap snapshot.
pub(crate) struct HookList<T: ?Sized> {
    inner: RwLock<Arc<[Listener<T>]>>,
}

impl<T: ?Sized> Default for HookList<T> {
    fn default() -> Self {
        HookList {
            inner: RwLock::new(Arc::from(Vec::new())),
        }
    }
}

impl<T: ?Sized> HookList<T> {
    pub(crate) fn snapshot(&self) -> Arc<[Listener<T>]> {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn add(&self, scope: Option<u64>, hook: Arc<T>) -> u64 {
        let id = NEXT_LISTENER.fetch_add(1, Ordering::Relaxed);
        let mut guard = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let mut list: Vec<Listener<T>> = guard.iter().cloned().collect();
        list.push(Listener { id, scope, hook });
        *guard = Arc::from(list);
        id
    }

    pub(crate) fn remove(&self, id: u64) {
        let mut guard = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let list: Vec<Listener<T>> = guard.iter().filter(|l| l.id != id).cloned().collect();
        *guard = Arc::from(list);
    }
}

/// Index of the next listener at or after `from` that applies to `scope`.
pub(crate) fn next_applicable<T: ?Sized>(
    list: &[Listener<T>],
    from: usize,
    scope: Option<u64>,
) -> Option<usize> {
    (from..list.len()).find(|&i| list[i].applies_to(scope))
}

/// Every per-call listener of one registry, snapshotted once per call.
#[derive(Default, Clone)]
pub(crate) struct HookSet {
    pub(crate) pre_execute: Vec<Listener<dyn pre_execute::PreExecute>>,
    pub(crate) execute: Vec<Listener<dyn execute::ExecuteHook>>,
    pub(crate) post_execute: Vec<Listener<dyn post_execute::PostExecute>>,
    pub(crate) result: Vec<Listener<dyn observer::ResultObserver>>,
    pub(crate) guards: Vec<Listener<dyn guard::ToolGuard>>,
    pub(crate) ptc_dispatch_log: Vec<Listener<dyn dispatch_log::PtcDispatchLogHook>>,
}

/// Selects one list of a [`HookSet`].
pub(crate) type ListOf<T> = fn(&mut HookSet) -> &mut Vec<Listener<T>>;

/// The registry's hooks: a copy-on-write [`HookSet`].
#[derive(Default)]
pub(crate) struct Hooks {
    set: RwLock<Arc<HookSet>>,
}

impl Hooks {
    /// The current listeners; cheap (one lock read and an `Arc` clone).
    pub(crate) fn snapshot(&self) -> Arc<HookSet> {
        self.set.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn add<T: ?Sized>(&self, list: ListOf<T>, scope: Option<u64>, hook: Arc<T>) -> u64 {
        let id = NEXT_LISTENER.fetch_add(1, Ordering::Relaxed);
        let mut guard = self.set.write().unwrap_or_else(|e| e.into_inner());
        let mut set = HookSet::clone(&guard);
        list(&mut set).push(Listener { id, scope, hook });
        *guard = Arc::new(set);
        id
    }

    pub(crate) fn remove<T: ?Sized>(&self, list: ListOf<T>, id: u64) {
        let mut guard = self.set.write().unwrap_or_else(|e| e.into_inner());
        let mut set = HookSet::clone(&guard);
        list(&mut set).retain(|l| l.id != id);
        *guard = Arc::new(set);
    }
}
