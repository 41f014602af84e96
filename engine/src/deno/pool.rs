//! Engine threads, each with a sandbox made ahead of time.
//!
//! A `JsRuntime` is not `Send` and costs tens of milliseconds to create, so each engine thread
//! owns its sandboxes: it makes one, offers itself as idle, runs the one job it is handed in that
//! sandbox, drops it, and makes the next one before offering itself again. [`Pool::submit`] hands a
//! job to an idle thread (whose sandbox is ready, so the run does not wait) and starts new threads
//! whenever fewer than `spares` are idle or starting, so the next runs find one ready too. Only
//! when more runs arrive at once than there are ready threads does a run wait for a sandbox.
//! Threads idle for [`IDLE_TIMEOUT`] beyond the spares exit.

use std::{
    sync::{mpsc, Arc, Mutex, MutexGuard, OnceLock},
    time::Duration,
};

use tokio::sync::oneshot;

use super::sandbox::{Job, Sandbox};
use crate::{Limits, RunFailure, RunReport};

/// How long a thread beyond the spares stays idle before it exits.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Engine threads' stacks (deeply nested JSON parses recursively in some engines).
const STACK_BYTES: usize = 8 * 1024 * 1024;

/// A set of engine threads; see the module docs.
pub(super) struct Pool {
    shared: Arc<Shared>,
}

struct Shared {
    spares: usize,
    state: Mutex<State>,
}

struct State {
    /// Threads with a ready sandbox, waiting for a job.
    idle: Vec<Idle>,
    /// Spare threads still making their first sandbox.
    starting: usize,
    /// The heap cap new sandboxes get: the latest run's.
    heap: usize,
    next_id: u64,
    closed: bool,
}

struct Idle {
    id: u64,
    tx: mpsc::Sender<Work>,
}

/// A job and where its report goes.
struct Work {
    job: Job,
    reply: oneshot::Sender<RunReport>,
}

impl Pool {
    /// The process-wide pool behind [`DenoEngine::new`](super::DenoEngine::new).
    pub(super) fn global() -> &'static Arc<Pool> {
        static POOL: OnceLock<Arc<Pool>> = OnceLock::new();
        POOL.get_or_init(|| Arc::new(Pool::new(super::DenoEngine::DEFAULT_SPARES)))
    }

    /// A pool that keeps `spares` threads with a ready sandbox (starting them now).
    pub(super) fn new(spares: usize) -> Self {
        let shared = Arc::new(Shared {
            spares,
            state: Mutex::new(State {
                idle: Vec::new(),
                starting: spares,
                heap: Limits::default().max_heap_bytes,
                next_id: 0,
                closed: false,
            }),
        });
        for _ in 0..spares {
            spawn(&shared, None, true);
        }
        Pool { shared }
    }

    /// Run `job` on an engine thread; its report arrives on `reply`.
    pub(super) fn submit(&self, job: Job, reply: oneshot::Sender<RunReport>) {
        let mut state = self.shared.lock();
        state.heap = job.limits.max_heap_bytes;
        let idle = state.idle.pop();
        let missing = self
            .shared
            .spares
            .saturating_sub(state.idle.len() + state.starting);
        state.starting += missing;
        drop(state);
        for _ in 0..missing {
            spawn(&self.shared, None, true);
        }
        let work = Work { job, reply };
        match idle {
            Some(idle) => {
                if let Err(mpsc::SendError(work)) = idle.tx.send(work) {
                    spawn(&self.shared, Some(work), false);
                }
            }
            None => spawn(&self.shared, Some(work), false),
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.closed = true;
        state.idle.clear();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Start an engine thread, with a first job or as a spare (`starting` counted by the caller).
fn spawn(shared: &Arc<Shared>, first: Option<Work>, starting: bool) {
    let for_thread = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("ptc-deno".into())
        .stack_size(STACK_BYTES)
        .spawn(move || worker(for_thread, first, starting));
    // On failure the job (if any) is dropped with the closure: its caller sees the reply channel
    // closed and reports an engine failure.
    if spawned.is_err() && starting {
        shared.lock().starting -= 1;
    }
}

/// An engine thread's life: run the job it was started with, then make a sandbox, go idle, take
/// the next job, and so on.
fn worker(shared: Arc<Shared>, first: Option<Work>, mut starting: bool) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            if let Some(work) = first {
                let failure = RunFailure::engine(format!("could not start an engine thread: {e}"));
                let _ = work.reply.send(RunReport::failed(failure));
            }
            if starting {
                shared.lock().starting -= 1;
            }
            return;
        }
    };
    let id = {
        let mut state = shared.lock();
        state.next_id += 1;
        state.next_id
    };
    let (tx, rx) = mpsc::channel::<Work>();
    let mut ready: Option<Sandbox> = None;
    let mut work = first;
    loop {
        if let Some(Work { job, reply }) = work.take() {
            let heap = job.limits.max_heap_bytes;
            let sandbox = match ready.take() {
                Some(sandbox) if sandbox.heap() == heap => Ok(sandbox),
                _ => {
                    let _entered = runtime.enter();
                    Sandbox::new(heap)
                }
            };
            let report = match sandbox {
                Ok(sandbox) => runtime.block_on(sandbox.run(job)),
                Err(failure) => RunReport::failed(failure),
            };
            let _ = reply.send(report);
        }
        // Make the next sandbox before offering this thread again.
        let heap = shared.lock().heap;
        ready = {
            let _entered = runtime.enter();
            Sandbox::new(heap).ok()
        };
        {
            let mut state = shared.lock();
            if starting {
                state.starting -= 1;
                starting = false;
            }
            if ready.is_none() || state.closed {
                return;
            }
            state.idle.push(Idle { id, tx: tx.clone() });
        }
        work = loop {
            match rx.recv_timeout(IDLE_TIMEOUT) {
                Ok(work) => break Some(work),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let mut state = shared.lock();
                    if state.closed {
                        return;
                    }
                    if state.idle.len() > shared.spares {
                        if let Some(at) = state.idle.iter().position(|idle| idle.id == id) {
                            state.idle.swap_remove(at);
                            return;
                        }
                        // Taken a moment ago: a job is on its way.
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        };
    }
}
