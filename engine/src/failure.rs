//! Why a run failed: a closed set of kinds plus a human-readable message.

use std::fmt;

/// The kind of a failed run. Each kind has a stable string form ([`FailureKind::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The TypeScript could not be stripped or the JavaScript did not parse.
    Syntax,
    /// The program threw (or rejected) and nothing caught it.
    Exception,
    /// The wall-clock limit passed (a hot loop, or a wait that never ended).
    Timeout,
    /// The heap cap was reached.
    Memory,
    /// Console output plus the returned value exceeded the output limit.
    OutputLimit,
    /// The returned value is not strict JSON.
    InvalidOutput,
    /// The host refused a tool call because a call cap was reached.
    CallLimit,
    /// The run was cancelled from outside.
    Aborted,
    /// A replayed run went another way than its recording (see [`Deliveries`](crate::Deliveries)).
    Nondeterminism,
}

impl FailureKind {
    /// The stable string form: `"syntax"`, `"exception"`, `"timeout"`, `"memory"`,
    /// `"output-limit"`, `"invalid-output"`, `"call-limit"`, `"aborted"` or `"nondeterminism"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            FailureKind::Syntax => "syntax",
            FailureKind::Exception => "exception",
            FailureKind::Timeout => "timeout",
            FailureKind::Memory => "memory",
            FailureKind::OutputLimit => "output-limit",
            FailureKind::InvalidOutput => "invalid-output",
            FailureKind::CallLimit => "call-limit",
            FailureKind::Aborted => "aborted",
            FailureKind::Nondeterminism => "nondeterminism",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed run: its kind and a message meant for the model (positions point into the user's code).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct RunFailure {
    /// What went wrong.
    pub kind: FailureKind,
    /// Details, e.g. `"3:7 enum is not supported"` or an exception with its stack.
    pub message: String,
}

impl RunFailure {
    /// A failure of `kind` with `message`.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        RunFailure {
            kind,
            message: message.into(),
        }
    }
}

/// The failures every backend reports the same way.
impl RunFailure {
    /// The run was cancelled from outside.
    pub(crate) fn aborted() -> Self {
        RunFailure::new(FailureKind::Aborted, "the run was cancelled")
    }

    /// The wall clock passed `wall_clock`.
    pub(crate) fn timed_out(wall_clock: std::time::Duration) -> Self {
        RunFailure::new(
            FailureKind::Timeout,
            format!("the run exceeded its wall-clock limit of {wall_clock:?}"),
        )
    }

    /// The heap cap of `limit` bytes was reached.
    pub(crate) fn heap_exceeded(limit: usize) -> Self {
        RunFailure::new(
            FailureKind::Memory,
            format!(
                "the program exceeded its heap limit of {}",
                crate::limits::bytes(limit)
            ),
        )
    }

    /// The program awaits a promise while no host call is pending.
    pub(crate) fn never_settles() -> Self {
        RunFailure::new(
            FailureKind::Exception,
            "the program is waiting on a promise that can never settle (no tool call is pending)",
        )
    }

    /// The returned value is not JSON.
    pub(crate) fn not_json(detail: impl fmt::Display) -> Self {
        RunFailure::new(
            FailureKind::InvalidOutput,
            format!("the returned value is not JSON: {detail}"),
        )
    }

    /// The sandbox itself failed (an engine error, not the program's).
    pub(crate) fn engine(what: impl fmt::Display) -> Self {
        RunFailure::new(FailureKind::Exception, what.to_string())
    }
}

/// The outcome a run reports: a recorded stop decides (e.g. a heap cap hit and caught), and so
/// does cancellation when the run failed anyway (cancelled calls reject, and the program may have
/// thrown one of those rejections before the engine saw the token).
pub(crate) fn decide<T>(
    outcome: Result<T, RunFailure>,
    stop: Option<&RunFailure>,
    cancelled: bool,
) -> Result<T, RunFailure> {
    match (stop, &outcome) {
        (Some(failure), _) => Err(failure.clone()),
        (None, Err(_)) if cancelled => Err(RunFailure::aborted()),
        _ => outcome,
    }
}
