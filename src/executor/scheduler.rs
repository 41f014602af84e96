//! The scheduler both built-in executors use, public so a third-party [`ToolExecutor`]
//! schedules calls the same way.
//!
//! The rules, for calls pushed in submission order:
//!
//! - a call is prepared when it reaches the head of the queue, and calls start in
//!   submission order;
//! - a *concurrency-safe* call ([`PreparedCall::is_concurrency_safe`]) starts while fewer than
//!   `max_parallel` calls are admitting or dispatching and no exclusive call is unfinished;
//! - any other call is *exclusive*: it starts only once every earlier call has finished, and
//!   nothing starts until it has finished (it runs alone and forms a barrier);
//! - a call *finishes* when its commit has run: [`Schedule::committed`] is called, and the
//!   future it returns completes, strictly in submission order.
//!
//! [`PolicyStages`] says whether the pipeline's policy stages (pre-execute with approval,
//! post-execute) overlap like bodies do — the native executor — or run one call at a time in
//! submission order — code mode, where a program's sub-calls must not race for a person's
//! attention or commit out of order.
//!
//! The scheduler is a poll-driven state machine, so it can be advanced from any task (code
//! mode advances it from the engine's thread and from the `run_code` call's task).
//!
//! [`ToolExecutor`]: super::ToolExecutor

use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::{poll_fn, BoxFuture, FutureExt};
use futures::stream::{FuturesUnordered, StreamExt};

use crate::execution::{RunEffects, ToolExecution};
use crate::pipeline::{Admission, Pipeline, PreparedCall};
use crate::policy::waiting::{self, PersonClock};
use crate::registry::ToolRegistry;
use crate::result::ToolExecutionResult;

/// What an executor does at each point of a scheduled call's life.
pub trait Schedule: Send {
    /// What the executor keeps per call (the model's call, a reply channel, …).
    type Call: Send + 'static;

    /// Resolve a call when it reaches the head of the queue (usually
    /// [`ToolRegistry::prepare`]). Called once per call.
    fn prepare(&mut self, call: &mut Self::Call) -> PreparedCall;

    /// The call starts: it is about to be admitted. The place for a start event.
    fn started(&mut self, call: &mut Self::Call, execution: &Arc<ToolExecution>);

    /// The call was admitted (pre-execute, approval and guards let it through) and is about to
    /// be dispatched; with [`PolicyStages::OneAtATime`] only. A failure refuses it instead.
    fn admitted(
        &mut self,
        call: &mut Self::Call,
        execution: &Arc<ToolExecution>,
    ) -> Result<(), crate::error::ToolFailure> {
        let _ = (call, execution);
        Ok(())
    }

    /// The call has its final result, in submission order. A returned future runs before the
    /// next call commits and before any call waiting on this one starts.
    fn committed(
        &mut self,
        call: Self::Call,
        execution: &Arc<ToolExecution>,
        result: ToolExecutionResult,
    ) -> Option<BoxFuture<'static, ()>>;
}

/// Whether the pipeline's policy stages of different calls overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PolicyStages {
    /// Each call runs the whole pipeline on its own; only [`Schedule::committed`] is ordered
    /// (the native executor).
    #[default]
    Overlap,
    /// Pre-execute (with approval) runs one call at a time as calls start, and post-execute
    /// one call at a time in submission order; bodies still overlap (code mode).
    OneAtATime,
}

/// Schedules calls through the pipeline: see the module docs for the rules.
pub struct Scheduler<S: Schedule> {
    registry: ToolRegistry,
    schedule: S,
    max_parallel: usize,
    stages: PolicyStages,
    person: Option<Arc<PersonClock>>,
    queue: VecDeque<Queued<S::Call>>,
    /// Started and not finished, in submission order (the front commits next).
    started: VecDeque<Started<S::Call>>,
    /// The submission number of `started`'s front.
    first: u64,
    /// The admission in progress ([`PolicyStages::OneAtATime`] only).
    admitting: Option<BoxFuture<'static, (u64, Settled)>>,
    /// Admitted calls dispatching, or whole calls under [`PolicyStages::Overlap`].
    running: FuturesUnordered<BoxFuture<'static, (u64, Settled)>>,
    /// The commit of `started`'s front, when it takes time.
    committing: Option<Committing>,
}

struct Queued<C> {
    call: C,
    prepared: Option<PreparedCall>,
}

struct Started<C> {
    call: Option<C>,
    exec: Arc<ToolExecution>,
    pipeline: Pipeline,
    exclusive: bool,
    settled: Option<Settled>,
}

