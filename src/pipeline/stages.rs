//! The policy stages of the pipeline: pre-execute, approval, guards, post-execute,
//! finalization and observers.

use std::sync::Arc;

use super::dispatch::{apply_value, invoke_guarded};
use super::{Admission, PreparedCall};
use futures::FutureExt;

use crate::contain::{contain, contain_async, contain_started};
use crate::content::content_text;
use crate::error::{codes, ToolFailure};
use crate::execution::{RunEffects, ToolExecution};
use crate::hooks::dispatch_log::{PtcDispatchLog, PtcDispatchLogStage};
use crate::hooks::execute::{DispatchExecution, ExecuteStage};
use crate::hooks::post_execute::{PostExecuteStage, PostToolDecision, Replacement};
use crate::hooks::pre_execute::{PreExecuteStage, PreToolDecision};
use crate::hooks::{guard, HookSet};
use crate::policy::approval::{ApprovalAnswer, ApprovalRequest};
use crate::registry::ToolRegistry;
use crate::result::{Outcome, ToolExecutionResult};
use crate::telemetry::span as telemetry;

fn fail(failure: ToolFailure) -> ToolExecutionResult {
    ToolExecutionResult::failure(failure)
}

/// The pipeline's stages for calls that start now: the registry and the hooks registered at
/// this moment (a call keeps the hooks it began with). The native path
/// ([`ToolRegistry::run_prepared`]) and the code-mode bridge both drive calls through these.
#[derive(Clone)]
pub(crate) struct Pipeline {
    registry: ToolRegistry,
    hooks: Arc<HookSet>,
}

impl ToolRegistry {
    /// The pipeline over the hooks registered now.
    pub(crate) fn pipeline(&self) -> Pipeline {
        Pipeline {
            registry: self.clone(),
            hooks: self.inner.hooks.snapshot(),
        }
    }
}

impl Pipeline {
    /// Every stage of one call, in order.
    pub(crate) async fn run(&self, call: PreparedCall) -> ToolExecutionResult {
        match self.admit(&call).await {
            Admission::Refused(result) => self.commit(&call.exec, *result, None).await,
            Admission::Admitted(effects) => {
                let result = self.dispatch(&call.exec, &effects).await;
                self.commit(&call.exec, result, Some(&effects)).await
            }
        }
    }

    /// The admission stage: cancellation, `tools/pre-execute` (with approval), guards.
    pub(crate) async fn admit(&self, call: &PreparedCall) -> Admission {
        let (hooks, exec) = (&self.hooks, &call.exec);
        telemetry::open(exec);
        if let Some(failure) = &call.early {
            return Admission::Refused(Box::new(fail(failure.clone())));
        }
        if exec.signal.is_cancelled() {
            return Admission::Refused(Box::new(fail(ToolFailure::aborted_before_dispatch())));
        }
        if let Some(denied) = self.pre_execute(exec).await {
            return Admission::Refused(Box::new(denied));
        }
        if exec.signal.is_cancelled() {
            return Admission::Refused(Box::new(fail(ToolFailure::aborted_before_dispatch())));
        }
        if let Some(reason) = guard::check(hooks, exec) {
            telemetry::decision(exec, "guard", "deny", Some(&reason));
            return Admission::Refused(Box::new(fail(ToolFailure::denied(reason))));
        }
        Admission::Admitted(Arc::new(RunEffects::default()))
    }

    /// The dispatch stage: `tools/execute` wrappers around the body, then `project_content`.
    pub(crate) async fn dispatch(
        &self,
        exec: &Arc<ToolExecution>,
        effects: &Arc<RunEffects>,
    ) -> ToolExecutionResult {
        let hooks = &self.hooks;
        let result = if hooks.execute.is_empty() {
            invoke_guarded(self.registry.clone(), exec.clone(), None, effects.clone()).await
        } else {
            let body = self.registry.inner.execute_body.get_or_init(|| {
                let registry = Arc::downgrade(&self.registry.inner);
                Arc::new(move |dispatch: DispatchExecution| {
                    let (exec, replacement, effects) = dispatch.into_parts();
                    // The call's `Pipeline` holds the registry until the call has settled.
                    let Some(inner) = registry.upgrade() else {
                        return std::future::ready(fail(ToolFailure::new(
                            "the registry was dropped",
                            "Error",
                            codes::TOOL_ERROR,
                        )))
                        .boxed();
                    };
                    invoke_guarded(ToolRegistry { inner }, exec, replacement, effects).boxed()
                })
            });
            let next = crate::hooks::chain(hooks.clone(), ExecuteStage::new(body.clone()));
            let dispatch = DispatchExecution::new(exec.clone(), effects.clone());
            match contain_async(next.run(dispatch)).await {
                Ok(result) => result,
                Err(p) => fail(ToolFailure::new(
                    format!("tools/execute wrapper panicked: {p}"),
                    "Error",
                    codes::TOOL_ERROR,
                )),
            }
        };
        self.project(exec, result)
    }

