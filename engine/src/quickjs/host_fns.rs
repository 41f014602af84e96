//! The raw host functions a QuickJS sandbox hands the glue (see `runtime-js/glue.js`):
//! `call(name, argsJson, trace)`, `callPlain(name, args, trace)`, `log(level, line)`,
//! `note(kind, site, subject, text)`, `sleep(ms)`, `now()`, `random(n)`, `seed()`,
//! `intl(op, spec, a, b)` and `part(name)`.

use std::{cell::RefCell, rc::Rc, sync::Arc, task::Context as TaskContext};

use rquickjs::{qjs, Ctx, Function, IntoJs, Object, Value};

use super::{
    driver::{Calls, Kind, ThreadWaker},
    plain_json::{Bounds, PlainJson, Unread},
};
use crate::calls::{self, Accepted, Held};
use crate::observed::Entropy;
use crate::{output::Output, stop::Stop, Host, HostCall};

/// The most timers a program may have waiting at once.
const MAX_TIMERS: usize = 10_000;

/// What the host functions of one run share.
pub(super) struct Submit<'js> {
    pub(super) host: Arc<dyn Host>,
    pub(super) stop: Arc<Stop>,
    pub(super) calls: Rc<RefCell<Calls<'js>>>,
    /// Wakes the run's thread when a call can make progress.
    pub(super) waker: Arc<ThreadWaker>,
    /// What the host holds of the arguments of calls in flight.
    pub(super) held: Held,
}

impl<'js> Submit<'js> {
    /// Track an accepted call (or throw the refusal's message); its promise.
    fn submit(
        &self,
        ctx: &Ctx<'js>,
        kind: Kind<'js>,
        accepted: Result<Accepted, String>,
    ) -> rquickjs::Result<Value<'js>> {
        let accepted = accepted.map_err(|message| throw(ctx, &message))?;
        let (promise, resolve, reject) = ctx.promise()?;
        // SAFETY: a live object of this context; only its address is read, as an identity.
        let id = unsafe { qjs::JS_VALUE_GET_PTR(promise.as_raw()) } as usize;
        let waker = self.waker.waker();
        let mut cx = TaskContext::from_waker(&waker);
        // Let the host start the call now: one that completes at once is then settled from the
        // ready queue, with no future to track and no extra trip through the event loop.
        if matches!(kind, Kind::Tool { .. }) {
            self.host.poll_progress(&mut cx);
        }
        self.calls
            .borrow_mut()
            .push(kind, id, accepted, resolve, reject, &mut cx);
        promise.into_js(ctx)
    }
}

/// The host object the glue's setup takes: every raw function of one run.
pub(super) fn host_object<'js>(
    ctx: &Ctx<'js>,
    submit: Rc<Submit<'js>>,
    bounds: Bounds,
    output: Rc<RefCell<Output>>,
) -> rquickjs::Result<Object<'js>> {
    let entropy = Rc::new(Entropy::new(submit.host.seed()));
    let object = Object::new(ctx.clone())?;
    object.set("traceText", true)?;
    object.set("call", call(ctx, submit.clone())?)?;
    object.set("callPlain", call_plain(ctx, submit.clone(), bounds)?)?;
    object.set("log", log(ctx, submit.clone(), output.clone())?)?;
    object.set("note", note(ctx, output)?)?;
    object.set("sleep", sleep(ctx, submit.clone())?)?;
    object.set("now", now(ctx, submit)?)?;
    let seed = entropy.math_seed();
    object.set("seed", Function::new(ctx.clone(), move || seed.to_vec())?)?;
    object.set(
        "random",
        Function::new(ctx.clone(), move |n: usize| entropy.bytes(n))?,
    )?;
    object.set(
        "intl",
        Function::new(
            ctx.clone(),
            |op: String, spec: String, a: String, b: String| crate::intl::call(&op, &spec, &a, &b),
        )?,
    )?;
    object.set(
        "part",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, name: String| {
            super::glue::part(&ctx, &name)
        })?,
    )?;
    Ok(object)
}

/// `call(name, argsJson, trace) -> Promise`: arguments the glue has encoded as JSON text.
fn call<'js>(ctx: &Ctx<'js>, submit: Rc<Submit<'js>>) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, name: String, args: String, trace: Value<'js>| {
            let accepted =
                calls::accept_json(&*submit.host, &submit.stop, &submit.held, &name, &args);
            submit.submit(&ctx, Kind::Tool { name, trace }, accepted)
        },
    )
}

