//! Questions of runs that are MCP tasks (SEP-2663): an approval or `ask_user_question` of a
//! durable run is kept in the run store, not in a session.
//!
//! The question is put under its call's id (`<runId>:ptc:<n>`, the same after a replay) and
//! `tasks/get` on any instance shows it as `input_required`; `tasks/update` on any instance
//! answers it. The run waiting for it polls the store. After `park_after` it stops waiting
//! here: it gives up its lease and its sandbox ([`TaskStore::park`]), and the store resumes it
//! by replay (on whichever instance claims it) once the answer is in; the question, asked
//! again there under the same key, is answered from the store. An answer that never comes
//! within the approval timeout is kept as one, so a replay decides the same way. A run begun
//! by a client that declared no elicitation capability asks nothing: the store keeps that
//! ([`CANNOT_ELICIT`]), and each of its questions is unanswered as in a session.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::elicit::Unanswered;
use crate::tasks::TaskStore;

/// How often a run waiting for an answer looks in the store.
const POLL: Duration = Duration::from_millis(200);

/// The key under which an answer that never came is kept: why it did not.
const UNANSWERED: &str = "ptc/unanswered";

/// The key of a run's kept fact that its client cannot be asked (it declared no
/// elicitation capability).
pub(crate) const CANNOT_ELICIT: &str = "client:no-elicitation";

/// Keep that run `run`'s client cannot be asked, for whichever instance runs it.
pub(crate) fn keep_cannot_elicit(store: &dyn TaskStore, run: &str) -> Result<(), String> {
    let what = json!({ "client": "declared no elicitation capability" });
    store.remember(run, CANNOT_ELICIT, &what, &json!(true))
}

/// What the store holds of one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The answer (an `elicitation/create` result), once given.
    pub answer: Option<Value>,
    /// How long ago the question was first put.
    pub waited: Duration,
}

/// The person behind one task's run, reached through the store.
pub(crate) struct TaskQuestions {
    pub(crate) store: Arc<dyn TaskStore>,
    /// The run (the task's id).
    pub(crate) run: String,
    /// How long to wait here before parking the run, if at all.
    pub(crate) park_after: Option<Duration>,
}

impl TaskQuestions {
    /// Put `params` to the person as question `key` (a call id), waiting at most `timeout`
    /// from when it was first put, and not past `signal`.
    pub(crate) async fn ask(
        &self,
        key: &str,
        params: ElicitRequestParams,
        timeout: Duration,
        signal: &CancellationToken,
    ) -> Result<ElicitResult, Unanswered> {
        if self.granted(CANNOT_ELICIT).await? {
            return Err(Unanswered::NoCapability);
        }
        let request = serde_json::to_value(&params)
            .map_err(|e| Unanswered::Not(format!("failed: the form cannot be kept ({e})")))?;
        let (run, key) = (self.run.clone(), key.to_string());
        let asked = {
            let (run, key) = (run.clone(), key.clone());
            self.blocking(move |s| s.ask(&run, &key, &request)).await?
        };
        let waiting_since = Instant::now();
        let deadline = waiting_since + timeout.saturating_sub(asked.waited);
        let mut asked = asked;
        let mut parked = false;
        loop {
            if let Some(answer) = asked.answer {
                return stored(answer);
            }
            if Instant::now() >= deadline {
                let why = format!(
                    "timed out: no answer within {} ms (approval_timeout_ms)",
                    timeout.as_millis()
                );
                let marker = json!({ UNANSWERED: why });
                let (run, key) = (run.clone(), key.clone());
                let kept = self
                    .blocking(move |s| s.answer(&run, &key, &marker))
                    .await?;
                if kept {
                    return Err(Unanswered::Not(why));
                }
                // Answered meanwhile: that answer stands.
            } else if !parked
                && self
                    .park_after
                    .is_some_and(|after| waiting_since.elapsed() >= after)
            {
                // Stop holding a sandbox for a person: the run resumes by replay once answered.
                parked = true;
                let run = run.clone();
                self.blocking(move |s| s.park(&run)).await?;
            }
            tokio::select! {
                biased;
                _ = signal.cancelled() => {
                    return Err(Unanswered::Not("not given: the call was cancelled".into()));
                }
                _ = tokio::time::sleep(POLL) => {}
            }
            let (run, key) = (run.clone(), key.clone());
            asked = self.blocking(move |s| s.asked(&run, &key)).await?;
        }
    }

    /// Whether the run was granted `key` ([`TaskQuestions::grant`], or
    /// [`keep_cannot_elicit`]), here or on another instance before this one took it over.
    pub(crate) async fn granted(&self, key: &str) -> Result<bool, Unanswered> {
        let (run, key) = (self.run.clone(), key.to_string());
        let asked = self.blocking(move |s| s.asked(&run, &key)).await?;
        Ok(asked.answer.is_some())
    }

    /// Keep a grant of the run under `key` (`what`: what it allows), for whichever instance
    /// continues the run: a call replayed there is not asked about again.
    pub(crate) async fn grant(&self, key: &str, what: Value) -> Result<(), Unanswered> {
        let (run, key) = (self.run.clone(), key.to_string());
        self.blocking(move |s| s.remember(&run, &key, &what, &json!(true)))
            .await
    }

    /// Run `work` on the store off the async workers; a store that fails fails the question.
    async fn blocking<R: Send + 'static>(
        &self,
        work: impl FnOnce(&dyn TaskStore) -> Result<R, String> + Send + 'static,
    ) -> Result<R, Unanswered> {
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || work(&*store)).await {
            Ok(done) => done.map_err(|e| Unanswered::Not(format!("failed: {e}"))),
            Err(e) => Err(Unanswered::Not(format!("failed: {e}"))),
        }
    }
}

/// A kept answer as the client's result, or why there was none.
fn stored(answer: Value) -> Result<ElicitResult, Unanswered> {
    if let Some(why) = answer.get(UNANSWERED).and_then(Value::as_str) {
        return Err(Unanswered::Not(why.to_string()));
    }
    serde_json::from_value(answer)
        .map_err(|e| Unanswered::Not(format!("failed: the answer is not a form's result ({e})")))
}

/// `tasks/get`'s `inputRequests` for the open questions `(key, request params)`.
pub(crate) fn input_requests(open: Vec<(String, Value)>) -> BTreeMap<String, InputRequest> {
    open.into_iter()
        .filter_map(|(key, params)| {
            let params: ElicitRequestParams = serde_json::from_value(params).ok()?;
            Some((key, InputRequest::Elicitation(ElicitRequest::new(params))))
        })
        .collect()
}

/// Check `responses` of `tasks/update` against run `id`'s `open` questions: the first key
/// that is not one, named.
pub(crate) fn unknown_key(
    id: &str,
    open: &[(String, Value)],
    responses: &BTreeMap<String, Value>,
) -> Result<(), String> {
    match responses
        .keys()
        .find(|key| !open.iter().any(|(k, _)| k == *key))
    {
        None => Ok(()),
        Some(key) => Err(format!(
            "task {id} has no open question {key:?} (open: {})",
            match open.is_empty() {
                true => "none".to_string(),
                false => open
                    .iter()
                    .map(|(k, _)| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        )),
    }
}
