//! Panic containment. ptc runs code it does not own at many points (tool bodies, hooks,
//! guards, classifiers, presenters, approval services); every such point goes through
//! [`contain`] or [`contain_async`], so a panic there becomes its message and the call
//! fails (or the hook is skipped) instead of unwinding through the pipeline. This module
//! is the crate's only `catch_unwind`.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};

use futures::FutureExt;

/// Run `f`; a panic becomes `Err(message)`.
#[inline]
pub(crate) fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| panic_message(&*p))
}

/// Await `fut`; a panic while it is polled becomes `Err(message)`.
#[inline]
pub(crate) async fn contain_async<F: Future>(fut: F) -> Result<F::Output, String> {
    AssertUnwindSafe(fut)
        .catch_unwind()
        .await
        .map_err(|p| panic_message(&*p))
}

/// Start a future with `start` and await it; a panic in either becomes `Err(message)`.
#[inline]
pub(crate) async fn contain_started<F: Future>(
    start: impl FnOnce() -> F,
) -> Result<F::Output, String> {
    contain_async(contain(start)?).await
}

/// A readable message from a panic payload.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked with a non-string payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message() {
        assert_eq!(contain(|| 1), Ok(1));
        assert_eq!(
            contain(|| -> u8 { panic!("boom {}", 7) }),
            Err("boom 7".into())
        );
        let payload = contain(|| std::panic::panic_any(42_u8));
        assert_eq!(payload, Err("panicked with a non-string payload".into()));
    }

    #[tokio::test]
    async fn a_panic_while_starting_or_polling_becomes_its_message() {
        assert_eq!(contain_async(async { 2 }).await, Ok(2));
        let polled = contain_async(async { panic!("in poll") }).await;
        assert_eq!(polled, Err::<(), _>("in poll".into()));
        let started = contain_started(|| -> std::future::Ready<u8> { panic!("at start") }).await;
        assert_eq!(started, Err("at start".into()));
    }
}
