//! A per-scope setting with a deployment default: the nearest scope wins, and within
//! one scope the latest value wins. Used for executor selection and modes.

use std::sync::RwLock;

use crate::scope::ScopeKey;

struct Entry<T> {
    id: u64,
    scope: Option<u64>,
    value: T,
}

/// Values provided per scope (or for the deployment, `None`).
pub(crate) struct ScopedSetting<T> {
    entries: RwLock<Vec<Entry<T>>>,
}

impl<T> Default for ScopedSetting<T> {
    fn default() -> Self {
        ScopedSetting {
            entries: RwLock::new(Vec::new()),
        }
    }
}

impl<T: Clone> ScopedSetting<T> {
    pub(crate) fn provide(&self, id: u64, scope: Option<u64>, value: T) {
        self.entries
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Entry { id, scope, value });
    }

    pub(crate) fn withdraw(&self, id: u64) {
        self.entries
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|e| e.id != id);
    }

    /// The nearest scope's latest value, else the deployment's latest.
    pub(crate) fn resolve(&self, scope: Option<&ScopeKey>) -> Option<T> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let find = |sid: Option<u64>| {
            entries
                .iter()
                .rev()
                .find(|e| e.scope == sid)
                .map(|e| e.value.clone())
        };
        scope
            .into_iter()
            .flat_map(ScopeKey::chain)
            .find_map(|s| find(Some(s.id())))
            .or_else(|| find(None))
    }
}
