//! The approval seam: who answers a pre-execute `ask`.
//!
//! Only [`ApprovalAnswer::AllowedOnce`] and [`ApprovalAnswer::AllowedForSession`] let the
//! call proceed. No service, no agent on the call, or any other answer is a denial. An
//! agent's own service ([`Agent::with_approval`](crate::Agent::with_approval)) answers
//! before the registry's.

use std::future::Future;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};

use crate::execution::ToolExecution;

/// Localized prompt text for an `ask` decision (what a prompt shows); `en` is required.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayReason {
    /// English text.
    pub en: String,
    /// Other locales, `(locale, text)`.
    pub other: Vec<(String, String)>,
}

/// What the pipeline asks the approval service.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The call awaiting approval.
    pub execution: Arc<ToolExecution>,
    /// The audited reason from the `ask` decision.
    pub reason: Option<String>,
    /// Prompt text.
    pub display_reason: Option<DisplayReason>,
}

/// An approval answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalAnswer {
    /// Run this one call.
    AllowedOnce,
    /// Run it; the service will allow the same tool under the same rule for the rest of
    /// the session without asking.
    AllowedForSession,
    /// Refused.
    Denied,
    /// No decision (prompt dismissed, timed out, ...).
    Dismissed,
    /// Anything else, described.
    Other(String),
}

impl ApprovalAnswer {
    /// Whether the call may run.
    pub fn allows(&self) -> bool {
        matches!(
            self,
            ApprovalAnswer::AllowedOnce | ApprovalAnswer::AllowedForSession
        )
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            ApprovalAnswer::AllowedOnce => "allowed once".into(),
            ApprovalAnswer::AllowedForSession => "allowed for this session".into(),
            ApprovalAnswer::Denied => "denied".into(),
            ApprovalAnswer::Dismissed => "dismissed".into(),
            ApprovalAnswer::Other(s) => s.clone(),
        }
    }
}

/// Answers `ask` decisions. Closures `Fn(ApprovalRequest) -> impl Future<Output = ApprovalAnswer>`
/// implement it.
pub trait ApprovalService: Send + Sync + 'static {
    /// Ask for approval of one call.
    fn request(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalAnswer>;
}

impl<F, Fut> ApprovalService for F
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ApprovalAnswer> + Send + 'static,
{
    fn request(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalAnswer> {
        self(request).boxed()
    }
}
