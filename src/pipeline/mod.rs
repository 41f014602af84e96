//! The guarded execution pipeline: one call from raw input to final, frozen result.
//!
//! ```text
//! prepare: resolve definition, materialise + freeze args, assign token
//!   -> cancelled? -> tools/pre-execute (allow | deny | cancel | ask -> approval)
//!   -> cancelled? -> guards (deny only)
//!   -> tools/execute wrappers -> [validate args (schema + no unknown keys) -> body -> validate output -> render]
//!   -> project_content -> tools/post-execute (accept | replace | block)
//!   -> cancelled? -> finalize_content (exactly once, every outcome) -> freeze -> tools/result
//! ```
//!
//! Denials and blocks are ordinary results, never `Err`. A panic anywhere in a body,
//! hook or callback is contained and becomes an error result with its message.

mod arguments;
pub(crate) mod dispatch;
mod stages;
mod unknown_keys;

pub(crate) use stages::Pipeline;

pub use arguments::UnknownArguments;

use std::sync::Arc;

use serde_json::Value;

use crate::definition::ToolDefinition;
use crate::error::ToolFailure;
use crate::execution::{ExecutionToken, RunEffects, ToolExecution, ToolExecutionInput};
use crate::registry::ToolRegistry;
use crate::result::ToolExecutionResult;

/// A call whose definition is resolved and whose arguments are materialised, ready to
/// be scheduled. Created by [`ToolRegistry::prepare`].
pub struct PreparedCall {
    pub(crate) exec: Arc<ToolExecution>,
    pub(crate) early: Option<ToolFailure>,
}

/// The outcome of the admission stage.
pub(crate) enum Admission {
    /// Policies allowed the call; the effects collect what its body requests.
    Admitted(Arc<RunEffects>),
    /// The call stops here (early failure, cancellation, denial).
    Refused(Box<ToolExecutionResult>),
}

impl PreparedCall {
    /// The execution identity.
    pub fn execution(&self) -> &Arc<ToolExecution> {
        &self.exec
    }

    /// Whether this call may overlap with siblings: only a resolvable call whose
    /// classifier returns exactly `true`.
    pub fn is_concurrency_safe(&self) -> bool {
        self.early.is_none()
            && self
                .exec
                .definition()
                .is_some_and(|d| d.is_concurrency_safe(&self.exec.arguments))
    }
}

impl ToolRegistry {
    /// Resolve and materialise one call. Arguments are materialised exactly once here,
    /// before any policy; failures (unknown tool, non-JSON arguments) are carried to
    /// [`ToolRegistry::run_prepared`], which reports them without dispatching.
    pub fn prepare(&self, input: ToolExecutionInput) -> PreparedCall {
        let scope = input.agent.as_ref().map(|a| a.scope());
        let definition = self
            .view(scope, input.tool_set.as_ref())
            .executable(&input.name);
        self.prepare_with(input, definition)
    }

    /// Prepare a call against an explicit definition (`None` = unknown tool), for
    /// transports such as `run_code` that live outside the registry's layers.
    pub fn prepare_with(
        &self,
        input: ToolExecutionInput,
        definition: Option<Arc<ToolDefinition>>,
    ) -> PreparedCall {
        let (arguments, bad_args) = match input.arguments.materialise() {
            Ok(args) => (args, None),
            Err(e) => (
                Arc::new(Value::Null),
                Some(ToolFailure::invalid_args(&input.name, e)),
            ),
        };
        let early = match definition {
            None => Some(ToolFailure::unknown_tool(&input.name)),
            Some(_) => bad_args,
        };
        let root_call_id = input.root_call_id.unwrap_or_else(|| input.call_id.clone());
        let exec = Arc::new(ToolExecution {
            token: ExecutionToken::fresh(),
            call_id: input.call_id,
            root_call_id,
            name: input.name,
            arguments,
            agent: input.agent,
            tool_set: input.tool_set,
            parent: input.parent,
            signal: input.signal,
            definition,
            started_at: std::time::Instant::now(),
            span: Default::default(),
        });
        PreparedCall { exec, early }
    }

    /// Run one prepared call through the whole pipeline.
    pub async fn run_prepared(&self, call: PreparedCall) -> ToolExecutionResult {
        self.pipeline().run(call).await
    }

    /// Prepare and run one call: the single-call entry point.
    pub async fn dispatch(&self, input: ToolExecutionInput) -> ToolExecutionResult {
        self.run_prepared(self.prepare(input)).await
    }
}
