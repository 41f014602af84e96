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

use crate::policy::waiting::{self, PersonClock};
use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use futures::future::{poll_fn, BoxFuture, FutureExt};
use futures::stream::{FuturesUnordered, StreamExt};
use ptc_engine::{FailureKind, Host, HostCall, LogLevel, RunFailure, RunReport};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::{ConsoleFn, SubCallLimits};
use crate::error::ToolFailure;
use crate::execution::{
    RunEffects, ToolArguments, ToolExecution, ToolExecutionInput, ToolRunContext,
};
use crate::hooks::dispatch_log::{PtcDispatchLog, PtcDispatchLogNext};
use crate::hooks::HookSet;
use crate::pipeline::{Admission, PreparedCall};
use crate::registry::ToolRegistry;
use crate::result::{Outcome, ToolExecutionResult};
use crate::session::{now_ms, SessionEvent};

type Reply = oneshot::Sender<Result<Value, String>>;

/// How long [`Bridge::wind_down`] waits for cancelled sub-calls to finish before it
/// abandons them: the most a run can end after its deadline.
pub(crate) const WIND_DOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// One `tools.x(args)` call from the program.
struct Submission {
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
    person: Arc<PersonClock>,
}

fn over(reason: &str) -> String {
    format!("run_code run is over ({reason})")
}

