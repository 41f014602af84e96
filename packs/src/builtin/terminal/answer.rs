//! The answer every terminal tool that shows output gives: the output not read yet, why the
//! wait ended, and the terminal's status; its schema and how the model sees it.

use ptc::ROUTE_HEADER;
use ptc_schema::ValueSpec;
use serde::Serialize;
use serde_json::{json, Value};

use super::{TermStatus, Terminal};
use crate::builtin::data_caps::thousands;
use crate::builtin::shared::tail_str;
use ptc::{ContentBlock, ToolRunContext};

/// Bytes of output the model sees per answer (the tail; the value has all of it).
const MAX_CONTENT_BYTES: usize = 30_000;

/// What a terminal tool answers with.
#[derive(Serialize)]
pub(super) struct Answer {
    #[serde(rename = "sessionId")]
    pub(super) session_id: String,
    pub(super) output: String,
    pub(super) dropped_bytes: u64,
    pub(super) until: &'static str,
    pub(super) state: &'static str,
    pub(super) status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) exit_code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) task_id: Option<String>,
}

/// The unread output of `term` (the cursor moves past it) after a wait that ended by `until`.
pub(super) fn answer(term: &Terminal, until: &'static str) -> Answer {
    let (output, dropped) = term.take_unread();
    Answer {
        session_id: term.id.clone(),
        output,
        dropped_bytes: dropped,
        until,
        ..status_of(term)
    }
}

/// What a program is told of output an answer lacks: bytes the scrollback dropped before they
/// were read (`dropped`), and `skipped` older unread lines left out of a page of the newest
/// `page` lines. The run's result names it at the call (the answer's fields say it too, where
/// a program that counts lines would not look).
pub(super) fn say_cut(ctx: &ToolRunContext, dropped: u64, skipped: Option<(u64, u64)>) {
    let mut said = Vec::new();
    if dropped > 0 {
        said.push(format!(
            "{} bytes of output were dropped before they were read: a terminal keeps only its \
             newest output (send large output to a file and read it, or run the command \
             with bash)",
            thousands(dropped)
        ));
    }
    if let Some((skipped, page)) = skipped.filter(|&(s, _)| s > 0) {
        said.push(format!(
            "{} older unread lines were left out of this page of the newest {}: they count as \
             read (read them with offset: {page}, count: {skipped}, or ask for a larger count)",
            thousands(skipped),
            thousands(page)
        ));
    }
    if !said.is_empty() && ctx.in_program() {
        ctx.cut_short(said.join("; "));
    }
}

/// An answer with no output, only the terminal's standing.
pub(super) fn status_of(term: &Terminal) -> Answer {
    Answer {
        session_id: term.id.clone(),
        output: String::new(),
        dropped_bytes: 0,
        until: "none",
        state: term.state_name(),
        status: term.status_line(),
        exit_code: match term.status() {
            TermStatus::Exited(code) => Some(i64::from(code)),
            _ => None,
        },
        task_id: None,
    }
}

/// A terminal session id, as arguments and answers carry it.
pub(super) fn session_spec() -> ValueSpec {
    ValueSpec::string().describe("Terminal session id.")
}

/// The `sessionId` parameter: a handle, so a load balancer routes on it (SEP-2243 header
/// `Mcp-Param-Ptc-Route`).
pub(super) fn session_param() -> ValueSpec {
    session_spec().mcp_header(ROUTE_HEADER)
}

/// A terminal's directory (where it started; in a list, where its shell is now).
pub(super) fn cwd_spec() -> ValueSpec {
    ValueSpec::string().describe("Relative to the root.")
}

/// `spec` with the [`Answer`] properties.
pub(super) fn answer_spec(spec: ValueSpec) -> ValueSpec {
    spec.required_property("sessionId", session_spec())
        .required_property(
            "output",
            ValueSpec::string().describe("Escape sequences removed."),
        )
        .required_property("dropped_bytes", ValueSpec::integer())
        .required_property(
            "until",
            ValueSpec::string()
                .describe("Why the wait ended.")
                .enum_values(
                    [
                        "prompt",
                        "input",
                        "output",
                        "silence",
                        "timeout",
                        "exit",
                        "background",
                        "none",
                    ]
                    .map(|s| json!(s)),
                ),
        )
        .required_property(
            "state",
            ValueSpec::string()
                .describe("killed: by a signal; closed: by ptc.")
                .enum_values(["running", "exited", "killed", "closed"].map(|s| json!(s))),
        )
        .required_property("status", ValueSpec::string())
        .property("exit_code", ValueSpec::integer())
        .property("task_id", ValueSpec::string())
}

/// The model's view of an answer: notes, the output's tail, `[status: …]`.
pub(super) fn render_answer(value: &Value, verb: &str) -> Vec<ContentBlock> {
    let id = value["sessionId"].as_str().unwrap_or_default();
    let mut text = String::new();
    if verb == "opened" {
        text.push_str(&format!("Opened terminal {id}.\n"));
    }
    if let Some(task) = value["task_id"].as_str() {
        text.push_str(&format!(
            "Sent to {id} in the background as task {task}: read it with task_output, stop it \
             with task_kill.\n"
        ));
    }
    if let Some(cap) = value["wait_capped_ms"].as_u64() {
        text.push_str(&format!("[wait capped at {cap} ms]\n"));
    }
    if let Some(dropped) = value["dropped_bytes"].as_u64().filter(|&d| d > 0) {
        text.push_str(&format!(
            "[{dropped} unread bytes were dropped: the scrollback keeps only the newest output]\n"
        ));
    }
    if let Some(skipped) = value["skipped_lines"].as_u64().filter(|&s| s > 0) {
        text.push_str(&format!("[{skipped} earlier lines not shown]\n"));
    }
    let output = value["output"].as_str().unwrap_or_default();
    let shown = tail_str(output, MAX_CONTENT_BYTES);
    if shown.len() < output.len() {
        text.push_str(&format!(
            "[{} earlier bytes not shown]\n",
            output.len() - shown.len()
        ));
    }
    if value["task_id"].is_null() {
        text.push_str(if output.is_empty() {
            "(no new output)"
        } else {
            shown
        });
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text.push_str(&format!(
        "[status: {}]",
        value["status"].as_str().unwrap_or_default()
    ));
    vec![ContentBlock::text(text)]
}
