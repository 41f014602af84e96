//! The timeout policy: a `tools/execute` wrapper that enforces a definition's
//! `timeout_ms` (never sent to the model).
//!
//! At the deadline it cancels the signal it gave the body, waits up to a grace period
//! for the body to reach quiescence, then drops it and returns `TOOL_TIMEOUT`.

use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};

use crate::error::{codes, ToolFailure};
use crate::hooks::execute::{DispatchExecution, ExecuteHook, ExecuteNext};
use crate::result::ToolExecutionResult;

/// Enforces `ToolDefinition::timeout_ms`. Installed by [`crate::ToolRegistry::new`].
#[derive(Debug, Clone)]
pub struct TimeoutPolicy {
    grace: Duration,
}

impl Default for TimeoutPolicy {
    fn default() -> Self {
        TimeoutPolicy {
            grace: Duration::from_secs(2),
        }
    }
}

impl TimeoutPolicy {
    /// How long a timed-out body may take to observe its cancelled signal before it is dropped.
    pub fn with_grace(grace: Duration) -> Self {
        TimeoutPolicy { grace }
    }
}

impl ExecuteHook for TimeoutPolicy {
    fn execute(
        &self,
        dispatch: DispatchExecution,
        next: ExecuteNext,
    ) -> BoxFuture<'static, ToolExecutionResult> {
        let Some(ms) = dispatch
            .execution()
            .definition()
            .and_then(|d| d.timeout_ms())
        else {
            return next.run(dispatch);
        };
        let grace = self.grace;
        let name = dispatch.execution().name().to_string();
        async move {
            let token = dispatch.signal().child_token();
            let mut body = next.run(dispatch.with_signal(token.clone()));
            tokio::select! {
                biased;
                result = &mut body => result,
                _ = tokio::time::sleep(Duration::from_millis(ms)) => {
                    token.cancel();
                    let _ = tokio::time::timeout(grace, body).await;
                    ToolExecutionResult::failure(ToolFailure::new(
                        format!("Tool {name} timed out after {ms} ms"),
                        "ToolTimeoutError",
                        codes::TOOL_TIMEOUT,
                    ))
                }
            }
        }
        .boxed()
    }
}
