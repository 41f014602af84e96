//! Requests without a session: MCP's 2026-07-28 revision, as `ptc serve` answers it.
//!
//! The revision removed protocol sessions and server-to-client requests. So:
//!
//! - **work that outlives a call** (tasks, terminals) belongs to one shared [`Owner`] per
//!   server instance, reached by the handles its tools return (see [`ptc::Holding`]);
//! - **a question** (an `ask` approval, `ask_user_question`) cannot be sent to the client:
//!   the run waits at the call ([`Inbox`]), the request returns an input-required result
//!   with the question and a sealed `requestState` ([`state`]), and the run is **held** here
//!   until the client retries the same call with the answer, which continues it
//!   ([`Stateless::resume`]). A retry that never comes leaves the question unanswered past
//!   `approval_timeout_ms`, which ends it as a timeout does in a session; a run still held
//!   when its state expires is cancelled and forgotten, so it cannot keep its run slot.
//!   On a durable deployment a `run_code` run's questions wait in the run store instead,
//!   and any instance takes the retry ([`durable`]).

mod call;
mod durable;
mod inbox;
pub(crate) mod state;

pub(crate) use call::{progress_of, sessionless};

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, InputRequests, InputRequiredResult, JsonObject};
use rmcp::model::{ProtocolVersion, RequestMetaObject};
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub(crate) use inbox::Inbox;
use ptc::{Holding, Owner, ToolBatchExecutionError};
use state::{StateSeal, Ticket};

/// How long a `requestState` (and so a held run) outlives the approval timeout, at most:
/// the client's retry may arrive a little after its person answered. A short approval
/// timeout gets a shorter slack (as long as the timeout, at least [`MIN_SLACK`]).
const STATE_SLACK: Duration = Duration::from_secs(30);
const MIN_SLACK: Duration = Duration::from_secs(5);

/// Whether a request speaks the 2026-07-28 revision (no session).
pub(crate) fn is_stateless(meta: &RequestMetaObject, negotiated: Option<&ProtocolVersion>) -> bool {
    let modern = |v: &ProtocolVersion| *v >= ProtocolVersion::V_2026_07_28;
    meta.protocol_version().as_ref().is_some_and(modern) || negotiated.is_some_and(modern)
}

/// Whether a 2026-07-28 request's client declared the elicitation capability.
pub(crate) fn can_elicit(meta: &RequestMetaObject) -> bool {
    meta.client_capabilities()
        .is_some_and(|c| c.elicitation.is_some())
}

/// A run of a request without a session: its task, its questions, what it was called with.
pub(crate) struct Run {
    /// The run (one call through the registry).
    pub(crate) task: JoinHandle<Result<CallToolResult, ToolBatchExecutionError>>,
    /// Its questions.
    pub(crate) inbox: Arc<Inbox>,
    /// Cancels it.
    pub(crate) cancel: CancellationToken,
    /// Where its progress goes.
    pub(crate) progress: Arc<call::Attending>,
    tool: String,
    arguments: Value,
    round: u64,
}

impl Run {
    /// A started run of `tool` with `arguments`, its progress going where `progress` says.
    pub(crate) fn new(
        task: JoinHandle<Result<CallToolResult, ToolBatchExecutionError>>,
        inbox: Arc<Inbox>,
        cancel: CancellationToken,
        progress: Arc<call::Attending>,
        tool: &str,
        arguments: Option<&JsonObject>,
    ) -> Self {
        Run {
            task,
            inbox,
            cancel,
            progress,
            tool: tool.to_string(),
            arguments: Value::Object(arguments.cloned().unwrap_or_default()),
            round: 0,
        }
    }
}

/// What one server instance keeps for requests without a session.
pub(crate) struct Stateless {
    /// Owns their tasks and terminals.
    pub(crate) owner: Owner,
    seal: StateSeal,
    held: Mutex<HashMap<u64, Run>>,
    next: AtomicU64,
    keep: Duration,
}

impl Stateless {
    /// For `instance`: handles idle out after `idle`; questions wait `approval_timeout`.
    pub(crate) fn new(instance: Arc<str>, idle: Duration, approval_timeout: Duration) -> Self {
        let keep = approval_timeout + STATE_SLACK.min(approval_timeout.max(MIN_SLACK));
        let holding = Holding {
            instance: Some(instance.clone()),
            shared_idle: Some(idle),
        };
        Stateless {
            owner: Owner::holding("mcp-stateless", holding),
            seal: StateSeal::new(instance, keep),
            held: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            keep,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Run>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hold `run` until its client retries with answers to `requests`; the input-required
    /// result to answer the request with. A run still held when its state expires is
    /// cancelled: nobody can continue it any more, and it must not keep its run slot.
    pub(crate) fn hold(
        self: &Arc<Self>,
        mut run: Run,
        requests: InputRequests,
    ) -> InputRequiredResult {
        run.round += 1;
        // Random, so a state says nothing about how many runs others have held.
        let id = getrandom::u64().unwrap_or_else(|_| self.next.fetch_add(1, Ordering::Relaxed));
        let state = self.seal.seal(
            Ticket {
                run: id,
                round: run.round,
            },
            &run.tool,
        );
        let until = Instant::now() + self.keep;
        self.lock().insert(id, run);
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            tokio::time::sleep_until(until.into()).await;
            if let Some(stateless) = weak.upgrade() {
                stateless.abandon(id);
            }
        });
        InputRequiredResult::new(Some(requests), Some(state))
    }

    /// Cancel and forget held run `id`, if its client never came back for it.
    fn abandon(&self, id: u64) {
        let held = self.lock().remove(&id);
        if let Some(run) = held {
            run.cancel.cancel();
        }
    }

    /// The held run a retry of `tool` with `arguments` and `state` continues, its answers
    /// delivered; or why the retry is refused (the state is forged, expired, for another
    /// instance or call, or already answered).
    pub(crate) fn resume(
        &self,
        state: &str,
        tool: &str,
        arguments: Option<&JsonObject>,
        responses: Option<rmcp::model::InputResponses>,
    ) -> Result<Run, String> {
        let ticket = self.seal.open(state, tool)?;
        let mut held = self.lock();
        let Some(entry) = held.get(&ticket.run) else {
            return Err(format!(
                "requestState refused: no run waits for it on this instance (it was already \
                 answered, or its run ended more than {} s ago)",
                self.keep.as_secs()
            ));
        };
        if entry.round != ticket.round {
            return Err("requestState refused: that round was already answered".into());
        }
        let arguments = Value::Object(arguments.cloned().unwrap_or_default());
        if entry.arguments != arguments {
            return Err(format!(
                "requestState refused: the retry must repeat the original call of `{tool}` \
                 with the same arguments"
            ));
        }
        let run = held.remove(&ticket.run).expect("looked up above");
        drop(held);
        run.inbox.answer(responses.unwrap_or_default());
        Ok(run)
    }
}
