//! Asking the person behind an MCP client with a form, in either protocol era.
//!
//! A session (MCP before 2026-07-28) is asked with an `elicitation/create` request to its
//! client ([`Asker::Session`]). A request without a session (2026-07-28) cannot be asked:
//! the server answers it with an input-required result carrying the form, and the client
//! retries with the answer ([`Asker::Input`], through the run's [`Inbox`]). A run that is an
//! MCP task is asked through the run store ([`Asker::Task`], `crate::task_questions`). Approvals
//! ([`crate::approve`]) and `ask_user_question` ([`crate::ask`]) use either alike.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationSchema};
use rmcp::service::Peer;
use rmcp::RoleServer;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::stateless::Inbox;
use crate::task_questions::TaskQuestions;

/// The client of one MCP session, once it is known (set when the session initializes).
pub(crate) type ClientSlot = Arc<OnceLock<Peer<RoleServer>>>;

/// Who is asked, and how.
#[derive(Clone)]
pub(crate) enum Asker {
    /// A session's client, with `elicitation/create`.
    Session(ClientSlot),
    /// A run of a request without a session, through input-required results.
    Input(Arc<Inbox>),
    /// A run that is an MCP task, through the run store (`tasks/get`, `tasks/update`).
    Task(Arc<TaskQuestions>),
}

/// Why nothing was asked or answered.
pub(crate) enum Unanswered {
    /// The client did not declare the elicitation capability.
    NoCapability,
    /// Asked, but no answer: `timed out: …`, `not given: …`, `failed: …`.
    Not(String),
}

impl Asker {
    /// What "for this session" covers with this asker: the session, or (without one) the run.
    pub(crate) fn scope(&self) -> &'static str {
        match self {
            Asker::Session(_) => "session",
            Asker::Input(_) | Asker::Task(_) => "run",
        }
    }

    /// Put `message` with the form `schema` to the person about call `call_id`, waiting at
    /// most `timeout` (and not past `signal`).
    pub(crate) async fn ask(
        &self,
        call_id: &str,
        message: String,
        schema: Value,
        timeout: Duration,
        signal: &CancellationToken,
    ) -> Result<ElicitResult, Unanswered> {
        let requested_schema: ElicitationSchema = serde_json::from_value(schema)
            .map_err(|e| Unanswered::Not(format!("failed: the form cannot be built ({e})")))?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema,
        };
        let asked = match self {
            Asker::Session(slot) => {
                let peer = elicitation_peer(slot).ok_or(Unanswered::NoCapability)?;
                let reply = async move {
                    peer.create_elicitation(params)
                        .await
                        .map_err(|e| format!("failed: {e}"))
                };
                within(reply, timeout, signal).await
            }
            Asker::Input(inbox) => {
                if !inbox.can_elicit() {
                    return Err(Unanswered::NoCapability);
                }
                let (key, reply) = inbox.ask(params);
                let answered = within(reply, timeout, signal).await;
                if answered.is_err() {
                    inbox.withdraw(&key);
                }
                answered
            }
            Asker::Task(questions) => {
                return questions.ask(call_id, params, timeout, signal).await;
            }
        };
        asked.map_err(Unanswered::Not)
    }
}

/// `reply`, unless `timeout` passes or `signal` fires first.
async fn within(
    reply: impl std::future::Future<Output = Result<ElicitResult, String>>,
    timeout: Duration,
    signal: &CancellationToken,
) -> Result<ElicitResult, String> {
    tokio::select! {
        biased;
        _ = signal.cancelled() => Err("not given: the call was cancelled".into()),
        reply = tokio::time::timeout(timeout, reply) => match reply {
            Err(_) => Err(format!(
                "timed out: no answer within {} ms (approval_timeout_ms)",
                timeout.as_millis()
            )),
            Ok(answered) => answered,
        },
    }
}

/// Whether the client behind `peer` is known not to take elicitation requests: it declared its
/// capabilities, without elicitation. The request's own peer, not the session's slot: that is
/// filled when `notifications/initialized` is handled, which may come after a first call.
pub(crate) fn cannot_elicit(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.capabilities.elicitation.is_none())
}

/// The client of `slot`, if it declared the elicitation capability.
fn elicitation_peer(slot: &ClientSlot) -> Option<Peer<RoleServer>> {
    let peer = slot.get()?;
    let info = peer.peer_info()?;
    info.capabilities.elicitation.as_ref()?;
    Some(peer.clone())
}
