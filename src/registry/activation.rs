//! Conditional activation: `when` conditions resolved once per step into an admitted set.

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use tokio_util::sync::CancellationToken;

use crate::scope::{Agent, ScopeKey};

/// Provider, model and optional reasoning effort captured for a step.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelSelection {
    /// Provider name.
    pub provider: String,
    /// Model name.
    pub model: String,
    /// Reasoning effort, if any.
    pub reasoning_effort: Option<String>,
}

/// Inputs for a tool's step-time activation condition.
#[derive(Debug, Clone)]
pub struct ActivationContext {
    /// Agent preparing the step.
    pub agent: Option<Agent>,
    /// The captured model selection.
    pub model_selection: ModelSelection,
    /// Cancellation of step preparation.
    pub signal: CancellationToken,
}

/// A step-time condition: `Ok(true)` admits, `Ok(false)` excludes, `Err` fails the step.
pub type When =
    Arc<dyn Fn(&ActivationContext) -> BoxFuture<'static, Result<bool, String>> + Send + Sync>;

/// Options for one registration.
#[derive(Clone, Default)]
pub struct RegistrationOptions {
    pub(crate) when: Option<When>,
}

impl RegistrationOptions {
    /// Admit the tool only in steps where `condition` resolves to `true`.
    pub fn when<F, Fut>(condition: F) -> Self
    where
        F: Fn(&ActivationContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<bool, String>> + Send + 'static,
    {
        RegistrationOptions {
            when: Some(Arc::new(move |ctx| condition(ctx).boxed())),
        }
    }
}

impl fmt::Debug for RegistrationOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistrationOptions")
            .field("when", &self.when.is_some())
            .finish()
    }
}

/// One step's admitted registrations, shared by native calls and code-mode sub-calls.
#[derive(Clone)]
pub struct ResolvedToolSet(Arc<SetInner>);

struct SetInner {
    scope: Option<ScopeKey>,
    admitted: HashSet<u64>,
    disposed: AtomicBool,
}

impl ResolvedToolSet {
    pub(crate) fn new(scope: Option<ScopeKey>, admitted: HashSet<u64>) -> Self {
        ResolvedToolSet(Arc::new(SetInner {
            scope,
            admitted,
            disposed: AtomicBool::new(false),
        }))
    }

    /// Whether this set admits conditional registration `id` for a call in `scope`.
    pub(crate) fn admits(&self, id: u64, scope: Option<&ScopeKey>) -> bool {
        !self.0.disposed.load(Ordering::Acquire)
            && self.0.scope.as_ref() == scope
            && self.0.admitted.contains(&id)
    }

    /// Close admission after the step's batch settles.
    pub fn dispose(&self) {
        self.0.disposed.store(true, Ordering::Release);
    }
}

impl fmt::Debug for ResolvedToolSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResolvedToolSet")
            .field("scope", &self.0.scope)
            .field("admitted", &self.0.admitted.len())
            .field("disposed", &self.0.disposed.load(Ordering::Relaxed))
            .finish()
    }
}
