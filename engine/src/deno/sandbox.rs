//! One sandbox: a fresh `JsRuntime` with the `ptc` extension, made ahead of time, and the one run
//! it ever serves.

use std::{future::poll_fn, sync::Arc, task::Poll};

use deno_core::{v8, JsRuntime, PollEventLoopOptions, RuntimeOptions};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::{
    control::{Control, Watchdog},
    ext::{self, RunState, Setup},
};
use crate::{
    failure::decide,
    output::{Encoded, Output},
    strip::{strip_within, Deadline},
    FailureKind, Host, Limits, Program, RunFailure, RunReport,
};

/// The wrapper around the program shares the program's first line, so every line number is the
/// program's own; columns on line 1 are shifted back by its length wherever positions are reported.
const WRAPPER_PREFIX: &str = "(async function () {";
const WRAPPER_SUFFIX: &str = "\n})";

/// How often the near-heap-limit callback raises the limit for one run, and by at least how much
/// each time (otherwise a quarter of the cap): the heap never exceeds twice its cap plus 32 MiB.
const MAX_HEAP_RAISES: usize = 4;
const HEAP_RAISE_MIN: usize = 8 * 1024 * 1024;

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
}

/// The glue helpers of one run (see `runtime-js/glue.js`).
struct Helpers {
    encode_result: v8::Global<v8::Function>,
    describe_error: v8::Global<v8::Function>,
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
        if let Some(failure) = limits.refusal() {
            return RunReport::failed(failure);
        }
        let started = std::time::Instant::now();
        let within = Deadline {
            at: started + limits.wall_clock,
            wall_clock: limits.wall_clock,
        };
        let program = match strip_within(&program.source, Some(within), &cancel) {
            Ok(source) => Program { source, ..program },
            Err(failure) => return RunReport::failed(failure),
        };
        control.attach(self.runtime.v8_isolate().thread_safe_handle());
        Watchdog::global().watch(
            &control,
            limits.wall_clock.saturating_sub(started.elapsed()),
        );
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
            output: Output::new(limits.max_output_bytes),
            caller: caller.clone(),
        });
        let outcome = if cancel.is_cancelled() {
            Err(RunFailure::aborted())
        } else {
            self.execute(&program, &*host, &control, &caller).await
        };
        let outcome = decide(outcome, control.stop().failure(), cancel.is_cancelled());
        control.detach();
        let state = self.runtime.op_state().borrow_mut().take::<RunState>();
        // Dropping the runtime drops unsettled host calls, which aborts them.
        drop(self);
        state.output.report(outcome)
    }

    /// Set up, start and drive the program; its JSON result counted against the output limit.
    async fn execute(
        &mut self,
        program: &Program,
        host: &dyn Host,
        control: &Control,
        caller: &Handle,
    ) -> Outcome {
        let helpers = self.install(program)?;
        let main = self.start(program, &helpers)?;
        self.drive(&main, host, control, caller).await?;
        let budget = self
            .runtime
            .op_state()
            .borrow()
            .borrow::<RunState>()
            .output
            .remaining();
        let encoded = self.settle(&main, &helpers, &program.filename, budget)?;
        let state = self.runtime.op_state();
        let mut state = state.borrow_mut();
        state.borrow_mut::<RunState>().output.finish(encoded)
    }

    /// Call the glue's setup with the tool names; keep the helpers it returns.
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
        let setup = v8::Local::new(tc, &self.setup);
        let recv = v8::undefined(tc).into();
        let helpers = setup
            .call(tc, recv, &[names.into()])
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
        })
    }

    /// Compile the program inside its async-function wrapper and call it.
    fn start(
        &mut self,
        program: &Program,
        helpers: &Helpers,
    ) -> Result<v8::Global<v8::Promise>, RunFailure> {
        let mut source = String::with_capacity(
            WRAPPER_PREFIX.len() + program.source.len() + WRAPPER_SUFFIX.len(),
        );
        source.push_str(WRAPPER_PREFIX);
        source.push_str(&program.source);
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
            return Err(syntax_failure(tc, exception, message));
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
                Some(reason) => describe(tc, helpers, reason, &program.filename),
                None => "the program was terminated".to_string(),
            };
            return Err(RunFailure::new(FailureKind::Exception, message));
        };
        let promise = v8::Local::<v8::Promise>::try_from(promise)
            .map_err(|_| RunFailure::engine("the program did not return a promise"))?;
        Ok(v8::Global::new(tc, promise))
    }

    /// Run the event loop until the program's promise settles or the run must stop.
    async fn drive(
        &mut self,
        main: &v8::Global<v8::Promise>,
        host: &dyn Host,
        control: &Control,
        caller: &Handle,
    ) -> Result<(), RunFailure> {
        poll_fn(|cx| {
            control.register(cx.waker());
            if let Some(failure) = control.stop().failure() {
                return Poll::Ready(Err(failure.clone()));
            }
            let polled = self
                .runtime
                .poll_event_loop(cx, PollEventLoopOptions::default());
            if let Some(failure) = control.stop().failure() {
                return Poll::Ready(Err(failure.clone()));
            }
            if self.state(main) != v8::PromiseState::Pending {
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
        filename: &str,
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
                    describe(tc, helpers, reason, filename),
                ))
            }
            v8::PromiseState::Pending => Err(RunFailure::never_settles()),
        }
    }
}

