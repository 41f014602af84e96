//! `tools/execute`: around-dispatch wrappers (timeout, retry, metrics).
//!
//! A wrapper may replace the signal the rest of the chain sees, never remove it: the
//! pipeline fuses the caller's signal back in before the body runs, so caller
//! cancellation always reaches the tool.

use std::future::Future;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use tokio_util::sync::CancellationToken;

use super::waterfall::{step, Next, Stage};
use super::{HookSet, Listener};
use crate::execution::{RunEffects, ToolExecution};
use crate::result::ToolExecutionResult;

/// The around-dispatch view of a call: immutable identity plus a replaceable signal.
#[derive(Clone)]
pub struct DispatchExecution {
    exec: Arc<ToolExecution>,
    replacement: Option<CancellationToken>,
    /// What the body requests of the pipeline, for the end of the chain.
    effects: Arc<RunEffects>,
}

impl DispatchExecution {
    pub(crate) fn new(exec: Arc<ToolExecution>, effects: Arc<RunEffects>) -> Self {
        DispatchExecution {
            exec,
            replacement: None,
            effects,
        }
    }

    /// The immutable execution.
    pub fn execution(&self) -> &Arc<ToolExecution> {
        &self.exec
    }

    /// The signal the next wrapper or the body will see.
    pub fn signal(&self) -> &CancellationToken {
        self.replacement.as_ref().unwrap_or(&self.exec.signal)
    }

    /// Replace the signal for the rest of the chain (the caller's is re-fused later).
    pub fn with_signal(mut self, signal: CancellationToken) -> Self {
        self.replacement = Some(signal);
        self
    }

    /// The execution, the replaced signal (if any) and the call's effects.
    pub(crate) fn into_parts(
        self,
    ) -> (
        Arc<ToolExecution>,
        Option<CancellationToken>,
        Arc<RunEffects>,
    ) {
        (self.exec, self.replacement, self.effects)
    }
}

/// A `tools/execute` wrapper. Closures `Fn(DispatchExecution, ExecuteNext) -> impl Future`
/// implement it.
pub trait ExecuteHook: Send + Sync + 'static {
    /// Wrap dispatch: call `next.run(dispatch)` or return a result to short-circuit.
    fn execute(
        &self,
        dispatch: DispatchExecution,
        next: ExecuteNext,
    ) -> BoxFuture<'static, ToolExecutionResult>;
}

impl<F, Fut> ExecuteHook for F
where
    F: Fn(DispatchExecution, ExecuteNext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolExecutionResult> + Send + 'static,
{
    fn execute(
        &self,
        dispatch: DispatchExecution,
        next: ExecuteNext,
    ) -> BoxFuture<'static, ToolExecutionResult> {
        self(dispatch, next).boxed()
    }
}

/// The rest of the execute chain ending at the tool body. Cloneable so a retry
/// wrapper can dispatch again.
pub type ExecuteNext = Next<ExecuteStage>;

/// What ends the execute chain: the pipeline's dispatch of the tool body. Made once per
/// registry; a call's own state (its execution, signal and effects) travels in the
/// [`DispatchExecution`] it is handed.
pub(crate) type Body =
    Arc<dyn Fn(DispatchExecution) -> BoxFuture<'static, ToolExecutionResult> + Send + Sync>;

/// The execute stage of one call (see [`Next`]): its end is the body the pipeline
/// supplies, so wrappers never reach into the pipeline.
#[derive(Clone)]
pub struct ExecuteStage {
    body: Body,
}

impl ExecuteStage {
    pub(crate) fn new(body: Body) -> Self {
        ExecuteStage { body }
    }
}

impl Stage for ExecuteStage {
    type Hook = dyn ExecuteHook;
    type Input = DispatchExecution;
    type Output = ToolExecutionResult;

    fn listeners(hooks: &HookSet) -> &[Listener<Self::Hook>] {
        &hooks.execute
    }

    fn scope(&self, dispatch: &DispatchExecution) -> Option<u64> {
        dispatch.exec.scope_id()
    }

    fn call(
        hook: &dyn ExecuteHook,
        dispatch: DispatchExecution,
        next: ExecuteNext,
    ) -> BoxFuture<'static, ToolExecutionResult> {
        hook.execute(dispatch, next)
    }

    fn end(self, dispatch: DispatchExecution) -> BoxFuture<'static, ToolExecutionResult> {
        (self.body)(dispatch)
    }
}

impl ExecuteNext {
    /// Run the remaining wrappers, then the body.
    pub fn run(self, dispatch: DispatchExecution) -> BoxFuture<'static, ToolExecutionResult> {
        step(self, dispatch)
    }
}
