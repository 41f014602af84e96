//! One sandbox: a fresh `JsRuntime` with the `ptc` extension, made ahead of time, and the one run
//! it ever serves.

use std::{future::poll_fn, sync::Arc, task::Poll};

use deno_core::{v8, JsRuntime, PollEventLoopOptions, RuntimeOptions};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::report::{caught, describe, left_behind, message_of, syntax_failure};
use super::{
    control::{Control, Watchdog},
    ext::{self, RunState, Setup},
};
use crate::{
    diagnostic::Source,
    failure::decide,
    left::{Left, LeftBehind},
    output::{Encoded, Output},
    program::{prepare, without_bom, Deadline, Prepared},
    whereabouts::{self, Whereabouts},
    FailureKind, Host, Limits, Program, RunFailure, RunReport,
};

/// What opens the wrapper around the program, on its first line: the position map records it as
/// an insertion, so every line and column reported is the program's own. (Not a line of its own
/// with a -1 line offset in [`v8::ScriptOrigin`]: deno_core's QuickJS facade ignores offsets.)
const WRAPPER_PREFIX: &str = "(async function () {";
const WRAPPER_SUFFIX: &str = "\n})";

/// How often the near-heap-limit callback raises the limit for one run, and by at least how much
/// each time (otherwise a quarter of the cap): the heap never exceeds twice its cap plus 32 MiB.
const MAX_HEAP_RAISES: usize = 4;
const HEAP_RAISE_MIN: usize = 8 * 1024 * 1024;
/// Event-loop turns after the program's promise settled: one delivers the answers of calls
/// the host already completed (and runs their continuations), one reports the rejections
/// that nothing handled.
const SETTLE_TURNS: usize = 2;

type Outcome = Result<Option<serde_json::Value>, RunFailure>;

/// One run's request, as the pool hands it to an engine thread.
pub(super) struct Job {
    pub(super) program: Program,
    pub(super) host: Arc<dyn Host>,
    pub(super) limits: Limits,
    pub(super) cancel: CancellationToken,
    pub(super) control: Arc<Control>,
    /// The caller's tokio runtime (host futures and `poll_progress` run inside it).
    pub(super) caller: Handle,
}

/// A `JsRuntime` whose glue is loaded and whose globals are stripped, waiting for its one run.
pub(super) struct Sandbox {
    runtime: JsRuntime,
    heap: usize,
    setup: v8::Global<v8::Function>,
    /// Whether the run was stopped while the program waited at the event loop (not while its
    /// code ran), for saying where it was.
    stopped_waiting: bool,
}

/// The glue helpers of one run (see `runtime-js/glue.js` and `runtime-js/deno.js`).
pub(super) struct Helpers {
    pub(super) encode_result: v8::Global<v8::Function>,
    pub(super) describe_error: v8::Global<v8::Function>,
    pub(super) left_behind: v8::Global<v8::Function>,
}

impl Sandbox {
    /// A sandbox whose JavaScript heap is capped at `heap` bytes.
    pub(super) fn new(heap: usize) -> Result<Self, RunFailure> {
        let mut runtime = JsRuntime::try_new(RuntimeOptions {
            extensions: vec![ext::ptc::init()],
            create_params: Some(v8::CreateParams::default().heap_limits(0, heap)),
            ..Default::default()
        })
        .map_err(|e| RunFailure::engine(format!("could not create a sandbox: {e}")))?;
        runtime.v8_isolate().set_allow_atomics_wait(false);
        let setup = runtime
            .op_state()
            .borrow_mut()
            .try_take::<Setup>()
            .ok_or_else(|| RunFailure::engine("the sandbox glue did not register"))?;
        Ok(Sandbox {
            runtime,
            heap,
            setup: setup.0,
            stopped_waiting: false,
        })
    }

    /// The heap cap this sandbox was made with.
    pub(super) fn heap(&self) -> usize {
        self.heap
    }

