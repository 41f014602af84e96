//! `task_list`, `task_output` and `task_kill`: the seed catalog's control surface for
//! background work (background `bash` commands and background `terminal_send`s).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{Resource, Status, Task};
use crate::builtin::background::Background;
use crate::builtin::background::Caller;
use crate::builtin::shared::{self, tail_str};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

/// Bytes of output the model sees per read (the tail; the value has all of it).
const MAX_CONTENT_BYTES: usize = 30_000;

/// A task's identity and standing, as every task tool reports it.
#[derive(Serialize)]
struct Summary {
    task_id: String,
    kind: &'static str,
    state: &'static str,
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<String>,
    runtime_ms: u64,
}

fn summary(task: &Task) -> Summary {
    let status = task.status();
    let killed = task.status_line().starts_with("killed");
    Summary {
        task_id: task.id().to_string(),
        kind: task.kind().as_str(),
        state: match &status {
            // task_kill asked it to stop: every task tool says so until it has.
            Status::Running if task.kill_requested() => "stopping",
            Status::Running => "running",
            _ if killed => "killed",
            Status::Exited(_) => "exited",
            Status::Signaled(_) => "killed",
            Status::Settled(_) => "done",
        },
        status: task.status_line(),
        exit_code: match status {
            Status::Exited(code) => Some(i64::from(code)),
            _ => None,
        },
        signal: match status {
            Status::Signaled(signal) => Some(signal),
            _ => None,
        },
        runtime_ms: task.runtime_ms(),
    }
}

/// `spec` with the [`Summary`] properties.
fn summary_spec(spec: ValueSpec) -> ValueSpec {
    spec.required_property("task_id", ValueSpec::string())
        .required_property(
            "kind",
            ValueSpec::string().enum_values([json!("bash"), json!("terminal")]),
        )
        .required_property(
            "state",
            ValueSpec::string()
                .describe("stopping: asked to stop; killed: by a signal or task_kill.")
                .enum_values([
                    json!("running"),
                    json!("stopping"),
                    json!("exited"),
                    json!("killed"),
                    json!("done"),
                ]),
        )
        .required_property("status", ValueSpec::string())
        .property("exit_code", ValueSpec::integer())
        .property("signal", ValueSpec::string())
        .required_property("runtime_ms", ValueSpec::integer())
}

fn task_id_spec() -> ValueSpec {
    ValueSpec::string()
        .describe("Task id returned by the tool that started the background work.")
        .mcp_header(ptc::ROUTE_HEADER)
}

fn find(bg: &Background, owner: &Caller, id: &str) -> Result<Arc<Task>, ToolError> {
    bg.tasks
        .owned()
        .get(owner, id, "task_list")
        .map_err(ToolError::new)
}

#[derive(Deserialize)]
struct NoArgs {}

/// A list's `note`: what it leaves out (see `Owned::scope_note`).
pub(crate) fn note_spec() -> ValueSpec {
    ValueSpec::string().describe("What it leaves out.")
}

/// `text`, then the list's `note` (if any) on a line of its own.
pub(crate) fn with_note(text: &str, value: &Value) -> String {
    match value["note"].as_str() {
        Some(note) => format!("{text}\n{note}"),
        None => text.to_string(),
    }
}

#[derive(Serialize)]
struct ListOutput {
    tasks: Vec<ListEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Serialize)]
struct ListEntry {
    #[serde(flatten)]
    summary: Summary,
    description: String,
    unread_bytes: u64,
}