    /// The commit stage: for dispatched calls `tools/post-execute` and the final
    /// cancellation check; then finalization and observers for every call.
    pub(crate) async fn commit(
        &self,
        exec: &Arc<ToolExecution>,
        result: ToolExecutionResult,
        dispatched: Option<&RunEffects>,
    ) -> ToolExecutionResult {
        let Some(effects) = dispatched else {
            return self.finish(exec, result);
        };
        let mut result = self.post_execute(exec, result).await;
        if exec.signal.is_cancelled() && !result.is_error() {
            let failure = if effects.invoked() {
                ToolFailure::aborted()
            } else {
                ToolFailure::aborted_before_dispatch()
            };
            let contexts = std::mem::take(&mut result.additional_contexts);
            result = fail(failure);
            result.additional_contexts = contexts;
        }
        self.finish(exec, result)
    }

    /// `tools/pre-execute` and approval. `Some(result)` stops the call.
    async fn pre_execute(&self, exec: &Arc<ToolExecution>) -> Option<ToolExecutionResult> {
        let hooks = &self.hooks;
        if hooks.pre_execute.is_empty() {
            return None;
        }
        let decision = match contain_async(
            crate::hooks::chain(hooks.clone(), PreExecuteStage::new(exec.clone())).run(),
        )
        .await
        {
            Ok(d) => d,
            Err(p) => PreToolDecision::deny(format!("tools/pre-execute policy failed: {p}")),
        };
        match decision {
            PreToolDecision::Allow => {
                telemetry::decision(exec, "pre-execute", "allow", None);
                None
            }
            PreToolDecision::Deny { reason, info } => {
                telemetry::decision(exec, "pre-execute", "deny", Some(&reason));
                let mut failure = ToolFailure::denied(reason);
                if info.is_some() {
                    failure.info = info;
                }
                Some(fail(failure))
            }
            PreToolDecision::Cancel => {
                telemetry::decision(exec, "pre-execute", "cancel", None);
                Some(fail(ToolFailure::aborted_before_dispatch()))
            }
            PreToolDecision::Ask {
                reason,
                display_reason,
            } => {
                telemetry::decision(exec, "pre-execute", "ask", reason.as_deref());
                let own = exec.agent.as_ref().and_then(|a| a.approval()).cloned();
                let service = own.or_else(|| {
                    self.registry
                        .inner
                        .approval
                        .read()
                        .unwrap_or_else(|e| e.into_inner())
                        .clone()
                });
                let what = reason
                    .clone()
                    .unwrap_or_else(|| format!("{} requires approval", exec.name));
                let Some(service) = service.filter(|_| exec.agent.is_some()) else {
                    telemetry::decision(exec, "approval", "unavailable", None);
                    log_approval(exec, "unavailable", &what);
                    return Some(fail(ToolFailure::denied(format!(
                        "{what} (no approval is available)"
                    ))));
                };
                let request = ApprovalRequest {
                    execution: exec.clone(),
                    reason,
                    display_reason,
                };
                // A person answers: the run's wall clock stops meanwhile.
                let waiting = crate::policy::waiting::begin();
                let answered = contain_started(|| service.request(request)).await;
                drop(waiting);
                let answer = match answered {
                    Ok(answer) => answer,
                    Err(p) => ApprovalAnswer::Other(format!("approval service panicked: {p}")),
                };
                telemetry::decision(exec, "approval", &answer.describe(), None);
                log_approval(exec, &answer.describe(), &what);
                if answer.allows() {
                    return None;
                }
                Some(fail(ToolFailure::denied(format!(
                    "{what} (approval {})",
                    answer.describe()
                ))))
            }
        }
    }

    /// `project_content`: runs once for the normalized outcome entering post-execute.
    fn project(
        &self,
        exec: &ToolExecution,
        mut result: ToolExecutionResult,
    ) -> ToolExecutionResult {
        if let Some(project) = exec
            .definition
            .as_ref()
            .and_then(|d| d.project_content.as_ref())
        {
            match contain(|| project(exec, &result)) {
                Ok(Some(content)) => result.content = content,
                Ok(None) => {}
                Err(p) => {
                    result = fail(ToolFailure::new(
                        format!("project_content failed: {p}"),
                        "ToolOutputError",
                        codes::INVALID_TOOL_OUTPUT,
                    ))
                }
            }
        }
        result
    }

