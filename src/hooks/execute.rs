//! `tools/execute`: around-dispatch wrappers (timeout, retry, metrics).
//!
//! A wrapper may replace the signal the rest of the chain sees, never remove it: the
//! pipeline fuses the caller's signal back in before the body runs, so caller
//! cancellation always reaches the tool.

use std::future::Future;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use tokio_util::sync::CancellationToken;

use super::{next_applicable, HookSet};
use crate::execution::{RunEffects, ToolExecution};
use crate::registry::ToolRegistry;
use crate::result::ToolExecutionResult;

/// The around-dispatch view of a call: immutable identity plus a replaceable signal.
#[derive(Clone)]
pub struct DispatchExecution {
    exec: Arc<ToolExecution>,
    replacement: Option<CancellationToken>,
}

impl DispatchExecution {
    pub(crate) fn new(exec: Arc<ToolExecution>) -> Self {
        DispatchExecution {
            exec,
            replacement: None,
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
#[derive(Clone)]
pub struct ExecuteNext {
    registry: ToolRegistry,
    hooks: Arc<HookSet>,
    index: usize,
    effects: Arc<RunEffects>,
}

impl ExecuteNext {
    pub(crate) fn start(
        registry: ToolRegistry,
        hooks: Arc<HookSet>,
        effects: Arc<RunEffects>,
    ) -> Self {
        ExecuteNext {
            registry,
            hooks,
            index: 0,
            effects,
        }
    }

    /// Run the remaining wrappers, then the body.
    pub fn run(self, dispatch: DispatchExecution) -> BoxFuture<'static, ToolExecutionResult> {
        match next_applicable(&self.hooks.execute, self.index, dispatch.exec.scope_id()) {
            None => crate::pipeline::dispatch::invoke_guarded(
                self.registry,
                dispatch.exec,
                dispatch.replacement,
                self.effects,
            )
            .boxed(),
            Some(i) => {
                let hook = self.hooks.execute[i].hook.clone();
                super::start_hook(move || {
                    hook.execute(
                        dispatch,
                        ExecuteNext {
                            registry: self.registry,
                            hooks: self.hooks,
                            index: i + 1,
                            effects: self.effects,
                        },
                    )
                })
            }
        }
    }
}
