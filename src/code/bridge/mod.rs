//! The bridge between a running program and the pipeline.
//!
//! [`BridgeHost`] is the engine's [`Host`]: each `tools.x(args)` becomes a numbered
//! [`SubCall`] queued on the run's [`Scheduler`], which turns them into sub-dispatches
//! `<callId>:ptc:<n>` through the full pipeline ([`PolicyStages::OneAtATime`]):
//!
//! - **admit** (pre-execute, approval, guards) — one sub-call at a time, in submission order;
//! - **dispatch** — the native rules: concurrency-safe calls overlap up to
//!   `max_parallel`, any other call waits for earlier calls to finish and runs alone;
//! - **commit** (post-execute, finalization, `tools/ptc-dispatch-log`, the
//!   `tool/ptc-dispatch` event, the reply to the program) — strictly in submission order.
//!
//! The scheduler is a poll-driven state machine behind a mutex. Both the engine's thread
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

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use futures::future::poll_fn;
use ptc_engine::{FailureKind, Host, HostCall, LogLevel, RunFailure, RunReport};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::journal::{Answer, Recorded, Repeat, RunJournal};
use super::{ConsoleFn, SubCallLimits};
use crate::error::codes::IN_DOUBT;
use crate::execution::{ToolExecution, ToolRunContext};
use crate::executor::{PolicyStages, Scheduler};
use crate::policy::waiting::PersonClock;

mod fates;
mod paging;
mod sub_calls;

/// The pages a run's calls asked for and where their results were cut (see `paging`).
type SharedPaging = Arc<Mutex<paging::Paging>>;

fn lock_paging(paging: &SharedPaging) -> MutexGuard<'_, paging::Paging> {
    paging.lock().unwrap_or_else(|e| e.into_inner())
}

use fates::{SharedFates, Unsettled};
use sub_calls::{SubCall, SubCalls};

pub(super) type Reply = oneshot::Sender<Result<ptc_engine::Reply, String>>;

/// What repeating a call of a tool with these arguments would do.
pub(crate) type Repeats = Arc<dyn Fn(&str, &Value) -> Repeat + Send + Sync>;

/// A journaled run's journal, and what repeating each call would do.
pub(crate) type Journal = (Arc<RunJournal>, Repeats);

/// How long [`Bridge::wind_down`] waits for cancelled sub-calls to finish before it
/// abandons them: the most a run can end after its deadline.
pub(crate) const WIND_DOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The sub-calls of one run and who to wake for them.
struct Run {
    scheduler: Scheduler<SubCalls>,
    /// Sub-calls numbered so far.
    submitted: u64,
    closed: bool,
    /// The run_code task, woken on new submissions when the engine does not poll while
    /// the program computes.
    outer_waker: Option<Waker>,
}

/// Open a bridge for one run: the host the engine calls, and the handle the `run_code`
/// body uses to drive and wind it down.
pub(crate) fn open(
    ctx: ToolRunContext,
    signal: CancellationToken,
    limits: &SubCallLimits,
    console: Option<ConsoleFn>,
    engine_polls_while_computing: bool,
    journal: Option<Journal>,
) -> (BridgeHost, Bridge) {
    let outer = ctx.execution().clone();
    let person = Arc::new(PersonClock::default());
    let registry = ctx.registry().clone();
    let changes = Arc::new(Mutex::new(Vec::new()));
    let fates = SharedFates::default();
    let paging = SharedPaging::default();
    let bridge_journal = journal.as_ref().map(|(journal, _)| journal.clone());
    let sub_calls = SubCalls {
        registry: registry.clone(),
        ctx,
        signal,
        changes: changes.clone(),
        fates: fates.clone(),
        paging: paging.clone(),
        journal: bridge_journal.clone(),
    };
    let scheduler = Scheduler::new(registry, sub_calls, limits.max_parallel)
        .with_policy_stages(PolicyStages::OneAtATime)
        .with_person_clock(person.clone());
    let run = Arc::new(Mutex::new(Run {
        scheduler,
        submitted: 0,
        closed: false,
        outer_waker: None,
    }));
    let host = BridgeHost {
        outer,
        console,
        run: run.clone(),
        max_calls: limits.max_calls,
        max_pending: limits.max_pending,
        wake_on_submit: !engine_polls_while_computing,
        person,
        fates: fates.clone(),
        paging: paging.clone(),
        journal,
    };
    (
        host,
        Bridge {
            run,
            changes,
            fates,
            paging,
            journal: bridge_journal,
        },
    )
}

fn lock(run: &Mutex<Run>) -> MutexGuard<'_, Run> {
    run.lock().unwrap_or_else(|e| e.into_inner())
}