/// `task_list`.
pub(crate) fn list_tool(bg: Background) -> ToolDefinition {
    ToolDefinition::builder("task_list")
        .description(
            "List your background tasks (running and finished) with their ids, kinds, and \
             statuses.",
        )
        .code_description("Your background tasks.")
        .parameters(ParameterSpec::new())
        .output(
            ValueSpec::object(false)
                .required_property(
                    "tasks",
                    ValueSpec::array(
                        summary_spec(ValueSpec::object(false))
                            .required_property("description", ValueSpec::string())
                            .required_property("unread_bytes", ValueSpec::integer()),
                    )
                    .describe("Oldest first."),
                )
                .property("note", note_spec()),
        )
        .concurrency_safe(true)
        .execute(move |_: NoArgs, ctx| {
            let owner = bg.owner(&ctx);
            let note = bg
                .tasks
                .owned()
                .scope_note(&owner, "task_output, task_kill");
            let tasks = bg
                .tasks
                .owned()
                .list(&owner)
                .iter()
                .map(|t| ListEntry {
                    summary: summary(t),
                    description: t.description().to_string(),
                    unread_bytes: t.unread(),
                })
                .collect();
            async move { Ok::<_, ToolError>(ListOutput { tasks, note }) }
        })
        .render(|_, value| {
            let tasks = value["tasks"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            if tasks.is_empty() {
                return vec![ContentBlock::text(with_note("No background tasks.", value))];
            }
            let lines: Vec<String> = tasks
                .iter()
                .map(|t| {
                    format!(
                        "{}  {}  {}  {:.1}s  {}  ({} unread bytes)",
                        t["task_id"].as_str().unwrap_or_default(),
                        t["kind"].as_str().unwrap_or_default(),
                        t["status"].as_str().unwrap_or_default(),
                        t["runtime_ms"].as_f64().unwrap_or_default() / 1e3,
                        t["description"].as_str().unwrap_or_default(),
                        t["unread_bytes"],
                    )
                })
                .collect();
            vec![ContentBlock::text(with_note(&lines.join("\n"), value))]
        })
        .build()
        .expect("the task_list definition is valid")
}

#[derive(Deserialize)]
struct OutputArgs {
    task_id: String,
    wait: Option<bool>,
    timeout_ms: Option<f64>,
}

#[derive(Serialize)]
struct OutputValue {
    #[serde(flatten)]
    summary: Summary,
    output: String,
    dropped_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    waited_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wait_capped_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<String>,
}

/// `task_output`.
pub(crate) fn output_tool(bg: Background) -> ToolDefinition {
    let cap = bg.tasks.limits().max_wait.as_millis() as u64;
    ToolDefinition::builder("task_output")
        .description(format!(
            "Read a background task. Stream tasks return only output since the previous read; \
             final-output tasks return their result after settlement. Every response ends with \
             `[status: ...]`. Reads are non-blocking unless `wait: true`, which waits up to the \
             configured cap. Here every task is a stream task, the wait is {cap} ms by default \
             and at most, and each task keeps its newest {} bytes of output.",
            bg.tasks.limits().max_output_bytes
        ))
        .code_description(format!(
            "A task's output since the last read (so far while running; `wait` ≤ {} for the \
             end; newest {} kept).",
            shared::millis(cap.into()),
            shared::whole_size(bg.tasks.limits().max_output_bytes as u64)
        ))
        .parameters(
            ParameterSpec::new()
                .required("task_id", task_id_spec())
                .optional(
                    "wait",
                    ValueSpec::boolean().describe(
                        "Block until the task reaches a terminal status or the timeout expires. \
                         A timed-out wait returns [status: running] and leaves the task alive.",
                    ),
                )
                .optional(
                    "timeout_ms",
                    ValueSpec::number().describe(
                        "Max wait in milliseconds (only meaningful with wait: true). Defaults to \
                         the configured wait timeout; capped by the configured maximum.",
                    ),
                ),
        )
        .output(
            summary_spec(ValueSpec::object(false))
                .required_property(
                    "output",
                    ValueSpec::string().describe("Since the last read, interleaved."),
                )
                .required_property("dropped_bytes", ValueSpec::integer())
                .property("waited_ms", ValueSpec::integer())
                .property("wait_capped_ms", ValueSpec::integer())
                .property(
                    "sandbox",
                    ValueSpec::string().describe("On a likely sandbox refusal."),
                ),
        )
        .concurrency_safe(true)
        .execute(move |args: OutputArgs, ctx| {
            let bg = bg.clone();
            let owner = bg.owner(&ctx);
            let signal = ctx.signal().clone();
            async move {
                let task = find(&bg, &owner, &args.task_id)?;
                let max = bg.tasks.limits().max_wait;
                let mut waited_ms = None;
                let mut wait_capped_ms = None;
                if args.wait == Some(true) {
                    let asked = shared::whole_number(
                        args.timeout_ms,
                        "timeout_ms",
                        max.as_millis() as u64,
                        0,
                    )?;
                    let timeout = Duration::from_millis(asked).min(max);
                    if Duration::from_millis(asked) > max {
                        wait_capped_ms = Some(max.as_millis() as u64);
                    }
                    let start = Instant::now();
                    let _ = tokio::time::timeout(timeout, task.ended(&signal)).await;
                    if signal.is_cancelled() {
                        return Err(ToolError::new(
                            "task_output was cancelled while it waited; the task goes on",
                        ));
                    }
                    waited_ms = Some(start.elapsed().as_millis() as u64);
                }
                let read = task.read();
                let summary = summary(&task);
                let mut notes = Vec::new();
                if read.dropped > 0 {
                    notes.push(format!(
                        "{} bytes of output dropped before this read (a task keeps its newest {}; \
                         read it more often, or redirect to a file)",
                        read.dropped,
                        shared::size(bg.tasks.limits().max_output_bytes as u64)
                    ));
                }
                if args.wait != Some(true) && summary.state == "running" {
                    // A program that reads once and moves on would take a part for the whole.
                    notes.push(
                        "the task is still running: this is its output so far (pass \
                         wait: true to wait for it to end)"
                            .to_string(),
                    );
                }
                if !notes.is_empty() && ctx.in_program() {
                    ctx.cut_short(notes.join("; "));
                }
                Ok::<_, ToolError>(OutputValue {
                    summary,
                    output: read.output,
                    dropped_bytes: read.dropped,
                    waited_ms,
                    wait_capped_ms,
                    sandbox: task.note(),
                })
            }
        })
        .render(render_output)
        .build()
        .expect("the task_output definition is valid")
}

fn render_output(_: &Value, value: &Value) -> Vec<ContentBlock> {
    let mut text = String::new();
    if let Some(cap) = value["wait_capped_ms"].as_u64() {
        text.push_str(&format!("[wait capped at {cap} ms]\n"));
    }
    if let Some(dropped) = value["dropped_bytes"].as_u64().filter(|&d| d > 0) {
        text.push_str(&format!(
            "[{dropped} bytes of output were dropped before this read: the task keeps only its \
             newest output]\n"
        ));
    }
    let output = value["output"].as_str().unwrap_or_default();
    let shown = tail_str(output, MAX_CONTENT_BYTES);
    if shown.len() < output.len() {
        text.push_str(&format!(
            "[{} earlier bytes of this read not shown]\n",
            output.len() - shown.len()
        ));
    }
    text.push_str(if output.is_empty() {
        "(no new output)"
    } else {
        shown
    });
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if let Some(note) = value["sandbox"].as_str() {
        text.push_str(&format!("[sandbox: {note}]\n"));
    }
    text.push_str(&format!(
        "[status: {}]",
        value["status"].as_str().unwrap_or_default()
    ));
    vec![ContentBlock::text(text)]
}

#[derive(Deserialize)]
struct KillArgs {
    task_id: String,
    reason: Option<String>,
}

#[derive(Serialize)]
struct KillOutput {
    #[serde(flatten)]
    summary: Summary,
    killed: bool,
}

/// `task_kill`.
pub(crate) fn kill_tool(bg: Background) -> ToolDefinition {
    ToolDefinition::builder("task_kill")
        .description(format!(
            "Request cancellation of a running background task by task id. Returns \
             immediately; the task settles as killed once its work actually stops. Here a \
             background command gets SIGTERM, then SIGKILL after {} ms; a background \
             terminal_send interrupts the terminal's foreground job (SIGINT).",
            super::KILL_GRACE.as_millis()
        ))
        .code_description(format!(
            "Stop a task (SIGTERM, SIGKILL after {}; terminal_send: SIGINT to its job). \
             Returns at once.",
            shared::millis(super::KILL_GRACE.as_millis())
        ))
        .parameters(
            ParameterSpec::new()
                .required("task_id", task_id_spec())
                .optional(
                    "reason",
                    ValueSpec::string().describe(
                        "Optional short reason, recorded in the log and forwarded to the task.",
                    ),
                ),
        )
        .output(summary_spec(ValueSpec::object(false)).required_property(
            "killed",
            ValueSpec::boolean().describe("false: it had already ended."),
        ))
        .concurrency_safe(true)
        .execute(move |args: KillArgs, ctx| {
            let owner = bg.owner(&ctx);
            let found = find(&bg, &owner, &args.task_id);
            async move {
                let task = found?;
                let reason = args.reason.filter(|r| !r.trim().is_empty());
                let killed = task.request_kill(reason);
                Ok::<_, ToolError>(KillOutput {
                    summary: summary(&task),
                    killed,
                })
            }
        })
        .render(|_, value| {
            let id = value["task_id"].as_str().unwrap_or_default();
            let head = if value["killed"] == true {
                format!("Kill requested for {id}; it settles as killed once its processes stop.")
            } else {
                format!("{id} had already ended.")
            };
            vec![ContentBlock::text(format!(
                "{head}\n[status: {}]",
                value["status"].as_str().unwrap_or_default()
            ))]
        })
        .build()
        .expect("the task_kill definition is valid")
}
