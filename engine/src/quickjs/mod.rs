//! The embedded QuickJS backend (`rquickjs`).
//!
//! # Where the JavaScript runs
//! A run is synchronous code on one OS thread: it creates a fresh QuickJS runtime and context,
//! installs the glue, runs the program and drives its job queue, polling the pending [`HostCall`]
//! futures itself (with a waker that unparks the thread) and parking when there is nothing to do.
//! Ready host calls therefore cost no thread hop at all; a call that completes later on another
//! thread costs one unpark.
//!
//! By default ([`Placement::BlockingPool`]) that thread comes from tokio's blocking pool
//! (`spawn_blocking`), so a CPU-bound program (a hot loop runs until its deadline) never occupies
//! one of the caller's async workers, and a current-thread runtime keeps serving its other tasks
//! (including the host futures' timers) while a program computes. [`Placement::InPlace`] runs it on
//! the calling worker with `block_in_place` instead (multi-threaded runtimes only; elsewhere it
//! falls back to the pool).
//!
//! The blocking pool's thread hop costs about 17 µs per run and nothing per call, so
//! isolation wins and [`Placement::BlockingPool`] is the default (figures in `benches/README.md`).
//! Plain JSON arguments are read in Rust (`plain_json.rs`) and scalar results are made directly.
//!
//! The host makes progress on this thread too ([`Host::poll_progress`]): right after it accepts a
//! call (so a call that can complete at once never waits for the event loop), from the event loop,
//! and, at most every 200 µs, from QuickJS's interrupt handler while the program computes, so
//! submitted calls start during a hot loop without another thread being woken for them.
//!
//! A run's runtime is created fresh; the glue is compiled to QuickJS bytecode once per process
//! and loaded into each runtime, because parsing it each time cost more than everything else in
//! a trivial run.
//!
//! [`HostCall`]: crate::HostCall
//! [`Host::poll_progress`]: crate::Host::poll_progress

mod compile;
mod driver;
mod glue;
mod heap;
mod host_fns;
mod in_flight;
mod interrupt;
mod own;
mod plain_json;
mod sandbox;
mod unhandled;

use std::{future::Future, pin::Pin, sync::Arc};

use tokio::runtime::{Handle, RuntimeFlavor};
use tokio_util::sync::CancellationToken;

use crate::{Engine, FailureKind, Host, Limits, Program, RunFailure, RunReport};

/// Which thread runs a program's JavaScript (see the module docs for the trade-off).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Placement {
    /// A thread from tokio's blocking pool (`spawn_blocking`): CPU-bound programs never occupy an
    /// async worker. The default.
    #[default]
    BlockingPool,
    /// The calling worker thread, via `block_in_place` (multi-threaded tokio runtimes only; on any
    /// other runtime this behaves like [`Placement::BlockingPool`]).
    InPlace,
}

/// The QuickJS engine: a fresh QuickJS runtime and context for every run.
///
/// [`Engine::run`]'s future must be polled inside a tokio runtime (it uses `spawn_blocking` or
/// `block_in_place`); host futures are polled on the engine thread, inside that runtime's context.
///
/// ```
/// use ptc_engine::{Placement, QuickJsEngine};
/// let engine = QuickJsEngine::new();
/// let in_place = QuickJsEngine::with_placement(Placement::InPlace);
/// # let _ = (engine, in_place);
/// ```
#[derive(Debug, Clone, Default)]
pub struct QuickJsEngine {
    placement: Placement,
}

impl QuickJsEngine {
    /// An engine that runs programs on tokio's blocking pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// An engine that runs programs where `placement` says.
    pub fn with_placement(placement: Placement) -> Self {
        QuickJsEngine { placement }
    }

    /// Where this engine runs programs.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// [`Engine::min_heap_bytes`] for QuickJS: a context and the glue take a few hundred KiB.
    pub const MIN_HEAP_BYTES: usize = 1024 * 1024;
}

impl Engine for QuickJsEngine {
    fn name(&self) -> String {
        concat!("quickjs/", env!("CARGO_PKG_VERSION")).to_string()
    }

    fn run(
        &self,
        program: Program,
        host: Arc<dyn Host>,
        limits: Limits,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = RunReport> + Send>> {
        let placement = self.placement;
        let refusal = limits.refusal(Self::MIN_HEAP_BYTES);
        Box::pin(async move {
            if let Some(failure) = refusal {
                return RunReport::failed(failure);
            }
            // Dropping this future stops the program too (through a child token, so the caller's
            // token is left alone).
            let token = cancel.child_token();
            let guard = token.clone().drop_guard();
            let in_place = placement == Placement::InPlace
                && Handle::current().runtime_flavor() == RuntimeFlavor::MultiThread;
            let report = if in_place {
                tokio::task::block_in_place(|| sandbox::run(program, host, limits, token))
            } else {
                tokio::task::spawn_blocking(move || sandbox::run(program, host, limits, token))
                    .await
                    .unwrap_or_else(|e| {
                        RunReport::failed(RunFailure::new(
                            FailureKind::Exception,
                            format!("the engine thread failed: {e}"),
                        ))
                    })
            };
            guard.disarm();
            report
        })
    }

    /// `true`: the interrupt handler lets the host make progress while the program computes.
    fn min_heap_bytes(&self) -> usize {
        Self::MIN_HEAP_BYTES
    }

    fn polls_host_while_computing(&self) -> bool {
        true
    }
}