    /// `tools/post-execute`: accept (optionally replacing content or value) or block.
    async fn post_execute(
        &self,
        exec: &Arc<ToolExecution>,
        result: ToolExecutionResult,
    ) -> ToolExecutionResult {
        let hooks = &self.hooks;
        if !hooks
            .post_execute
            .iter()
            .any(|l| l.applies_to(exec.scope_id()))
        {
            return result;
        }
        let shared = Arc::new(result);
        let decision = contain_async(
            crate::hooks::chain(
                hooks.clone(),
                PostExecuteStage::new(exec.clone(), shared.clone()),
            )
            .run(),
        )
        .await;
        let mut result = Arc::try_unwrap(shared).unwrap_or_else(|a| (*a).clone());
        match decision {
            Err(p) => fail(ToolFailure::new(
                format!("tools/post-execute policy failed: {p}"),
                "Error",
                codes::TOOL_ERROR,
            )),
            Ok(PostToolDecision::Accept {
                replace,
                additional_contexts,
            }) => {
                match replace {
                    None => {}
                    Some(Replacement::Content(content)) => result.content = content,
                    Some(Replacement::Value(value)) => {
                        if let Outcome::Success { concludes_turn, .. } = result.outcome {
                            let contexts = std::mem::take(&mut result.additional_contexts);
                            result = apply_value(exec, value, concludes_turn);
                            result.additional_contexts = contexts;
                        }
                    }
                }
                result.additional_contexts.extend(additional_contexts);
                result
            }
            Ok(PostToolDecision::Block {
                feedback,
                additional_contexts,
            }) => {
                telemetry::decision(
                    exec,
                    "post-execute",
                    "block",
                    Some(&content_text(&feedback)),
                );
                ToolExecutionResult {
                    outcome: Outcome::Failure(ToolFailure::new(
                        content_text(&feedback),
                        "ToolBlockedError",
                        codes::TOOL_BLOCKED,
                    )),
                    content: feedback,
                    meta: None,
                    additional_contexts,
                    cut_short: None,
                    note: None,
                    unless_read: None,
                }
            }
        }
    }

    /// The durable content copy: the `tools/ptc-dispatch-log` waterfall's answer, or the
    /// settled `content` itself (moved, never copied) when there is no listener, or a copy of
    /// it when a listener panics.
    pub(crate) async fn dispatch_log(
        &self,
        outer: &Arc<ToolExecution>,
        sub: &ToolExecution,
        is_error: bool,
        content: Vec<crate::content::ContentBlock>,
    ) -> Vec<crate::content::ContentBlock> {
        let hooks = &self.hooks;
        if !hooks
            .ptc_dispatch_log
            .iter()
            .any(|l| l.applies_to(outer.scope_id()))
        {
            return content;
        }
        let dispatch = Arc::new(PtcDispatchLog {
            exec: outer.clone(),
            sub_call_id: sub.call_id().to_string(),
            name: sub.name().to_string(),
            is_error,
            content,
        });
        let stage = PtcDispatchLogStage::new(dispatch.clone());
        contain_async(crate::hooks::chain(hooks.clone(), stage).run())
            .await
            .unwrap_or_else(|_| dispatch.content.clone())
    }

    /// `finalize_content` (exactly once), freeze, then `tools/result` observers.
    fn finish(
        &self,
        exec: &Arc<ToolExecution>,
        mut result: ToolExecutionResult,
    ) -> ToolExecutionResult {
        let hooks = &self.hooks;
        if let Some(finalize) = exec
            .definition
            .as_ref()
            .and_then(|d| d.finalize_content.as_ref())
        {
            if let Ok(Some(content)) = contain(|| finalize(exec, &result)) {
                result.content = content;
            }
        }
        telemetry::close(exec, &result);
        let observers = &hooks.result;
        if !observers.iter().any(|o| o.applies_to(exec.scope_id())) {
            return result;
        }
        let frozen = Arc::new(result);
        for observer in observers.iter().filter(|o| o.applies_to(exec.scope_id())) {
            let _ = contain(|| observer.hook.on_result(exec, &frozen));
        }
        Arc::try_unwrap(frozen).unwrap_or_else(|a| (*a).clone())
    }
}

/// Record an approval decision in the agent's session log, if it has one.
fn log_approval(exec: &ToolExecution, decision: &str, reason: &str) {
    let Some(session) = exec.agent.as_ref().and_then(|a| a.session()) else {
        return;
    };
    let event = crate::session::SessionEvent::Approval {
        at_ms: crate::session::now_ms(),
        call_id: exec.call_id.clone(),
        name: exec.name.clone(),
        decision: decision.to_string(),
        reason: reason.to_string(),
    };
    if let Err(e) = session.append(&event) {
        tracing::error!("session log: {e}");
    }
}
