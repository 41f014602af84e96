//! The `ptc` deno_core extension: its ops and the JavaScript they serve.
//!
//! * `op_ptc_ready(setup)`, called once by `runtime-js/deno.js` while a sandbox is created: keeps
//!   the function a run calls with its tool names ([`Setup`]).
//! * `op_ptc_host_call(name, argsJson)`, async: hands the call to [`Host::call_tool`] (through the
//!   shared [`calls::accept_json`]) while it holds the `OpState` borrow, then awaits the host's future
//!   with no borrow held and answers with the value's JSON text (after its notes, see
//!   `notes_prefix`, when the host's [`Reply`] carries any), or throws the failure's message (which the adapter turns into a
//!   `ToolCallError`).
//! * `op_ptc_note(kind, site, subject, text)`: records a note on the run, or takes one back (the
//!   raw `note`).
//! * `op_ptc_host_log(level, line)`: records a console line against the output limit on the Rust
//!   side (the shared [`calls::log`]); a line over the cap halts the run.
//!
//! The JavaScript is `runtime-js/deno.js` (the entry point), the engine-neutral
//! `runtime-js/glue.js` and the glue's parts (`json.js`, `inspect.js`, `web.js`, `url.js`,
//! `console.js`, `missing.js`, `typed.js`, `intl.js`, which QuickJS loads lazily), all compiled into the binary as the
//! extension's ESM.

use std::{borrow::Cow, future::Future, sync::Arc};

use deno_core::{ascii_str, ascii_str_include, op2, v8, ExtensionFileSource, OpState};
use deno_error::JsErrorBox;
use tokio::runtime::Handle;

use super::control::Control;
use crate::{calls, json, output::Output, Delivery, Host, Reply};

/// The per-sandbox setup function registered by `runtime-js/deno.js`.
pub(super) struct Setup(pub(super) v8::Global<v8::Function>);

/// What the ops of one run need; put into the `OpState` when the run starts.
pub(super) struct RunState {
    /// The host that serves tool calls.
    pub(super) host: Arc<dyn Host>,
    /// The run's stop and the means to halt it.
    pub(super) control: Arc<Control>,
    /// Console lines and bytes counted so far.
    pub(super) output: Output,
    /// The caller's tokio runtime: host futures are polled inside it.
    pub(super) caller: Handle,
    /// The run's random numbers, from the host's seed.
    pub(super) entropy: crate::observed::Entropy,
    /// Where tool calls and timers wait for their turn, when the host orders deliveries.
    pub(super) gate: Arc<super::gate::Gate>,
    /// What the host holds of the arguments of calls in flight.
    pub(super) held: calls::Held,
}

