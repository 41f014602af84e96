//! The bridge between a running program and the pipeline.
//!
//! [`BridgeHost`] is the engine's [`Host`]: each `tools.x(args)` becomes a numbered
//! submission queued on the run's [`Driver`], which turns submissions into sub-dispatches
//! `<callId>:ptc:<n>` through the full pipeline:
//!
//! - **admit** (pre-execute, approval, guards) — one sub-call at a time, in submission order;
//! - **dispatch** — the native rules: concurrency-safe calls overlap up to
//!   `max_parallel`, any other call waits for in-flight work and runs alone;
//! - **commit** (post-execute, finalization, `tools/ptc-dispatch-log`, the
//!   `tool/ptc-dispatch` event, the reply to the program) — strictly in submission order.
//!
//! The driver is a poll-driven state machine behind a mutex. Both the engine's thread
//! (through [`Host::poll_progress`], so a call that can settle at once never leaves that
//! thread) and the `run_code` call's own task advance it; whoever polls last is woken.
//! A new submission wakes the `run_code` task only when the engine does not poll while
//! the program computes ([`Engine::polls_host_while_computing`]): otherwise the engine's
//! own next poll starts it, and the cross-thread wake per call is saved.
//!
//! [`Engine::polls_host_while_computing`]: ptc_engine::Engine::polls_host_while_computing
//!
//! When the program ends, [`Bridge::wind_down`] cancels the run signal (in-flight
//! sub-calls abort), abandons queued ones, and drains, so every event lands inside the
//! outer call. A started sub-call that ignores the cancellation for [`WIND_DOWN_GRACE`]
//! is abandoned: its future is dropped (which kills what can be killed, e.g. bash's
//! process group) and a `tool/ptc-dispatch` event records it as `ABORTED`, so the run
//! ends on time whatever its tools do.

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use futures::future::poll_fn;
use futures::stream::FuturesUnordered;
use ptc_engine::{FailureKind, Host, HostCall, LogLevel, RunFailure, RunReport};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::{ConsoleFn, SubCallLimits};
use crate::execution::{ToolExecution, ToolRunContext};
use crate::policy::waiting::PersonClock;

mod driver;

use driver::{Driver, Queued, Stage, Staged};

pub(super) type Reply = oneshot::Sender<Result<Value, String>>;

/// How long [`Bridge::wind_down`] waits for cancelled sub-calls to finish before it
/// abandons them: the most a run can end after its deadline.
pub(crate) const WIND_DOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// One `tools.x(args)` call from the program.
pub(super) struct Submission {
    n: u64,
    name: String,
    args: Value,
    reply: Reply,
}

/// Open a bridge for one run: the host the engine calls, and the handle the `run_code`
/// body uses to drive and wind it down.
pub(crate) fn open(
    ctx: ToolRunContext,
    signal: CancellationToken,
    limits: &SubCallLimits,
    console: Option<ConsoleFn>,
    engine_polls_while_computing: bool,
) -> (BridgeHost, Bridge) {
    let outer = ctx.execution().clone();
    let person = Arc::new(PersonClock::default());
    let driver = Arc::new(Mutex::new(Driver {
        registry: ctx.registry().clone(),
        ctx,
        signal,
        max_parallel: limits.max_parallel.max(1),
        pending: 0,
        closed: false,
        outer_waker: None,
        queue: VecDeque::new(),
        admitting: None,
        running: FuturesUnordered::new(),
        exclusive_running: false,
        settled: BTreeMap::new(),
        next_commit: 1,
        committing: None,
        started: BTreeMap::new(),
        person: person.clone(),
    }));
    let host = BridgeHost {
        outer,
        console,
        driver: driver.clone(),
        submitted: AtomicU64::new(0),
        max_calls: limits.max_calls,
        max_pending: limits.max_pending,
        wake_on_submit: !engine_polls_while_computing,
        person,
    };
    (host, Bridge { driver })
}

fn lock(driver: &Mutex<Driver>) -> MutexGuard<'_, Driver> {
    driver.lock().unwrap_or_else(|e| e.into_inner())
}

/// The engine-facing side: numbers calls, enforces the sub-call caps, queues them.
pub(crate) struct BridgeHost {
    outer: Arc<ToolExecution>,
    console: Option<ConsoleFn>,
    driver: Arc<Mutex<Driver>>,
    submitted: AtomicU64,
    max_calls: u64,
    max_pending: usize,
    /// Wake the `run_code` task on each submission (the engine may not poll for a while).
    wake_on_submit: bool,
    /// Time the run waited for a person, which the engine does not count as run time.
    person: Arc<PersonClock>,
}

