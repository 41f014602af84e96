//! Approvals through the MCP client: an [`ApprovalService`] that asks the person behind
//! one MCP session (with `elicitation/create`), or behind one run of a request without a
//! session (through an input-required result, see [`crate::stateless`]).
//!
//! The form offers *allow once*, *allow for this session* (for a request without a
//! session: *allow for this run*, as there is no session to attach it to) and *deny*.
//! What is allowed beyond once is remembered for that session (or run) only, per tool and
//! policy rule (a rule is known by its reason, which by default names its line in
//! `ptc.toml`). Decline, cancel, no answer within the approval timeout, a cancelled call,
//! or a client that did not declare the elicitation capability each deny, with a reason
//! that says which.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};
use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{json, Value};

use crate::elicit::{Asker, Unanswered};
use crate::task_questions::TaskQuestions;
use ptc::policy::approval::{ApprovalAnswer, ApprovalRequest, ApprovalService};

type Remembered = Arc<Mutex<HashSet<(String, String)>>>;

/// Asks one MCP session's (or one run's) person to approve calls.
pub(super) struct ElicitationApproval {
    asker: Asker,
    timeout: Duration,
    /// `(tool, rule)` pairs allowed for this session (or run).
    remembered: Remembered,
}

impl ElicitationApproval {
    /// Ask through `asker`, waiting at most `timeout` for each answer.
    pub(super) fn new(asker: Asker, timeout: Duration) -> Arc<Self> {
        Arc::new(ElicitationApproval {
            asker,
            timeout,
            remembered: Arc::default(),
        })
    }
}

/// The choices of the form; the second covers the session, or the run without one.
fn choices(scope: &str) -> [(&'static str, String); 3] {
    [
        ("allow_once", "Allow once".into()),
        ("allow_session", format!("Allow for this {scope}")),
        ("deny", "Deny".into()),
    ]
}

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

fn form(scope: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "oneOf": choices(scope).iter().map(|(v, t)| json!({ "const": v, "title": t })).collect::<Vec<_>>(),
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
        let remember = move |key| {
            remembered
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key)
        };
        if self
            .remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&key)
        {
            return futures::future::ready(ApprovalAnswer::AllowedForSession).boxed();
        }
        let (asker, timeout) = (self.asker.clone(), self.timeout);
        async move {
            // A durable run keeps its grants in the store: one continued on this instance
            // after another died is not asked again what that one was allowed.
            let task = match &asker {
                Asker::Task(questions) => Some((questions.clone(), grant_key(&key))),
                _ => None,
            };
            if let Some((questions, grant)) = &task {
                if questions.granted(grant).await.unwrap_or(false) {
                    remember(key);
                    return ApprovalAnswer::AllowedForSession;
                }
            }
            let signal = request.execution.signal().clone();
            let form = form(asker.scope());
            let answer = match asker
                .ask(
                    request.execution.call_id(),
                    question(&request),
                    form,
                    timeout,
                    &signal,
                )
                .await
            {
                Ok(result) => answer_of(result),
                Err(Unanswered::NoCapability) => no_capability(),
                Err(Unanswered::Not(why)) => ApprovalAnswer::Other(why),
            };
            if answer == ApprovalAnswer::AllowedForSession {
                if let Some((questions, grant)) = &task {
                    keep_grant(questions, grant, &key).await;
                }
                remember(key);
            }
            answer
        }
        .boxed()
    }
}

/// The store's key of a run's grant of `(tool, rule)`.
fn grant_key((tool, rule): &(String, String)) -> String {
    let rule = ptc::digest::sha256_hex(rule.as_bytes());
    format!("grant:{tool}:{}", &rule[..16])
}

/// Keep a run's grant of `(tool, rule)`; one that cannot be kept is said on stderr (a
/// takeover would then ask again).
async fn keep_grant(questions: &TaskQuestions, grant: &str, (tool, rule): &(String, String)) {
    let what = json!({ "allowed for this run": { "tool": tool, "rule": rule } });
    if let Err(e) = questions.grant(grant, what).await {
        let why = match e {
            Unanswered::Not(why) => why,
            Unanswered::NoCapability => "no store".into(),
        };
        eprintln!(
            "ptc: run {}: the grant of {tool} is not kept ({why})",
            questions.run
        );
    }
}
