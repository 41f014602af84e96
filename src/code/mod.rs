//! Code mode: the model calls `run_code` with a TypeScript program instead of one tool
//! per step.
//!
//! ```text
//! run_code call ─► CodeExecutor (mode native | code | both)
//!    └─► pipeline ─► run_code body: strip types (ptc-engine) ─► fresh sandbox ─► program
//!          program: await tools.x(args) ─► engine Host ─► bridge ─► Scheduler
//!             ─► admit (one at a time) ─► dispatch (native scheduling rules)
//!             ─► commit (post-execute, tools/ptc-dispatch-log, events) in submission order
//!             ─► value (or ToolCallError) back into the program
//! ```
//!
//! **Architecture invariant:** this module talks to engines only through
//! `ptc_engine::{Engine, Host}`; it never names QuickJS or V8.

mod bridge;
mod executor;
pub mod journal;
mod output;
mod run_code;
mod shapes;
pub mod typecheck;

pub use executor::CodeExecutor;
pub use ptc_engine::{LogLevel, MAX_PROGRAM_BYTES};

use std::sync::Arc;

use ptc_engine::{Engine, Limits};

use crate::mode::ToolMode;

/// Caps on the sub-calls one program may make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubCallLimits {
    /// Concurrency-safe sub-calls overlapping at once (`maxParallelSubCalls`, default 10).
    pub max_parallel: usize,
    /// Sub-calls per run (default 10,000).
    pub max_calls: u64,
    /// Sub-calls submitted but not yet settled (default 1,000).
    pub max_pending: usize,
}

impl Default for SubCallLimits {
    fn default() -> Self {
        SubCallLimits {
            max_parallel: 10,
            max_calls: 10_000,
            max_pending: 1_000,
        }
    }
}

/// Sees each console line of a running program as it is printed, with the outer
/// `run_code` execution (e.g. to stream output live).
pub type ConsoleFn = Arc<dyn Fn(&crate::ToolExecution, LogLevel, &str) + Send + Sync>;

/// Code-mode configuration: the engine, its limits, sub-call caps and the default mode.
#[derive(Clone)]
pub struct CodeConfig {
    /// The engine that runs programs.
    pub engine: Arc<dyn Engine>,
    /// Wall clock, heap and output limits per run.
    pub limits: Limits,
    /// Sub-call caps per run.
    pub sub_calls: SubCallLimits,
    /// The mode used where neither the scope nor the deployment sets one.
    pub default_mode: ToolMode,
    /// Rolling-pool size for concurrency-safe root calls.
    pub max_parallel_tool_calls: usize,
    /// Live console observer (none by default; the lines are always in the result).
    pub console: Option<ConsoleFn>,
    /// The most characters of a run's result the model sees (default 50,000): a longer
    /// result is cut to its head and tail with a notice; the session log keeps all of it.
    pub max_result_chars: usize,
    /// The static type check before each run (none by default: programs run unchecked).
    pub typecheck: Option<typecheck::Typecheck>,
    /// Where runs are journaled to survive a crash and replay (none by default; see
    /// [`journal`]).
    pub journaling: Option<journal::Journaling>,
}

/// The default of [`CodeConfig::max_result_chars`].
pub const DEFAULT_MAX_RESULT_CHARS: usize = 50_000;

impl CodeConfig {
    /// A configuration with default limits around `engine`.
    pub fn new(engine: Arc<dyn Engine>) -> Self {
        CodeConfig {
            engine,
            limits: Limits::default(),
            sub_calls: SubCallLimits::default(),
            default_mode: ToolMode::Both,
            max_parallel_tool_calls: crate::executor::DEFAULT_MAX_PARALLEL_TOOL_CALLS,
            console: None,
            max_result_chars: DEFAULT_MAX_RESULT_CHARS,
            typecheck: None,
            journaling: None,
        }
    }

    /// The embedded QuickJS engine with default limits.
    #[cfg(feature = "quickjs")]
    pub fn quickjs() -> Self {
        Self::new(Arc::new(ptc_engine::QuickJsEngine::new()))
    }

    /// The deno_core engine (V8, or its QuickJS facade under `deno-quickjs`) with default limits;
    /// its sandboxes are made ahead of time on engine threads shared by the process.
    #[cfg(any(feature = "v8", feature = "deno-quickjs"))]
    pub fn deno() -> Self {
        Self::new(Arc::new(ptc_engine::DenoEngine::new()))
    }
}

/// The build's engine with default limits: QuickJS when compiled in, else deno_core.
#[cfg(any(feature = "quickjs", feature = "v8", feature = "deno-quickjs"))]
impl Default for CodeConfig {
    fn default() -> Self {
        #[cfg(feature = "quickjs")]
        return Self::quickjs();
        #[cfg(not(feature = "quickjs"))]
        return Self::deno();
    }
}

impl std::fmt::Debug for CodeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeConfig")
            .field("limits", &self.limits)
            .field("sub_calls", &self.sub_calls)
            .field("default_mode", &self.default_mode)
            .field("max_result_chars", &self.max_result_chars)
            .field("typecheck", &self.typecheck)
            .finish_non_exhaustive()
    }
}
