//! The sandboxed JavaScript side of ptc's code mode.
//!
//! A model writes a TypeScript program (the *body* of an async function); ptc strips its types and
//! runs it in a fresh sandbox where `tools.x(args)` calls back into the host. This crate is
//! everything engine-side of that and nothing about tools, registries or pipelines:
//!
//! * [`strip_types`] turns TypeScript into JavaScript with every line and column kept
//!   (`swc_ts_fast_strip`); non-erasable syntax such as `enum` fails as [`FailureKind::Syntax`].
//! * [`Engine`] is the seam: one fresh sandbox per [`Engine::run`] of a [`Program`], with [`Limits`]
//!   and a cancellation token, reporting a [`RunReport`] (console lines plus the returned JSON value
//!   or a [`RunFailure`]).
//! * [`Host`] is what the engine calls for every tool call; ptc's bridge implements it.
//! * `QuickJsEngine` (cargo feature `quickjs`, on by default) is the embedded backend (rquickjs).
//! * `DenoEngine` is deno_core: on V8 (feature `v8`, for deployments that can fetch V8's prebuilt
//!   library) or on deno_core's own QuickJS facade (feature `deno-quickjs`, which builds offline and
//!   is how CI runs this backend). `deno-quickjs` cannot link together with `quickjs` (both embed
//!   QuickJS), so it is built with `--no-default-features`.
//! * `runtime-js/glue.js` is the engine-neutral JavaScript (an ES module whose default export is a
//!   setup function) that builds `tools`, `ToolCallError`, `console` and the web globals on top of
//!   raw host functions (`call`, `log`, `sleep`, `now`, `random`, `part`) and hands the engine its
//!   helpers (`encodeResult`, `describeError`, `toolCallError`, `messageOf`, `siteOf`). Its parts
//!   (`json.js`, `inspect.js`, `web.js`, `url.js`, `console.js`, `missing.js`) are modules of
//!   their own that take the built-ins they use from `primordials.js`, captured before any
//!   program code runs: QuickJS loads each the first time a run needs it (`part(name)`), so a run
//!   that logs nothing, returns plain data and reads no web global never reads their bytecode.
//!   The deno_core backend provides the raw functions from its ops (`runtime-js/deno.js`) and
//!   reuses the glue unchanged; host-call acceptance, output accounting, JSON helpers and failure
//!   kinds are shared Rust modules too. QuickJS adds an
//!   optional raw function, `callPlain(name, args, trace)`, that reads plain JSON arguments in Rust
//!   without JSON text and without running program code, and leaves any other value to the glue's
//!   check.
//! * A run's [`RunReport::notes`] say what did not end it but should not pass silently, each
//!   with its site: a tool's [`Reply::note`] that a cap cut its result short, its other remarks
//!   ([`Reply::remark`], and [`Reply::unless_read`] taken back when the program reads the fields
//!   it names: `typed.js`'s `watch`), and a read of a
//!   field its result type lacks ([`Program::result_shapes`], read through `runtime-js/typed.js`).
//!   A TypeError reading a property of `undefined` names the expression that was.
//! * Where a tool call was written comes with the call: preparing a program marks each direct
//!   `tools.x(arg)` with its `line:col` as one more argument (`program/sites.rs`), so that only
//!   other calls (through an alias, say) take a stack trace, the costliest part of a call.
//!
//! # Sandbox
//! Each run gets a fresh sandbox (QuickJS: runtime and context; deno_core: a `JsRuntime` made ahead
//! of time) holding only the language's own globals plus
//! `tools` (a frozen, prototype-less object with one frozen function per tool name; `run_code` is
//! never bound), `ToolCallError` and `console`. There is no file system, network, environment,
//! process, module loading or timer; the raw host functions live only in the glue's closure, so
//! every call passes the strict JSON check (the glue's, or for plain data its Rust equivalent). Positions in errors are the program's own
//! `line:col` in [`Program::filename`]. The body runs in sloppy mode, as `new AsyncFunction(body)`
//! would (a leading `'use strict';` opts in).
//!
//! **Architecture invariant:** only this crate knows which JavaScript engine exists. The rest of ptc
//! sees [`Engine`], [`Host`] and plain data.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use ptc_engine::{Engine, Host, HostCall, Limits, Program, RunFailure};
//! use tokio_util::sync::CancellationToken;
//!
//! /// A host with one tool, `echo`, that returns its arguments.
//! struct Echo;
//! impl Host for Echo {
//!     fn call_tool(&self, _name: &str, args: serde_json::Value) -> Result<HostCall, RunFailure> {
//!         Ok(Box::pin(async move { Ok(args.into()) }))
//!     }
//! }
//!
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 1)]
//! # async fn main() {
//! let program = Program {
//!     source: "const r: { text: string } = await tools.echo({ text: 'hi' });\nconsole.log('got', r);\nreturn r.text;".into(),
//!     tool_names: vec!["echo".into()],
//!     result_shapes: Default::default(),
//!     filename: "run_code.ts".into(),
//! };
//! # #[cfg(feature = "quickjs")]
//! let engine = ptc_engine::QuickJsEngine::new();
//! # #[cfg(not(feature = "quickjs"))]
//! # let engine = ptc_engine::DenoEngine::new();
//! let report = engine
//!     .run(program, Arc::new(Echo), Limits::default(), CancellationToken::new())
//!     .await;
//! assert_eq!(report.logs, vec![r#"got { text: 'hi' }"#.to_string()]);
//! assert_eq!(report.outcome, Ok(Some(serde_json::json!("hi"))));
//! # }
//! ```
//!
//! # Where the JavaScript runs
//! Never on the caller's async workers, so a CPU-bound program does not stall them. QuickJS: each
//! run gets a thread from tokio's blocking pool and polls host calls there. deno_core: engine
//! threads of its own, each keeping a sandbox ready; host futures are polled there, inside the
//! caller's tokio runtime.
#![warn(missing_docs, unreachable_pub)]
// Without a backend only stripping is left; the shared run machinery is then unused.
#![cfg_attr(
    not(any(feature = "quickjs", feature = "v8", feature = "deno-quickjs")),
    allow(dead_code)
)]

