//! The span of one call: opened at admission, given policy events, closed at finalization.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde_json::Value;
use tracing::field::Empty;
use tracing::{Dispatch, Level, Span};

use super::{json_truncated, max_attribute_chars, truncate, CallOutcome, TARGET};
use crate::execution::{ExecutionToken, ToolExecution};
use crate::result::{Outcome, ToolExecutionResult};

/// The span slot a [`ToolExecution`] carries: empty until admission opens it (and when
/// nothing listens), emptied again when the call is finalized, which ends the span. Boxed
/// and set once, so a call without a span carries one pointer and pays one atomic load.
#[derive(Default)]
pub(crate) struct CallSpan(OnceLock<Box<Slot>>);

/// An open span and the token it is a parent for.
type Slot = Mutex<Option<(ExecutionToken, Span)>>;

impl CallSpan {
    fn set(&self, token: ExecutionToken, span: Span) {
        let _ = self.0.set(Box::new(Mutex::new(Some((token, span)))));
    }

    /// Empty the slot, and forget the span as a parent.
    fn take(&self) -> Option<Span> {
        let (token, span) = self
            .0
            .get()?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        open_spans()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&token);
        Some(span)
    }

    fn get(&self) -> Option<Span> {
        let slot = self.0.get()?.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map(|(_, span)| span.clone())
    }
}

impl Drop for CallSpan {
    /// A call dropped before it was finalized (its future was dropped): end its span as
    /// cancelled rather than leave it open.
    fn drop(&mut self) {
        if let Some(span) = self.take() {
            span.record("ptc.outcome", CallOutcome::Cancelled.as_str());
            span.record("otel.status_code", "ERROR");
            span.record(
                "otel.status_description",
                "the call was dropped before it settled",
            );
        }
    }
}

/// Spans of calls still open, by token, so a sub-call finds its parent's span.
fn open_spans() -> &'static Mutex<HashMap<ExecutionToken, Span>> {
    static OPEN: OnceLock<Mutex<HashMap<ExecutionToken, Span>>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
}

macro_rules! call_span {
    ($($parent:tt)*) => {
        tracing::span!(
            target: TARGET,
            $($parent)*
            Level::INFO,
            "execute_tool",
            otel.name = Empty,
            otel.kind = "internal",
            otel.status_code = Empty,
            otel.status_description = Empty,
            openinference.span.kind = "TOOL",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.type = "function",
            gen_ai.tool.name = Empty,
            gen_ai.tool.call.id = Empty,
            tool.name = Empty,
            input.value = Empty,
            input.mime_type = "application/json",
            output.value = Empty,
            output.mime_type = Empty,
            ptc.call_id = Empty,
            ptc.root_call_id = Empty,
            ptc.scope = Empty,
            ptc.outcome = Empty,
            ptc.error.code = Empty,
        )
    };
}

/// Run `f` with `span`'s own subscriber as the default, so that spans and events made on
/// another thread (the engine's) reach the subscriber that owns the parent.
fn with_dispatch_of<T>(span: &Span, f: impl FnOnce() -> T) -> T {
    let dispatch: Option<Dispatch> = span.with_subscriber(|(_, d)| d.clone());
    match dispatch {
        Some(d) => tracing::dispatcher::with_default(&d, f),
        None => f(),
    }
}

/// Open the span of `exec` when admission starts. A sub-call's parent is its outer
/// call's span; a root call's is the caller's current span.
pub(crate) fn open(exec: &ToolExecution) {
    if !tracing::enabled!(target: TARGET, Level::INFO) {
        return;
    }
    let span = match exec.parent() {
        None => call_span!(),
        Some(token) => {
            let parent = open_spans()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&token)
                .cloned();
            match parent {
                Some(parent) => with_dispatch_of(&parent, || call_span!(parent: &parent,)),
                None => call_span!(parent: None,),
            }
        }
    };
    if span.is_disabled() {
        return;
    }
    let name = exec.name();
    span.record("otel.name", format!("execute_tool {name}"));
    span.record("tool.name", name);
    span.record("gen_ai.tool.name", name);
    span.record("gen_ai.tool.call.id", exec.call_id());
    span.record("ptc.call_id", exec.call_id());
    span.record("ptc.root_call_id", exec.root_call_id());
    if let Some(agent) = exec.agent() {
        span.record("ptc.scope", agent.scope().name());
    }
    span.record(
        "input.value",
        json_truncated(exec.arguments(), max_attribute_chars()),
    );
    open_spans()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(exec.token(), span.clone());
    exec.span.set(exec.token(), span);
}

/// Record a policy decision on `exec`'s span: `stage` (`pre-execute`, `approval`,
/// `guard`, `post-execute`), `decision` (`allow`, `deny`, `ask`, `cancel`, `block`, or an
/// approval's answer) and the reason, if any.
pub(crate) fn decision(exec: &ToolExecution, stage: &str, decision: &str, reason: Option<&str>) {
    let Some(span) = exec.span.get() else {
        return;
    };
    let reason = reason.map(|r| truncate(r, max_attribute_chars()));
    with_dispatch_of(&span, || {
        tracing::event!(
            target: TARGET,
            parent: &span,
            Level::INFO,
            ptc.policy.stage = stage,
            ptc.policy.decision = decision,
            ptc.policy.reason = reason.as_deref(),
            "policy"
        )
    });
}

/// Close `exec`'s span with the call's outcome.
pub(crate) fn close(exec: &ToolExecution, result: &ToolExecutionResult) {
    let Some(span) = exec.span.take() else {
        return;
    };
    let max = max_attribute_chars();
    let failure = result.error();
    let outcome = CallOutcome::of(failure);
    span.record("ptc.outcome", outcome.as_str());
    match &result.outcome {
        Outcome::Success { value, .. } => {
            let (text, mime) = match value.as_ref() {
                Value::String(s) => (truncate(s, max).into_owned(), "text/plain"),
                other => (json_truncated(other, max), "application/json"),
            };
            span.record("output.value", text);
            span.record("output.mime_type", mime);
        }
        Outcome::Failure(failure) => {
            let message = truncate(&failure.message, max);
            span.record("output.value", message.as_ref());
            span.record("output.mime_type", "text/plain");
            span.record("otel.status_code", "ERROR");
            span.record("otel.status_description", message.as_ref());
            if let Some(code) = failure.code() {
                span.record("ptc.error.code", code);
            }
            let kind = failure.info.as_ref().map_or("Error", |i| i.name.as_str());
            with_dispatch_of(&span, || {
                tracing::event!(
                    target: TARGET,
                    parent: &span,
                    Level::INFO,
                    "exception.type" = kind,
                    exception.message = message.as_ref(),
                    ptc.outcome = outcome.as_str(),
                    "exception"
                )
            });
        }
    }
}
