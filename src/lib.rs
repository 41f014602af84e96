//! # ptc — programmable tool calling
//!
//! ptc holds and runs the tools an agent harness offers a model:
//!
//! - [`ToolRegistry`] — the tool registry and guarded pipeline: a global layer plus agent
//!   scopes ([`ScopeKey`]), restrictions, conditional activation, hooks and guards.
//! - [`ToolDefinition`] — one tool: parameters and output in the JSON Schema subset of
//!   [`schema`], a body, and host-only metadata; built and validated by [`ToolBuilder`].
//! - The pipeline — [`ToolRegistry::dispatch`] runs one call through `tools/pre-execute`,
//!   guards, `tools/execute`, output validation, `tools/post-execute`, finalization and
//!   `tools/result` observers, returning a [`ToolExecutionResult`].
//! - Executors — [`ToolRegistry::execute`] hands a whole batch to the scope's
//!   [`ToolExecutor`]; [`NativeExecutor`] schedules parallel and exclusive calls.
//! - [`session`] — the durable event log (`tool/call`, `tool/result`, ...).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use ptc::{ToolRegistry, ToolDefinition, ToolError, ToolBatchInput, ToolCallBlock};
//! use ptc::schema::{ParameterSpec, ValueSpec};
//!
//! #[derive(serde::Deserialize)]
//! struct Echo { text: String }
//!
//! let registry = ToolRegistry::new();
//! registry.register(
//!     ToolDefinition::builder("echo")
//!         .description("Return the text unchanged.")
//!         .parameters(ParameterSpec::new().required("text", ValueSpec::string()))
//!         .output(ValueSpec::string())
//!         .concurrency_safe(true)
//!         .execute(|args: Echo, _ctx| async move { Ok::<_, ToolError>(args.text) }),
//! ).unwrap();
//!
//! let batch = registry
//!     .execute(ToolBatchInput::new(vec![ToolCallBlock::new("c1", "echo", r#"{"text":"hi"}"#)]))
//!     .await
//!     .unwrap();
//! assert_eq!(batch.results[0].result.content[0].as_text(), Some("hi"));
//! # });
//! ```
#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod code;
mod contain;
pub mod content;
mod defaults;
pub mod definition;
mod digest;
mod disposer;
pub mod error;
pub mod execution;
pub mod executor;
pub mod hooks;
pub mod json;
mod mode;
pub mod owner;
pub mod pipeline;
pub mod policy;
pub mod presentation;
pub mod progress;
pub mod registry;
pub mod result;
pub mod scope;
pub mod session;
pub mod suggest;
pub mod telemetry;
pub mod testkit;

pub use ptc_schema as schema;

pub use code::{CodeConfig, CodeExecutor, SubCallLimits};
pub use content::{ContentBlock, UserMessage};
pub use definition::{ToolBuilder, ToolDefinition, ToolOutput, ToolSchema, RUN_CODE};
pub use disposer::Disposer;
pub use error::{codes, RegistryError, ToolError, ToolErrorInfo, ToolFailure};
pub use execution::{
    ExecutionToken, ToolArguments, ToolExecution, ToolExecutionInput, ToolRunContext,
};
pub use executor::{
    LogStep, NativeExecutor, ToolBatchExecutionError, ToolBatchInput, ToolBatchResult,
    ToolCallBlock, ToolCallResult, ToolExecutor, ToolModelInput, ToolPromptSection,
};
pub use hooks::dispatch_log::{PtcDispatchLog, PtcDispatchLogHook, PtcDispatchLogNext};
pub use hooks::execute::{DispatchExecution, ExecuteHook, ExecuteNext};
pub use hooks::guard::ToolGuard;
pub use hooks::observer::ResultObserver;
pub use hooks::post_execute::{PostExecute, PostNext, PostToolDecision, Replacement};
pub use hooks::pre_execute::{DisplayReason, PreExecute, PreNext, PreToolDecision};
pub use mode::ToolMode;
pub use owner::Owner;
pub use pipeline::{PreparedCall, UnknownArguments};
pub use policy::approval::{ApprovalAnswer, ApprovalRequest, ApprovalService};
pub use policy::timeout::TimeoutPolicy;
pub use registry::{
    ActivationContext, ListedTool, ModelSelection, RegistrationOptions, ResolvedToolSet, Scoped,
    ToolRegistry, ToolRestriction,
};
pub use result::{Outcome, ToolExecutionResult};
pub use scope::{Agent, ScopeKey};
pub use session::{JsonlLog, MemoryLog, SessionEvent, SessionLog};
