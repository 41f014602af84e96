//! Approvals through the MCP client: an [`ApprovalService`] that asks the person behind
//! one MCP session with `elicitation/create`.
//!
//! The form offers *allow once*, *allow for this session* and *deny*. *Allow for this
//! session* is remembered for that session only, per tool and policy rule (a rule is
//! known by its reason, which by default names its line in `ptc.toml`). Decline,
//! cancel, no answer within the approval timeout, a cancelled call, or a client that did
//! not declare the elicitation capability each deny, with a reason that says which.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::Peer;
use rmcp::RoleServer;
use serde_json::{json, Value};

use ptc::policy::approval::{ApprovalAnswer, ApprovalRequest, ApprovalService};

/// The client of one MCP session, once it is known (set when the session initializes).
pub(super) type ClientSlot = Arc<OnceLock<Peer<RoleServer>>>;

type Remembered = Arc<Mutex<HashSet<(String, String)>>>;

/// Asks one MCP session's client to approve calls.
pub(super) struct ElicitationApproval {
    client: ClientSlot,
    timeout: Duration,
    /// `(tool, rule)` pairs allowed for this session.
    remembered: Remembered,
}

impl ElicitationApproval {
    /// Ask `client`'s person, waiting at most `timeout` for each answer.
    pub(super) fn new(client: ClientSlot, timeout: Duration) -> Arc<Self> {
        Arc::new(ElicitationApproval {
            client,
            timeout,
            remembered: Arc::default(),
        })
    }
}

/// The client of `slot`, if it declared the elicitation capability.
pub(super) fn elicitation_peer(slot: &ClientSlot) -> Option<Peer<RoleServer>> {
    let peer = slot.get()?;
    let info = peer.peer_info()?;
    info.capabilities.elicitation.as_ref()?;
    Some(peer.clone())
}

/// Ask `peer` with a form; the answer, or why there is none (`timed out: …`).
pub(super) async fn elicit(
    peer: &Peer<RoleServer>,
    message: String,
    schema: Value,
    timeout: Duration,
    signal: &tokio_util::sync::CancellationToken,
) -> Result<ElicitResult, String> {
    let requested_schema: ElicitationSchema = serde_json::from_value(schema)
        .map_err(|e| format!("failed: the form cannot be built ({e})"))?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    };
    tokio::select! {
        biased;
        _ = signal.cancelled() => Err("not given: the call was cancelled".into()),
        reply = tokio::time::timeout(timeout, peer.create_elicitation(params)) => match reply {
            Err(_) => Err(format!(
                "timed out: no answer within {} ms (approval_timeout_ms)",
                timeout.as_millis()
            )),
            Ok(Err(e)) => Err(format!("failed: {e}")),
            Ok(Ok(result)) => Ok(result),
        },
    }
}

/// The choices of the form.
const CHOICES: [(&str, &str); 3] = [
    ("allow_once", "Allow once"),
    ("allow_session", "Allow for this session"),
    ("deny", "Deny"),
];

/// At most this many characters of the arguments go into the question.
const MAX_ARGS_CHARS: usize = 600;

/// The question: the policy's reason, the tool and a readable summary of its arguments.
fn question(request: &ApprovalRequest) -> String {
    let exec = &request.execution;
    let reason = request
        .display_reason
        .as_ref()
        .map(|d| d.en.clone())
        .or_else(|| request.reason.clone())
        .unwrap_or_else(|| format!("{} requires approval", exec.name()));
    let args = serde_json::to_string_pretty(&**exec.arguments()).unwrap_or_default();
    let args = if args.chars().count() > MAX_ARGS_CHARS {
        let head: String = args.chars().take(MAX_ARGS_CHARS).collect();
        format!("{head}… ({} characters in all)", args.chars().count())
    } else {
        args
    };
    format!("ptc: {reason}\n\nAllow `{}` with:\n{args}", exec.name())
}

fn form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "oneOf": CHOICES.iter().map(|(v, t)| json!({ "const": v, "title": t })).collect::<Vec<_>>(),
            }
        },
        "required": ["decision"],
    })
}

/// What an answer to the approval form means.
fn answer_of(result: ElicitResult) -> ApprovalAnswer {
    match result.action {
        ElicitationAction::Decline => ApprovalAnswer::Other("declined by the user".into()),
        ElicitationAction::Cancel => ApprovalAnswer::Other("cancelled by the user".into()),
        ElicitationAction::Accept => {
            let choice = result
                .content
                .as_ref()
                .and_then(|c| c.get("decision"))
                .and_then(Value::as_str);
            match choice {
                Some("allow_once") => ApprovalAnswer::AllowedOnce,
                Some("allow_session") => ApprovalAnswer::AllowedForSession,
                Some("deny") => ApprovalAnswer::Denied,
                other => ApprovalAnswer::Other(format!(
                    "not given: the answer {} is none of allow_once, allow_session, deny",
                    other.map_or_else(|| "(none)".to_string(), |o| format!("`{o}`"))
                )),
            }
        }
        other => ApprovalAnswer::Other(format!("not given: unknown action {other:?}")),
    }
}

fn no_capability() -> ApprovalAnswer {
    ApprovalAnswer::Other(
        "unavailable: the MCP client did not declare the elicitation capability".into(),
    )
}

impl ApprovalService for ElicitationApproval {
    fn request(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalAnswer> {
        let key = (
            request.execution.name().to_string(),
            request.reason.clone().unwrap_or_default(),
        );
        let remembered = self.remembered.clone();
        if remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&key)
        {
            return futures::future::ready(ApprovalAnswer::AllowedForSession).boxed();
        }
        let Some(peer) = elicitation_peer(&self.client) else {
            return futures::future::ready(no_capability()).boxed();
        };
        let timeout = self.timeout;
        async move {
            let signal = request.execution.signal().clone();
            let answer = match elicit(&peer, question(&request), form(), timeout, &signal).await {
                Ok(result) => answer_of(result),
                Err(why) => ApprovalAnswer::Other(why),
            };
            if answer == ApprovalAnswer::AllowedForSession {
                remembered
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key);
            }
            answer
        }
        .boxed()
    }
}
