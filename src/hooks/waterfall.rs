//! The one waterfall. Each of the four chains (`tools/pre-execute`, `tools/execute`,
//! `tools/post-execute`, `tools/ptc-dispatch-log`) is a [`Next`] over its stage: the
//! listeners that apply to the call run in registration order, each handed the rest of
//! the chain; the stage says how to call a listener and what the end of the chain does.
//! A listener that panics while starting its future panics that future instead, so the
//! pipeline's containment of the whole chain covers both.

use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};

use super::{next_applicable, HookSet, Listener};
use crate::contain::contain;

/// The rest of a waterfall. `PreNext`, `ExecuteNext`, `PostNext` and `PtcDispatchLogNext`
/// are its four stages; each has a `run` that delegates to the rest of the chain.
pub struct Next<S> {
    hooks: Arc<HookSet>,
    index: usize,
    pub(super) stage: S,
}

impl<S: Clone> Clone for Next<S> {
    fn clone(&self) -> Self {
        Next {
            hooks: self.hooks.clone(),
            index: self.index,
            stage: self.stage.clone(),
        }
    }
}

/// One waterfall's stage: its listeners, how one is called, and the end of the chain.
pub(crate) trait Stage: Sized + Send + 'static {
    /// The listener trait object.
    type Hook: ?Sized + Send + Sync + 'static;
    /// What each `run` passes down the chain.
    type Input: Send + 'static;
    /// What the chain answers.
    type Output: Send + 'static;
    /// This stage's listeners in `hooks`.
    fn listeners(hooks: &HookSet) -> &[Listener<Self::Hook>];
    /// The scope of the call (listeners limited to another scope are skipped).
    fn scope(&self, input: &Self::Input) -> Option<u64>;
    /// Call one listener with the rest of the chain.
    fn call(
        hook: &Self::Hook,
        input: Self::Input,
        next: Next<Self>,
    ) -> BoxFuture<'static, Self::Output>;
    /// The end of the chain, reached when every listener delegated.
    fn end(self, input: Self::Input) -> BoxFuture<'static, Self::Output>;
}

/// The whole chain of `hooks` for one call of `stage`.
pub(crate) fn chain<S: Stage>(hooks: Arc<HookSet>, stage: S) -> Next<S> {
    Next {
        hooks,
        index: 0,
        stage,
    }
}

/// Run the next applicable listener of `next`, or the end of the chain.
pub(super) fn step<S: Stage>(next: Next<S>, input: S::Input) -> BoxFuture<'static, S::Output> {
    let scope = next.stage.scope(&input);
    let Some(i) = next_applicable(S::listeners(&next.hooks), next.index, scope) else {
        return next.stage.end(input);
    };
    let hook = S::listeners(&next.hooks)[i].hook.clone();
    let rest = Next {
        hooks: next.hooks,
        index: i + 1,
        stage: next.stage,
    };
    match contain(move || S::call(&hook, input, rest)) {
        Ok(fut) => fut,
        Err(message) => async move { panic!("{message}") }.boxed(),
    }
}
