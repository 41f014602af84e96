//! One run in one fresh QuickJS runtime: set up the sandbox, run the program, report.

use std::{
    cell::{Cell, RefCell},
    future::Future,
    rc::Rc,
    sync::Arc,
    task::Context as TaskContext,
    time::Instant,
};

use rquickjs::{
    context::intrinsic, promise::PromiseState, qjs, Context, Ctx, Promise, Runtime, Value,
};
use tokio_util::sync::CancellationToken;

use super::{
    compile::{compile, Uncompiled},
    driver::{Calls, ThreadWaker},
    glue::{self, Glue},
    heap::{CappedAllocator, JobArena},
    host_fns::{self, Submit},
    in_flight::InFlight,
    interrupt::Interrupts,
    plain_json::{Bounds, PlainJson, Unread},
    unhandled::{describe_rejection, Unhandled},
};
use crate::{
    calls::{Held, VALUE_BYTES},
    diagnostic::{self, Described, Source},
    failure::decide,
    left::{parse_site, Left, LeftBehind},
    output::{Encoded, Output},
    program::{prepare, without_bom, Deadline},
    stop::Stop,
    whereabouts::{self, Whereabouts},
    FailureKind, Host, Limits, Program, RunFailure, RunReport,
};

/// The intrinsics a sandbox gets: the language itself, nothing host-specific (no `performance`).
pub(super) type Intrinsics = (
    intrinsic::Date,
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::Proxy,
    intrinsic::MapSet,
    intrinsic::TypedArrays,
    intrinsic::Promise,
    intrinsic::WeakRef,
);

/// The JavaScript stack QuickJS may use. Engine threads have 2 MiB stacks; this leaves headroom for
/// the Rust frames around the engine while letting deeply nested JSON through.
const MAX_STACK_BYTES: usize = 1024 * 1024;

mod settle;

/// Run `program` to completion on the current thread.
pub(super) fn run(
    program: Program,
    host: Arc<dyn Host>,
    limits: Limits,
    cancel: CancellationToken,
) -> RunReport {
    let program = without_bom(program);
    let started = Instant::now();
    let deadline = started + limits.wall_clock;
    let within = Deadline {
        at: deadline,
        wall_clock: limits.wall_clock,
    };
    // The program starts on a line of its own after the wrapper (compile.rs): no lead.
    let mut prepared = match prepare(&program, 0, Some(within), &cancel) {
        Ok(prepared) => prepared,
        Err(failure) => return RunReport::failed(failure),
    };
    let stop = Arc::new(Stop::default());
    let setup_failed = |what: &str, e: rquickjs::Error| {
        RunReport::failed(RunFailure::engine(format!("could not {what}: {e}")))
    };
    let heap = CappedAllocator::new(limits.max_heap_bytes, stop.clone());
    let rt = match Runtime::new_with_alloc(heap) {
        Ok(rt) => rt,
        Err(e) => return setup_failed("create a JavaScript runtime", e),
    };
    rt.set_max_stack_size(MAX_STACK_BYTES);
    let unhandled = Unhandled::default();
    let tracker = unhandled.clone();
    rt.set_host_promise_rejection_tracker(Some(Box::new(move |_ctx, promise, reason, handled| {
        // SAFETY: a live promise of this runtime; only its address is read, as an identity.
        let id = unsafe { qjs::JS_VALUE_GET_PTR(promise.as_raw()) } as usize;
        tracker.track(id, handled, || describe_rejection(&reason));
    })));
    let waker = ThreadWaker::current();
    let in_flight = InFlight::new(Held::new(limits.max_heap_bytes), stop.clone());
    rt.set_interrupt_handler(Some(
        Interrupts {
            stop: stop.clone(),
            cancel: cancel.clone(),
            deadline,
            wall_clock: limits.wall_clock,
            host: host.clone(),
            waker: waker.clone(),
            in_flight: in_flight.clone(),
        }
        .into_handler(),
    ));
    let context = match Context::custom::<Intrinsics>(&rt) {
        Ok(context) => context,
        Err(e) => return setup_failed("create a JavaScript context", e),
    };
    let source = Source {
        text: &program.source,
        map: &prepared.map,
        filename: &program.filename,
    };
    let report = context.with(|ctx| {
        let _job_arena = JobArena::keep(&ctx);
        let mut run = Run {
            ctx: ctx.clone(),
            stop,
            limits: &limits,
            deadline,
            cancel: &cancel,
            output: Rc::new(RefCell::new(Output::new(
                limits.max_output_bytes,
                std::mem::take(&mut prepared.notes),
            ))),
            calls: Rc::new(RefCell::new(Calls::new(in_flight))),
            host: host.clone(),
            waker,
            unhandled,
            source: &source,
            stopped_computing: Cell::new(false),
            shapes: &program.result_shapes,
            shapes_given: RefCell::default(),
        };
        let outcome = run.execute(&program, &prepared.js, host);
        let mut outcome = decide(outcome, run.stop.failure(), cancel.is_cancelled());
        if let Err(failure) = &mut outcome {
            run.locate(failure, &program.filename);
        }
        let mut left: Vec<LeftBehind> = run.unhandled.take();
        for (tool, site, what) in run.calls.borrow().unsettled_tools(&program.filename) {
            left.push(LeftBehind {
                tool,
                site: parse_site(&site),
                left: what,
                subject: None,
            });
        }
        // Settle nothing more: drop unsettled host calls (aborting them) and their resolvers while
        // the runtime is still alive.
        run.calls.borrow_mut().clear();
        let output = std::mem::take(&mut *run.output.borrow_mut());
        output.report(outcome, left, &prepared.map, &program)
    });
    drop(context);
    drop(rt);
    report
}