/// `"Name: message"` and the stack of an uncaught `reason`, positions in the program's terms.
fn describe<'s>(
    tc: &mut v8::PinScope<'s, '_>,
    helpers: &Helpers,
    reason: v8::Local<'s, v8::Value>,
    filename: &str,
) -> String {
    let describe = v8::Local::new(tc, &helpers.describe_error);
    let recv = v8::undefined(tc).into();
    let text = describe
        .call(tc, recv, &[reason])
        .map(|text| text.to_rust_string_lossy(tc))
        .unwrap_or_else(|| "an exception that could not be described".into());
    unshift_first_line(&text, filename)
}

/// The `message` property of an error (or the value as a string).
fn message_of<'s>(tc: &mut v8::PinScope<'s, '_>, error: v8::Local<'s, v8::Value>) -> String {
    let message = error.to_object(tc).and_then(|object| {
        let key = v8::String::new(tc, "message")?;
        object.get(tc, key.into())
    });
    match message {
        Some(message) if !message.is_undefined() => message.to_rust_string_lossy(tc),
        _ => error.to_rust_string_lossy(tc),
    }
}

/// A caught exception as text (`None`: execution was terminated).
fn caught<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    exception: Option<v8::Local<'s, v8::Value>>,
) -> String {
    match exception {
        Some(exception) => exception.to_rust_string_lossy(scope),
        None => "execution was terminated".into(),
    }
}

/// The syntax failure for a compile error and its message (which holds the position).
fn syntax_failure<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    exception: Option<v8::Local<'s, v8::Value>>,
    message: Option<v8::Local<'s, v8::Message>>,
) -> RunFailure {
    let text = caught(scope, exception);
    let message_text = text.strip_prefix("SyntaxError: ").unwrap_or(&text);
    let (line, col) = match message {
        Some(m) => (
            m.get_line_number(scope).unwrap_or(1),
            m.get_start_column() + 1,
        ),
        None => (1, 1),
    };
    let col = if line == 1 {
        col.saturating_sub(WRAPPER_PREFIX.len())
    } else {
        col
    };
    RunFailure::syntax_at(line, col, message_text)
}

/// Shift `filename:1:<col>` positions in `text` back by the wrapper prefix on line 1.
fn unshift_first_line(text: &str, filename: &str) -> String {
    let needle = format!("{filename}:1:");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let (before, after) = rest.split_at(at + needle.len());
        out.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<usize>() {
            Ok(col) if col > WRAPPER_PREFIX.len() => {
                out.push_str(&(col - WRAPPER_PREFIX.len()).to_string());
            }
            _ => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::unshift_first_line;

    #[test]
    fn only_first_line_positions_of_the_program_shift() {
        let shift = super::WRAPPER_PREFIX.len();
        let text = format!(
            "Error: x\n    at f (run_code.ts:1:{})\n    at run_code.ts:12:3\n    at g (other.js:1:99)",
            shift + 5
        );
        assert_eq!(
            unshift_first_line(&text, "run_code.ts"),
            "Error: x\n    at f (run_code.ts:1:5)\n    at run_code.ts:12:3\n    at g (other.js:1:99)"
        );
    }
}
