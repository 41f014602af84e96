//! Executors: a whole raw call batch in, one outcome per call (in model order) out.
//!
//! [`NativeExecutor`] is the deployment default; code mode adds its own. Each owns
//! argument parsing, scheduling, cancellation and root-call logging for its batches.

mod native;
mod scheduler;

pub(crate) use native::run_batch;
pub use native::{NativeExecutor, DEFAULT_MAX_PARALLEL_TOOL_CALLS};
pub use scheduler::{PolicyStages, Schedule, Scheduler};

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::content::UserMessage;
use crate::definition::{ToolDefinition, ToolSchema};
use crate::execution::ToolArguments;
use crate::registry::{ResolvedToolSet, ToolRegistry};
use crate::result::ToolExecutionResult;
use crate::scope::{Agent, ScopeKey};
use crate::session::SessionError;

/// One raw model call.
#[derive(Debug, Clone)]
pub struct ToolCallBlock {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as emitted.
    pub arguments: ToolArguments,
}

impl ToolCallBlock {
    /// A call block.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<ToolArguments>,
    ) -> Self {
        ToolCallBlock {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// The model step whose session receives root `tool/call` / `tool/result` events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogStep {
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
}

/// A raw call batch with its cancellation, optional owner, admission and logging step.
#[derive(Debug, Clone)]
pub struct ToolBatchInput {
    /// The model's calls, in model order.
    pub calls: Vec<ToolCallBlock>,
    /// Cancellation for the whole batch.
    pub signal: CancellationToken,
    /// Overrides the executor's parallel limit for this batch (positive).
    pub max_parallel_tool_calls: Option<usize>,
    /// Owning agent (scope and session).
    pub agent: Option<Agent>,
    /// Step admission for conditional tools.
    pub tool_set: Option<ResolvedToolSet>,
    /// With a session on the agent, log root events for this step.
    pub log: Option<LogStep>,
}

impl ToolBatchInput {
    /// A batch with a fresh signal and nothing else set.
    pub fn new(calls: Vec<ToolCallBlock>) -> Self {
        ToolBatchInput {
            calls,
            signal: CancellationToken::new(),
            max_parallel_tool_calls: None,
            agent: None,
            tool_set: None,
            log: None,
        }
    }

    /// The batch on behalf of `agent` (its scope, session and services).
    pub fn with_agent(mut self, agent: Agent) -> Self {
        self.agent = Some(agent);
        self
    }

    /// The batch cancelled by `signal`.
    pub fn with_signal(mut self, signal: CancellationToken) -> Self {
        self.signal = signal;
        self
    }

    /// The batch of the step whose conditional tools `tool_set` admitted.
    pub fn with_tool_set(mut self, tool_set: ResolvedToolSet) -> Self {
        self.tool_set = Some(tool_set);
        self
    }

    /// Log root events for `step` in the agent's session.
    pub fn with_log(mut self, step: LogStep) -> Self {
        self.log = Some(step);
        self
    }

    /// At most `n` concurrency-safe calls at once for this batch (positive).
    pub fn with_max_parallel(mut self, n: usize) -> Self {
        self.max_parallel_tool_calls = Some(n);
        self
    }
}

/// One settled result correlated with its call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallResult {
    /// Call id.
    pub call_id: String,
    /// The outcome.
    pub result: ToolExecutionResult,
}

/// Model-ordered outcomes and the context accepted for the next step.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolBatchResult {
    /// One per call, in model order.
    pub results: Vec<ToolCallResult>,
    /// Deferred contexts of every result, in call order.
    pub additional_contexts: Vec<UserMessage>,
    /// Whether a success concluded the turn.
    pub concluded: bool,
    /// The first event the agent's session could not record. The outcomes are complete
    /// either way: every call settled; only its log is missing events.
    pub log_error: Option<SessionError>,
}

impl ToolModelInput {
    /// The model-facing schemas of `tools`.
    pub fn native(tools: &[Arc<ToolDefinition>]) -> Self {
        ToolModelInput {
            schemas: tools.iter().map(|t| t.schema()).collect(),
            known_names: tools.iter().map(|t| t.name().to_string()).collect(),
        }
    }
}

impl ToolBatchResult {
    /// Assemble from model-ordered results.
    pub fn from_results(results: Vec<ToolCallResult>) -> Self {
        let additional_contexts = results
            .iter()
            .flat_map(|r| r.result.additional_contexts.iter().cloned())
            .collect();
        let concluded = results.iter().any(|r| r.result.concludes_turn());
        ToolBatchResult {
            results,
            additional_contexts,
            concluded,
            log_error: None,
        }
    }
}

/// A batch could not be executed (a batch that ran but could not be fully logged is a
/// [`ToolBatchResult`] with its [`log_error`](ToolBatchResult::log_error)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolBatchExecutionError {
    /// No executor is selected for the scope.
    #[error("no tool executor is available for this scope")]
    NoExecutor,
    /// The input is invalid (e.g. a zero parallel limit).
    #[error("invalid batch: {0}")]
    InvalidInput(String),
}

/// Model-facing tool declarations produced by an executor.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolModelInput {
    /// Schemas the model receives.
    pub schemas: Vec<ToolSchema>,
    /// Names the model may call.
    pub known_names: Vec<String>,
}

/// A guidance section an executor contributes to the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPromptSection {
    /// Stable id.
    pub id: String,
    /// Section text.
    pub text: String,
}

/// Owns argument parsing, dispatch, scheduling, cancellation and logging for batches.
pub trait ToolExecutor: Send + Sync + 'static {
    /// Guidance sections for `scope`'s executable tools (none by default).
    fn sections(
        &self,
        registry: &ToolRegistry,
        scope: Option<&ScopeKey>,
        tools: &[Arc<ToolDefinition>],
    ) -> Vec<ToolPromptSection> {
        let _ = (registry, scope, tools);
        Vec::new()
    }

    /// Describe the model's callable tools for `scope`.
    fn describe(
        &self,
        registry: &ToolRegistry,
        scope: Option<&ScopeKey>,
        tools: &[Arc<ToolDefinition>],
    ) -> ToolModelInput;

    /// Execute a complete batch: one outcome per call in model order, skipped calls
    /// included on abort; never settle while started work is running.
    fn execute<'a>(
        &'a self,
        registry: &'a ToolRegistry,
        input: ToolBatchInput,
    ) -> BoxFuture<'a, Result<ToolBatchResult, ToolBatchExecutionError>>;
}