/// Where a started call stands once its stage future is done.
enum Settled {
    /// Admitted; the dispatch stage still to run.
    Admitted(Arc<RunEffects>),
    /// Refused before dispatch; its commit still to run.
    Refused(ToolExecutionResult),
    /// Dispatched; its commit still to run.
    Dispatched(ToolExecutionResult, Arc<RunEffects>),
    /// Through the whole pipeline.
    Final(ToolExecutionResult),
}

enum Committing {
    /// The pipeline's commit stage.
    Pipeline(BoxFuture<'static, ToolExecutionResult>),
    /// The executor's [`Schedule::committed`] future.
    Executor(BoxFuture<'static, ()>),
}

impl<S: Schedule> Scheduler<S> {
    /// A scheduler for `registry`'s pipeline, running at most `max_parallel` (at least 1)
    /// concurrency-safe calls at once.
    pub fn new(registry: ToolRegistry, schedule: S, max_parallel: usize) -> Self {
        Scheduler {
            registry,
            schedule,
            max_parallel: max_parallel.max(1),
            stages: PolicyStages::default(),
            person: None,
            queue: VecDeque::new(),
            started: VecDeque::new(),
            first: 0,
            admitting: None,
            running: FuturesUnordered::new(),
            committing: None,
        }
    }

    /// Set whether the policy stages of different calls overlap.
    pub fn with_policy_stages(mut self, stages: PolicyStages) -> Self {
        self.stages = stages;
        self
    }

    /// Run admissions and bodies on `clock`, so time spent waiting for a person there is
    /// measured (see [`crate::policy::waiting`]).
    pub fn with_person_clock(mut self, clock: Arc<PersonClock>) -> Self {
        self.person = Some(clock);
        self
    }

    /// The executor's side.
    pub fn schedule(&self) -> &S {
        &self.schedule
    }

    /// The executor's side, to take results out when the scheduler is done.
    pub fn into_schedule(self) -> S {
        self.schedule
    }

    /// Queue a call; it starts when the rules allow, on a later poll.
    pub fn push(&mut self, call: S::Call) {
        self.queue.push_back(Queued {
            call,
            prepared: None,
        });
    }

    /// Calls pushed and not finished.
    pub fn len(&self) -> usize {
        self.queue.len() + self.started.len()
    }

    /// Whether every pushed call has finished.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Advance every call that can move; ready when every pushed call has finished.
    pub fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            let mut moved = self.start_calls();
            if let Some(admitting) = self.admitting.as_mut() {
                if let Poll::Ready((n, settled)) = admitting.as_mut().poll(cx) {
                    self.admitting = None;
                    self.settle(n, settled);
                    moved = true;
                }
            }
            while let Poll::Ready(Some((n, settled))) = self.running.poll_next_unpin(cx) {
                self.settle(n, settled);
                moved = true;
            }
            moved |= self.commit(cx);
            if !moved {
                return match self.is_empty() {
                    true => Poll::Ready(()),
                    false => Poll::Pending,
                };
            }
        }
    }

    /// Run until every pushed call has finished.
    pub async fn run(&mut self) {
        poll_fn(|cx| self.poll(cx)).await
    }

    /// Drop the calls that have not started, in submission order; started ones go on.
    pub fn close(&mut self) -> Vec<S::Call> {
        self.queue.drain(..).map(|q| q.call).collect()
    }

    /// Drop every call: queued ones and started ones, whose futures are dropped mid-stage.
    /// Returns the executions that had started and not finished, in submission order.
    pub fn abandon(&mut self) -> Vec<Arc<ToolExecution>> {
        self.queue.clear();
        self.admitting = None;
        self.running = FuturesUnordered::new();
        self.committing = None;
        self.first += self.started.len() as u64;
        self.started.drain(..).map(|s| s.exec).collect()
    }

    fn in_flight(&self) -> usize {
        self.running.len() + usize::from(self.admitting.is_some())
    }

    /// Start queued calls while the rules allow; `true` when one started.
    fn start_calls(&mut self) -> bool {
        let mut moved = false;
        while self.start_head() {
            moved = true;
        }
        moved
    }

    /// An exclusive call has started and not finished: it is the only started call.
    fn exclusive_running(&self) -> bool {
        self.started.front().is_some_and(|s| s.exclusive)
    }

