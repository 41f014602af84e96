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
//!   [`ToolExecutor`]. [`Scheduler`] runs calls under the native rules (a rolling pool of
//!   concurrency-safe calls, exclusive calls as barriers, commits in submission order) for
//!   [`NativeExecutor`], for code mode's sub-calls, and for an executor of your own.
//! - [`session`] — the durable event log (`tool/call`, `tool/result`, ...).
//! - Code mode — [`CodeExecutor`] offers the model one tool, `run_code`, whose description
//!   carries a generated TypeScript SDK of the visible tools; the program runs in a fresh
//!   sandbox ([`CodeConfig`]: QuickJS by default, deno_core with the `v8` or `deno-quickjs`
//!   feature) and every `await tools.x(args)` re-enters the pipeline as a sub-call
//!   `<callId>:ptc:<n>`. [`ToolMode`] (`native | code | both`) is set per deployment or scope.
//! - Policies — [`policy`]: approval (`ask` decisions), questions for a person, the timeout
//!   policy, and the clock that stops while a person answers.
//! - [`discovery`] — hundreds of tools: with discovery on ([`ToolRegistry::set_discovery`]),
//!   the model is shown an overview and `search_tools`/`describe_tools`/`call_tool` instead of
//!   every tool, and finds and calls the rest.
//! - [`testkit`] — small tools for trying code mode and for tests.
//!
//! Beside this crate: `ptc-packs` holds the `builtin` coding tools (files, search, `bash` in a
//! kernel sandbox, background tasks, terminals); `ptc-mcp` turns MCP servers into tools and
//! serves a registry over MCP; `ptc-cli` is the `ptc` command with `ptc.toml`.
//!
//! Every public item has one path: the kernel's types at the root, the rest in [`policy`],
//! [`session`], [`presentation`], [`telemetry`], [`discovery`], [`testkit`], [`json`] and
//! [`suggest`].
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

mod code;
mod contain;
mod content;
mod defaults;
mod definition;
pub mod digest;
pub mod discovery;
mod disposer;
mod error;
mod execution;
mod executor;
mod hooks;
pub mod json;
mod mode;
mod owner;
mod pipeline;
pub mod policy;
pub mod presentation;
mod progress;
mod registry;
mod result;
mod scope;
pub mod session;
pub mod suggest;
pub mod telemetry;
pub mod testkit;
pub mod visible;

pub use ptc_schema as schema;

pub use code::journal;
pub use code::typecheck;
pub use code::{
    CodeConfig, CodeExecutor, ConsoleFn, LogLevel, SubCallLimits, DEFAULT_MAX_RESULT_CHARS,
    MAX_PROGRAM_BYTES,
};
pub use content::{content_text, ContentBlock, UserMessage};
pub use definition::{
    default_render, pretty_json, ConcurrencyFn, ContentFn, ExecuteFn, IntoDefinition, MetaFn,
    PathArguments, PresentCallFn, PresentResultFn, RenderFn, ToolBuilder, ToolDefinition,
    ToolOutput, ToolSchema, RUN_CODE,
};
pub use disposer::Disposer;
pub use error::{codes, RegistryError, ToolError, ToolErrorInfo, ToolFailure};
pub use execution::{
    ExecutionToken, ToolArguments, ToolExecution, ToolExecutionInput, ToolRunContext,
};
pub use executor::{
    LogStep, NativeExecutor, PolicyStages, Schedule, Scheduler, ToolBatchExecutionError,
    ToolBatchInput, ToolBatchResult, ToolCallBlock, ToolCallResult, ToolExecutor, ToolModelInput,
    ToolPromptSection, DEFAULT_MAX_PARALLEL_TOOL_CALLS,
};
pub use hooks::dispatch_log::{
    PtcDispatchLog, PtcDispatchLogHook, PtcDispatchLogNext, PtcDispatchLogStage,
};
pub use hooks::execute::{DispatchExecution, ExecuteHook, ExecuteNext, ExecuteStage};
pub use hooks::guard::{CallGuards, ToolGuard};
pub use hooks::observer::ResultObserver;
pub use hooks::post_execute::{
    PostExecute, PostExecuteStage, PostNext, PostToolDecision, Replacement,
};
pub use hooks::pre_execute::{PreExecute, PreExecuteStage, PreNext, PreToolDecision};
pub use hooks::Next;
pub use mode::ToolMode;
pub use owner::{Holding, Owner, OwnerHandle, ROUTE_HEADER};
pub use pipeline::{PreparedCall, UnknownArguments};
pub use progress::{Progress, ProgressSink};
pub use registry::{
    ActivationContext, ListedTool, ModelSelection, RegistrationOptions, ResolvedToolSet, Scoped,
    ToolRegistry, ToolRestriction, ToolView, When,
};
pub use result::{Outcome, ToolExecutionResult, UnlessRead};
pub use scope::{Agent, ScopeKey};
pub use session::{JsonlLog, MemoryLog, SessionEvent, SessionLog};