type Outcome = Result<Option<serde_json::Value>, RunFailure>;

/// One run inside its context.
struct Run<'a, 'js> {
    ctx: Ctx<'js>,
    stop: Arc<Stop>,
    limits: &'a Limits,
    deadline: Instant,
    cancel: &'a CancellationToken,
    output: Rc<RefCell<Output>>,
    calls: Rc<RefCell<Calls<'js>>>,
    /// Polled for progress from the event loop (see [`Host::poll_progress`]).
    host: Arc<dyn Host>,
    /// Wakes this thread when a pending host call can make progress.
    waker: Arc<ThreadWaker>,
    /// Failed tool calls nothing has awaited yet.
    unhandled: Unhandled,
    /// The program as written, for diagnostics.
    source: &'a Source<'a>,
    /// Whether a stop interrupted the program's code (rather than its wait for calls).
    stopped_computing: Cell<bool>,
    /// Each tool's result shape ([`Program::result_shapes`]).
    shapes: &'a std::collections::BTreeMap<String, String>,
    /// The tools whose shape the glue has been given (each is sent once; the glue keeps it
    /// under the tool's index here), with the prototype that alone types its results, if any.
    shapes_given: RefCell<Vec<(&'a str, Option<rquickjs::Object<'js>>)>>,
}

