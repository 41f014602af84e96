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
}

impl FailureKind {
    /// The stable string form: `"syntax"`, `"exception"`, `"timeout"`, `"memory"`,
    /// `"output-limit"`, `"invalid-output"`, `"call-limit"` or `"aborted"`.
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
