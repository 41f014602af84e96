//! `todo_write`: the session's task list, replaced whole on every call.
//!
//! The list is session-owned: it is kept per agent scope (the calling [`Agent`]'s
//! [`ScopeKey`]; calls without an agent share one list) in a [`TodoStore`] the host
//! holds, so a UI can render the latest list whenever it likes. `run_code` sub-calls
//! carry their program's agent, so a program's `todo_write` updates the same list.
//!
//! [`Agent`]: ptc::Agent

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::watch;

use ptc::ContentBlock;
use ptc::ScopeKey;
use ptc::ToolDefinition;
use ptc::ToolError;

/// Where a todo stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on now.
    InProgress,
    /// Finished.
    Completed,
}

/// One entry of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    /// What the task is: a short imperative line.
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
}

/// One accepted `todo_write`: whose list it is and the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoSnapshot {
    /// The owning agent scope's name (`None` for calls without an agent).
    pub session: Option<String>,
    /// Bumped by every accepted write, across sessions (the first write is 1).
    pub version: u64,
    /// The complete list.
    pub todos: Vec<Todo>,
}

/// The host's handle on every session's todo list. Cloning shares the store.
///
/// [`super::Builtin::todos`] returns the store the pack's `todo_write` writes to.
#[derive(Clone)]
pub struct TodoStore {
    sessions: Arc<Mutex<HashMap<Option<u64>, TodoSnapshot>>>,
    latest: Arc<watch::Sender<Option<TodoSnapshot>>>,
}

impl Default for TodoStore {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for TodoStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TodoStore")
            .field("latest", &*self.latest.borrow())
            .finish()
    }
}

impl TodoStore {
    /// An empty store.
    pub fn new() -> Self {
        TodoStore {
            sessions: Arc::default(),
            latest: Arc::new(watch::channel(None).0),
        }
    }

    /// The most recent list written in any session.
    pub fn latest(&self) -> Option<TodoSnapshot> {
        self.latest.borrow().clone()
    }

    /// The latest list of the session owned by `scope`.
    pub fn for_scope(&self, scope: &ScopeKey) -> Option<TodoSnapshot> {
        self.lock().get(&Some(scope.id())).cloned()
    }

    /// The latest list written by calls that had no agent.
    pub fn without_agent(&self) -> Option<TodoSnapshot> {
        self.lock().get(&None).cloned()
    }

    /// A receiver that sees every accepted write (the latest snapshot), for UIs.
    pub fn subscribe(&self) -> watch::Receiver<Option<TodoSnapshot>> {
        self.latest.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Option<u64>, TodoSnapshot>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replace the list of `scope`'s session.
    fn replace(&self, scope: Option<&ScopeKey>, todos: Vec<Todo>) -> TodoSnapshot {
        let mut sessions = self.lock();
        let version = self.latest.borrow().as_ref().map_or(0, |s| s.version) + 1;
        let snapshot = TodoSnapshot {
            session: scope.map(|s| s.name().to_string()),
            version,
            todos,
        };
        sessions.insert(scope.map(ScopeKey::id), snapshot.clone());
        // Under the sessions lock, so versions reach subscribers in order.
        self.latest.send_replace(Some(snapshot.clone()));
        snapshot
    }
}

#[derive(Deserialize)]
struct Args {
    todos: Vec<Todo>,
}

#[derive(Serialize)]
struct Output {
    todos: Vec<Todo>,
    pending: u64,
    in_progress: u64,
    completed: u64,
}

fn status_spec() -> ValueSpec {
    ValueSpec::string().enum_values([json!("pending"), json!("in_progress"), json!("completed")])
}

fn todo_spec() -> ValueSpec {
    status_spec().describe("pending (not started) | in_progress (now) | completed (done).")
}

/// The `todo_write` tool, writing to `store`.
pub(crate) fn tool(store: TodoStore) -> ToolDefinition {
    ToolDefinition::builder("todo_write")
        .description(
            "Record and update a structured task list for the current work. Send the ENTIRE \
             list every call — it REPLACES the previous list (there are no partial updates, no \
             per-item edits). Use it to plan multi-step work and show progress: add one todo per \
             concrete step before you start. Keep AT MOST ONE todo `in_progress` at a time; while \
             work remains, exactly one active task should be `in_progress`. Mark a todo \
             `completed` the moment it is done (do not batch completions), and allow no \
             `in_progress` item only once all work is complete. Skip the list for trivial \
             single-step tasks. Statuses: `pending` (not started), `in_progress` (being worked \
             on now), `completed` (finished).",
        )
        // The same rules, tersely; the statuses are spelled out on the `status` argument.
        .code_description(
            "Your task list: one todo per step, exactly one `in_progress` while work remains, \
             each `completed` once done.",
        )
        .parameters(
            ParameterSpec::new().required(
                "todos",
                ValueSpec::array(
                    ValueSpec::object(false)
                        .required_property(
                            "content",
                            ValueSpec::string()
                                .describe("What the task is — a short imperative line."),
                        )
                        .required_property("status", todo_spec()),
                )
                .describe("The COMPLETE task list, replacing any previous list."),
            ),
        )
        .output(
            ValueSpec::object(false)
                .required_property(
                    "todos",
                    ValueSpec::array(
                        ValueSpec::object(false)
                            .required_property("content", ValueSpec::string())
                            .required_property("status", status_spec()),
                    ),
                )
                .required_property("pending", ValueSpec::integer())
                .required_property("in_progress", ValueSpec::integer())
                .required_property("completed", ValueSpec::integer()),
        )
        .concurrency_safe(false)
        // The same list again leaves the same list.
        .idempotent(true)
        .execute(move |args: Args, ctx| {
            let store = store.clone();
            async move {
                if let Some(empty) = args.todos.iter().position(|t| t.content.trim().is_empty()) {
                    return Err(super::shared::invalid_args(format!(
                        "todo {} has an empty `content`; describe the task",
                        empty + 1
                    )));
                }
                let scope = ctx.execution().agent().map(|a| a.scope().clone());
                let snapshot = store.replace(scope.as_ref(), args.todos);
                let count = |s: TodoStatus| snapshot.todos.iter().filter(|t| t.status == s).count();
                Ok::<_, ToolError>(Output {
                    pending: count(TodoStatus::Pending) as u64,
                    in_progress: count(TodoStatus::InProgress) as u64,
                    completed: count(TodoStatus::Completed) as u64,
                    todos: snapshot.todos,
                })
            }
        })
        .render(|_, value| {
            let todos = value["todos"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            let mut text = format!(
                "Todo list updated: {} completed, {} in progress, {} pending.",
                value["completed"], value["in_progress"], value["pending"]
            );
            for todo in todos {
                let mark = match todo["status"].as_str() {
                    Some("completed") => "[x]",
                    Some("in_progress") => "[~]",
                    _ => "[ ]",
                };
                text.push_str(&format!(
                    "\n{mark} {}",
                    todo["content"].as_str().unwrap_or_default()
                ));
            }
            vec![ContentBlock::text(text)]
        })
        .presentation_meta(|_, value| Some(json!({"todos": value["todos"]})))
        .build()
        .expect("the todo_write definition is valid")
}
