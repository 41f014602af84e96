//! What the bridge does at each point of a sub-call's schedule: its id and identity when it
//! is prepared, the `tool/ptc-dispatch-start` event when it starts, and when it commits the
//! deferred effects, `tools/ptc-dispatch-log`, the `tool/ptc-dispatch` event and the reply.

use std::sync::{Arc, Mutex};

use futures::future::{BoxFuture, FutureExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::content::ContentBlock;
use crate::error::{codes, ToolFailure};
use crate::execution::{ToolArguments, ToolExecution, ToolExecutionInput, ToolRunContext};
use crate::executor::Schedule;
use crate::pipeline::{Pipeline, PreparedCall};
use crate::registry::ToolRegistry;
use crate::result::{Outcome, ToolExecutionResult};
use crate::session::{now_ms, SessionEvent};

use super::{Reply, WIND_DOWN_GRACE};
use crate::code::journal::{Repeat, RunJournal};

/// One `tools.x(args)` call from the program.
pub(super) struct SubCall {
    pub(super) n: u64,
    pub(super) name: String,
    pub(super) args: Value,
    pub(super) reply: Reply,
    /// The hooks the call began with, for its dispatch log.
    pub(super) pipeline: Option<Pipeline>,
    /// What repeating it would do, in a journaled run.
    pub(super) repeat: Option<Repeat>,
}

/// The sub-calls of one run.
pub(super) struct SubCalls {
    pub(super) registry: ToolRegistry,
    pub(super) ctx: ToolRunContext,
    pub(super) signal: CancellationToken,
    /// What the calls that may change something (those not concurrency-safe) did, as they
    /// succeeded: `<tool>: <title of its call card>`.
    pub(super) changes: Arc<Mutex<Vec<String>>>,
    /// How each call ended (see `fates`).
    pub(super) fates: super::SharedFates,
    /// Where results were cut short (see `paging`).
    pub(super) paging: super::SharedPaging,
    /// The run's journal, which records each live call's result as it commits.
    pub(super) journal: Option<Arc<RunJournal>>,
}

/// Changes a failed run lists at most.
const MAX_CHANGES: usize = 20;

impl Schedule for SubCalls {
    type Call = SubCall;

    fn prepare(&mut self, call: &mut SubCall) -> PreparedCall {
        let outer = self.ctx.execution();
        self.registry.prepare(ToolExecutionInput {
            call_id: format!("{}:ptc:{}", outer.call_id(), call.n),
            root_call_id: Some(outer.root_call_id().to_string()),
            name: call.name.clone(),
            arguments: ToolArguments::Json(std::mem::take(&mut call.args)),
            agent: outer.agent().cloned(),
            tool_set: outer.tool_set().cloned(),
            parent: Some(outer.token()),
            signal: self.signal.clone(),
        })
    }

    fn started(&mut self, call: &mut SubCall, exec: &Arc<ToolExecution>) {
        log_to(&self.ctx, |parent| SessionEvent::PtcDispatchStart {
            at_ms: now_ms(),
            parent_call_id: parent.to_string(),
            sub_call_id: exec.call_id().to_string(),
            name: exec.name().to_string(),
            arguments: exec.arguments().clone(),
        });
        call.pipeline = Some(self.registry.pipeline());
    }

    fn admitted(
        &mut self,
        call: &mut SubCall,
        _exec: &Arc<ToolExecution>,
    ) -> Result<(), ToolFailure> {
        let Some(journal) = &self.journal else {
            return Ok(());
        };
        // Unrecorded, the call could run twice after a takeover: it does not run.
        journal
            .admitted(call.n)
            .map_err(|e| ToolFailure::new(e.message, "AbortError", codes::ABORTED_BEFORE_DISPATCH))
    }

    fn committed(
        &mut self,
        call: SubCall,
        exec: &Arc<ToolExecution>,
        mut result: ToolExecutionResult,
    ) -> Option<BoxFuture<'static, ()>> {
        if !result.is_error() {
            self.record_change(exec);
        }
        super::fates::lock(&self.fates).committed(call.n, exec.name(), exec.arguments(), &result);
        {
            let mut paging = super::lock_paging(&self.paging);
            if let Some(note) = &result.cut_short {
                paging.cut(call.n, exec.name(), note);
            }
            let cut = result.cut_short.is_some();
            paging.settled(call.n, exec.name(), exec.arguments(), cut);
        }
        let (ctx, exec) = (self.ctx.clone(), exec.clone());
        let pipeline = call.pipeline.expect("a committed call has started");
        let (reply, n) = (call.reply, call.n);
        let journal = self.journal.clone();
        let repeat = call.repeat;
        let work = async move {
            for context in &result.additional_contexts {
                ctx.defer_context(context.clone());
            }
            if result.concludes_turn() {
                ctx.conclude_turn();
            }
            // The log's copy of the content is the content itself (the program gets the
            // value): a large result is never copied for a log, and without one not at all.
            if ctx.execution().agent().and_then(|a| a.session()).is_some() {
                let content = std::mem::take(&mut result.content);
                let content = pipeline
                    .dispatch_log(ctx.execution(), &exec, result.is_error(), content)
                    .await;
                log_to(&ctx, |parent| SessionEvent::PtcDispatch {
                    at_ms: now_ms(),
                    parent_call_id: parent.to_string(),
                    sub_call_id: exec.call_id().to_string(),
                    name: exec.name().to_string(),
                    is_error: result.is_error(),
                    content,
                    error: result.error().cloned(),
                    meta: result.meta.take(),
                });
            }
            // What the tool says of the result goes with it: the engine notes it at the call.
            let note = result.cut_short.take();
            let mut code = None;
            let mut answer = match result.outcome {
                Outcome::Success { value, .. } => Ok(ptc_engine::Reply {
                    value: Arc::unwrap_or_clone(value),
                    note,
                    remark: result.note.take(),
                    unless_read: result.unless_read.take().map(|u| ptc_engine::UnlessRead {
                        fields: u.fields,
                        text: u.text,
                    }),
                }),
                Outcome::Failure(failure) => {
                    code = failure.code().map(str::to_string);
                    Err(failure.message)
                }
            };
            if let (Some(journal), Some(repeat)) = (&journal, repeat) {
                if let Err(e) = journal.settled(n, &answer, code.as_deref(), repeat) {
                    // Unrecorded, the result would be lost to a replay: the program hears so.
                    answer = Err(e.message);
                }
            }
            let _ = reply.send(answer);
        };
        Some(work.boxed())
    }
}

