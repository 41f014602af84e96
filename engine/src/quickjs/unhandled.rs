//! QuickJS's rejection tracker: which failed tool calls, and which other promises, the
//! program never handled.

use std::sync::{Arc, Mutex};

use rquickjs::{convert::Coerced, Object, Value};

use crate::left::{parse_site, Left, LeftBehind};

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
    /// a handler was added to it later (`handled` true). `reason` describes a rejection that
    /// is not a tool call's (`Name: message`).
    pub(crate) fn track(&self, id: usize, handled: bool, reason: impl FnOnce() -> LeftBehind) {
        let mut state = self.state();
        if handled {
            state.unhandled.retain(|(p, _)| *p != id);
        } else if state.expecting.as_ref().is_some_and(|(p, _)| *p == id) {
            let expected = state.expecting.take().expect("just checked");
            state.unhandled.push(expected);
        } else if state.expecting.is_none() {
            drop(state);
            let call = reason();
            self.state().unhandled.push((id, call));
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

/// What an unhandled rejection with `reason` left behind: a failed tool call, for a
/// `ToolCallError` (one a `.then` passed on, say), else the rejection as `Name: message`.
/// Reading the reason may run the program's getters: the run's interrupts still apply, and
/// a getter that throws reads as absent.
pub(crate) fn describe_rejection(reason: &Value<'_>) -> LeftBehind {
    let Some(error) = reason.as_object() else {
        // A primitive: its string form (ToString runs no program code on primitives).
        let text = reason.get::<Coerced<String>>().map(|c| c.0);
        return LeftBehind::rejection(text.unwrap_or_else(|_| reason.type_name().to_string()));
    };
    let read = |key: &str| -> Option<String> { Object::get::<_, Option<String>>(error, key).ok()? };
    let message = read("message").unwrap_or_default();
    match read("name").as_deref() {
        Some("ToolCallError") => LeftBehind {
            tool: read("toolName").unwrap_or_default(),
            site: read("callSite").as_deref().and_then(parse_site),
            left: Left::Failed(message),
            subject: None,
        },
        Some(name) => LeftBehind::rejection(format!("{name}: {message}")),
        None => LeftBehind::rejection(message),
    }
}