    /// Run `job` to completion; the sandbox is consumed (never reused).
    pub(super) async fn run(mut self, job: Job) -> RunReport {
        let Job {
            program,
            host,
            limits,
            cancel,
            control,
            caller,
        } = job;
        let program = without_bom(program);
        let started = std::time::Instant::now();
        let within = Deadline {
            at: started + limits.wall_clock,
            wall_clock: limits.wall_clock,
        };
        let mut prepared = match prepare(&program, WRAPPER_PREFIX.len(), Some(within), &cancel) {
            Ok(mut prepared) => {
                prepared.map.insert(1, 1, WRAPPER_PREFIX.len());
                prepared
            }
            Err(failure) => return RunReport::failed(failure),
        };
        control.attach(self.runtime.v8_isolate().thread_safe_handle());
        Watchdog::global().watch(&control, started, limits.wall_clock, &host);
        let on_heap_limit = control.clone();
        let max_heap = limits.max_heap_bytes;
        let mut raises = 0;
        self.runtime
            .add_near_heap_limit_callback(move |current, _initial| {
                on_heap_limit.halt(RunFailure::heap_exceeded(max_heap));
                // Room to unwind until the termination takes effect at the program's next check
                // (V8 aborts the process if the limit is not raised), bounded so that a program
                // allocating in native code between two checks cannot take the machine's memory.
                if raises < MAX_HEAP_RAISES {
                    raises += 1;
                    current.saturating_add((max_heap / 4).max(HEAP_RAISE_MIN))
                } else {
                    current
                }
            });
        self.runtime.op_state().borrow_mut().put(RunState {
            host: host.clone(),
            control: control.clone(),
            output: Output::new(limits.max_output_bytes, std::mem::take(&mut prepared.notes)),
            caller: caller.clone(),
            entropy: crate::observed::Entropy::new(host.seed()),
            gate: Default::default(),
            held: crate::calls::Held::new(limits.max_heap_bytes),
        });
        let source = Source {
            text: &program.source,
            map: &prepared.map,
            filename: &program.filename,
        };
        let (outcome, left) = if cancel.is_cancelled() {
            (Err(RunFailure::aborted()), Vec::new())
        } else {
            let run = Run {
                program: &program,
                prepared: &prepared,
                source: &source,
            };
            self.execute(&run, &*host, &control, &caller).await
        };
        let mut outcome = decide(outcome, control.stop().failure(), cancel.is_cancelled());
        if let Err(failure) = &mut outcome {
            self.locate(failure, &left, &source);
        }
        control.detach();
        let state = self.runtime.op_state().borrow_mut().take::<RunState>();
        // Dropping the runtime drops unsettled host calls, which aborts them.
        drop(self);
        state.output.report(outcome, left, &prepared.map, &program)
    }

    /// Say where the program was in a limit's `failure` (see [`crate::whereabouts`]): the
    /// calls it waited for, or that it was computing (V8 stops the program without a stack).
    fn locate(&self, failure: &mut RunFailure, left: &[LeftBehind], source: &Source<'_>) {
        if !self.stopped_waiting {
            return whereabouts::locate(failure, Whereabouts::Computing, source);
        }
        let calls: Vec<(String, Option<(usize, usize)>)> = left
            .iter()
            .filter(|call| call.left == Left::Pending)
            .map(|call| (call.tool.clone(), call.site))
            .collect();
        let waiting = Whereabouts::Waiting {
            calls: &calls,
            timers: 0,
        };
        whereabouts::locate(failure, waiting, source);
    }

    /// Set up, start and drive the program; its JSON result counted against the output limit,
    /// and the calls it left behind.
    async fn execute(
        &mut self,
        run: &Run<'_>,
        host: &dyn Host,
        control: &Control,
        caller: &Handle,
    ) -> (Outcome, Vec<LeftBehind>) {
        let helpers = match self.install(run.program) {
            Ok(helpers) => helpers,
            Err(failure) => return (Err(failure), Vec::new()),
        };
        let outcome = self.run_program(run, &helpers, host, control, caller).await;
        // The program is over: a stop that terminated it must not also stop the helper that
        // reports on it (a timeout while it waited names the calls it waited for).
        control.detach();
        self.runtime.v8_isolate().cancel_terminate_execution();
        let left = {
            deno_core::scope!(scope, &mut self.runtime);
            v8::tc_scope!(let tc, scope);
            left_behind(tc, &helpers)
        };
        (outcome, left)
    }

    async fn run_program(
        &mut self,
        run: &Run<'_>,
        helpers: &Helpers,
        host: &dyn Host,
        control: &Control,
        caller: &Handle,
    ) -> Outcome {
        let main = self.start(run, helpers)?;
        self.drive(&main, host, control, caller).await?;
        let budget = self
            .runtime
            .op_state()
            .borrow()
            .borrow::<RunState>()
            .output
            .remaining();
        let encoded = self.settle(&main, helpers, run.source, budget)?;
        let state = self.runtime.op_state();
        let mut state = state.borrow_mut();
        state.borrow_mut::<RunState>().output.finish(encoded)
    }