/// The engine-facing side: numbers calls, enforces the sub-call caps, queues them.
pub(crate) struct BridgeHost {
    outer: Arc<ToolExecution>,
    console: Option<ConsoleFn>,
    run: Arc<Mutex<Run>>,
    max_calls: u64,
    max_pending: usize,
    /// Wake the `run_code` task on each submission (the engine may not poll for a while).
    wake_on_submit: bool,
    /// Time the run waited for a person, which the engine does not count as run time.
    person: Arc<PersonClock>,
    /// What became of each call, for the calls the program leaves behind.
    fates: SharedFates,
    /// The pages the calls asked for.
    paging: SharedPaging,
    /// The run's journal, if it is journaled.
    journal: Option<Journal>,
}

impl BridgeHost {
    /// What records call `n` of `tool` as dropped if the program never takes its result.
    fn unsettled(&self, n: u64, tool: &str) -> Unsettled {
        Unsettled {
            fates: self.fates.clone(),
            n,
            tool: tool.to_string(),
            settled: false,
        }
    }
}

pub(super) fn over(reason: &str) -> String {
    format!("run_code run is over ({reason})")
}

impl Host for BridgeHost {
    fn call_tool(&self, name: &str, args: Value) -> Result<HostCall, RunFailure> {
        let (reply, settled) = oneshot::channel();
        let (n, outer_waker) = {
            let mut run = lock(&self.run);
            // The call's number is taken only once it is queued: a refused call takes none.
            let n = run.submitted + 1;
            if n > self.max_calls {
                return Err(RunFailure {
                    kind: FailureKind::CallLimit,
                    message: format!(
                        "the program made more than {} tool calls: do bulk work in fewer calls \
                         (one grep or glob over many files, or one bash command)",
                        ptc_sdk_gen::thousands(self.max_calls)
                    ),
                });
            }
            if run.closed {
                return Ok(Box::pin(async { Err(over("closed")) }));
            }
            if run.scheduler.len() >= self.max_pending {
                return Err(RunFailure {
                    kind: FailureKind::CallLimit,
                    message: format!(
                        "the program had more than {} tool calls pending at once: await them \
                         in batches (e.g. Promise.all over 100 at a time)",
                        ptc_sdk_gen::thousands(self.max_pending as u64)
                    ),
                });
            }
            if let Some(offset) = args.get("offset").and_then(Value::as_u64) {
                lock_paging(&self.paging).asked(n, name, offset);
            }
            let repeat = self
                .journal
                .as_ref()
                .map(|(_, repeats)| repeats(name, &args));
            if let (Some((journal, _)), Some(repeat)) = (&self.journal, repeat) {
                let answer = match journal.call(n, name, &args, repeat)? {
                    Recorded::Live => None,
                    Recorded::Reply(answer) => Some(answer),
                    Recorded::InDoubt => Some(Answer {
                        result: Err(format!(
                            "{IN_DOUBT}: {name} was running when the run's last instance \
                             stopped: it may or may not have happened (check before retrying)"
                        )),
                        code: Some(IN_DOUBT.to_string()),
                        late: false,
                    }),
                };
                if let Some(answer) = answer {
                    run.submitted = n;
                    let error = answer.result.as_ref().err();
                    let error = error.map(|m| (m.as_str(), answer.code.as_deref()));
                    fates::lock(&self.fates).replayed(n, name, &args, error);
                    run.scheduler
                        .schedule()
                        .replayed(n, name, &args, &answer.result);
                    let unsettled = self.unsettled(n, name);
                    return Ok(Box::pin(async move {
                        let mut unsettled = unsettled;
                        if answer.late {
                            // Cut off as the recorded run wound down: it never settles for
                            // the program.
                            futures::future::pending::<()>().await;
                        }
                        unsettled.settled = true;
                        answer.result
                    }));
                }
            }
            run.submitted = n;
            fates::lock(&self.fates).queued(n, name, &args);
            run.scheduler.push(SubCall {
                n,
                name: name.to_string(),
                args,
                reply,
                pipeline: None,
                repeat,
            });
            let waker = if self.wake_on_submit {
                run.outer_waker.clone()
            } else {
                None
            };
            (n, waker)
        };
        // Wake the run_code task outside the lock, so it can start the call even while the
        // program keeps the engine busy; the engine's own poll usually gets there first.
        if let Some(waker) = outer_waker {
            waker.wake();
        }
        let unsettled = self.unsettled(n, name);
        Ok(Box::pin(async move {
            let mut unsettled = unsettled;
            let result = settled.await.unwrap_or_else(|_| Err(over("dropped")));
            unsettled.settled = true;
            result
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

    fn seed(&self) -> [u8; 32] {
        match &self.journal {
            Some((journal, _)) => journal.seed(),
            None => ptc_engine::os_seed(),
        }
    }

    fn clock(&self) -> Result<f64, RunFailure> {
        match &self.journal {
            Some((journal, _)) => journal.clock(),
            None => Ok(ptc_engine::system_clock()),
        }
    }

    fn deliveries(&self) -> Option<&dyn ptc_engine::Deliveries> {
        self.journal
            .as_ref()
            .map(|(journal, _)| &**journal as &dyn ptc_engine::Deliveries)
    }

    fn poll_progress(&self, cx: &mut Context<'_>) {
        // Never block the engine: if the run_code task holds the run, it is advancing it.
        if let Ok(mut run) = self.run.try_lock() {
            let _ = run.scheduler.poll(cx);
        }
    }
}

/// The `run_code` body's handle on the run's sub-calls.
pub(crate) struct Bridge {
    run: Arc<Mutex<Run>>,
    changes: Arc<Mutex<Vec<String>>>,
    fates: SharedFates,
    paging: SharedPaging,
    /// The run's journal, which learns that the program ended and what was closed then.
    journal: Option<Arc<RunJournal>>,
}

impl Bridge {
    /// What the run's calls that may change something did, in the order they succeeded (see
    /// `SubCalls::changes`); the list says when it was cut.
    pub(crate) fn changes(&self) -> Vec<String> {
        self.changes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Drop the `[cut short]` notes the program made good by asking for the rest (see
    /// `paging`).
    pub(crate) fn drop_paged_notes(&self, notes: &mut Vec<ptc_engine::Note>) {
        lock_paging(&self.paging).drop_made_good(notes);
    }

    /// Say what became of each call the program left behind pending (see `fates`); call it
    /// after [`Bridge::wind_down`].
    pub(crate) fn explain(&self, left_behind: &mut [ptc_engine::LeftBehind]) {
        fates::lock(&self.fates).explain(left_behind);
    }

    /// Name the call behind a run that failed with an uncaught `ToolCallError`, when its
    /// tool was called more than once (calls made in a loop or `map` share one site): its
    /// arguments, after the error (see `Fates::failed_call`).
    pub(crate) fn name_failed_call(&self, report: &mut RunReport) {
        let Err(failure) = &mut report.outcome else {
            return;
        };
        let Some(rest) = failure.message.strip_prefix("ToolCallError: ") else {
            return;
        };
        let Some((tool, _)) = rest.split_once(" failed at ") else {
            return;
        };
        if let Some(named) = fates::lock(&self.fates).failed_call(tool, &failure.message) {
            failure.message = format!("{}\n{named}", failure.message);
        }
    }

    /// Advance sub-calls from this task until the engine's run finishes; returns its report.
    pub(crate) async fn drive(&self, engine_run: impl Future<Output = RunReport>) -> RunReport {
        let mut engine_run = std::pin::pin!(engine_run);
        poll_fn(|cx| {
            if let Poll::Ready(report) = engine_run.as_mut().poll(cx) {
                return Poll::Ready(report);
            }
            match self.run.try_lock() {
                Ok(mut run) => {
                    run.outer_waker = Some(cx.waker().clone());
                    let _ = run.scheduler.poll(cx);
                }
                // The engine's thread is advancing the sub-calls right now; look again after
                // it, so a wake-up that arrived meanwhile is not lost.
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
            let mut run = lock(&self.run);
            run.closed = true;
            run.outer_waker = None;
            run.scheduler.schedule().signal.cancel();
            if let Some(journal) = &self.journal {
                journal.returned();
            }
            let mut fates = fates::lock(&self.fates);
            for call in run.scheduler.close() {
                fates.closed(call.n);
                let closed = Err(over(reason));
                if let Some(journal) = &self.journal {
                    // Written with the run's end; a failed write leaves it in doubt.
                    let _ = journal.settled(
                        call.n,
                        &closed,
                        Some(fates::NOT_STARTED),
                        Repeat::Harmless,
                    );
                }
                let _ = call.reply.send(closed);
            }
        }
        let drained = poll_fn(|cx| lock(&self.run).scheduler.poll(cx));
        if tokio::time::timeout(WIND_DOWN_GRACE, drained)
            .await
            .is_err()
        {
            let mut run = lock(&self.run);
            let mut fates = fates::lock(&self.fates);
            for exec in run.scheduler.abandon() {
                if let Some(n) = exec
                    .call_id()
                    .rsplit(':')
                    .next()
                    .and_then(|n| n.parse().ok())
                {
                    fates.abandoned(n);
                }
                run.scheduler.schedule().log_abandoned(&exec);
            }
        }
    }
}