impl<'js> Run<'_, 'js> {
    fn execute(&mut self, program: &Program, js: &str, host: Arc<dyn Host>) -> Outcome {
        if self.cancel.is_cancelled() {
            return Err(RunFailure::aborted());
        }
        // A setup step can only fail for a stop reason (interrupt, heap cap) or an engine bug.
        let stopped = |failure: RunFailure| self.stop.failure().cloned().unwrap_or(failure);
        let glue = self.install_glue(program, host).map_err(stopped)?;
        let function = match compile(&self.ctx, js, &program.filename) {
            Ok(function) => function,
            Err(Uncompiled::Syntax(line, col, message)) => {
                let message = diagnostic::syntax(line, col, &message, self.source, false);
                return Err(RunFailure::new(FailureKind::Syntax, message));
            }
            Err(Uncompiled::Other) => {
                return Err(self.stop.failure().cloned().unwrap_or_else(|| {
                    RunFailure::new(FailureKind::Syntax, "the program could not be compiled")
                }))
            }
        };
        let main: Promise<'js> = match function.call(()) {
            Ok(promise) => promise,
            Err(e) => return Err(self.js_failure(&glue, e)),
        };
        if let Err(failure) = self.drive(&glue, &main) {
            // A stop that interrupted the program's first synchronous part rejected its promise.
            if main.state() == PromiseState::Rejected {
                self.stopped_computing.set(true);
            }
            return Err(failure);
        }
        match main.state() {
            PromiseState::Resolved => {
                let value: Value<'js> = match main.result::<Value<'js>>() {
                    Some(Ok(value)) => value,
                    _ => return Err(self.js_failure(&glue, rquickjs::Error::Exception)),
                };
                self.encode_result(&glue, value)
            }
            _ => {
                let reason = match main.result::<Value<'js>>() {
                    Some(Err(rquickjs::Error::Exception)) => self.ctx.catch(),
                    _ => Value::new_undefined(self.ctx.clone()),
                };
                Err(self.exception(&glue, reason))
            }
        }
    }

    /// Load the glue and call its setup with the raw host functions and the run's facts.
    fn install_glue(
        &self,
        program: &Program,
        host: Arc<dyn Host>,
    ) -> Result<Glue<'js>, RunFailure> {
        let internal = |e: rquickjs::Error| {
            RunFailure::new(
                FailureKind::Exception,
                format!("could not set up the sandbox: {e}"),
            )
        };
        let submit = Rc::new(Submit {
            host,
            stop: self.stop.clone(),
            calls: self.calls.clone(),
            waker: self.waker.clone(),
            held: self.calls.borrow().held(),
        });
        let host = host_fns::host_object(
            &self.ctx,
            submit,
            self.bounds(VALUE_BYTES),
            self.output.clone(),
        )
        .map_err(internal)?;
        let reader = PlainJson::new(&self.ctx, self.bounds(2)).map_err(internal)?;
        glue::install(
            &self.ctx,
            host,
            &program.tool_names,
            &program.filename,
            reader,
        )
    }

    /// Run jobs and settle host calls until the program's promise settles or the run must stop.
    fn drive(&mut self, glue: &Glue<'js>, main: &Promise<'js>) -> Result<(), RunFailure> {
        let waker = self.waker.clone();
        let task_waker = waker.waker();
        let mut cx = TaskContext::from_waker(&task_waker);
        let mut cancelled = std::pin::pin!(self.cancel.cancelled());
        loop {
            if self.cancel.is_cancelled() {
                self.stop.fail(RunFailure::aborted());
            }
            let mut ran = false;
            while self.ctx.execute_pending_job() {
                ran = true;
                if self.stop.failure().is_some() {
                    break;
                }
            }
            if let Some(failure) = self.stop.failure() {
                // A stop that came while the program's code ran interrupted it.
                self.stopped_computing.set(ran);
                return Err(failure.clone());
            }
            if main.state() != PromiseState::Pending {
                return Ok(());
            }
            self.host.poll_progress(&mut cx);
            let mut settled = false;
            if let Some(order) = self.host.deliveries() {
                // One delivery a turn, in the order the host keeps (see `Deliveries`).
                let ready = self.calls.borrow_mut().poll_ordered(&mut cx, order)?;
                if let Some(call) = ready {
                    settled = true;
                    self.settle(glue, call)?;
                }
            }
            while self.host.deliveries().is_none() {
                let ready = self.calls.borrow_mut().poll_ready(&mut cx);
                let Some(call) = ready else {
                    break;
                };
                settled = true;
                self.settle(glue, call)?;
                if self.stop.failure().is_some() {
                    break;
                }
            }
            if settled {
                continue;
            }
            if self.calls.borrow().is_empty() {
                return Err(RunFailure::never_settles());
            }
            if cancelled.as_mut().poll(&mut cx).is_ready() {
                return Err(RunFailure::aborted());
            }
            let deadline = self.deadline();
            if Instant::now() >= deadline {
                return Err(RunFailure::timed_out(self.limits.wall_clock));
            }
            waker.park_until(deadline);
        }
    }

    /// The run's deadline now: its wall clock from the start plus the time it has waited
    /// for a person ([`Host::paused`]).
    fn deadline(&self) -> Instant {
        self.deadline + self.host.paused()
    }

    /// The limits of a Rust-side read of the program's values, counting `per_value` bytes per
    /// value on top of its text.
    fn bounds(&self, per_value: usize) -> Bounds {
        Bounds {
            per_value,
            deadline: self.deadline(),
            wall_clock: self.limits.wall_clock,
            cancel: self.cancel.clone(),
        }
    }

    /// Encode the returned value as JSON and count it against the output limit: plain data read
    /// in Rust (fast, and bounded by the output left however often a value is referenced),
    /// anything else by the glue's encoder.
    fn encode_result(&self, glue: &Glue<'js>, value: Value<'js>) -> Outcome {
        let budget = self.output.borrow().remaining();
        if value.is_undefined() {
            return Ok(None);
        }
        // Every value's JSON text takes at least one byte plus a separator or bracket, except the
        // outermost value's (hence the one byte of slack).
        match glue.result_reader.read(&value, budget.saturating_add(1)) {
            Ok((json, _)) => return self.output.borrow_mut().finish_value(json),
            Err(Unread::TooLarge) => return Err(self.output.borrow().exceeded()),
            Err(Unread::Failed(failure)) => return Err(failure),
            Err(Unread::NotPlain) => {}
        }
        let encoded = match glue
            .encode_result
            .call::<_, Value<'js>>((value, budget as f64))
        {
            Ok(answer) => match answer.as_string() {
                Some(text) => {
                    Encoded::Text(text.to_string().map_err(|e| self.js_failure(glue, e))?)
                }
                None if answer.is_undefined() => Encoded::Undefined,
                None => Encoded::TooLong,
            },
            Err(rquickjs::Error::Exception) => {
                let error = self.ctx.catch();
                if let Some(failure) = self.failure_for(&error) {
                    return Err(failure);
                }
                let message = error
                    .as_exception()
                    .and_then(|e| e.message())
                    .unwrap_or_else(|| "the returned value is not JSON".into());
                return Err(RunFailure::not_json(message));
            }
            Err(e) => return Err(self.js_failure(glue, e)),
        };
        self.output.borrow_mut().finish(encoded)
    }

    /// A failure of a call into JavaScript: the recorded stop reason, or the exception.
    fn js_failure(&self, glue: &Glue<'js>, error: rquickjs::Error) -> RunFailure {
        if let Some(failure) = self.stop.failure() {
            self.stopped_computing.set(true);
            return failure.clone();
        }
        match error {
            rquickjs::Error::Exception => {
                let reason = self.ctx.catch();
                self.exception(glue, reason)
            }
            other => RunFailure::new(FailureKind::Exception, other.to_string()),
        }
    }

    /// Say where the program was in a limit's `failure` (see [`crate::whereabouts`]).
    fn locate(&self, failure: &mut RunFailure, filename: &str) {
        // QuickJS records a frame's position only at some calls: a stack taken in a loop can
        // point far from it, so a computing program is not given a line.
        let whereabouts = match self.stopped_computing.get() {
            true => Whereabouts::Computing,
            false => {
                let calls = self.calls.borrow();
                let waiting: Vec<(String, Option<(usize, usize)>)> = calls
                    .unsettled_tools(filename)
                    .into_iter()
                    .filter(|(.., left)| *left == Left::Pending)
                    .map(|(tool, site, _)| (tool, parse_site(&site)))
                    .collect();
                let timers = calls.timers();
                drop(calls);
                return whereabouts::locate(
                    failure,
                    Whereabouts::Waiting {
                        calls: &waiting,
                        timers,
                    },
                    self.source,
                );
            }
        };
        whereabouts::locate(failure, whereabouts, self.source);
    }

    /// The failure for an uncaught exception `reason`, pointing at the program's own code.
    fn exception(&self, glue: &Glue<'js>, reason: Value<'js>) -> RunFailure {
        if let Some(failure) = self.failure_for(&reason) {
            return failure;
        }
        let described = match glue.describe_error.call::<_, String>((reason,)) {
            Ok(json) => serde_json::from_str::<Described>(&json).unwrap_or_default(),
            Err(_) => {
                let _ = self.ctx.catch();
                if let Some(failure) = self.stop.failure() {
                    return failure.clone();
                }
                Described {
                    message: "an exception that could not be described".into(),
                    ..Default::default()
                }
            }
        };
        RunFailure::new(
            FailureKind::Exception,
            diagnostic::exception(&described, self.source),
        )
    }

    /// The stop reason, or a memory failure when `error` is QuickJS's out-of-memory error.
    fn failure_for(&self, error: &Value<'js>) -> Option<RunFailure> {
        if let Some(failure) = self.stop.failure() {
            return Some(failure.clone());
        }
        let exception = error.as_exception()?;
        let is_oom = exception.message().as_deref() == Some("out of memory")
            && exception.get::<_, String>("name").ok().as_deref() == Some("InternalError");
        is_oom.then(|| RunFailure::heap_exceeded(self.limits.max_heap_bytes))
    }
}
