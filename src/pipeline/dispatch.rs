//! The innermost stage: argument validation, the tool body, output validation and rendering.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::contain::{contain, contain_started};
use crate::error::{codes, ToolError, ToolFailure};
use crate::execution::{RunEffects, ToolExecution, ToolRunContext};
use crate::registry::ToolRegistry;
use crate::result::{Outcome, ToolExecutionResult};

/// Validate arguments, run the body with the fused signal, and normalize its outcome.
///
/// `replacement` is the signal a `tools/execute` wrapper substituted, if any; the
/// caller's signal is fused back in so caller cancellation always reaches the body.
pub(crate) async fn invoke_guarded(
    registry: ToolRegistry,
    exec: Arc<ToolExecution>,
    replacement: Option<CancellationToken>,
    effects: Arc<RunEffects>,
) -> ToolExecutionResult {
    let Some(def) = exec.definition.clone() else {
        return ToolExecutionResult::failure(ToolFailure::unknown_tool(&exec.name));
    };
    let reject_unknown = registry.rejects_unknown_arguments(&def);
    if let Err(e) = super::arguments::check(&def, &exec.arguments, reject_unknown) {
        return ToolExecutionResult::failure(ToolFailure::invalid_args(&exec.name, e));
    }
    let caller = exec.signal.clone();
    let signal = match &replacement {
        None => caller.clone(),
        Some(r) => r.child_token(),
    };
    let ctx = ToolRunContext {
        registry,
        exec: exec.clone(),
        signal: signal.clone(),
        effects: effects.clone(),
    };
    effects.invoked.store(true, Ordering::Release);
    let body = contain_started(|| (def.execute)(exec.arguments.clone(), ctx));
    let settled = if replacement.is_some() {
        tokio::pin!(body);
        tokio::select! {
            biased;
            r = &mut body => r,
            _ = caller.cancelled() => { signal.cancel(); body.await }
        }
    } else {
        body.await
    };
    let outcome: Result<Value, ToolError> = settled.unwrap_or_else(|p| Err(ToolError::new(p)));
    let contexts = effects.take_contexts();
    let mut result = match outcome {
        Err(e) if caller.is_cancelled() && e.info.is_none() => {
            ToolExecutionResult::failure(ToolFailure::aborted())
        }
        Err(e) => ToolExecutionResult::failure(e.into_failure()),
        Ok(value) => apply_value(&exec, value, effects.conclude.load(Ordering::Acquire)),
    };
    result.additional_contexts = contexts;
    if !result.is_error() {
        result.cut_short = effects.take_cut_short();
        result.note = effects.take(&effects.note);
        result.unless_read = effects.take(&effects.unless_read);
    }
    result
}

/// Validate a value against the output schema, freeze it, render content and
/// presentation metadata. A renderer or projector panic becomes `INVALID_TOOL_OUTPUT`.
pub(crate) fn apply_value(
    exec: &ToolExecution,
    value: Value,
    concludes_turn: bool,
) -> ToolExecutionResult {
    let Some(def) = exec.definition.as_ref() else {
        return ToolExecutionResult::failure(ToolFailure::unknown_tool(&exec.name));
    };
    let output = &def.output;
    if let Err(e) = output.schema.validate(&value) {
        return ToolExecutionResult::failure(ToolFailure::invalid_output(&exec.name, e));
    }
    let args = &exec.arguments;
    let rendered = contain(|| {
        (
            output.render(args, &value),
            output.presentation_meta(args, &value),
        )
    });
    match rendered {
        Ok((content, meta)) => ToolExecutionResult {
            outcome: Outcome::Success {
                value: Arc::new(value),
                concludes_turn,
            },
            content,
            meta,
            additional_contexts: Vec::new(),
            cut_short: None,
            note: None,
            unless_read: None,
        },
        Err(p) => ToolExecutionResult::failure(ToolFailure::new(
            format!("rendering the output of {} failed: {p}", exec.name),
            "ToolOutputError",
            codes::INVALID_TOOL_OUTPUT,
        )),
    }
}
