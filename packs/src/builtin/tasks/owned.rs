//! Per-owner collections of background resources (tasks, terminals), capped per owner.
//!
//! Each owner sees only its own: every lookup is by owner id, and ids are unguessable
//! besides. When an owner ends, a watcher on the background thread kills everything it
//! owns; when the collection itself is dropped (its pack is gone), everything is killed.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::host;
use ptc::OwnerHandle;

/// Something background that an owner holds.
pub(crate) trait Resource: Send + Sync + 'static {
    /// Its id (unique, unguessable).
    fn id(&self) -> &str;
    /// Whether it is over (it may then be forgotten to make room).
    fn finished(&self) -> bool;
    /// Kill it at once: its owner ended, or its pack is gone.
    fn kill_now(&self, why: &str);
}

/// `<prefix>-<12 hex digits>`, from a process-wide keyed hash of a counter.
pub(crate) fn new_id(prefix: &str) -> String {
    static KEYS: OnceLock<RandomState> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let hash = KEYS.get_or_init(RandomState::new).hash_one(n);
    format!("{prefix}-{:012x}", hash & 0xffff_ffff_ffff)
}

struct Inner<T: Resource> {
    by_owner: Mutex<HashMap<u64, Vec<Arc<T>>>>,
}

impl<T: Resource> Drop for Inner<T> {
    fn drop(&mut self) {
        let map = std::mem::take(self.by_owner.get_mut().unwrap_or_else(|e| e.into_inner()));
        for item in map.into_values().flatten() {
            item.kill_now("its tool pack was dropped");
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
            }),
            what,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Vec<Arc<T>>>> {
        self.inner
            .by_owner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Make room for one more of `owner`'s (at most `max`): forget its oldest finished one
    /// when full; an error when all `max` are still running, or the owner has ended.
    pub(crate) fn admit(&self, owner: &OwnerHandle, max: usize) -> Result<(), String> {
        let mut map = self.lock();
        self.make_room(&mut map, owner, max)
    }

    fn make_room(
        &self,
        map: &mut HashMap<u64, Vec<Arc<T>>>,
        owner: &OwnerHandle,
        max: usize,
    ) -> Result<(), String> {
        if owner.is_ended() {
            return Err(format!(
                "the session that would own these {} has ended",
                self.what.1
            ));
        }
        let Some(items) = map.get_mut(&owner.id()) else {
            return Ok(());
        };
        while items.len() >= max {
            match items.iter().position(|t| t.finished()) {
                Some(i) => drop(items.remove(i)),
                None => {
                    return Err(format!(
                        "at most {max} {} may be open per session, and all {} are running: \
                         stop one first",
                        self.what.1,
                        items.len()
                    ))
                }
            }
        }
        Ok(())
    }

    /// Add `item` for `owner`, at most `max` (see [`Owned::admit`]). On error the caller
    /// must kill `item`.
    pub(crate) fn insert(
        &self,
        owner: &OwnerHandle,
        item: Arc<T>,
        max: usize,
    ) -> Result<(), String> {
        let mut map = self.lock();
        self.make_room(&mut map, owner, max)?;
        let fresh = !map.contains_key(&owner.id());
        map.entry(owner.id()).or_default().push(item);
        drop(map);
        if fresh {
            self.watch(owner);
        }
        Ok(())
    }

    /// Kill everything of `owner` when it ends.
    fn watch(&self, owner: &OwnerHandle) {
        let weak = Arc::downgrade(&self.inner);
        let ended = owner.ended();
        let id = owner.id();
        host::spawn(async move {
            ended.cancelled().await;
            let Some(inner) = weak.upgrade() else { return };
            let items = inner
                .by_owner
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            for item in items.into_iter().flatten() {
                item.kill_now("its session ended");
            }
        });
    }

    /// `owner`'s resource `id`.
    pub(crate) fn get(&self, owner: &OwnerHandle, id: &str) -> Option<Arc<T>> {
        let map = self.lock();
        map.get(&owner.id())?.iter().find(|t| t.id() == id).cloned()
    }

    /// `owner`'s resources, oldest first.
    pub(crate) fn list(&self, owner: &OwnerHandle) -> Vec<Arc<T>> {
        self.lock().get(&owner.id()).cloned().unwrap_or_default()
    }

    /// Forget `owner`'s resource `id` (it is not killed).
    pub(crate) fn remove(&self, owner: &OwnerHandle, id: &str) -> Option<Arc<T>> {
        let mut map = self.lock();
        let items = map.get_mut(&owner.id())?;
        let i = items.iter().position(|t| t.id() == id)?;
        Some(items.remove(i))
    }

    /// The error for an id that `owner` does not have.
    pub(crate) fn unknown(&self, id: &str, lister: &str) -> String {
        format!(
            "no {} has the id `{id}` in this session (`{lister}` lists yours)",
            self.what.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::new_id;

    #[test]
    fn ids_are_distinct_and_shaped() {
        let (a, b) = (new_id("task"), new_id("task"));
        assert_ne!(a, b);
        assert_eq!(a.len(), "task-".len() + 12);
    }
}
