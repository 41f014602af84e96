//! The first fatal failure of a run: recorded once, from any thread, and read by the engine's loop.

use std::sync::OnceLock;

use crate::RunFailure;

/// Why a run must stop, if it must: the first recorded failure wins.
///
/// Interrupt handlers, allocators, host functions, timers and cancellation all record here;
/// each backend checks it at its own safe points (and may also interrupt the program).
#[derive(Debug, Default)]
pub(crate) struct Stop {
    failure: OnceLock<RunFailure>,
}

impl Stop {
    /// Record `failure` unless an earlier one is recorded; `true` when this one was recorded.
    pub(crate) fn fail(&self, failure: RunFailure) -> bool {
        self.failure.set(failure).is_ok()
    }

    /// The recorded failure, if any.
    pub(crate) fn failure(&self) -> Option<&RunFailure> {
        self.failure.get()
    }
}
