//! The raw host functions a QuickJS sandbox hands the glue (see `runtime-js/glue.js`):
//! `hostCall(name, argsJson)`, `hostCallPlain(name, args)` and `hostLog(level, line)`.

use std::{cell::RefCell, rc::Rc, sync::Arc, task::Context as TaskContext};

use rquickjs::{Ctx, Function, IntoJs, Value};

use super::{
    driver::{Calls, ThreadWaker},
    plain_json::{Bounds, PlainJson, Unread},
};
use crate::{calls, output::Output, stop::Stop, Host, HostCall};

/// What the host-call functions of one run share.
pub(super) struct Submit<'js> {
    pub(super) host: Arc<dyn Host>,
    pub(super) stop: Arc<Stop>,
    pub(super) calls: Rc<RefCell<Calls<'js>>>,
    /// Wakes the run's thread when a call can make progress.
    pub(super) waker: Arc<ThreadWaker>,
}

impl<'js> Submit<'js> {
    /// Track an accepted call (or throw the refusal's message); its promise.
    fn submit(
        &self,
        ctx: &Ctx<'js>,
        name: String,
        accepted: Result<HostCall, String>,
    ) -> rquickjs::Result<Value<'js>> {
        let call = accepted.map_err(|message| throw(ctx, &message))?;
        let (promise, resolve, reject) = ctx.promise()?;
        let waker = self.waker.waker();
        let mut cx = TaskContext::from_waker(&waker);
        // Let the host start the call now: one that completes at once is then settled from the
        // ready queue, with no future to track and no extra trip through the event loop.
        self.host.poll_progress(&mut cx);
        self.calls
            .borrow_mut()
            .push(name, call, resolve, reject, &mut cx);
        promise.into_js(ctx)
    }
}

/// The raw `hostCall(name, argsJson) -> Promise` function: arguments the glue has checked and
/// encoded as JSON text.
pub(super) fn host_call<'js>(
    ctx: &Ctx<'js>,
    submit: Rc<Submit<'js>>,
) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, name: String, args: String| -> rquickjs::Result<Value<'js>> {
            let accepted = calls::accept_json(&*submit.host, &submit.stop, &name, &args);
            submit.submit(&ctx, name, accepted)
        },
    )
}

/// The raw `hostCallPlain(name, args) -> Promise | undefined` function: the arguments as the
/// program passed them, read in Rust when they are plain JSON data ([`PlainJson`]); `undefined`
/// (nothing submitted) otherwise, so that the glue checks them itself. Arguments too large once
/// expanded are refused (the call rejects); a wall clock that runs out while reading them ends
/// the run (see [`Bounds`]).
pub(super) fn host_call_plain<'js>(
    ctx: &Ctx<'js>,
    submit: Rc<Submit<'js>>,
    bounds: Bounds,
    max_bytes: usize,
) -> rquickjs::Result<Function<'js>> {
    let plain = PlainJson::new(ctx, bounds)?;
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, name: String, args: Value<'js>| -> rquickjs::Result<Value<'js>> {
            match plain.read(&args, max_bytes) {
                Ok(args) => {
                    let accepted = calls::accept(&*submit.host, &submit.stop, &name, args);
                    submit.submit(&ctx, name, accepted)
                }
                Err(Unread::NotPlain) => Ok(Value::new_undefined(ctx)),
                // The glue turns what this throws into the call's rejection.
                Err(Unread::TooLarge(message)) => {
                    Err(throw(&ctx, &format!("arguments are too large: {message}")))
                }
                Err(Unread::Failed(failure)) => {
                    let message = failure.message.clone();
                    submit.stop.fail(failure);
                    Err(throw(&ctx, &message))
                }
            }
        },
    )
}

/// The raw `hostLog(level, line)` function.
pub(super) fn host_log<'js>(
    ctx: &Ctx<'js>,
    host: Arc<dyn Host>,
    stop: Arc<Stop>,
    output: Rc<RefCell<Output>>,
) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, level: String, line: String| -> rquickjs::Result<()> {
            calls::log(&*host, &mut output.borrow_mut(), &stop, &level, line)
                .map_err(|message| throw(&ctx, &message))
        },
    )
}

/// Throw a plain `Error` with `message` in `ctx`.
fn throw<'js>(ctx: &Ctx<'js>, message: &str) -> rquickjs::Error {
    match rquickjs::Exception::from_message(ctx.clone(), message) {
        Ok(error) => ctx.throw(error.into_value()),
        Err(e) => e,
    }
}