use std::{future::Future, pin::Pin, sync::Arc};

use tokio_util::sync::CancellationToken;

mod calls;
mod contain;
#[cfg(any(feature = "v8", feature = "deno-quickjs"))]
mod deno;
mod diagnostic;
mod failure;
mod host;
mod intl;
mod json;
mod left;
mod limits;
mod notes;
mod observed;
mod output;
mod program;
#[cfg(feature = "quickjs")]
mod quickjs;
mod stop;
mod unreadable;
mod whereabouts;

#[cfg(any(feature = "v8", feature = "deno-quickjs"))]
pub use deno::DenoEngine;
pub use diagnostic::source_snippet;
pub use failure::{FailureKind, RunFailure};
pub use host::{Host, HostCall, Reply, UnlessRead};
pub use left::{Left, LeftBehind};
pub use limits::Limits;
pub use notes::{Note, NoteKind, MAX_NOTES};
pub use observed::{nondeterminism, os_seed, system_clock, Deliveries, Delivery};
pub use program::{shape_program, strip_types, ShapedProgram, MAX_PROGRAM_BYTES};
#[cfg(feature = "quickjs")]
pub use quickjs::{Placement, QuickJsEngine};

/// The engine-neutral JavaScript glue as one ES module: `runtime-js/primordials.js` (the built-ins
/// the parts use, captured before any program code runs) followed by `glue.js`, whose default
/// export is the setup function that builds `tools`, `ToolCallError`, `console` and the other
/// globals from the raw host functions. ASCII only (deno_core embeds it as a one-byte string).
macro_rules! glue_source {
    () => {
        concat!(
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../runtime-js/primordials.js"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../runtime-js/glue.js"
            )),
        )
    };
}
#[cfg_attr(
    not(any(feature = "v8", feature = "deno-quickjs")),
    allow(unused_imports)
)]
pub(crate) use glue_source;

/// [`glue_source!`] as a constant.
#[cfg_attr(not(feature = "quickjs"), allow(dead_code))]
pub(crate) const GLUE_JS: &str = glue_source!();

/// The glue's lazily loaded parts, by the name `host.part(name)` takes: ES modules of their own
/// whose default export is the part's make function (see `runtime-js/glue.js`). ASCII only.
#[cfg_attr(not(feature = "quickjs"), allow(dead_code))]
pub(crate) const GLUE_PARTS: [(&str, &str); 8] = [
    ("json", include_str!("../../runtime-js/json.js")),
    ("inspect", include_str!("../../runtime-js/inspect.js")),
    ("web", include_str!("../../runtime-js/web.js")),
    ("url", include_str!("../../runtime-js/url.js")),
    ("console", include_str!("../../runtime-js/console.js")),
    ("missing", include_str!("../../runtime-js/missing.js")),
    ("typed", include_str!("../../runtime-js/typed.js")),
    ("intl", include_str!("../../runtime-js/intl.js")),
];

/// Console levels the glue forwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogLevel {
    /// `console.log`
    Log,
    /// `console.info`
    Info,
    /// `console.warn`
    Warn,
    /// `console.error`
    Error,
    /// `console.debug`
    Debug,
}

