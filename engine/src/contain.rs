//! Panic containment: host code (a [`crate::Host`]'s calls and their futures) and swc run
//! under [`contain`] or [`contain_async`], so a panic there fails the call or the program
//! instead of unwinding through the engine. This module is the crate's only `catch_unwind`.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};

use futures::FutureExt;

/// A panic was contained (its payload is dropped: callers report their own message).
#[derive(Debug)]
pub(crate) struct Panicked;

/// Run `f`; a panic becomes `Err(Panicked)`.
pub(crate) fn contain<T>(f: impl FnOnce() -> T) -> Result<T, Panicked> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| Panicked)
}

/// Await `fut`; a panic while it is polled becomes `Err(Panicked)`.
pub(crate) fn contain_async<F: Future>(
    fut: F,
) -> impl Future<Output = Result<F::Output, Panicked>> {
    AssertUnwindSafe(fut)
        .catch_unwind()
        .map(|r| r.map_err(|_| Panicked))
}