impl SubCalls {
    /// Note a successful call of a tool that may change something (not concurrency-safe).
    fn record_change(&self, exec: &ToolExecution) {
        if let Some(def) = exec.definition() {
            self.record_change_of(def, exec.arguments());
        }
    }

    /// [`SubCalls::record_change`] of a call of `def` with `args`.
    fn record_change_of(&self, def: &crate::definition::ToolDefinition, args: &Value) {
        if def.is_concurrency_safe(args) {
            return;
        }
        let mut changes = self.changes.lock().unwrap_or_else(|e| e.into_inner());
        if changes.len() >= MAX_CHANGES {
            if changes.len() == MAX_CHANGES {
                changes.push("… and more".to_string());
            }
            return;
        }
        let title = def.present_call(args);
        changes.push(match title {
            Some(view) => format!("{}: {}", def.name(), view.title()),
            None => def.name().to_string(),
        });
    }

    /// Sub-call `n` of `name` with `args` was answered from the run's journal with `result`:
    /// what the run knows of a call as it commits (changes, cut-short notes), and its log event.
    pub(super) fn replayed(
        &self,
        n: u64,
        name: &str,
        args: &Value,
        result: &Result<ptc_engine::Reply, String>,
    ) {
        if result.is_ok() {
            let outer = self.ctx.execution();
            let view = self
                .registry
                .view(outer.agent().map(|a| a.scope()), outer.tool_set());
            if let Some(def) = view.get(name) {
                self.record_change_of(&def, args);
            }
        }
        {
            let mut paging = super::lock_paging(&self.paging);
            let note = result.as_ref().ok().and_then(|r| r.note.as_deref());
            if let Some(note) = note {
                paging.cut(n, name, note);
            }
            paging.settled(n, name, args, note.is_some());
        }
        log_to(&self.ctx, |parent| SessionEvent::PtcReplayed {
            at_ms: now_ms(),
            parent_call_id: parent.to_string(),
            sub_call_id: format!("{parent}:ptc:{n}"),
            name: name.to_string(),
            is_error: result.is_err(),
        });
    }

    /// Log a started sub-call that did not stop within [`WIND_DOWN_GRACE`] as aborted.
    pub(super) fn log_abandoned(&self, exec: &ToolExecution) {
        let failure = ToolFailure::new(
            format!(
                "abandoned: {} did not stop within {WIND_DOWN_GRACE:?} of the run ending",
                exec.name()
            ),
            "AbortError",
            codes::ABORTED,
        );
        log_to(&self.ctx, |parent| SessionEvent::PtcDispatch {
            at_ms: now_ms(),
            parent_call_id: parent.to_string(),
            sub_call_id: exec.call_id().to_string(),
            name: exec.name().to_string(),
            is_error: true,
            content: vec![ContentBlock::text(failure.message.clone())],
            error: Some(failure),
            meta: None,
        });
    }
}

/// Append a code-mode event to the outer call's session, if it has one.
fn log_to(ctx: &ToolRunContext, event: impl FnOnce(&str) -> SessionEvent) {
    let outer = ctx.execution();
    if let Some(session) = outer.agent().and_then(|a| a.session()) {
        if let Err(e) = session.append(&event(outer.call_id())) {
            tracing::warn!(
                call_id = outer.call_id(),
                "could not log a run_code sub-call: {e}"
            );
        }
    }
}
