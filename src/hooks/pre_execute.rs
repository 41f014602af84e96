//! `tools/pre-execute`: allow, deny, cancel or ask before dispatch.

use std::future::Future;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};

use super::waterfall::{step, Next, Stage};
use super::{HookSet, Listener};
use crate::error::ToolErrorInfo;
use crate::execution::ToolExecution;
use crate::policy::approval::DisplayReason;

/// A pre-dispatch decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreToolDecision {
    /// Run the call.
    Allow,
    /// Refuse it; `reason` is model-facing, `info` optional structured identity.
    Deny {
        /// Model-facing reason.
        reason: String,
        /// Structured identity (defaults to `ToolDeniedError` / `TOOL_DENIED`).
        info: Option<ToolErrorInfo>,
    },
    /// Select the canonical cancellation result without presenting a denial.
    Cancel,
    /// Run only after the approval service answers `allowed-once`.
    Ask {
        /// Audited approval reason.
        reason: Option<String>,
        /// Prompt text.
        display_reason: Option<DisplayReason>,
    },
}

impl PreToolDecision {
    /// A denial with a reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        PreToolDecision::Deny {
            reason: reason.into(),
            info: None,
        }
    }

    /// An ask with an audited reason.
    pub fn ask(reason: impl Into<String>) -> Self {
        PreToolDecision::Ask {
            reason: Some(reason.into()),
            display_reason: None,
        }
    }
}

/// A `tools/pre-execute` listener. Closures `Fn(Arc<ToolExecution>, PreNext) -> impl Future`
/// implement it.
pub trait PreExecute: Send + Sync + 'static {
    /// Decide, or delegate with `next.run()`.
    fn pre_execute(
        &self,
        exec: Arc<ToolExecution>,
        next: PreNext,
    ) -> BoxFuture<'static, PreToolDecision>;
}

impl<F, Fut> PreExecute for F
where
    F: Fn(Arc<ToolExecution>, PreNext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = PreToolDecision> + Send + 'static,
{
    fn pre_execute(
        &self,
        exec: Arc<ToolExecution>,
        next: PreNext,
    ) -> BoxFuture<'static, PreToolDecision> {
        self(exec, next).boxed()
    }
}

/// The rest of the pre-execute chain. Consumed by [`PreNext::run`], so it runs at most once.
pub type PreNext = Next<PreExecuteStage>;

/// The pre-execute stage of one call (see [`Next`]).
pub struct PreExecuteStage {
    exec: Arc<ToolExecution>,
}

impl PreExecuteStage {
    pub(crate) fn new(exec: Arc<ToolExecution>) -> Self {
        PreExecuteStage { exec }
    }
}

impl Stage for PreExecuteStage {
    type Hook = dyn PreExecute;
    type Input = ();
    type Output = PreToolDecision;

    fn listeners(hooks: &HookSet) -> &[Listener<Self::Hook>] {
        &hooks.pre_execute
    }

    fn scope(&self, _: &()) -> Option<u64> {
        self.exec.scope_id()
    }

    fn call(hook: &dyn PreExecute, _: (), next: PreNext) -> BoxFuture<'static, PreToolDecision> {
        hook.pre_execute(next.stage.exec.clone(), next)
    }

    fn end(self, _: ()) -> BoxFuture<'static, PreToolDecision> {
        futures::future::ready(PreToolDecision::Allow).boxed()
    }
}

impl PreNext {
    /// Run the remaining listeners; the end of the chain allows.
    pub fn run(self) -> BoxFuture<'static, PreToolDecision> {
        step(self, ())
    }
}