pub(super) fn over(reason: &str) -> String {
    format!("run_code run is over ({reason})")
}

impl Host for BridgeHost {
    fn call_tool(&self, name: &str, args: Value) -> Result<HostCall, RunFailure> {
        let (reply, settled) = oneshot::channel();
        let outer_waker = {
            let mut driver = lock(&self.driver);
            // The call's number is taken only once it is queued: a refused call takes none.
            let n = self.submitted.load(Ordering::Relaxed) + 1;
            if n > self.max_calls {
                return Err(RunFailure {
                    kind: FailureKind::CallLimit,
                    message: format!("the program made more than {} tool calls", self.max_calls),
                });
            }
            if driver.closed {
                return Ok(Box::pin(async { Err(over("closed")) }));
            }
            if driver.pending >= self.max_pending {
                return Err(RunFailure {
                    kind: FailureKind::CallLimit,
                    message: format!(
                        "the program had more than {} tool calls pending at once",
                        self.max_pending
                    ),
                });
            }
            driver.pending += 1;
            self.submitted.store(n, Ordering::Relaxed);
            driver.queue.push_back(Queued {
                submission: Submission {
                    n,
                    name: name.to_string(),
                    args,
                    reply,
                },
                prepared: None,
            });
            if self.wake_on_submit {
                driver.outer_waker.clone()
            } else {
                None
            }
        };
        // Wake the run_code task outside the lock, so it can start the call even while the
        // program keeps the engine busy; the engine's own poll usually gets there first.
        if let Some(waker) = outer_waker {
            waker.wake();
        }
        Ok(Box::pin(async move {
            settled.await.unwrap_or_else(|_| Err(over("dropped")))
        }))
    }

    fn console(&self, level: LogLevel, line: &str) {
        if let Some(console) = &self.console {
            console(&self.outer, level, line);
        }
    }

    fn paused(&self) -> std::time::Duration {
        self.person.waited()
    }

    fn poll_progress(&self, cx: &mut Context<'_>) {
        // Never block the engine: if the run_code task holds the driver, it is advancing it.
        if let Ok(mut driver) = self.driver.try_lock() {
            driver.progress(cx);
        }
    }
}

/// The `run_code` body's handle on the driver.
pub(crate) struct Bridge {
    driver: Arc<Mutex<Driver>>,
}

impl Bridge {
    /// Advance sub-calls from this task until the engine's run finishes; returns its report.
    pub(crate) async fn drive(&self, engine_run: impl Future<Output = RunReport>) -> RunReport {
        let mut engine_run = std::pin::pin!(engine_run);
        poll_fn(|cx| {
            if let Poll::Ready(report) = engine_run.as_mut().poll(cx) {
                return Poll::Ready(report);
            }
            match self.driver.try_lock() {
                Ok(mut driver) => {
                    driver.outer_waker = Some(cx.waker().clone());
                    driver.progress(cx);
                }
                // The engine's thread is advancing the driver right now; look again after it,
                // so a wake-up that arrived meanwhile is not lost.
                Err(_) => cx.waker().wake_by_ref(),
            }
            Poll::Pending
        })
        .await
    }

    /// End the run: abort in-flight sub-calls, abandon queued ones with
    /// `run_code run is over (<reason>)`, and wait until every started call has committed.
    pub(crate) async fn wind_down(&self, reason: &str) {
        {
            let mut driver = lock(&self.driver);
            driver.closed = true;
            driver.outer_waker = None;
            driver.signal.cancel();
            let queued: Vec<Queued> = driver.queue.drain(..).collect();
            for Queued { submission: s, .. } in queued {
                let _ = s.reply.send(Err(over(reason)));
                driver.pending -= 1;
                driver.settled.insert(
                    s.n,
                    Staged {
                        n: s.n,
                        stage: Stage::Abandoned,
                        exclusive: false,
                        call: None,
                    },
                );
            }
        }
        let drained = poll_fn(|cx| match lock(&self.driver).progress(cx) {
            true => Poll::Ready(()),
            false => Poll::Pending,
        });
        if tokio::time::timeout(WIND_DOWN_GRACE, drained)
            .await
            .is_err()
        {
            lock(&self.driver).abandon();
        }
    }
}
