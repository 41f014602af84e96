//! Monotonic guards: final pre-dispatch policy that can only deny.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::HookSet;
use crate::contain::contain;
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

/// Global guards and guards of every scope on the caller's chain; the first denial wins.
/// A panicking guard denies (fails closed).
pub(crate) fn check(hooks: &HookSet, exec: &ToolExecution) -> Option<String> {
    hooks
        .guards
        .iter()
        .filter(|g| match g.scope {
            None => true,
            Some(id) => exec
                .agent
                .as_ref()
                .is_some_and(|a| a.scope().chain().any(|s| s.id() == id)),
        })
        .find_map(|g| match contain(|| g.hook.check(exec)) {
            Ok(reason) => reason,
            Err(p) => Some(format!("guard failed: {p}")),
        })
}

/// The guards of one call ([`ToolRunContext::guards`](crate::ToolRunContext::guards)).
#[derive(Clone)]
pub struct CallGuards {
    hooks: Arc<HookSet>,
    exec: Arc<ToolExecution>,
}

impl CallGuards {
    pub(crate) fn new(hooks: Arc<HookSet>, exec: Arc<ToolExecution>) -> Self {
        CallGuards { hooks, exec }
    }

    /// The reason the guards would deny this call with `args` instead of its own arguments.
    pub fn denial(&self, args: Value) -> Option<String> {
        check(&self.hooks, &self.exec.with_arguments(args))
    }
}

impl fmt::Debug for CallGuards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallGuards").finish_non_exhaustive()
    }
}
