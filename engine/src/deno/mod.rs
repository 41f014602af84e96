//! The deno_core backend: the same sandbox on V8 (cargo feature `v8`) or on deno_core's own QuickJS
//! facade (feature `deno-quickjs`, which builds offline and so runs this adapter in CI).
//!
//! This module is only the engine adapter; the glue (`runtime-js/glue.js`), host-call acceptance,
//! output accounting, JSON helpers and failure kinds are the crate's shared ones.
//!
//! # Threads and sandboxes
//! A `JsRuntime` is not `Send`: each lives on one engine thread ([`pool`]) that drives it with a
//! current-thread tokio runtime; [`DenoEngine::run`] talks to that thread over channels. Creating a
//! `JsRuntime` costs 17–29 ms here, so every engine thread makes its next sandbox as soon as a run
//! ends and the pool keeps [`DenoEngine::DEFAULT_SPARES`] threads with a ready sandbox, so a run does not wait
//! for one. No sandbox ever serves two runs.
//!
//! # Sandbox
//! The `ptc` extension ([`ext`]) loads `runtime-js/deno.js` and the shared glue as its ESM. That
//! module removes every global that is not the language itself (the `Deno` namespace with its ops,
//! `__bootstrap`, deno_core's console, ...), so a program sees only the language, `tools`,
//! `ToolCallError` and `console`; the ops stay inside the module, and programs cannot import `ext:`
//! modules. `Atomics.wait` is disallowed.
//!
//! # Limits
//! * Wall clock, from when the program's sandbox starts the run (as in the QuickJS backend): a
//!   watchdog thread records the timeout, then calls `terminate_execution` on the
//!   isolate (a hot loop ends) and wakes the event loop (a wait on host calls ends).
//! * Heap: `CreateParams::heap_limits` plus a near-heap-limit callback that records the memory
//!   failure, terminates, and raises the limit so the engine can unwind; the process stays healthy.
//! * Output: counted in `op_ptc_host_log`; the line over the cap halts the run, earlier lines stay.
//! * Cancellation, or dropping the run's future: recorded as `aborted`, then terminate.
//! * A host refusal (`CallLimit`): recorded by the host-call op, then terminate.
//!
//! Positions: the program shares its first line with the wrapper `(async function () {`, so line
//! numbers are exact; reported columns on line 1 are shifted back (in syntax errors and in the
//! stack of an uncaught exception; a stack the program prints itself keeps the raw column).

mod control;
mod ext;
mod gate;
mod pool;
mod report;
mod sandbox;

use std::{future::Future, pin::Pin, sync::Arc};

use tokio::{runtime::Handle, sync::oneshot};
use tokio_util::sync::CancellationToken;

use self::{control::Control, pool::Pool, sandbox::Job};
use crate::{Engine, Host, Limits, Program, RunFailure, RunReport};

/// The deno_core engine: a fresh `JsRuntime` for every run, made ahead of time on engine threads.
///
/// [`Engine::run`]'s future must be polled inside a tokio runtime: host futures and
/// [`Host::poll_progress`] run on the engine thread with that runtime entered.
///
/// ```no_run
/// use ptc_engine::DenoEngine;
/// let shared = DenoEngine::new(); // the process-wide pool
/// let own = DenoEngine::with_spares(4);
/// # let _ = (shared, own);
/// ```
#[derive(Clone)]
pub struct DenoEngine {
    pool: Arc<Pool>,
}

impl DenoEngine {
    /// How many engine threads [`DenoEngine::new`] keeps with a ready sandbox.
    pub const DEFAULT_SPARES: usize = 2;

    /// An engine on the process-wide pool (started on first use, with
    /// [`DEFAULT_SPARES`](Self::DEFAULT_SPARES) ready threads).
    pub fn new() -> Self {
        DenoEngine {
            pool: Pool::global().clone(),
        }
    }

    /// [`Engine::min_heap_bytes`] for deno_core: its snapshot, the glue and the first
    /// allocations of a run need several MiB (deno_core's QuickJS facade fails to start a
    /// context under 6 MiB); below this the runtime could abort rather than fail.
    pub const MIN_HEAP_BYTES: usize = 16 * 1024 * 1024;

    /// An engine with its own pool keeping `spares` threads with a ready sandbox.
    pub fn with_spares(spares: usize) -> Self {
        DenoEngine {
            pool: Arc::new(Pool::new(spares)),
        }
    }
}

impl Default for DenoEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for DenoEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenoEngine").finish_non_exhaustive()
    }
}

impl Engine for DenoEngine {
    fn name(&self) -> String {
        concat!("deno/", env!("CARGO_PKG_VERSION")).to_string()
    }

    fn run(
        &self,
        program: Program,
        host: Arc<dyn Host>,
        limits: Limits,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = RunReport> + Send>> {
        let pool = self.pool.clone();
        // Before the pool sees the limits: it makes its next sandboxes with the latest heap cap.
        let refusal = limits.refusal(Self::MIN_HEAP_BYTES);
        Box::pin(async move {
            if let Some(failure) = refusal {
                return RunReport::failed(failure);
            }
            let control = Control::new();
            // Dropping this future stops the program too.
            let halt_on_drop = HaltOnDrop(Some(control.clone()));
            let (reply, report) = oneshot::channel();
            let job = Job {
                program,
                host,
                limits,
                cancel: cancel.clone(),
                control: control.clone(),
                caller: Handle::current(),
            };
            pool.submit(job, reply);
            let mut report = std::pin::pin!(report);
            let report = tokio::select! {
                report = &mut report => report,
                _ = cancel.cancelled() => {
                    control.halt(RunFailure::aborted());
                    report.await
                }
            };
            halt_on_drop.disarm();
            report.unwrap_or_else(|_| {
                RunReport::failed(RunFailure::engine("the engine thread failed"))
            })
        })
    }

    fn min_heap_bytes(&self) -> usize {
        Self::MIN_HEAP_BYTES
    }
}

/// Halts the run as aborted when the run's future is dropped before it finished.
struct HaltOnDrop(Option<Arc<Control>>);

impl HaltOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for HaltOnDrop {
    fn drop(&mut self) {
        if let Some(control) = self.0.take() {
            control.halt(RunFailure::aborted());
        }
    }
}
