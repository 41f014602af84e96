//! QuickJS's rejection tracker: which failed tool calls the program never handled.

use std::sync::{Arc, Mutex};

use crate::left::LeftBehind;

/// Failed tool calls whose promises nobody has handled yet, keyed by promise identity.
///
/// A backend records a call's promise just before rejecting it ([`Unhandled::expect`]); its
/// rejection tracker then says whether a handler existed, and later whether one was added.
#[derive(Debug, Default, Clone)]
pub(crate) struct Unhandled {
    inner: Arc<Mutex<UnhandledState>>,
}

#[derive(Debug, Default)]
struct UnhandledState {
    expecting: Option<(usize, LeftBehind)>,
    unhandled: Vec<(usize, LeftBehind)>,
}

impl Unhandled {
    fn state(&self) -> std::sync::MutexGuard<'_, UnhandledState> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The promise `id` is about to be rejected for `call`.
    pub(crate) fn expect(&self, id: usize, call: LeftBehind) {
        self.state().expecting = Some((id, call));
    }

    /// The engine's tracker: promise `id` was rejected without a handler (`handled` false), or
    /// a handler was added to it later (`handled` true).
    pub(crate) fn track(&self, id: usize, handled: bool) {
        let mut state = self.state();
        if handled {
            state.unhandled.retain(|(p, _)| *p != id);
        } else if state.expecting.as_ref().is_some_and(|(p, _)| *p == id) {
            let expected = state.expecting.take().expect("just checked");
            state.unhandled.push(expected);
        }
    }

    /// The rejection of the promise expected last is over (handled or not).
    pub(crate) fn done(&self) {
        self.state().expecting = None;
    }

    /// The failed calls still unhandled, in the order they failed.
    pub(crate) fn take(&self) -> Vec<LeftBehind> {
        std::mem::take(&mut self.state().unhandled)
            .into_iter()
            .map(|(_, call)| call)
            .collect()
    }
}