/// `callPlain(name, args, trace) -> Promise | undefined`: the arguments as the program passed
/// them, read in Rust when they are plain JSON data ([`PlainJson`]); `undefined` (nothing
/// submitted) otherwise, so that the glue encodes them itself. Arguments too large once
/// expanded are refused (the call rejects); a wall clock that runs out while reading them ends
/// the run (see [`Bounds`]).
fn call_plain<'js>(
    ctx: &Ctx<'js>,
    submit: Rc<Submit<'js>>,
    bounds: Bounds,
) -> rquickjs::Result<Function<'js>> {
    let plain = PlainJson::new(ctx, bounds)?;
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>,
              name: String,
              args: Value<'js>,
              trace: Value<'js>|
              -> rquickjs::Result<Value<'js>> {
            match plain.read(&args, submit.held.room()) {
                Ok((args, bytes)) => {
                    let (host, stop) = (&*submit.host, &submit.stop);
                    let accepted = calls::accept(host, stop, &submit.held, &name, args, bytes);
                    submit.submit(&ctx, Kind::Tool { name, trace }, accepted)
                }
                Err(Unread::NotPlain) => Ok(Value::new_undefined(ctx)),
                // The glue turns what this throws into the call's rejection.
                Err(Unread::TooLarge) => Err(throw(&ctx, &submit.held.refusal())),
                Err(Unread::Failed(failure)) => {
                    let message = failure.message.clone();
                    submit.stop.fail(failure);
                    Err(throw(&ctx, &message))
                }
            }
        },
    )
}

/// `log(level, line)`.
fn log<'js>(
    ctx: &Ctx<'js>,
    submit: Rc<Submit<'js>>,
    output: Rc<RefCell<Output>>,
) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, level: String, line: String| -> rquickjs::Result<()> {
            calls::log(
                &*submit.host,
                &mut output.borrow_mut(),
                &submit.stop,
                &level,
                line,
            )
            .map_err(|message| throw(&ctx, &message))
        },
    )
}

/// `note(kind, site, subject, text)`: record a note on the run (see [`crate::NoteKind`]) at
/// `site` (`"line:col"` or `""`); an unknown kind is a plain note, `"unsaid"` takes one back
/// (see `Output::note_named`).
fn note<'js>(ctx: &Ctx<'js>, output: Rc<RefCell<Output>>) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |kind: String, site: String, subject: String, text: String| {
            output
                .borrow_mut()
                .note_named(&kind, &site, &subject, &text);
        },
    )
}

/// `sleep(ms) -> Promise`: resolves after `ms` (a timer; dropped when the run ends).
fn sleep<'js>(ctx: &Ctx<'js>, submit: Rc<Submit<'js>>) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, ms: f64| -> rquickjs::Result<Value<'js>> {
            if submit.calls.borrow().timers() >= MAX_TIMERS {
                return Err(throw(
                    &ctx,
                    &format!("a program may have at most {MAX_TIMERS} timers waiting at once"),
                ));
            }
            let delay = std::time::Duration::from_secs_f64((ms.max(0.0) / 1000.0).min(1e9));
            // A timer a replayed recording fired fires again at its turn, not after its delay.
            let id = submit.calls.borrow().next_id();
            let replayed = submit.host.deliveries().is_some_and(|d| d.recorded(id));
            let timer: HostCall = Box::pin(async move {
                if !replayed {
                    tokio::time::sleep(delay).await;
                }
                Ok(serde_json::Value::Null.into())
            });
            submit.submit(&ctx, Kind::Timer, Ok(timer.into()))
        },
    )
}

/// `now()`: the host's clock, in milliseconds since the Unix epoch; a clock the host cannot
/// give (a replay gone another way) ends the run.
fn now<'js>(ctx: &Ctx<'js>, submit: Rc<Submit<'js>>) -> rquickjs::Result<Function<'js>> {
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| -> rquickjs::Result<f64> {
        submit.host.clock().map_err(|failure| {
            let message = failure.message.clone();
            submit.stop.fail(failure);
            throw(&ctx, &message)
        })
    })
}

/// Throw a plain `Error` with `message` in `ctx`.
fn throw<'js>(ctx: &Ctx<'js>, message: &str) -> rquickjs::Error {
    match rquickjs::Exception::from_message(ctx.clone(), message) {
        Ok(error) => ctx.throw(error.into_value()),
        Err(e) => e,
    }
}
