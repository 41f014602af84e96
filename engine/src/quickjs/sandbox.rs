//! One run in one fresh QuickJS runtime: set up the sandbox, run the program, report.

use std::{
    cell::RefCell,
    ffi::CString,
    future::Future,
    rc::Rc,
    sync::{Arc, OnceLock},
    task::Context as TaskContext,
    time::Instant,
};

use rquickjs::{
    context::intrinsic, module::WriteOptions, promise::PromiseState, qjs, CatchResultExt, Context,
    Ctx, Function, Module, Object, Promise, Runtime, Value,
};
use tokio_util::sync::CancellationToken;

use super::{
    driver::{Calls, Settled, ThreadWaker},
    heap::CappedAllocator,
    host_fns::{self, Submit},
    interrupt::Interrupts,
    plain_json::{self, Bounds, PlainJson, Unread},
};
use crate::{
    failure::decide,
    output::{Encoded, Output},
    stop::Stop,
    strip::{strip_within, Deadline},
    FailureKind, Host, Limits, Program, RunFailure, RunReport, GLUE_JS,
};

/// The intrinsics a sandbox gets: the language itself, nothing host-specific (no `performance`).
type Intrinsics = (
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

/// The lines that open the wrapper around the program. They are numbered -1 and 0 (QuickJS treats a
/// starting line of 0 as "unset", hence the empty line), so the program's own lines and columns are
/// exact.
const WRAPPER_PREFIX: &str = "(async function () {\n\n";
/// The number QuickJS gives the first wrapper line.
const WRAPPER_FIRST_LINE: i32 = -1;
const WRAPPER_SUFFIX: &str = "\n})";

/// The JavaScript stack QuickJS may use. Engine threads have 2 MiB stacks; this leaves headroom for
/// the Rust frames around the engine while letting deeply nested JSON through.
const MAX_STACK_BYTES: usize = 1024 * 1024;

/// Run `program` to completion on the current thread.
pub(super) fn run(
    program: Program,
    host: Arc<dyn Host>,
    limits: Limits,
    cancel: CancellationToken,
) -> RunReport {
    if let Some(failure) = limits.refusal() {
        return RunReport::failed(failure);
    }
    let deadline = Instant::now() + limits.wall_clock;
    let within = Deadline {
        at: deadline,
        wall_clock: limits.wall_clock,
    };
    let program = match strip_within(&program.source, Some(within), &cancel) {
        Ok(source) => Program { source, ..program },
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
    let waker = ThreadWaker::current();
    rt.set_interrupt_handler(Some(
        Interrupts {
            stop: stop.clone(),
            cancel: cancel.clone(),
            deadline,
            wall_clock: limits.wall_clock,
            host: host.clone(),
            waker: waker.clone(),
        }
        .into_handler(),
    ));
    let context = match Context::custom::<Intrinsics>(&rt) {
        Ok(context) => context,
        Err(e) => return setup_failed("create a JavaScript context", e),
    };
    let report = context.with(|ctx| {
        let mut run = Run {
            ctx: ctx.clone(),
            stop,
            limits: &limits,
            deadline,
            cancel: &cancel,
            output: Rc::new(RefCell::new(Output::new(limits.max_output_bytes))),
            calls: Rc::new(RefCell::new(Calls::new())),
            host: host.clone(),
            waker,
        };
        let outcome = run.execute(program, host);
        let outcome = decide(outcome, run.stop.failure(), cancel.is_cancelled());
        // Settle nothing more: drop unsettled host calls (aborting them) and their resolvers while
        // the runtime is still alive.
        *run.calls.borrow_mut() = Calls::new();
        let output = std::mem::take(&mut *run.output.borrow_mut());
        output.report(outcome)
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
}

/// What the glue's setup returns, and the Rust reader for plain returned values.
struct Glue<'js> {
    result_reader: PlainJson,
    encode_result: Function<'js>,
    describe_error: Function<'js>,
    tool_call_error: Function<'js>,
}

impl<'js> Run<'_, 'js> {
    fn execute(&mut self, program: Program, host: Arc<dyn Host>) -> Outcome {
        if self.cancel.is_cancelled() {
            return Err(RunFailure::aborted());
        }
        // A setup step can only fail for a stop reason (interrupt, heap cap) or an engine bug.
        let stopped = |failure: RunFailure| self.stop.failure().cloned().unwrap_or(failure);
        let glue = self.install_glue(&program, host).map_err(stopped)?;
        let function = self.compile(&program)?;
        let main: Promise<'js> = match function.call(()) {
            Ok(promise) => promise,
            Err(e) => return Err(self.js_failure(&glue, e)),
        };
        self.drive(&glue, &main)?;
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

    /// Load the glue module and call its setup with the raw host functions and the tool names.
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
        let ctx = &self.ctx;
        let setup = glue_setup(ctx).map_err(|e| {
            RunFailure::new(
                FailureKind::Exception,
                format!("could not load the glue: {e}"),
            )
        })?;
        let submit = Rc::new(Submit {
            host: host.clone(),
            stop: self.stop.clone(),
            calls: self.calls.clone(),
            waker: self.waker.clone(),
        });
        let host_call = host_fns::host_call(ctx, submit.clone()).map_err(internal)?;
        let host_call_plain = host_fns::host_call_plain(
            ctx,
            submit,
            self.bounds(plain_json::VALUE_BYTES),
            self.limits.max_heap_bytes,
        )
        .map_err(internal)?;
        let host_log = host_fns::host_log(ctx, host, self.stop.clone(), self.output.clone())
            .map_err(internal)?;
        let names = rquickjs::Array::new(ctx.clone()).map_err(internal)?;
        for (i, name) in program.tool_names.iter().enumerate() {
            names.set(i, name.as_str()).map_err(internal)?;
        }
        let helpers: Object<'js> = setup
            .call((host_call, host_log, names, host_call_plain))
            .map_err(internal)?;
        Ok(Glue {
            result_reader: PlainJson::new(ctx, self.bounds(2)).map_err(internal)?,
            encode_result: helpers.get("encodeResult").map_err(internal)?,
            describe_error: helpers.get("describeError").map_err(internal)?,
            tool_call_error: helpers.get("toolCallError").map_err(internal)?,
        })
    }

    /// Compile the program inside its async-function wrapper, keeping lines and columns exact.
    fn compile(&self, program: &Program) -> Result<Function<'js>, RunFailure> {
        let ctx = &self.ctx;
        let mut source = String::with_capacity(
            WRAPPER_PREFIX.len() + program.source.len() + WRAPPER_SUFFIX.len(),
        );
        source.push_str(WRAPPER_PREFIX);
        source.push_str(&program.source);
        source.push_str(WRAPPER_SUFFIX);
        let syntax = |message: String| RunFailure::new(FailureKind::Syntax, message);
        let len = source.len();
        let source = CString::new(source)
            .map_err(|_| syntax("1:1 the program contains a NUL character".into()))?;
        let filename =
            CString::new(program.filename.replace('\0', "")).expect("NUL characters were removed");
        let mut options = qjs::JSEvalOptions {
            version: qjs::JS_EVAL_OPTIONS_VERSION as _,
            eval_flags: qjs::JS_EVAL_TYPE_GLOBAL as _,
            filename: filename.as_ptr(),
            line_num: WRAPPER_FIRST_LINE,
        };
        // SAFETY: `source` is NUL-terminated at `len` and outlives the call, as does `filename`
        // (referenced by `options`); the context pointer comes from a live `Ctx`, and the returned
        // value is owned and handed to `Value::from_raw` exactly once.
        let value = unsafe {
            let raw = qjs::JS_Eval2(
                ctx.as_raw().as_ptr(),
                source.as_ptr(),
                len as _,
                &mut options,
            );
            Value::from_raw(ctx.clone(), raw)
        };
        if value.is_exception() {
            let error = ctx.catch();
            if let Some(failure) = self.stop.failure() {
                return Err(failure.clone());
            }
            return Err(syntax_failure(&error, &program.filename));
        }
        value
            .into_function()
            .ok_or_else(|| syntax("1:1 the program does not form a function body".into()))
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
            while self.ctx.execute_pending_job() {
                if self.stop.failure().is_some() {
                    break;
                }
            }
            if let Some(failure) = self.stop.failure() {
                return Err(failure.clone());
            }
            if main.state() != PromiseState::Pending {
                return Ok(());
            }
            self.host.poll_progress(&mut cx);
            let mut settled = false;
            loop {
                let ready = self.calls.borrow_mut().poll_ready(&mut cx);
                let Some(call) = ready else {
                    break;
                };
                settled = true;
                self.settle(glue, call)?;
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
            if Instant::now() >= self.deadline {
                return Err(RunFailure::timed_out(self.limits.wall_clock));
            }
            waker.park_until(self.deadline);
        }
    }

    /// Resolve one host call's promise, or reject it with a `ToolCallError`.
    fn settle(&self, glue: &Glue<'js>, settled: Settled<'js>) -> Result<(), RunFailure> {
        let Settled {
            name,
            result,
            resolve,
            reject,
        } = settled;
        let failed = |message: String| -> rquickjs::Result<()> {
            let error: Value<'js> = glue.tool_call_error.call((name.as_str(), message))?;
            reject.call((error,))
        };
        let outcome = match result {
            Ok(value) => match plain_json::to_js(&self.ctx, value) {
                Ok(value) => resolve.call::<_, ()>((value,)),
                Err(e) => {
                    if matches!(e, rquickjs::Error::Exception) {
                        let _ = self.ctx.catch();
                    }
                    if let Some(failure) = self.stop.failure() {
                        return Err(failure.clone());
                    }
                    failed(format!("the result could not be read: {e}"))
                }
            },
            Err(message) => failed(message),
        };
        outcome.map_err(|e| self.js_failure(glue, e))
    }

    /// The limits of a Rust-side read of the program's values, counting `per_value` bytes per
    /// value on top of its text.
    fn bounds(&self, per_value: usize) -> Bounds {
        Bounds {
            per_value,
            deadline: self.deadline,
            wall_clock: self.limits.wall_clock,
            cancel: self.cancel.clone(),
        }
    }

    /// Encode the returned value as strict JSON and count it against the output limit: plain data
    /// read in Rust (fast, and bounded by the output left however often a value is referenced),
    /// anything else by the glue's check.
    fn encode_result(&self, glue: &Glue<'js>, value: Value<'js>) -> Outcome {
        let budget = self.output.borrow().remaining();
        if value.is_undefined() {
            return Ok(None);
        }
        // Every value's JSON text takes at least one byte plus a separator or bracket, except the
        // outermost value's (hence the one byte of slack).
        match glue.result_reader.read(&value, budget.saturating_add(1)) {
            Ok(json) => return self.output.borrow_mut().finish_value(json),
            Err(Unread::TooLarge(_)) => return Err(self.output.borrow().exceeded()),
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

    /// The failure for an uncaught exception `reason`.
    fn exception(&self, glue: &Glue<'js>, reason: Value<'js>) -> RunFailure {
        if let Some(failure) = self.failure_for(&reason) {
            return failure;
        }
        let message = match glue.describe_error.call::<_, String>((reason,)) {
            Ok(message) => message,
            Err(_) => {
                let _ = self.ctx.catch();
                if let Some(failure) = self.stop.failure() {
                    return failure.clone();
                }
                "an exception that could not be described".into()
            }
        };
        RunFailure::new(FailureKind::Exception, message)
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

/// The glue module compiled to QuickJS bytecode once per process (parsing it costs more than a
/// whole trivial run; loading bytecode is cheap).
static GLUE_BYTECODE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();

/// The module name the glue is compiled under (it shows in stack frames of glue code).
const GLUE_NAME: &str = "ptc:glue.js";

/// Compile the glue module in a throwaway runtime.
fn compile_glue() -> Result<Vec<u8>, String> {
    let rt = Runtime::new().map_err(|e| e.to_string())?;
    let context = Context::custom::<Intrinsics>(&rt).map_err(|e| e.to_string())?;
    context.with(|ctx| {
        Module::declare(ctx.clone(), GLUE_NAME, GLUE_JS)
            .catch(&ctx)
            .map_err(|e| e.to_string())?
            .write(WriteOptions::default())
            .map_err(|e| e.to_string())
    })
}

/// Load and evaluate the glue module in `ctx`, returning its default export (the setup function).
fn glue_setup<'js>(ctx: &Ctx<'js>) -> Result<Function<'js>, String> {
    let bytecode = GLUE_BYTECODE.get_or_init(compile_glue).as_ref()?;
    load_glue(ctx, bytecode).map_err(|e| e.to_string())
}

/// Evaluate the glue's bytecode and take its default export.
fn load_glue<'js>(ctx: &Ctx<'js>, bytecode: &'static [u8]) -> rquickjs::Result<Function<'js>> {
    // SAFETY: the bytes were produced by `Module::write` from this same QuickJS build, and they live
    // in a static for the rest of the process (QuickJS may reference them as ROM data).
    let module = unsafe { Module::load(ctx.clone(), bytecode)? };
    let (module, evaluated) = module.eval()?;
    // The module has no top-level await: its evaluation promise settles in the job queue.
    while ctx.execute_pending_job() {}
    if let Some(Err(e)) = evaluated.result::<Value<'js>>() {
        return Err(e);
    }
    module.get("default")
}

/// The syntax failure for a QuickJS syntax error, positions from its stack.
fn syntax_failure(error: &Value<'_>, filename: &str) -> RunFailure {
    let Some(exception) = error.as_exception() else {
        return RunFailure::new(FailureKind::Syntax, "1:1 the program could not be compiled");
    };
    let message = exception.message().unwrap_or_default();
    let stack = exception.stack().unwrap_or_default();
    let position = stack
        .find(&format!("{filename}:"))
        .map(|at| &stack[at + filename.len() + 1..])
        .and_then(|rest| {
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == ':'))
                .unwrap_or(rest.len());
            let mut parts = rest[..end].split(':');
            let line: usize = parts.next()?.parse().ok()?;
            let col: usize = parts.next()?.parse().ok()?;
            Some((line.max(1), col.max(1)))
        });
    let (line, col) = position.unwrap_or((1, 1));
    RunFailure::syntax_at(line, col, &message)
}