impl Host for BridgeHost {
    fn call_tool(&self, name: &str, args: Value) -> Result<HostCall, RunFailure> {
        let n = self.submitted.fetch_add(1, Ordering::Relaxed) + 1;
        if n > self.max_calls {
            return Err(RunFailure {
                kind: FailureKind::CallLimit,
                message: format!("the program made more than {} tool calls", self.max_calls),
            });
        }
        let (reply, settled) = oneshot::channel();
        let outer_waker = {
            let mut driver = lock(&self.driver);
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

/// A submission waiting for its turn; prepared when it first reaches the queue head.
struct Queued {
    submission: Submission,
    prepared: Option<PreparedCall>,
}

/// Where a started sub-call stands after admission or dispatch.
enum Stage {
    /// Queued but never started: no events, nothing to commit.
    Abandoned,
    /// Refused before dispatch (unknown tool, invalid args, denial, cancellation).
    Refused(ToolExecutionResult),
    /// Admitted by policy; dispatch still to run.
    Admitted(Arc<RunEffects>),
    /// Dispatched; post-execute still to run.
    Dispatched(ToolExecutionResult, Arc<RunEffects>),
}

/// A started sub-call between stages.
struct Staged {
    n: u64,
    stage: Stage,
    exclusive: bool,
    call: Option<StartedCall>,
}

/// What the commit stage needs of a started call.
struct StartedCall {
    exec: Arc<ToolExecution>,
    hooks: Arc<HookSet>,
    reply: Reply,
}

/// The sub-call state machine of one run.
pub(crate) struct Driver {
    registry: ToolRegistry,
    ctx: ToolRunContext,
    signal: CancellationToken,
    max_parallel: usize,
    /// Submitted and not yet committed or abandoned.
    pending: usize,
    closed: bool,
    /// The run_code task, woken on new submissions when the engine does not poll while
    /// the program computes.
    outer_waker: Option<Waker>,
    queue: VecDeque<Queued>,
    admitting: Option<BoxFuture<'static, Staged>>,
    running: FuturesUnordered<BoxFuture<'static, Staged>>,
    exclusive_running: bool,
    settled: BTreeMap<u64, Staged>,
    next_commit: u64,
    committing: Option<(u64, BoxFuture<'static, ()>)>,
    /// Sub-calls started (admission begun) and not yet committed.
    started: BTreeMap<u64, Arc<ToolExecution>>,
    /// Time the run waited for a person (approvals, questions): not counted as run time.
    person: Arc<PersonClock>,
}

impl Driver {
    /// Make every step possible now; `true` when nothing is queued, running or committing.
    /// Stages that must wait register `cx`'s waker.
    fn progress(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            self.start_work();
            let mut moved = false;
            if let Some(admitting) = self.admitting.as_mut() {
                if let Poll::Ready(staged) = admitting.as_mut().poll(cx) {
                    self.admitting = None;
                    self.on_admitted(staged);
                    moved = true;
                }
            }
            while let Poll::Ready(Some(staged)) = self.running.poll_next_unpin(cx) {
                self.on_dispatched(staged);
                moved = true;
            }
            if let Some((n, committing)) = self.committing.as_mut() {
                if committing.as_mut().poll(cx).is_ready() {
                    self.started.remove(n);
                    self.committing = None;
                    self.pending -= 1;
                    moved = true;
                }
            }
            if !moved {
                return self.queue.is_empty()
                    && self.admitting.is_none()
                    && self.running.is_empty()
                    && self.committing.is_none()
                    && self.settled.is_empty();
            }
        }
    }

    /// Start the next admission and the next commit when their turn has come.
    fn start_work(&mut self) {
        if self.admitting.is_none() {
            self.start_admission();
        }
        while self.committing.is_none() {
            let Some(staged) = self.settled.remove(&self.next_commit) else {
                break;
            };
            self.next_commit += 1;
            if let Some(call) = staged.call {
                self.committing = Some((staged.n, self.commit(staged.stage, call)));
            }
        }
    }

    fn start_admission(&mut self) {
        let Some(head) = self.queue.front_mut() else {
            return;
        };
        let submission = &mut head.submission;
        let prepared = head.prepared.get_or_insert_with(|| {
            let outer = self.ctx.execution();
            self.registry.prepare(ToolExecutionInput {
                call_id: format!("{}:ptc:{}", outer.call_id(), submission.n),
                root_call_id: Some(outer.root_call_id().to_string()),
                name: submission.name.clone(),
                arguments: ToolArguments::Json(std::mem::take(&mut submission.args)),
                agent: outer.agent().cloned(),
                tool_set: outer.tool_set().cloned(),
                parent: Some(outer.token()),
                signal: self.signal.clone(),
            })
        });
        let exclusive = !prepared.is_concurrency_safe();
        let may_start = if exclusive {
            self.running.is_empty()
        } else {
            !self.exclusive_running && self.running.len() < self.max_parallel
        };
        if !may_start {
            return;
        }
        let Queued {
            submission,
            prepared,
        } = self.queue.pop_front().expect("the head exists");
        let prepared = prepared.expect("the head was prepared");
        let exec = prepared.execution().clone();
        self.log(|parent| SessionEvent::PtcDispatchStart {
            at_ms: now_ms(),
            parent_call_id: parent.to_string(),
            sub_call_id: exec.call_id().to_string(),
            name: exec.name().to_string(),
            arguments: exec.arguments().as_ref().clone(),
        });
        let registry = self.registry.clone();
        let hooks = registry.inner.hooks.snapshot();
        let n = submission.n;
        self.started.insert(n, exec.clone());
        let person = self.person.clone();
        self.admitting = Some(
            waiting::scope(person, async move {
                let stage = match registry.admit(&hooks, &prepared).await {
                    Admission::Admitted(effects) => Stage::Admitted(effects),
                    Admission::Refused(result) => Stage::Refused(*result),
                };
                Staged {
                    n,
                    stage,
                    exclusive,
                    call: Some(StartedCall {
                        exec,
                        hooks,
                        reply: submission.reply,
                    }),
                }
            })
            .boxed(),
        );
    }

    fn on_admitted(&mut self, staged: Staged) {
        match staged.stage {
            Stage::Admitted(effects) => {
                let call = staged.call.expect("started calls carry their identity");
                if staged.exclusive {
                    self.exclusive_running = true;
                }
                let registry = self.registry.clone();
                let (n, exclusive) = (staged.n, staged.exclusive);
                let person = self.person.clone();
                self.running.push(
                    waiting::scope(person, async move {
                        let result = registry
                            .dispatch_admitted(&call.hooks, &call.exec, &effects)
                            .await;
                        Staged {
                            n,
                            stage: Stage::Dispatched(result, effects),
                            exclusive,
                            call: Some(call),
                        }
                    })
                    .boxed(),
                );
            }
            _ => {
                self.settled.insert(staged.n, staged);
            }
        }
    }

    fn on_dispatched(&mut self, staged: Staged) {
        if staged.exclusive {
            self.exclusive_running = false;
        }
        self.settled.insert(staged.n, staged);
    }

    /// The commit stage of one started sub-call.
    fn commit(&self, stage: Stage, call: StartedCall) -> BoxFuture<'static, ()> {
        let registry = self.registry.clone();
        let ctx = self.ctx.clone();
        async move {
            let StartedCall { exec, hooks, reply } = call;
            let result = match stage {
                Stage::Dispatched(result, effects) => {
                    registry.commit(&hooks, &exec, result, Some(&effects)).await
                }
                Stage::Refused(result) => registry.commit(&hooks, &exec, result, None).await,
                Stage::Admitted(_) | Stage::Abandoned => return,
            };
            for context in &result.additional_contexts {
                ctx.defer_context(context.clone());
            }
            if result.concludes_turn() {
                ctx.conclude_turn();
            }
            let content = logged_content(&hooks, ctx.execution(), &exec, &result).await;
            log_to(&ctx, |parent| SessionEvent::PtcDispatch {
                at_ms: now_ms(),
                parent_call_id: parent.to_string(),
                sub_call_id: exec.call_id().to_string(),
                name: exec.name().to_string(),
                is_error: result.is_error(),
                content,
                error: result.error().cloned(),
                meta: result.meta.clone(),
            });
            let _ = reply.send(match result.outcome {
                Outcome::Success { value, .. } => Ok(Arc::unwrap_or_clone(value)),
                Outcome::Failure(failure) => Err(failure.message),
            });
        }
        .boxed()
    }

    fn log(&self, event: impl FnOnce(&str) -> SessionEvent) {
        log_to(&self.ctx, event);
    }

    /// Give up on every started sub-call that has not committed (after
    /// [`WIND_DOWN_GRACE`]): drop their futures and log each as aborted.
    fn abandon(&mut self) {
        self.admitting = None;
        self.running = FuturesUnordered::new();
        self.committing = None;
        self.settled.clear();
        self.queue.clear();
        self.pending = 0;
        for exec in std::mem::take(&mut self.started).into_values() {
            let failure = ToolFailure::new(
                format!(
                    "abandoned: {} did not stop within {WIND_DOWN_GRACE:?} of the run ending",
                    exec.name()
                ),
                "AbortError",
                crate::error::codes::ABORTED,
            );
            self.log(|parent| SessionEvent::PtcDispatch {
                at_ms: now_ms(),
                parent_call_id: parent.to_string(),
                sub_call_id: exec.call_id().to_string(),
                name: exec.name().to_string(),
                is_error: true,
                content: vec![crate::content::ContentBlock::text(failure.message.clone())],
                error: Some(failure),
                meta: None,
            });
        }
    }
}

/// Append a code-mode event to the outer call's session, if it has one.
fn log_to(ctx: &ToolRunContext, event: impl FnOnce(&str) -> SessionEvent) {
    let outer = ctx.execution();
    if let Some(session) = outer.agent().and_then(|a| a.session()) {
        if let Err(e) = session.append(&event(outer.call_id())) {
            tracing::warn!(
                call_id = outer.call_id(),
                "could not log a run_code sub-call: {e}"
            );
        }
    }
}

/// The durable content copy: the `tools/ptc-dispatch-log` waterfall's answer, or the
/// settled content when there is no listener or a listener panics.
async fn logged_content(
    hooks: &Arc<HookSet>,
    outer: &Arc<ToolExecution>,
    sub: &ToolExecution,
    result: &ToolExecutionResult,
) -> Vec<crate::content::ContentBlock> {
    if !hooks
        .ptc_dispatch_log
        .iter()
        .any(|l| l.applies_to(outer.scope_id()))
    {
        return result.content.clone();
    }
    let dispatch = Arc::new(PtcDispatchLog {
        exec: outer.clone(),
        sub_call_id: sub.call_id().to_string(),
        name: sub.name().to_string(),
        is_error: result.is_error(),
        content: result.content.clone(),
    });
    AssertUnwindSafe(PtcDispatchLogNext::start(hooks.clone(), dispatch).run())
        .catch_unwind()
        .await
        .unwrap_or_else(|_| result.content.clone())
}