    /// Call the glue's setup with the run's facts; keep the helpers it returns.
    fn install(&mut self, program: &Program) -> Result<Helpers, RunFailure> {
        let failed =
            |what: &str| RunFailure::engine(format!("could not set up the sandbox: {what}"));
        deno_core::scope!(scope, &mut self.runtime);
        v8::tc_scope!(let tc, scope);
        let mut names = Vec::with_capacity(program.tool_names.len());
        for name in &program.tool_names {
            let name = v8::String::new(tc, name).ok_or_else(|| failed("a tool name"))?;
            names.push(name.into());
        }
        let names = v8::Array::new_with_elements(tc, &names);
        let facts = v8::Object::new(tc);
        let key = v8::String::new(tc, "toolNames").ok_or_else(|| failed("a key"))?;
        facts.set(tc, key.into(), names.into());
        let key = v8::String::new(tc, "filename").ok_or_else(|| failed("a key"))?;
        let filename = v8::String::new(tc, &program.filename).ok_or_else(|| failed("a name"))?;
        facts.set(tc, key.into(), filename.into());
        if !program.result_shapes.is_empty() {
            let shapes = v8::Object::new(tc);
            for (name, shape) in program.result_shapes.iter() {
                let name = v8::String::new(tc, name).ok_or_else(|| failed("a tool name"))?;
                let shape = v8::String::new(tc, shape).ok_or_else(|| failed("a shape"))?;
                shapes.set(tc, name.into(), shape.into());
            }
            let key = v8::String::new(tc, "shapes").ok_or_else(|| failed("a key"))?;
            facts.set(tc, key.into(), shapes.into());
        }
        let setup = v8::Local::new(tc, &self.setup);
        let recv = v8::undefined(tc).into();
        let helpers = setup
            .call(tc, recv, &[facts.into()])
            .and_then(|helpers| helpers.to_object(tc));
        let Some(helpers) = helpers else {
            let exception = tc.exception();
            return Err(failed(&caught(tc, exception)));
        };
        let get = |key: &str| -> Result<v8::Global<v8::Function>, RunFailure> {
            let key = v8::String::new(tc, key).ok_or_else(|| failed(key))?;
            let value = helpers
                .get(tc, key.into())
                .ok_or_else(|| failed("a helper"))?;
            let function = v8::Local::<v8::Function>::try_from(value)
                .map_err(|_| failed("a helper is not a function"))?;
            Ok(v8::Global::new(tc, function))
        };
        Ok(Helpers {
            encode_result: get("encodeResult")?,
            describe_error: get("describeError")?,
            left_behind: get("leftBehind")?,
        })
    }

    /// Compile the program inside its async-function wrapper and call it.
    fn start(
        &mut self,
        run: &Run<'_>,
        helpers: &Helpers,
    ) -> Result<v8::Global<v8::Promise>, RunFailure> {
        let program = run.program;
        let js = &run.prepared.js;
        let mut source =
            String::with_capacity(WRAPPER_PREFIX.len() + js.len() + WRAPPER_SUFFIX.len());
        source.push_str(WRAPPER_PREFIX);
        source.push_str(js);
        source.push_str(WRAPPER_SUFFIX);
        deno_core::scope!(scope, &mut self.runtime);
        v8::tc_scope!(let tc, scope);
        let too_long = || RunFailure::new(FailureKind::Syntax, "1:1 the program is too long");
        let code = v8::String::new(tc, &source).ok_or_else(too_long)?;
        let name = v8::String::new(tc, &program.filename).ok_or_else(too_long)?;
        let origin = v8::ScriptOrigin::new(
            tc,
            name.into(),
            0,
            0,
            false,
            0,
            None,
            false,
            false,
            false,
            None,
        );
        let Some(script) = v8::Script::compile(tc, code, Some(&origin)) else {
            let (exception, message) = (tc.exception(), tc.message());
            return Err(syntax_failure(tc, exception, message, run.source));
        };
        let function = script
            .run(tc)
            .and_then(|f| v8::Local::<v8::Function>::try_from(f).ok())
            .ok_or_else(|| {
                RunFailure::new(
                    FailureKind::Syntax,
                    "1:1 the program does not form a function body",
                )
            })?;
        let recv = v8::undefined(tc).into();
        let Some(promise) = function.call(tc, recv, &[]) else {
            let reason = tc.exception();
            let message = match reason {
                Some(reason) => describe(tc, helpers, reason, run.source),
                None => "the program was terminated".to_string(),
            };
            return Err(RunFailure::new(FailureKind::Exception, message));
        };
        let promise = v8::Local::<v8::Promise>::try_from(promise)
            .map_err(|_| RunFailure::engine("the program did not return a promise"))?;
        Ok(v8::Global::new(tc, promise))
    }

