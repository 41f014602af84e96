//! The native executor: the model calls tools directly, in batches.
//!
//! Scheduling is the [`Scheduler`]'s: a call whose `is_concurrency_safe(args)` is exactly
//! `true` joins a rolling pool of at most `max_parallel_tool_calls`; any other call waits for
//! all earlier work, runs alone, and forms a barrier. All calls are driven on the executor's
//! own task, so the batch never settles before started work has settled.

use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};

use super::scheduler::{Schedule, Scheduler};
use super::{
    LogStep, ToolBatchExecutionError, ToolBatchInput, ToolBatchResult, ToolCallResult,
    ToolExecutor, ToolModelInput,
};
use crate::definition::ToolDefinition;
use crate::execution::{ToolExecution, ToolExecutionInput};
use crate::pipeline::PreparedCall;
use crate::registry::ToolRegistry;
use crate::result::ToolExecutionResult;
use crate::scope::ScopeKey;
use crate::session::{now_ms, SessionError, SessionEvent, SessionLog};

/// Default rolling-pool size for concurrency-safe calls.
pub const DEFAULT_MAX_PARALLEL_TOOL_CALLS: usize = 10;

/// Executes model-direct calls through the shared pipeline.
#[derive(Debug, Clone)]
pub struct NativeExecutor {
    max_parallel_tool_calls: usize,
}

impl Default for NativeExecutor {
    fn default() -> Self {
        NativeExecutor {
            max_parallel_tool_calls: DEFAULT_MAX_PARALLEL_TOOL_CALLS,
        }
    }
}

impl NativeExecutor {
    /// An executor with a parallel limit (at least 1).
    pub fn with_max_parallel(limit: usize) -> Self {
        NativeExecutor {
            max_parallel_tool_calls: limit.max(1),
        }
    }
}

impl ToolExecutor for NativeExecutor {
    fn describe(
        &self,
        _: &ToolRegistry,
        _: Option<&ScopeKey>,
        tools: &[Arc<ToolDefinition>],
    ) -> ToolModelInput {
        ToolModelInput::native(tools)
    }

    fn execute<'a>(
        &'a self,
        registry: &'a ToolRegistry,
        input: ToolBatchInput,
    ) -> BoxFuture<'a, Result<ToolBatchResult, ToolBatchExecutionError>> {
        run_batch(registry, input, self.max_parallel_tool_calls, |input| {
            registry.prepare(input)
        })
        .boxed()
    }
}

/// One batch under the native rules: root-call events go to the agent's session only when
/// the batch names a step; results are committed (and logged) in model order.
struct NativeBatch<P> {
    prepare: P,
    sink: Option<(Arc<dyn SessionLog>, LogStep)>,
    first_error: Option<SessionError>,
    results: Vec<ToolCallResult>,
}

impl<P> NativeBatch<P> {
    fn append(&mut self, event: impl FnOnce(LogStep) -> SessionEvent) {
        if let Some((sink, step)) = &self.sink {
            if let Err(e) = sink.append(&event(*step)) {
                self.first_error.get_or_insert(e);
            }
        }
    }
}

impl<P: Fn(ToolExecutionInput) -> PreparedCall + Send> Schedule for NativeBatch<P> {
    /// The call as the model made it, until it is prepared.
    type Call = Option<ToolExecutionInput>;

    fn prepare(&mut self, call: &mut Self::Call) -> PreparedCall {
        (self.prepare)(call.take().expect("a call is prepared once"))
    }

    fn started(&mut self, _: &mut Self::Call, exec: &Arc<ToolExecution>) {
        self.append(|s| SessionEvent::ToolCall {
            at_ms: now_ms(),
            turn: s.turn,
            step: s.step,
            call_id: exec.call_id().to_string(),
            name: exec.name().to_string(),
            arguments: exec.arguments().clone(),
        });
    }

    fn committed(
        &mut self,
        _: Self::Call,
        exec: &Arc<ToolExecution>,
        result: ToolExecutionResult,
    ) -> Option<BoxFuture<'static, ()>> {
        self.append(|s| SessionEvent::ToolResult {
            at_ms: now_ms(),
            turn: s.turn,
            step: s.step,
            call_id: exec.call_id().to_string(),
            name: exec.name().to_string(),
            is_error: result.is_error(),
            content: result.content.clone(),
            error: result.error().cloned(),
            meta: result.meta.clone(),
        });
        self.results.push(ToolCallResult {
            call_id: exec.call_id().to_string(),
            result,
        });
        None
    }
}

/// Run a batch under the native scheduling rules; `prepare` resolves each call (so an
/// executor can route some names elsewhere, as code mode does for `run_code`).
pub(crate) async fn run_batch(
    registry: &ToolRegistry,
    input: ToolBatchInput,
    default_limit: usize,
    prepare: impl Fn(ToolExecutionInput) -> PreparedCall + Send,
) -> Result<ToolBatchResult, ToolBatchExecutionError> {
    let limit = match input.max_parallel_tool_calls {
        Some(0) => {
            return Err(ToolBatchExecutionError::InvalidInput(
                "max_parallel_tool_calls must be positive".into(),
            ))
        }
        Some(n) => n,
        None => default_limit,
    };
    let batch = NativeBatch {
        prepare,
        sink: input
            .log
            .and_then(|step| input.agent.as_ref()?.session().map(|s| (s.clone(), step))),
        first_error: None,
        results: Vec::with_capacity(input.calls.len()),
    };
    let mut scheduler = Scheduler::new(registry.clone(), batch, limit);
    for call in input.calls {
        scheduler.push(Some(ToolExecutionInput {
            call_id: call.id,
            root_call_id: None,
            name: call.name,
            arguments: call.arguments,
            agent: input.agent.clone(),
            tool_set: input.tool_set.clone(),
            parent: None,
            signal: input.signal.clone(),
        }));
    }
    scheduler.run().await;
    let batch = scheduler.into_schedule();
    let mut result = ToolBatchResult::from_results(batch.results);
    result.log_error = batch.first_error;
    Ok(result)
}
