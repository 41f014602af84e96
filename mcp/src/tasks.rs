//! Long runs as MCP tasks (SEP-2663, the `io.modelcontextprotocol/tasks` extension).
//!
//! With a [`TaskStore`] (a durable run store the instances share: `ptc serve --durable`), a
//! client that declares the tasks extension gets a task handle for `tools/call` of `run_code`
//! as soon as the run's journal is begun, instead of waiting on the response stream. The
//! task's id is the run's id; `tasks/get` and `tasks/cancel` are answered from the store on
//! any instance, so a stream that breaks never makes the client start the program again, and
//! a run whose instance died is finished by another, its result reaching `tasks/get` there.
//! A run that ends before its journal is begun (refused before it ran) answers at once.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock as McpContent,
    CreateTaskResult, DetailedTask, GetTaskResult, JsonObject, Task, TaskPayload, TaskStatus,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use crate::task_questions::Asked;
use crate::task_questions::{input_requests, unknown_key};

/// How often a client should poll `tasks/get`.
pub const POLL_INTERVAL_MS: u64 = 500;

/// What the store knows of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskState {
    /// It is running (or waits for an instance to take it over), held by `owner`.
    Working {
        /// The owner of its lease.
        owner: String,
    },
    /// It waits for a person: the open questions, `(key, elicitation/create params)`.
    InputRequired {
        /// The questions, oldest first.
        open: Vec<(String, serde_json::Value)>,
    },
    /// It ended with `output` (an error when `is_error`); `cancelled` when it ended because
    /// a client cancelled it.
    Ended {
        /// What `run_code` returned.
        output: String,
        /// Whether that was an error.
        is_error: bool,
        /// Whether `tasks/cancel` stopped it.
        cancelled: bool,
    },
}

/// Where the runs that are tasks are kept: the durable run store. Its methods block (one
/// query); the server calls them off the async workers.
pub trait TaskStore: Send + Sync + 'static {
    /// Whether this process has begun run `id`'s journal (it is on record, any instance can
    /// answer for it).
    fn begun(&self, id: &str) -> bool;
    /// Changes whenever this process begins a run's journal.
    fn begun_changes(&self) -> watch::Receiver<u64>;
    /// What the store knows of run `id` (`None`: no such run).
    fn state(&self, id: &str) -> Result<Option<TaskState>, String>;
    /// Ask run `id` to stop, wherever it runs: `false` when it has ended (or never was).
    fn cancel(&self, id: &str) -> Result<bool, String>;
    /// Cancel `signal` when run `id`, running here, is cancelled through the store.
    fn watch(&self, id: &str, signal: CancellationToken);
    /// Put `request` (`elicitation/create` params) to the person behind run `id` as question
    /// `key`, unless it was put already: what the store holds of it.
    fn ask(&self, id: &str, key: &str, request: &serde_json::Value) -> Result<Asked, String>;
    /// What the store holds of run `id`'s question `key` (no answer when never put).
    fn asked(&self, id: &str, key: &str) -> Result<Asked, String>;
    /// Keep `answer` as run `id`'s answer to `key` without asking (`request` says what it
    /// is), unless `key` was put: what the run was granted, for whichever instance runs it.
    fn remember(
        &self,
        id: &str,
        key: &str,
        request: &serde_json::Value,
        answer: &serde_json::Value,
    ) -> Result<(), String>;
    /// Answer run `id`'s open question `key` with `answer`: `false` when it is not open.
    fn answer(&self, id: &str, key: &str, answer: &serde_json::Value) -> Result<bool, String>;
    /// Run `id`, running here, waits for a person: stop it here and give up its lease, so
    /// that it resumes (by replay, on whichever instance claims it) once its questions are
    /// answered.
    fn park(&self, id: &str) -> Result<(), String>;
    /// The key of the `requestState`s every instance on the store can open: a secret they
    /// all share, `fresh` (32 random bytes) if this is the first instance to ask.
    fn shared_key(&self, fresh: &[u8; 32]) -> Result<Vec<u8>, String>;
}

/// Whether the client of this request declared the tasks extension.
pub(crate) fn client_wants_tasks(context: &RequestContext<RoleServer>) -> bool {
    let declared = |c: &ClientCapabilities| c.supports_tasks();
    context
        .meta
        .client_capabilities()
        .is_some_and(|c| declared(&c))
        || context
            .peer
            .peer_info()
            .is_some_and(|info| declared(&info.capabilities))
}

/// `tasks/get`'s answer for run `id` in `state`.
pub(crate) fn detailed(id: &str, state: TaskState) -> GetTaskResult {
    let now = now_rfc3339();
    let (payload, message) = match state {
        TaskState::Working { owner } => (TaskPayload::Working, format!("running on {owner}")),
        TaskState::InputRequired { open } => (
            TaskPayload::InputRequired {
                input_requests: input_requests(open),
            },
            "waiting for an answer (tasks/update)".to_string(),
        ),
        TaskState::Ended {
            cancelled: true, ..
        } => (TaskPayload::Cancelled, "cancelled".to_string()),
        TaskState::Ended {
            output, is_error, ..
        } => {
            let result = match is_error {
                true => CallToolResult::error(vec![McpContent::text(output)]),
                false => CallToolResult::success(vec![McpContent::text(output)]),
            };
            let result = match serde_json::to_value(result) {
                Ok(serde_json::Value::Object(object)) => object,
                _ => JsonObject::new(),
            };
            (TaskPayload::Completed { result }, "completed".to_string())
        }
    };
    let task = Task::new(id, TaskStatus::Working, now.clone(), now)
        .with_status_message(message)
        .with_poll_interval_ms(POLL_INTERVAL_MS);
    GetTaskResult::new(DetailedTask::new(task, payload))
}

