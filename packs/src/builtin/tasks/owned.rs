//! Per-owner collections of background resources (tasks, terminals), capped per owner.
//!
//! Each owner sees only its own: every lookup is by owner id, and ids are handles besides:
//! `<prefix>-<32 hex digits>` (128 bits from the OS), then `@<instance>` when the owner's
//! [`Holding`](ptc::Holding) names one, so a handle used on another instance of a server is
//! told where it lives. When an owner ends, a watcher on the background thread kills
//! everything it owns; when the collection itself is dropped (its pack is gone), everything
//! is killed.
//!
//! A **shared** owner (requests without a session, see [`ptc::Holding::shared_idle`]) lists
//! to each request only what its own run started (others are reached by their handle), and
//! its watcher reaps what has not been used for the idle lifetime, remembering the reaped
//! ids so that a late use hears "has expired".

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::host;
use crate::builtin::background::Caller;
use ptc::OwnerHandle;

/// Something background that an owner holds.
pub(crate) trait Resource: Send + Sync + 'static {
    /// Its id (unique, unguessable).
    fn id(&self) -> &str;
    /// Whether it is over (it may then be forgotten to make room).
    fn finished(&self) -> bool;
    /// Kill it at once: its owner ended, or its pack is gone.
    fn kill_now(&self, why: &str);
    /// What it is, for a host told that its owner's end stopped it: `background task <id>
    /// (<description>)`.
    fn label(&self) -> String;
}

/// A new handle for `owner`'s work: `<prefix>-<32 hex>` and `@<instance>` if it has one.
pub(crate) fn new_id(prefix: &str, owner: &OwnerHandle) -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness (never seen on Linux): a keyed hash of a counter and the time.
        let seed = format!("{:?}{}", Instant::now(), owner.id());
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let h = std::hash::BuildHasher::hash_one(
                &std::collections::hash_map::RandomState::new(),
                (&seed, i),
            );
            chunk.copy_from_slice(&h.to_le_bytes());
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    match &owner.holding().instance {
        Some(instance) => format!("{prefix}-{hex}@{instance}"),
        None => format!("{prefix}-{hex}"),
    }
}

/// How many reaped ids a collection remembers, to say "has expired" rather than "unknown".
const REMEMBERED_EXPIRED: usize = 4096;

/// One held resource: what run started it, and when it was last used.
struct Entry<T> {
    item: Arc<T>,
    root: Arc<str>,
    used: Mutex<Instant>,
}