impl LogLevel {
    /// The console method name: `"log"`, `"info"`, `"warn"`, `"error"` or `"debug"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            LogLevel::Log => "log",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
            LogLevel::Debug => "debug",
        }
    }

    /// The level named by a console method name (the inverse of [`LogLevel::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "log" => LogLevel::Log,
            "info" => LogLevel::Info,
            "warn" => LogLevel::Warn,
            "error" => LogLevel::Error,
            "debug" => LogLevel::Debug,
            _ => return None,
        })
    }
}

/// What the engine reports after a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// The console lines captured so far, in order (also on failure).
    pub logs: Vec<String>,
    /// The level of each line in `logs` (same length, same order).
    pub log_levels: Vec<LogLevel>,
    /// The returned JSON value (`Ok(None)` = the program returned `undefined`) or why the run failed.
    pub outcome: Result<Option<serde_json::Value>, RunFailure>,
    /// Tool calls still pending when the program ended, and failed calls nothing awaited.
    pub left_behind: Vec<LeftBehind>,
    /// Notes on the run, each with its site: a tool call whose result a cap cut short
    /// ([`Reply::note`]) or that the tool remarks on ([`Reply::remark`], [`Reply::unless_read`]
    /// while the program did not read those fields), a read of a field the result's type does
    /// not have. The same note at
    /// the same site is kept once (with a count), at most [`MAX_NOTES`] different ones.
    pub notes: Vec<Note>,
    /// Notes past [`MAX_NOTES`], only counted.
    pub notes_left_out: usize,
}

impl RunReport {
    /// A report with no console output that failed with `failure`.
    pub fn failed(failure: RunFailure) -> Self {
        RunReport {
            logs: Vec::new(),
            log_levels: Vec::new(),
            outcome: Err(failure),
            left_behind: Vec::new(),
            notes: Vec::new(),
            notes_left_out: 0,
        }
    }
}

/// One program to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The program as written: the TypeScript (or JavaScript) body of an async function (top-level
    /// `await` and `return`). The engine strips its types on its own thread ([`strip_types`]),
    /// within the run's wall clock.
    pub source: String,
    /// The names to bind on `tools` (a `run_code` name is skipped).
    pub tool_names: Vec<String>,
    /// The result shape of each tool that has one, as JSON (see `runtime-js/typed.js`): a read
    /// of a field its result type does not declare adds a [`NoteKind::Note`] at the read. A
    /// tool not here reads as plain data. Shared: a host builds it once per tool set.
    pub result_shapes: Arc<std::collections::BTreeMap<String, String>>,
    /// The file name used in error positions, e.g. `"run_code.ts"`.
    pub filename: String,
}

/// The engine seam: one fresh sandbox per run.
pub trait Engine: Send + Sync {
    /// Run `program` in a fresh sandbox, calling `host` for every tool call, within `limits`.
    ///
    /// How runs end:
    /// * the program's promise settles: `Ok(value)` (strict JSON, `None` for `undefined`), or
    ///   [`FailureKind::Exception`] with `"Name: message"` and the stack (`file:line:col`);
    /// * a non-JSON returned value: [`FailureKind::InvalidOutput`] naming the offending path;
    /// * the wall clock passes, in a hot loop or while awaiting host calls: [`FailureKind::Timeout`];
    /// * the heap cap is reached (even if the program catches it): [`FailureKind::Memory`];
    /// * console lines plus the returned value pass the output cap: [`FailureKind::OutputLimit`],
    ///   keeping the lines logged before it;
    /// * [`Host::call_tool`] returns `Err(failure)`: that failure (e.g. [`FailureKind::CallLimit`]);
    /// * `cancel` is cancelled (a hot loop included): [`FailureKind::Aborted`];
    /// * the program awaits a promise that can never settle while no host call is pending:
    ///   [`FailureKind::Exception`] at once rather than a timeout later.
    ///
    /// When the run ends, unsettled host calls are dropped (which aborts them). Dropping the returned
    /// future also stops the program.
    fn run(
        &self,
        program: Program,
        host: Arc<dyn Host>,
        limits: Limits,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = RunReport> + Send>>;

    /// The smallest [`Limits::max_heap_bytes`] this engine runs with (its sandbox and glue need
    /// that much before the program starts); a run with less fails as [`FailureKind::Memory`]
    /// before anything runs.
    fn min_heap_bytes(&self) -> usize;

    /// Whether this engine calls [`Host::poll_progress`] while the program computes (a hot loop
    /// included), not only while it waits for host calls.
    ///
    /// When it does, calls the program submitted start without anyone else advancing the host.
    /// When it does not (the default), a host that must start calls during a long computation has
    /// to advance them from another task.
    fn polls_host_while_computing(&self) -> bool {
        false
    }

    /// The engine and the version of its glue, e.g. `quickjs/0.1.0`: a recorded run replays
    /// only on the engine it was recorded on.
    fn name(&self) -> String;
}