    /// Run the event loop until the program's promise settles (then [`SETTLE_TURNS`] more
    /// turns, which never wait) or the run must stop.
    async fn drive(
        &mut self,
        main: &v8::Global<v8::Promise>,
        host: &dyn Host,
        control: &Control,
        caller: &Handle,
    ) -> Result<(), RunFailure> {
        let mut turned = false;
        let gate = self
            .runtime
            .op_state()
            .borrow()
            .borrow::<RunState>()
            .gate
            .clone();
        poll_fn(|cx| {
            control.register(cx.waker());
            if let Some(failure) = control.stop().failure() {
                // Stopped since the last turn, which left the program waiting (before the
                // first turn, the program's first part was still running).
                self.stopped_waiting = turned;
                return Poll::Ready(Err(failure.clone()));
            }
            let handing_over = gate.handing_over();
            let polled = self
                .runtime
                .poll_event_loop(cx, PollEventLoopOptions::default());
            if let Some(order) = host.deliveries() {
                // One delivery a turn, in the order the host keeps (see `gate`).
                if let Err(failure) = gate.open_next(order, handing_over, cx.waker()) {
                    return Poll::Ready(Err(failure));
                }
            }
            turned = true;
            if let Some(failure) = control.stop().failure() {
                return Poll::Ready(Err(failure.clone()));
            }
            if self.state(main) != v8::PromiseState::Pending {
                // Calls the host already answered may not have reached the program yet (their
                // ops complete in a later turn than the call the program awaited last): let
                // them settle, so that the calls left behind are reported as they ended
                // (failed, not still running). Calls still running stay pending; this never
                // waits for them. Calls submitted last get their start first, as on an
                // engine that polls the host after each call: what became of a call left
                // behind then does not depend on which thread got there first.
                let _caller = caller.enter();
                host.poll_progress(cx);
                for _ in 0..SETTLE_TURNS {
                    let _ = self
                        .runtime
                        .poll_event_loop(cx, PollEventLoopOptions::default());
                }
                return Poll::Ready(Ok(()));
            }
            match polled {
                Poll::Ready(Err(e)) => {
                    return Poll::Ready(Err(RunFailure::new(FailureKind::Exception, e.to_string())))
                }
                // Nothing is pending (no host call, no job) and the program still waits.
                Poll::Ready(Ok(())) => return Poll::Ready(Err(RunFailure::never_settles())),
                Poll::Pending => {}
            }
            // Let the host advance its calls here; a call it completes wakes this loop.
            let _caller = caller.enter();
            host.poll_progress(cx);
            Poll::Pending
        })
        .await
    }

    /// The state of the program's promise.
    fn state(&mut self, main: &v8::Global<v8::Promise>) -> v8::PromiseState {
        deno_core::scope!(scope, &mut self.runtime);
        v8::Local::new(scope, main).state()
    }

    /// The settled program's returned value as the glue encoded it within `budget` bytes, or its
    /// failure.
    fn settle(
        &mut self,
        main: &v8::Global<v8::Promise>,
        helpers: &Helpers,
        source: &Source<'_>,
        budget: usize,
    ) -> Result<Encoded, RunFailure> {
        deno_core::scope!(scope, &mut self.runtime);
        v8::tc_scope!(let tc, scope);
        let promise = v8::Local::new(tc, main);
        match promise.state() {
            v8::PromiseState::Fulfilled => {
                let value = promise.result(tc);
                let encode = v8::Local::new(tc, &helpers.encode_result);
                let recv = v8::undefined(tc).into();
                let budget = v8::Number::new(tc, budget as f64).into();
                match encode.call(tc, recv, &[value, budget]) {
                    Some(text) if text.is_undefined() => Ok(Encoded::Undefined),
                    Some(text) if text.is_string() => {
                        Ok(Encoded::Text(text.to_rust_string_lossy(tc)))
                    }
                    Some(_) => Ok(Encoded::TooLong),
                    None => Err(RunFailure::not_json(
                        tc.exception()
                            .map(|e| message_of(tc, e))
                            .unwrap_or_else(|| "the check was interrupted".into()),
                    )),
                }
            }
            v8::PromiseState::Rejected => {
                let reason = promise.result(tc);
                Err(RunFailure::new(
                    FailureKind::Exception,
                    describe(tc, helpers, reason, source),
                ))
            }
            v8::PromiseState::Pending => Err(RunFailure::never_settles()),
        }
    }
}

/// What one run brings to its sandbox: the program, its prepared JavaScript, and the source
/// diagnostics point into.
struct Run<'a> {
    program: &'a Program,
    prepared: &'a Prepared,
    source: &'a Source<'a>,
}
