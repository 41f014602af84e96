//! A `tools/call` without a session, attended: started (or, with a `requestState`,
//! resumed), then answered when the run completes or asks a question (see the module
//! docs of [`crate::stateless`]).

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use tokio_util::sync::CancellationToken;

use super::{Inbox, Run};
use crate::elicit::Asker;
use crate::notify;
use crate::PtcServer;
use ptc::{ProgressSink, ToolBatchExecutionError};

/// Whether the request speaks MCP 2026-07-28, which has no sessions.
pub(crate) fn sessionless(context: &RequestContext<RoleServer>) -> bool {
    let negotiated = context.peer.peer_info().map(|i| i.protocol_version.clone());
    super::is_stateless(&context.meta, negotiated.as_ref())
}

/// A relay of the call's progress to the client, if it asked for it.
pub(crate) fn progress_of(context: &RequestContext<RoleServer>) -> Option<Arc<dyn ProgressSink>> {
    context
        .meta
        .get_progress_token()
        .map(|token| notify::Relay::new(context.peer.clone(), token) as Arc<dyn ProgressSink>)
}

/// Where a run's progress goes: the request attending it, if it asked for progress
/// (the first request, then each retry that continues it; nobody while it is held).
#[derive(Default)]
pub(crate) struct Attending(std::sync::Mutex<Option<Arc<dyn ProgressSink>>>);

impl Attending {
    /// Send the progress to `sink` from now on (`None`: drop it).
    pub(crate) fn attend(&self, sink: Option<Arc<dyn ProgressSink>>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = sink;
    }
}

impl ProgressSink for Attending {
    fn report(
        &self,
        call: &ptc::ToolExecution,
        progress: ptc::Progress,
    ) -> futures::future::BoxFuture<'static, ()> {
        let sink = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match sink {
            Some(sink) => sink.report(call, progress),
            None => Box::pin(std::future::ready(())),
        }
    }
}

impl PtcServer {
    /// A `tools/call` without a session: a new run, or (with a `requestState`) the held run
    /// it answers; attended until it completes or asks a question.
    pub(crate) async fn call_stateless(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(store) = self.tasks.clone() {
            let durable_state = request
                .request_state
                .as_deref()
                .map(super::durable::is_durable);
            if request.name == ptc::RUN_CODE && durable_state != Some(false) {
                return self.call_durable(store, request, context.ct.clone()).await;
            }
        }
        let run = match &request.request_state {
            Some(state) => self
                .stateless
                .resume(
                    state,
                    &request.name,
                    request.arguments.as_ref(),
                    request.input_responses.clone(),
                )
                .map_err(|why| ErrorData::invalid_params(why, None))?,
            None => self.start_stateless(&request, &context),
        };
        run.progress.attend(progress_of(&context));
        let inbox = run.inbox.clone();
        let mut run = run;
        tokio::select! {
            biased;
            done = &mut run.task => self.completed(done),
            requests = inbox.asking() => {
                run.progress.attend(None);
                Ok(CallToolResponse::InputRequired(self.stateless.hold(run, requests)))
            }
            _ = context.ct.cancelled() => {
                run.cancel.cancel();
                self.completed(run.task.await)
            }
        }
    }

    /// Start a run of `request` as the instance's shared owner, its questions going to a
    /// new inbox.
    fn start_stateless(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Run {
        let inbox = Arc::new(Inbox::new(super::can_elicit(&context.meta)));
        let agent = self.agent.clone().with_owner(self.stateless.owner.clone());
        let server = PtcServer {
            agent: self.asking(agent, Asker::Input(inbox.clone())),
            ..self.clone()
        };
        let cancel = CancellationToken::new();
        let (name, arguments) = (request.name.to_string(), request.arguments.clone());
        let progress = Arc::new(Attending::default());
        let (caller, sink) = (cancel.clone(), progress.clone() as Arc<dyn ProgressSink>);
        let task = tokio::spawn(async move {
            server
                .call_reporting(&name, arguments, caller, Some(sink))
                .await
        });
        Run::new(
            task,
            inbox,
            cancel,
            progress,
            &request.name,
            request.arguments.as_ref(),
        )
    }

    fn completed(
        &self,
        joined: Result<Result<CallToolResult, ToolBatchExecutionError>, tokio::task::JoinError>,
    ) -> Result<CallToolResponse, ErrorData> {
        match joined {
            Ok(Ok(result)) => Ok(CallToolResponse::from(result)),
            Ok(Err(e)) => Err(ErrorData::internal_error(e.to_string(), None)),
            Err(e) => Err(ErrorData::internal_error(
                format!("the run failed: {e}"),
                None,
            )),
        }
    }
}
