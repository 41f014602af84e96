//! `tools/post-execute`: accept, replace one projection, or block a dispatch result.

use std::future::Future;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use serde_json::Value;

use super::waterfall::{step, Next, Stage};
use super::{HookSet, Listener};
use crate::content::{ContentBlock, UserMessage};
use crate::execution::ToolExecution;
use crate::result::ToolExecutionResult;

/// What an accepting listener replaces: content OR value, never both.
#[derive(Debug, Clone, PartialEq)]
pub enum Replacement {
    /// New content; the canonical value and metadata stay.
    Content(Vec<ContentBlock>),
    /// New value; revalidated against the output schema and re-rendered.
    Value(Value),
}

/// A post-dispatch decision.
#[derive(Debug, Clone, PartialEq)]
pub enum PostToolDecision {
    /// Keep the result, optionally replacing one projection and attaching context.
    Accept {
        /// Optional replacement.
        replace: Option<Replacement>,
        /// Context for the next request.
        additional_contexts: Vec<UserMessage>,
    },
    /// Turn the result into an error carrying corrective feedback.
    Block {
        /// Feedback content.
        feedback: Vec<ContentBlock>,
        /// Context for the next request.
        additional_contexts: Vec<UserMessage>,
    },
}

impl PostToolDecision {
    /// Accept unchanged.
    pub fn accept() -> Self {
        PostToolDecision::Accept {
            replace: None,
            additional_contexts: Vec::new(),
        }
    }

    /// Block with text feedback.
    pub fn block(feedback: impl Into<String>) -> Self {
        PostToolDecision::Block {
            feedback: vec![ContentBlock::text(feedback)],
            additional_contexts: Vec::new(),
        }
    }
}

/// A `tools/post-execute` listener. Closures
/// `Fn(Arc<ToolExecution>, Arc<ToolExecutionResult>, PostNext) -> impl Future` implement it.
pub trait PostExecute: Send + Sync + 'static {
    /// Decide, or delegate with `next.run()`.
    fn post_execute(
        &self,
        exec: Arc<ToolExecution>,
        result: Arc<ToolExecutionResult>,
        next: PostNext,
    ) -> BoxFuture<'static, PostToolDecision>;
}

impl<F, Fut> PostExecute for F
where
    F: Fn(Arc<ToolExecution>, Arc<ToolExecutionResult>, PostNext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = PostToolDecision> + Send + 'static,
{
    fn post_execute(
        &self,
        exec: Arc<ToolExecution>,
        result: Arc<ToolExecutionResult>,
        next: PostNext,
    ) -> BoxFuture<'static, PostToolDecision> {
        self(exec, result, next).boxed()
    }
}

/// The rest of the post-execute chain; its end accepts unchanged.
pub type PostNext = Next<PostExecuteStage>;

/// The post-execute stage of one call (see [`Next`]).
pub struct PostExecuteStage {
    exec: Arc<ToolExecution>,
    result: Arc<ToolExecutionResult>,
}

impl PostExecuteStage {
    pub(crate) fn new(exec: Arc<ToolExecution>, result: Arc<ToolExecutionResult>) -> Self {
        PostExecuteStage { exec, result }
    }
}

impl Stage for PostExecuteStage {
    type Hook = dyn PostExecute;
    type Input = ();
    type Output = PostToolDecision;

    fn listeners(hooks: &HookSet) -> &[Listener<Self::Hook>] {
        &hooks.post_execute
    }

    fn scope(&self, _: &()) -> Option<u64> {
        self.exec.scope_id()
    }

    fn call(hook: &dyn PostExecute, _: (), next: PostNext) -> BoxFuture<'static, PostToolDecision> {
        let (exec, result) = (next.stage.exec.clone(), next.stage.result.clone());
        hook.post_execute(exec, result, next)
    }

    fn end(self, _: ()) -> BoxFuture<'static, PostToolDecision> {
        futures::future::ready(PostToolDecision::accept()).boxed()
    }
}

impl PostNext {
    /// Run the remaining listeners.
    pub fn run(self) -> BoxFuture<'static, PostToolDecision> {
        step(self, ())
    }
}
