//! `tools/ptc-dispatch-log`: reshape the durable log copy of one `run_code` sub-call.
//!
//! Only the logged copy changes: the program already received its value and the model
//! sees neither. A panicking listener is contained and the original content is logged.
//! The stage runs only when the run's agent has a session log (there is no copy to shape
//! otherwise), and the content it starts from is the sub-call's own, moved, not copied: a
//! large result is held once, however many sub-calls log one.

use std::future::Future;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};

use super::waterfall::{step, Next, Stage};
use super::{HookSet, Listener};
use crate::content::ContentBlock;
use crate::execution::ToolExecution;

/// One settled sub-dispatch about to be logged.
#[derive(Debug, Clone)]
pub struct PtcDispatchLog {
    /// The outer `run_code` execution.
    pub exec: Arc<ToolExecution>,
    /// The sub-call id, `<callId>:ptc:<n>`.
    pub sub_call_id: String,
    /// The sub-tool name.
    pub name: String,
    /// Whether the sub-call failed.
    pub is_error: bool,
    /// The sub-call's complete model-facing content.
    pub content: Vec<ContentBlock>,
}

/// A `tools/ptc-dispatch-log` listener. Closures
/// `Fn(Arc<PtcDispatchLog>, PtcDispatchLogNext) -> impl Future<Output = Vec<ContentBlock>>` implement it.
pub trait PtcDispatchLogHook: Send + Sync + 'static {
    /// Return the content to log, or delegate with `next.run()`.
    fn ptc_dispatch_log(
        &self,
        dispatch: Arc<PtcDispatchLog>,
        next: PtcDispatchLogNext,
    ) -> BoxFuture<'static, Vec<ContentBlock>>;
}

impl<F, Fut> PtcDispatchLogHook for F
where
    F: Fn(Arc<PtcDispatchLog>, PtcDispatchLogNext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Vec<ContentBlock>> + Send + 'static,
{
    fn ptc_dispatch_log(
        &self,
        dispatch: Arc<PtcDispatchLog>,
        next: PtcDispatchLogNext,
    ) -> BoxFuture<'static, Vec<ContentBlock>> {
        self(dispatch, next).boxed()
    }
}

/// The rest of the chain; its end keeps the content unchanged.
pub type PtcDispatchLogNext = Next<PtcDispatchLogStage>;

/// The dispatch-log stage of one sub-call (see [`Next`]).
pub struct PtcDispatchLogStage {
    dispatch: Arc<PtcDispatchLog>,
}

impl PtcDispatchLogStage {
    pub(crate) fn new(dispatch: Arc<PtcDispatchLog>) -> Self {
        PtcDispatchLogStage { dispatch }
    }
}

impl Stage for PtcDispatchLogStage {
    type Hook = dyn PtcDispatchLogHook;
    type Input = ();
    type Output = Vec<ContentBlock>;

    fn listeners(hooks: &HookSet) -> &[Listener<Self::Hook>] {
        &hooks.ptc_dispatch_log
    }

    fn scope(&self, _: &()) -> Option<u64> {
        self.dispatch.exec.scope_id()
    }

    fn call(
        hook: &dyn PtcDispatchLogHook,
        _: (),
        next: PtcDispatchLogNext,
    ) -> BoxFuture<'static, Vec<ContentBlock>> {
        hook.ptc_dispatch_log(next.stage.dispatch.clone(), next)
    }

    fn end(self, _: ()) -> BoxFuture<'static, Vec<ContentBlock>> {
        futures::future::ready(self.dispatch.content.clone()).boxed()
    }
}

impl PtcDispatchLogNext {
    /// Run the remaining listeners.
    pub fn run(self) -> BoxFuture<'static, Vec<ContentBlock>> {
        step(self, ())
    }
}
