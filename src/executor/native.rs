//! The native executor: the model calls tools directly, in batches.
//!
//! Scheduling: a call whose `is_concurrency_safe(args)` is exactly `true` joins a
//! rolling pool of at most `max_parallel_tool_calls`; any other call waits for all
//! in-flight work, runs alone, and forms a barrier. All calls are driven on the
//! executor's own task, so the batch never settles before started work has settled.

use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use futures::stream::{FuturesUnordered, StreamExt};

use super::{
    LogStep, ToolBatchExecutionError, ToolBatchInput, ToolBatchResult, ToolCallResult,
    ToolExecutor, ToolModelInput,
};
use crate::definition::ToolDefinition;
use crate::execution::ToolExecutionInput;
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

/// Root-call logging for one batch: events go to the agent's session only when the
/// batch names a step. Results are committed in model order.
struct BatchLog {
    sink: Option<(Arc<dyn SessionLog>, LogStep)>,
    first_error: Option<SessionError>,
}

impl BatchLog {
    fn append(&mut self, event: impl FnOnce(LogStep) -> SessionEvent) {
        if let Some((sink, step)) = &self.sink {
            if let Err(e) = sink.append(&event(*step)) {
                self.first_error.get_or_insert(e);
            }
        }
    }
}

/// Run a batch under the native scheduling rules; `prepare` resolves each call (so an
/// executor can route some names elsewhere, as code mode does for `run_code`).
pub(crate) async fn run_batch(
    registry: &ToolRegistry,
    input: ToolBatchInput,
    default_limit: usize,
    prepare: impl Fn(ToolExecutionInput) -> PreparedCall,
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
    let mut log = BatchLog {
        sink: input
            .log
            .and_then(|step| input.agent.as_ref()?.session().map(|s| (s.clone(), step))),
        first_error: None,
    };
    let n = input.calls.len();
    let mut names = Vec::with_capacity(n);
    let mut settled: Vec<Option<ToolExecutionResult>> = (0..n).map(|_| None).collect();
    let mut committed = 0;
    let mut in_flight = FuturesUnordered::new();

    for (i, call) in input.calls.into_iter().enumerate() {
        let prepared = prepare(ToolExecutionInput {
            call_id: call.id.clone(),
            root_call_id: None,
            name: call.name.clone(),
            arguments: call.arguments,
            agent: input.agent.clone(),
            tool_set: input.tool_set.clone(),
            parent: None,
            signal: input.signal.clone(),
        });
        let parallel = prepared.is_concurrency_safe();
        let bound = if parallel { limit - 1 } else { 0 };
        while in_flight.len() > bound {
            if let Some((j, result)) = in_flight.next().await {
                settled[j] = Some(result);
            }
            commit(&mut log, &names, &mut settled, &mut committed);
        }
        let arguments = prepared.execution().arguments().as_ref().clone();
        log.append(|s| SessionEvent::ToolCall {
            at_ms: now_ms(),
            turn: s.turn,
            step: s.step,
            call_id: call.id.clone(),
            name: call.name.clone(),
            arguments,
        });
        names.push((call.id, call.name));
        in_flight.push(registry.run_prepared(prepared).map(move |r| (i, r)));
        if !parallel {
            while let Some((j, result)) = in_flight.next().await {
                settled[j] = Some(result);
            }
            commit(&mut log, &names, &mut settled, &mut committed);
        }
    }
    while let Some((j, result)) = in_flight.next().await {
        settled[j] = Some(result);
        commit(&mut log, &names, &mut settled, &mut committed);
    }
    commit(&mut log, &names, &mut settled, &mut committed);

    let results = names
        .into_iter()
        .zip(settled)
        .map(|((call_id, _), result)| ToolCallResult {
            call_id,
            result: result.expect("every started call settled"),
        })
        .collect();
    let mut batch = ToolBatchResult::from_results(results);
    batch.log_error = log.first_error;
    Ok(batch)
}

/// Log `tool/result` for the contiguous settled prefix, in model order.
fn commit(
    log: &mut BatchLog,
    names: &[(String, String)],
    settled: &mut [Option<ToolExecutionResult>],
    committed: &mut usize,
) {
    while *committed < names.len() {
        let Some(result) = settled[*committed].as_ref() else {
            break;
        };
        let (call_id, name) = &names[*committed];
        log.append(|s| SessionEvent::ToolResult {
            at_ms: now_ms(),
            turn: s.turn,
            step: s.step,
            call_id: call_id.clone(),
            name: name.clone(),
            is_error: result.is_error(),
            content: result.content.clone(),
            error: result.error().cloned(),
            meta: result.meta.clone(),
        });
        *committed += 1;
    }
}