    fn start_head(&mut self) -> bool {
        if self.exclusive_running() || self.admitting.is_some() {
            return false;
        }
        let Some(head) = self.queue.front_mut() else {
            return false;
        };
        let prepared = match &mut head.prepared {
            Some(prepared) => prepared,
            slot => slot.insert(self.schedule.prepare(&mut head.call)),
        };
        let exclusive = !prepared.is_concurrency_safe();
        let may_start = match exclusive {
            true => self.started.is_empty(),
            false => self.in_flight() < self.max_parallel,
        };
        if !may_start {
            return false;
        }
        let Queued { mut call, prepared } = self.queue.pop_front().expect("the head exists");
        let prepared = prepared.expect("the head was prepared");
        let exec = prepared.execution().clone();
        self.schedule.started(&mut call, &exec);
        let pipeline = self.registry.pipeline();
        let n = self.first + self.started.len() as u64;
        self.started.push_back(Started {
            call: Some(call),
            exec,
            pipeline: pipeline.clone(),
            exclusive,
            settled: None,
        });
        match self.stages {
            PolicyStages::Overlap => {
                let run = async move { (n, Settled::Final(pipeline.run(prepared).await)) };
                self.running.push(self.on_clock(run));
            }
            PolicyStages::OneAtATime => {
                let admit = async move {
                    let settled = match pipeline.admit(&prepared).await {
                        Admission::Admitted(effects) => Settled::Admitted(effects),
                        Admission::Refused(result) => Settled::Refused(*result),
                    };
                    (n, settled)
                };
                self.admitting = Some(self.on_clock(admit));
            }
        }
        true
    }

    fn on_clock(
        &self,
        work: impl std::future::Future<Output = (u64, Settled)> + Send + 'static,
    ) -> BoxFuture<'static, (u64, Settled)> {
        match &self.person {
            Some(clock) => waiting::scope(clock.clone(), work).boxed(),
            None => work.boxed(),
        }
    }

    /// A stage future is done: dispatch an admitted call, or hold the result for its commit.
    fn settle(&mut self, n: u64, settled: Settled) {
        let i = usize::try_from(n - self.first).expect("started calls fit in memory");
        let started = &mut self.started[i];
        let Settled::Admitted(effects) = settled else {
            started.settled = Some(settled);
            return;
        };
        let (exec, pipeline) = (started.exec.clone(), started.pipeline.clone());
        if let Some(call) = started.call.as_mut() {
            if let Err(failure) = self.schedule.admitted(call, &exec) {
                started.settled = Some(Settled::Refused(ToolExecutionResult::failure(failure)));
                return;
            }
        }
        let dispatch = async move {
            let result = pipeline.dispatch(&exec, &effects).await;
            (n, Settled::Dispatched(result, effects))
        };
        let dispatch = self.on_clock(dispatch);
        self.running.push(dispatch);
    }

    /// Commit settled calls in submission order; `true` when one moved.
    fn commit(&mut self, cx: &mut Context<'_>) -> bool {
        let mut moved = false;
        loop {
            match self.committing.as_mut() {
                Some(Committing::Pipeline(work)) => {
                    let Poll::Ready(result) = work.as_mut().poll(cx) else {
                        return moved;
                    };
                    self.committing = None;
                    self.committed(result);
                }
                Some(Committing::Executor(work)) => {
                    if work.as_mut().poll(cx).is_pending() {
                        return moved;
                    }
                    self.committing = None;
                    self.finished();
                }
                None => {
                    let Some(front) = self.started.front_mut() else {
                        return moved;
                    };
                    let (result, effects) = match front.settled.take() {
                        None => return moved,
                        Some(Settled::Final(result)) => {
                            self.committed(result);
                            moved = true;
                            continue;
                        }
                        Some(Settled::Refused(result)) => (result, None),
                        Some(Settled::Dispatched(result, effects)) => (result, Some(effects)),
                        Some(Settled::Admitted(_)) => unreachable!("admitted calls dispatch"),
                    };
                    let (exec, pipeline) = (front.exec.clone(), front.pipeline.clone());
                    let work =
                        async move { pipeline.commit(&exec, result, effects.as_deref()).await };
                    self.committing = Some(Committing::Pipeline(work.boxed()));
                }
            }
            moved = true;
        }
    }

    /// The front call has its final result: hand it to the executor.
    fn committed(&mut self, result: ToolExecutionResult) {
        let front = self.started.front_mut().expect("a call is committing");
        let call = front.call.take().expect("a call commits once");
        let exec = front.exec.clone();
        match self.schedule.committed(call, &exec, result) {
            Some(work) => self.committing = Some(Committing::Executor(work)),
            None => self.finished(),
        }
    }

    /// The front call has finished.
    fn finished(&mut self) {
        self.started.pop_front().expect("a call is finishing");
        self.first += 1;
    }
}
