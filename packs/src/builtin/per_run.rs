//! What a tool remembers per `run_code` run (what `read` showed, what `grep`'s pages saw): the
//! last [`MAX_RUNS`] runs, the oldest forgotten first, so a long-lived deployment stays bounded.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

/// Runs remembered (the oldest is forgotten first).
pub const MAX_RUNS: usize = 32;

/// A `V` per recent run.
pub(crate) struct PerRun<V> {
    /// The runs oldest first, and each one's `V`.
    runs: Mutex<(VecDeque<String>, HashMap<String, V>)>,
}

impl<V> Default for PerRun<V> {
    fn default() -> Self {
        PerRun {
            runs: Mutex::new((VecDeque::new(), HashMap::new())),
        }
    }
}

impl<V: Default> PerRun<V> {
    fn lock(&self) -> MutexGuard<'_, (VecDeque<String>, HashMap<String, V>)> {
        self.runs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `change` run `run`'s `V` (made, and the oldest run forgotten, when it is new).
    pub(crate) fn update<R>(&self, run: &str, change: impl FnOnce(&mut V) -> R) -> R {
        let mut guard = self.lock();
        let (order, runs) = &mut *guard;
        if !runs.contains_key(run) {
            if order.len() >= MAX_RUNS {
                if let Some(old) = order.pop_front() {
                    runs.remove(&old);
                }
            }
            order.push_back(run.to_string());
        }
        change(runs.entry(run.to_string()).or_default())
    }

    /// `look` at run `run`'s `V`, if it is remembered (without remembering it).
    pub(crate) fn get<R>(&self, run: &str, look: impl FnOnce(Option<&mut V>) -> R) -> R {
        look(self.lock().1.get_mut(run))
    }

    /// How many runs are remembered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().1.len()
    }
}
