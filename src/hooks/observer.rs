//! `tools/result`: observers of the frozen final execution and result.

use std::sync::Arc;

use crate::execution::ToolExecution;
use crate::result::ToolExecutionResult;

/// Observes every final outcome. Cannot transform it; a panic is contained.
/// Closures `Fn(&Arc<ToolExecution>, &Arc<ToolExecutionResult>)` implement it.
pub trait ResultObserver: Send + Sync + 'static {
    /// Called once per call, after finalization.
    fn on_result(&self, exec: &Arc<ToolExecution>, result: &Arc<ToolExecutionResult>);
}

impl<F> ResultObserver for F
where
    F: Fn(&Arc<ToolExecution>, &Arc<ToolExecutionResult>) + Send + Sync + 'static,
{
    fn on_result(&self, exec: &Arc<ToolExecution>, result: &Arc<ToolExecutionResult>) {
        self(exec, result)
    }
}
