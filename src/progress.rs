//! Progress of a running call, relayed to whoever waits for it.
//!
//! A host that can show progress (`ptc serve`, for a client that sent a `progressToken`)
//! attaches a [`ProgressSink`] to the calling [`Agent`](crate::Agent)
//! ([`Agent::with_progress`](crate::Agent::with_progress)). `run_code` sub-calls carry
//! their program's agent, so a tool reporting progress inside a program reaches the
//! party waiting for the program.

use futures::future::BoxFuture;

use crate::execution::ToolExecution;

/// One progress report: MCP's `notifications/progress` fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far the work is (increases with every report of one call).
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// A human-readable note.
    pub message: Option<String>,
}

/// Receives the progress of the calls of one root call.
pub trait ProgressSink: Send + Sync + 'static {
    /// Report `progress` of `call` (the root call or one of its sub-calls). The returned
    /// future completes once the report is handed on, so reports keep their order.
    fn report(&self, call: &ToolExecution, progress: Progress) -> BoxFuture<'static, ()>;
}
