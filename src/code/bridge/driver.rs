//! The sub-call state machine of one run: admission one at a time, dispatch by the native
//! rules, commit in submission order (see the module above).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures::future::{BoxFuture, FutureExt};
use futures::stream::{FuturesUnordered, StreamExt};
use tokio_util::sync::CancellationToken;

use crate::error::ToolFailure;
use crate::execution::{
    RunEffects, ToolArguments, ToolExecution, ToolExecutionInput, ToolRunContext,
};
use crate::pipeline::Pipeline;
use crate::pipeline::{Admission, PreparedCall};
use crate::policy::waiting::{self, PersonClock};
use crate::registry::ToolRegistry;
use crate::result::{Outcome, ToolExecutionResult};
use crate::session::{now_ms, SessionEvent};

use super::{Reply, Submission, WIND_DOWN_GRACE};

/// A submission waiting for its turn; prepared when it first reaches the queue head.
pub(super) struct Queued {
    pub(super) submission: Submission,
    pub(super) prepared: Option<PreparedCall>,
}

/// Where a started sub-call stands after admission or dispatch.
pub(super) enum Stage {
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
pub(super) struct Staged {
    pub(super) n: u64,
    pub(super) stage: Stage,
    pub(super) exclusive: bool,
    pub(super) call: Option<StartedCall>,
}

/// What the commit stage needs of a started call.
pub(super) struct StartedCall {
    pub(super) exec: Arc<ToolExecution>,
    pub(super) pipeline: Pipeline,
    pub(super) reply: Reply,
}

/// The sub-call state machine of one run.
pub(super) struct Driver {
    pub(super) registry: ToolRegistry,
    pub(super) ctx: ToolRunContext,
    pub(super) signal: CancellationToken,
    pub(super) max_parallel: usize,
    /// Submitted and not yet committed or abandoned.
    pub(super) pending: usize,
    pub(super) closed: bool,
    /// The run_code task, woken on new submissions when the engine does not poll while
    /// the program computes.
    pub(super) outer_waker: Option<Waker>,
    pub(super) queue: VecDeque<Queued>,
    pub(super) admitting: Option<BoxFuture<'static, Staged>>,
    pub(super) running: FuturesUnordered<BoxFuture<'static, Staged>>,
    pub(super) exclusive_running: bool,
    pub(super) settled: BTreeMap<u64, Staged>,
    pub(super) next_commit: u64,
    pub(super) committing: Option<(u64, BoxFuture<'static, ()>)>,
    /// Sub-calls started (admission begun) and not yet committed.
    pub(super) started: BTreeMap<u64, Arc<ToolExecution>>,
    /// Time the run waited for a person (approvals, questions): not counted as run time.
    pub(super) person: Arc<PersonClock>,
}

impl Driver {
    /// Make every step possible now; `true` when nothing is queued, running or committing.
    /// Stages that must wait register `cx`'s waker.
    pub(super) fn progress(&mut self, cx: &mut Context<'_>) -> bool {
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
    pub(super) fn start_work(&mut self) {
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

    pub(super) fn start_admission(&mut self) {
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
        let pipeline = self.registry.pipeline();
        let n = submission.n;
        self.started.insert(n, exec.clone());
        let person = self.person.clone();
        self.admitting = Some(
            waiting::scope(person, async move {
                let stage = match pipeline.admit(&prepared).await {
                    Admission::Admitted(effects) => Stage::Admitted(effects),
                    Admission::Refused(result) => Stage::Refused(*result),
                };
                Staged {
                    n,
                    stage,
                    exclusive,
                    call: Some(StartedCall {
                        exec,
                        pipeline,
                        reply: submission.reply,
                    }),
                }
            })
            .boxed(),
        );
    }

    pub(super) fn on_admitted(&mut self, staged: Staged) {
        match staged.stage {
            Stage::Admitted(effects) => {
                let call = staged.call.expect("started calls carry their identity");
                if staged.exclusive {
                    self.exclusive_running = true;
                }
                let (n, exclusive) = (staged.n, staged.exclusive);
                let person = self.person.clone();
                self.running.push(
                    waiting::scope(person, async move {
                        let result = call.pipeline.dispatch(&call.exec, &effects).await;
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

    pub(super) fn on_dispatched(&mut self, staged: Staged) {
        if staged.exclusive {
            self.exclusive_running = false;
        }
        self.settled.insert(staged.n, staged);
    }

    /// The commit stage of one started sub-call.
    pub(super) fn commit(&self, stage: Stage, call: StartedCall) -> BoxFuture<'static, ()> {
        let ctx = self.ctx.clone();
        async move {
            let StartedCall {
                exec,
                pipeline,
                reply,
            } = call;
            let result = match stage {
                Stage::Dispatched(result, effects) => {
                    pipeline.commit(&exec, result, Some(&effects)).await
                }
                Stage::Refused(result) => pipeline.commit(&exec, result, None).await,
                Stage::Admitted(_) | Stage::Abandoned => return,
            };
            for context in &result.additional_contexts {
                ctx.defer_context(context.clone());
            }
            if result.concludes_turn() {
                ctx.conclude_turn();
            }
            let content = pipeline.dispatch_log(ctx.execution(), &exec, &result).await;
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

    pub(super) fn log(&self, event: impl FnOnce(&str) -> SessionEvent) {
        log_to(&self.ctx, event);
    }

    /// Give up on every started sub-call that has not committed (after
    /// [`WIND_DOWN_GRACE`]): drop their futures and log each as aborted.
    pub(super) fn abandon(&mut self) {
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
pub(super) fn log_to(ctx: &ToolRunContext, event: impl FnOnce(&str) -> SessionEvent) {
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