deno_core::extension!(
    ptc,
    ops = [
        op_ptc_ready,
        op_ptc_host_call,
        op_ptc_host_log,
        op_ptc_note,
        op_ptc_sleep,
        op_ptc_now,
        op_ptc_random,
        op_ptc_seed,
        op_ptc_intl,
        op_ptc_intl_wanted
    ],
    esm_entry_point = "ext:ptc/deno.js",
    customizer = |ext: &mut deno_core::Extension| {
        // Compiled into the binary (the `esm = [..]` form would read the files at run time).
        ext.esm_files = Cow::Owned(vec![
            ExtensionFileSource::new("ext:ptc/glue.js", ascii_str!(crate::glue_source!())),
            ExtensionFileSource::new(
                "ext:ptc/json.js",
                ascii_str_include!("../../../runtime-js/json.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/inspect.js",
                ascii_str_include!("../../../runtime-js/inspect.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/web.js",
                ascii_str_include!("../../../runtime-js/web.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/url.js",
                ascii_str_include!("../../../runtime-js/url.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/console.js",
                ascii_str_include!("../../../runtime-js/console.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/missing.js",
                ascii_str_include!("../../../runtime-js/missing.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/typed.js",
                ascii_str_include!("../../../runtime-js/typed.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/intl.js",
                ascii_str_include!("../../../runtime-js/intl.js"),
            ),
            ExtensionFileSource::new(
                "ext:ptc/deno.js",
                ascii_str_include!("../../../runtime-js/deno.js"),
            ),
        ]);
    },
);

/// Keep the run's setup function (called once per sandbox, by `runtime-js/deno.js`).
#[op2(fast)]
fn op_ptc_ready(
    scope: &mut v8::PinScope<'_, '_>,
    state: &mut OpState,
    setup: v8::Local<'_, v8::Function>,
) {
    state.put(Setup(v8::Global::new(scope, setup)));
}

/// The raw `hostCall`: accepted synchronously (in submission order), settled asynchronously.
#[op2]
#[string]
fn op_ptc_host_call(
    state: &mut OpState,
    #[string] name: String,
    #[string] args: String,
) -> Result<impl Future<Output = Result<String, JsErrorBox>>, JsErrorBox> {
    let run = state
        .try_borrow::<RunState>()
        .ok_or_else(|| JsErrorBox::generic("no run is in progress"))?;
    let accepted = {
        let _caller = run.caller.enter();
        calls::accept_json(&*run.host, run.control.stop(), &run.held, &name, &args)
    };
    let calls::Accepted { call, share } = match accepted {
        Ok(accepted) => accepted,
        Err(message) => {
            // A refusal may have recorded a stop (a call cap): end the program now.
            run.control.halt_if_stopped();
            return Err(JsErrorBox::generic(message));
        }
    };
    let (caller, held, control) = (run.caller.clone(), run.held.clone(), run.control.clone());
    // A host that orders deliveries numbers the call; its result then waits for its turn.
    let turn = run
        .host
        .deliveries()
        .map(|_| (run.gate.clone(), run.gate.take_id()));
    let answer = async move {
        // What the call holds of the run's argument bytes, until it settles.
        let share = share;
        let result = InContext::new(caller, calls::contained(call)).await;
        drop(share);
        match result {
            Ok(reply) => {
                // The result's share instead, until it is handed to the program; past the cap
                // the run ends (see `calls::Held::take_result`).
                let _share = match held.take_result(&reply.value) {
                    Ok(share) => share,
                    Err(failure) => {
                        json::drop_deep(reply.value);
                        let message = failure.message.clone();
                        control.halt(failure);
                        return Err(JsErrorBox::generic(message));
                    }
                };
                let text = json::to_string(&reply.value);
                let notes = notes_prefix(&reply);
                json::drop_deep(reply.value);
                // JSON text never starts with NUL: the adapter reads the notes off and
                // records them with the call's site (which only it has).
                Ok(notes + &text)
            }
            Err(message) => Err(JsErrorBox::generic(message)),
        }
    };
    Ok(async move {
        // Never settled at dispatch: an answer that is already there waits behind the earlier
        // calls' answers that are (the host answers a run's calls in the order they were
        // made), so two reads in a `Promise.all` reach the program in the same order each run.
        yield_once().await;
        let answer = answer.await;
        if let Some((gate, id)) = turn {
            gate.turn(id, Delivery::Tool).await;
        }
        answer
    })
}

/// Pending once (waking itself at once), then ready.
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            return std::task::Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await
}

/// The raw `hostLog`: one console line, counted against the output limit.
#[op2(fast)]
fn op_ptc_host_log(
    state: &mut OpState,
    #[string] level: &str,
    #[string] line: String,
) -> Result<(), JsErrorBox> {
    let run = state
        .try_borrow_mut::<RunState>()
        .ok_or_else(|| JsErrorBox::generic("no run is in progress"))?;
    calls::log(&*run.host, &mut run.output, run.control.stop(), level, line).map_err(|message| {
        run.control.halt_if_stopped();
        JsErrorBox::generic(message)
    })
}

/// A reply's notes as the adapter reads them before the value's JSON text (empty when there
/// are none): each `\0<kind><text>` (`c` a cut, `n` a note, `w` the fields a read of which takes
/// the note back, comma-separated, a newline, the note), then `\0\0`.
fn notes_prefix(reply: &Reply) -> String {
    let clean = |text: &str| text.replace('\0', "");
    let mut prefix = String::new();
    if let Some(note) = &reply.note {
        prefix.push_str(&format!("\0c{}", clean(note)));
    }
    if let Some(remark) = &reply.remark {
        prefix.push_str(&format!("\0n{}", clean(remark)));
    }
    if let Some(unless) = &reply.unless_read {
        let fields = clean(&unless.fields.join(",")).replace('\n', "");
        prefix.push_str(&format!("\0w{fields}\n{}", clean(&unless.text)));
    }
    if !prefix.is_empty() {
        prefix.push_str("\0\0");
    }
    prefix
}

/// The raw `note(kind, site, subject, text)`: a note on the run (see [`crate::NoteKind`]).
#[op2(fast)]
fn op_ptc_note(
    state: &mut OpState,
    #[string] kind: &str,
    #[string] site: &str,
    #[string] subject: &str,
    #[string] text: &str,
) {
    if let Some(run) = state.try_borrow_mut::<RunState>() {
        run.output.note_named(kind, site, subject, text);
    }
}

/// The raw `sleep(ms)`: resolves after `ms` on the engine thread's own runtime (a timer ends
/// with the run: the runtime is dropped with the sandbox). When the host orders deliveries the
/// timer waits for its turn too, and one its recording fired fires at its turn without waiting.
#[op2]
fn op_ptc_sleep(state: &mut OpState, ms: f64) -> impl Future<Output = ()> {
    let delay = std::time::Duration::from_secs_f64((ms.max(0.0) / 1000.0).min(1e9));
    let turn = state.try_borrow::<RunState>().and_then(|run| {
        let order = run.host.deliveries()?;
        let id = run.gate.take_id();
        Some((run.gate.clone(), id, order.recorded(id)))
    });
    async move {
        if !turn.as_ref().is_some_and(|(_, _, recorded)| *recorded) {
            tokio::time::sleep(delay).await;
        }
        if let Some((gate, id, _)) = turn {
            gate.turn(id, Delivery::Timer).await;
        }
    }
}

/// The raw `now()`: the host's clock, in milliseconds since the Unix epoch; a clock the host
/// cannot give (a replay gone another way) ends the run.
#[op2(fast)]
fn op_ptc_now(state: &mut OpState) -> Result<f64, JsErrorBox> {
    let run = state
        .try_borrow::<RunState>()
        .ok_or_else(|| JsErrorBox::generic("no run is in progress"))?;
    run.host.clock().map_err(|failure| {
        let message = failure.message.clone();
        run.control.halt(failure);
        JsErrorBox::generic(message)
    })
}

/// The raw `random(n)`: `n` bytes (at most 65,536) from the run's generator.
#[op2]
#[serde]
fn op_ptc_random(state: &mut OpState, #[smi] n: u32) -> Result<Vec<u8>, JsErrorBox> {
    let run = state
        .try_borrow::<RunState>()
        .ok_or_else(|| JsErrorBox::generic("no run is in progress"))?;
    Ok(run.entropy.bytes(n as usize))
}

/// The raw `seed()`: four 32-bit words seeding `Math.random`.
#[op2]
#[serde]
fn op_ptc_seed(state: &mut OpState) -> Result<Vec<u32>, JsErrorBox> {
    let run = state
        .try_borrow::<RunState>()
        .ok_or_else(|| JsErrorBox::generic("no run is in progress"))?;
    Ok(run.entropy.math_seed().to_vec())
}

/// The raw `intl(op, spec, a, b)`: Intl's formatting (see `crate::intl`), for an engine with no
/// Intl of its own (deno_core's QuickJS facade; on V8 the glue keeps V8's and never calls it).
#[op2]
#[string]
fn op_ptc_intl(
    #[string] op: &str,
    #[string] spec: &str,
    #[string] a: &str,
    #[string] b: &str,
) -> String {
    crate::intl::call(op, spec, a, b)
}

/// Whether the glue installs ptc's `Intl` (see `crate::intl`): on V8, no (V8's own, with ICU's
/// data, stays); on deno_core's QuickJS facade, yes (its `Intl` is a stub that formats
/// numbers and dates as if no locale were given).
#[op2(fast)]
fn op_ptc_intl_wanted() -> bool {
    !cfg!(feature = "v8")
}

/// Polls a future with the caller's tokio runtime entered, so a host's timers and spawned tasks
/// belong to the caller's runtime rather than the engine thread's.
struct InContext<F> {
    handle: Handle,
    future: std::pin::Pin<Box<F>>,
}

impl<F: Future> InContext<F> {
    fn new(handle: Handle, future: F) -> Self {
        InContext {
            handle,
            future: Box::pin(future),
        }
    }
}

impl<F: Future> Future for InContext<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = self.get_mut();
        let _entered = this.handle.enter();
        this.future.as_mut().poll(cx)
    }
}