/// The handle a `tools/call` answers with: run `id`, working.
pub(crate) fn created(id: &str) -> Task {
    let now = now_rfc3339();
    Task::new(id, TaskStatus::Working, now.clone(), now).with_poll_interval_ms(POLL_INTERVAL_MS)
}

/// Run `work` (which blocks on the store) off the async workers.
pub(crate) async fn blocking<R: Send + 'static>(
    store: &Arc<dyn TaskStore>,
    work: impl FnOnce(&dyn TaskStore) -> Result<R, String> + Send + 'static,
) -> Result<R, ErrorData> {
    let store = store.clone();
    match tokio::task::spawn_blocking(move || work(&*store)).await {
        Ok(done) => done.map_err(|e| ErrorData::internal_error(e, None)),
        Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
    }
}

/// The error for a task id the store does not know.
pub(crate) fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("no task {id} in this deployment's run store"), None)
}

/// Now, as RFC 3339 in UTC to the millisecond.
fn now_rfc3339() -> String {
    let ms = i64::try_from(ptc::session::now_ms()).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

impl crate::PtcServer {
    /// `tools/call` of `name` as a task: the handle once the run's journal is begun (or the
    /// result, when the run ended before that).
    pub(crate) async fn call_as_task(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        client: &rmcp::Peer<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(store) = self.tasks.clone() else {
            return Err(ErrorData::internal_error("tasks are off", None));
        };
        let id = self.next_call_id();
        let run_id = id.0.clone();
        if crate::elicit::cannot_elicit(client) {
            // Kept with the run: an instance that resumes it asks nothing either.
            let (kept, run) = (store.clone(), run_id.clone());
            tokio::task::spawn_blocking(move || {
                crate::task_questions::keep_cannot_elicit(&*kept, &run)
            })
            .await
            .map_err(|e| e.to_string())
            .and_then(|kept| kept)
            .map_err(|e| ErrorData::internal_error(format!("the run store: {e}"), None))?;
        }
        let mut begun = store.begun_changes();
        // The run outlives this request: only tasks/cancel (or a shutdown) stops it.
        let caller = CancellationToken::new();
        store.watch(&run_id, caller.clone());
        // Its approvals and questions wait in the store, answered by tasks/update anywhere.
        let server = crate::PtcServer {
            agent: self.task_agent(&run_id),
            ..self.clone()
        };
        let name = name.to_string();
        let mut run = tokio::spawn(async move {
            server
                .call_with_id(id, &name, arguments, caller, None)
                .await
        });
        loop {
            if store.begun(&run_id) {
                return Ok(CallToolResponse::Task(CreateTaskResult::new(created(
                    &run_id,
                ))));
            }
            tokio::select! {
                ended = &mut run => {
                    let result = ended
                        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
                        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    return Ok(CallToolResponse::from(result));
                }
                changed = begun.changed() => {
                    if changed.is_err() {
                        // The store is gone: the run answers for itself.
                        let result = (&mut run)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                        return Ok(CallToolResponse::from(result));
                    }
                }
            }
        }
    }

    /// `tasks/get`.
    pub(crate) async fn task_state(&self, id: String) -> Result<GetTaskResult, ErrorData> {
        let Some(store) = self.tasks.as_ref() else {
            return Err(unknown(&id));
        };
        let lookup = id.clone();
        match blocking(store, move |s| s.state(&lookup)).await? {
            Some(state) => Ok(detailed(&id, state)),
            None => Err(unknown(&id)),
        }
    }

    /// `tasks/update`: answers to the run's open questions, kept in the store, so they reach
    /// the run wherever it waits, or resume it where it was parked.
    pub(crate) async fn update_task_run(
        &self,
        id: String,
        responses: BTreeMap<String, serde_json::Value>,
    ) -> Result<(), ErrorData> {
        let Some(store) = self.tasks.as_ref() else {
            return Err(unknown(&id));
        };
        let lookup = id.clone();
        let refused = blocking(store, move |s| {
            let open = match s.state(&lookup)? {
                None => {
                    return Ok(Some(format!(
                        "no task {lookup} in this deployment's run store"
                    )))
                }
                Some(TaskState::InputRequired { open }) => open,
                Some(_) => Vec::new(),
            };
            if let Err(why) = unknown_key(&lookup, &open, &responses) {
                return Ok(Some(why));
            }
            for (key, answer) in &responses {
                // Answered meanwhile by another update: the first answer stands.
                s.answer(&lookup, key, answer)?;
            }
            Ok(None)
        })
        .await?;
        match refused {
            None => Ok(()),
            Some(why) => Err(ErrorData::invalid_params(why, None)),
        }
    }

    /// `tasks/cancel`: asked through the store, so it reaches the run on any instance.
    pub(crate) async fn cancel_task_run(&self, id: String) -> Result<(), ErrorData> {
        let Some(store) = self.tasks.as_ref() else {
            return Err(unknown(&id));
        };
        let lookup = id.clone();
        let known = blocking(store, move |s| {
            let known = s.state(&lookup)?.is_some();
            s.cancel(&lookup)?;
            Ok(known)
        })
        .await?;
        match known {
            true => Ok(()),
            false => Err(unknown(&id)),
        }
    }
}
