//! Monotonic guards: final pre-dispatch policy that can only deny.

use crate::execution::ToolExecution;

/// A guard evaluated after every pre-execute listener and before the body. Returning a
/// reason denies the call; `None` leaves it unchanged. There is no allow result, so
/// listener order can never turn a denial into permission. Closures
/// `Fn(&ToolExecution) -> Option<String>` implement it.
pub trait ToolGuard: Send + Sync + 'static {
    /// A denial reason, or `None`.
    fn check(&self, exec: &ToolExecution) -> Option<String>;
}

impl<F> ToolGuard for F
where
    F: Fn(&ToolExecution) -> Option<String> + Send + Sync + 'static,
{
    fn check(&self, exec: &ToolExecution) -> Option<String> {
        self(exec)
    }
}