impl<T> Entry<T> {
    fn touch(&self) {
        *self.used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn idle(&self, now: Instant) -> Duration {
        now.saturating_duration_since(*self.used.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Ids forgotten by the collection itself, and why: reaped when idle, or evicted to make
/// room for another run's work (a shared owner only).
#[derive(Default)]
struct Expired {
    order: VecDeque<String>,
    ids: HashMap<String, Forgotten>,
}

#[derive(Clone, Copy)]
enum Forgotten {
    Idle,
    Evicted,
}

impl Expired {
    fn remember(&mut self, id: String, why: Forgotten) {
        if self.ids.insert(id.clone(), why).is_none() {
            self.order.push_back(id);
        }
        while self.order.len() > REMEMBERED_EXPIRED {
            if let Some(old) = self.order.pop_front() {
                self.ids.remove(&old);
            }
        }
    }
}

struct Inner<T: Resource> {
    by_owner: Mutex<HashMap<u64, Vec<Entry<T>>>>,
    expired: Mutex<Expired>,
}

impl<T: Resource> Drop for Inner<T> {
    fn drop(&mut self) {
        let map = std::mem::take(self.by_owner.get_mut().unwrap_or_else(|e| e.into_inner()));
        for entry in map.into_values().flatten() {
            entry.item.kill_now("its tool pack was dropped");
        }
    }
}

/// Resources by owner, in the order they started. Cloning shares the collection.
pub(crate) struct Owned<T: Resource> {
    inner: Arc<Inner<T>>,
    /// What resources are called in messages: one, many ("terminal", "terminals").
    what: (&'static str, &'static str),
}

impl<T: Resource> Clone for Owned<T> {
    fn clone(&self) -> Self {
        Owned {
            inner: self.inner.clone(),
            what: self.what,
        }
    }
}

impl<T: Resource> Owned<T> {
    /// An empty collection of `what` (one, many).
    pub(crate) fn new(what: (&'static str, &'static str)) -> Self {
        Owned {
            inner: Arc::new(Inner {
                by_owner: Mutex::new(HashMap::new()),
                expired: Mutex::default(),
            }),
            what,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Vec<Entry<T>>>> {
        self.inner
            .by_owner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Make room for one more of the caller's owner's (at most `max`): forget its oldest
    /// finished one when full; an error when all `max` are still running, or the owner has
    /// ended.
    pub(crate) fn admit(&self, caller: &Caller, max: usize) -> Result<(), String> {
        let mut map = self.lock();
        self.make_room(&mut map, caller, max)
    }

    fn make_room(
        &self,
        map: &mut HashMap<u64, Vec<Entry<T>>>,
        caller: &Caller,
        max: usize,
    ) -> Result<(), String> {
        let owner = &caller.owner;
        if owner.is_ended() {
            return Err(format!(
                "the session that would own these {} has ended",
                self.what.1
            ));
        }
        let Some(items) = map.get_mut(&owner.id()) else {
            return Ok(());
        };
        let per = match owner.holding().shared_idle {
            Some(_) => "on this instance for requests without a session",
            None => "per session",
        };
        while items.len() >= max {
            // A shared owner forgets the caller's own run's finished work first; another
            // run's is remembered as evicted, so its holder hears why it is gone.
            let own = items
                .iter()
                .position(|e| e.item.finished() && e.root == caller.root);
            match own.or_else(|| items.iter().position(|e| e.item.finished())) {
                Some(i) => {
                    let gone = items.remove(i);
                    if gone.root != caller.root && owner.holding().shared_idle.is_some() {
                        let mut expired =
                            self.inner.expired.lock().unwrap_or_else(|e| e.into_inner());
                        expired.remember(gone.item.id().to_string(), Forgotten::Evicted);
                    }
                }
                None => {
                    return Err(format!(
                        "at most {max} {} may be open {per}, and all {} are running: \
                         stop one first",
                        self.what.1,
                        items.len()
                    ))
                }
            }
        }
        Ok(())
    }

    /// Add `item` for the caller's owner, started by the caller's run, at most `max` (see
    /// [`Owned::admit`]). On error the caller must kill `item`.
    pub(crate) fn insert(&self, caller: &Caller, item: Arc<T>, max: usize) -> Result<(), String> {
        let owner = &caller.owner;
        let mut map = self.lock();
        self.make_room(&mut map, caller, max)?;
        let fresh = !map.contains_key(&owner.id());
        map.entry(owner.id()).or_default().push(Entry {
            item,
            root: caller.root.clone(),
            used: Mutex::new(Instant::now()),
        });
        drop(map);
        if fresh {
            self.watch(owner);
        }
        Ok(())
    }

    /// Kill everything of `owner` when it ends; for a shared owner, also reap what idles
    /// past its lifetime.
    fn watch(&self, owner: &OwnerHandle) {
        let weak = Arc::downgrade(&self.inner);
        let ended = owner.ended();
        let id = owner.id();
        let idle = owner.holding().shared_idle;
        let handle = owner.clone();
        let what = self.what.0;
        host::spawn(async move {
            if let Some(idle) = idle {
                let tick = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
                loop {
                    tokio::select! {
                        _ = ended.cancelled() => break,
                        _ = tokio::time::sleep(tick) => {}
                    }
                    let Some(inner) = weak.upgrade() else { return };
                    reap_idle(&inner, id, idle, what);
                }
            } else {
                ended.cancelled().await;
            }
            let Some(inner) = weak.upgrade() else { return };
            let items = inner
                .by_owner
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            for entry in items.into_iter().flatten() {
                if !entry.item.finished() {
                    handle.stopped_at_end(entry.item.label());
                }
                entry.item.kill_now("its session ended");
            }
        });
    }

    /// The caller's resource `id` (marked used), or why there is none: it lives on another
    /// instance, it expired, or the caller has no such resource.
    pub(crate) fn get(&self, caller: &Caller, id: &str, lister: &str) -> Result<Arc<T>, String> {
        let owner = &caller.owner;
        let map = self.lock();
        let found = map
            .get(&owner.id())
            .and_then(|items| items.iter().find(|e| e.item.id() == id));
        if let Some(entry) = found {
            entry.touch();
            return Ok(entry.item.clone());
        }
        drop(map);
        Err(self.unknown(owner, id, lister))
    }

    /// The caller's resources, oldest first: all of a session's; of a shared owner, those
    /// the caller's run started.
    pub(crate) fn list(&self, caller: &Caller) -> Vec<Arc<T>> {
        let shared = caller.owner.holding().shared_idle.is_some();
        self.lock()
            .get(&caller.owner.id())
            .map(|items| {
                items
                    .iter()
                    .filter(|e| !shared || e.root == caller.root)
                    .map(|e| e.item.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// What a list for the caller leaves out, said to the model: for a shared owner, the
    /// work other runs started (`reach` names the tools that take an id).
    pub(crate) fn scope_note(&self, caller: &Caller, reach: &str) -> Option<String> {
        caller.owner.holding().shared_idle?;
        let here = caller.owner.holding().instance.as_deref().unwrap_or("this");
        Some(format!(
            "Only {} this run started are listed: a request without a session (MCP \
             2026-07-28) sees no others. One an earlier run started is reached by the id that \
             run returned ({reach}), on instance {here}.",
            self.what.1
        ))
    }

    /// Every resource of `owner`, oldest first (what a host inspecting it sees).
    pub(crate) fn all_of(&self, owner: &OwnerHandle) -> Vec<Arc<T>> {
        self.lock()
            .get(&owner.id())
            .map(|items| items.iter().map(|e| e.item.clone()).collect())
            .unwrap_or_default()
    }

    /// Forget the caller's resource `id` (it is not killed).
    pub(crate) fn remove(&self, caller: &Caller, id: &str) -> Option<Arc<T>> {
        let mut map = self.lock();
        let items = map.get_mut(&caller.owner.id())?;
        let i = items.iter().position(|e| e.item.id() == id)?;
        Some(items.remove(i).item)
    }

    /// The error for an id that `owner` does not have.
    fn unknown(&self, owner: &OwnerHandle, id: &str, lister: &str) -> String {
        let what = self.what.0;
        let here = owner.holding().instance.as_deref();
        let there = id.rsplit_once('@').map(|(_, i)| i);
        if let (Some(here), Some(there)) = (here, there) {
            if here != there {
                return format!(
                    "{what} `{id}` lives on instance {there}; this request reached {here} \
                     (send the request with it as `route`, or the header Mcp-Param-Ptc-Route, \
                     so that it reaches {there})"
                );
            }
        }
        let forgotten = self
            .inner
            .expired
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .ids
            .get(id)
            .copied();
        match forgotten {
            Some(Forgotten::Idle) => {
                let idle = owner.holding().shared_idle.unwrap_or_default();
                return format!(
                    "{what} `{id}` has expired: it was not used for {} s, so it was stopped \
                     and forgotten",
                    idle.as_secs()
                );
            }
            Some(Forgotten::Evicted) => {
                return format!(
                    "{what} `{id}` had finished and was forgotten to make room for another \
                     run's (the cap holds per instance for requests without a session); its \
                     output is gone"
                )
            }
            None => {}
        }
        match (owner.holding().shared_idle, here) {
            (Some(_), Some(here)) => format!(
                "no {what} has the id `{id}` on instance {here} (a {what} is reached by the \
                 exact id its start returned; `{lister}` lists those this run started)"
            ),
            _ => format!("no {what} has the id `{id}` in this session (`{lister}` lists yours)"),
        }
    }
}

/// Kill and forget `owner`'s resources unused for `idle`, remembering their ids.
fn reap_idle<T: Resource>(inner: &Inner<T>, owner: u64, idle: Duration, what: &str) {
    let now = Instant::now();
    let reaped: Vec<Entry<T>> = {
        let mut map = inner.by_owner.lock().unwrap_or_else(|e| e.into_inner());
        let Some(items) = map.get_mut(&owner) else {
            return;
        };
        let (old, keep) = std::mem::take(items)
            .into_iter()
            .partition(|e| e.idle(now) >= idle);
        *items = keep;
        old
    };
    if reaped.is_empty() {
        return;
    }
    let mut expired = inner.expired.lock().unwrap_or_else(|e| e.into_inner());
    for entry in reaped {
        entry.item.kill_now(&format!(
            "the {what} was not used for {} s (its idle lifetime)",
            idle.as_secs()
        ));
        expired.remember(entry.item.id().to_string(), Forgotten::Idle);
    }
}

#[cfg(test)]
mod tests {
    use super::new_id;
    use ptc::{Holding, Owner};

    #[test]
    fn ids_are_128_bit_handles_naming_the_instance() {
        let plain = Owner::new("t").handle();
        let (a, b) = (new_id("task", &plain), new_id("task", &plain));
        assert_ne!(a, b);
        assert_eq!(a.len(), "task-".len() + 32);
        let held = Owner::holding(
            "t",
            Holding {
                instance: Some("i2".into()),
                shared_idle: None,
            },
        )
        .handle();
        let c = new_id("term", &held);
        assert!(c.starts_with("term-") && c.ends_with("@i2"), "{c}");
    }
}
