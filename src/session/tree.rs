//! Replay: a session log as a tree of root calls with their `run_code` sub-calls.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::SessionEvent;
use crate::content::{content_text, ContentBlock};
use crate::error::ToolFailure;
use crate::presentation::{ToolResult, ToolResultView};
use crate::registry::ToolRegistry;

/// One call in a replayed session.
#[derive(Debug, Clone, PartialEq)]
pub struct CallNode {
    /// Call id (`<callId>:ptc:<n>` for sub-calls).
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// Normalized arguments.
    pub arguments: Value,
    /// When it started (ms since the epoch).
    pub started_ms: u64,
    /// When it settled, if it did.
    pub settled: Option<Settled>,
    /// Sub-calls, in start order.
    pub children: Vec<CallNode>,
}

/// How a replayed call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// When (ms since the epoch).
    pub at_ms: u64,
    /// Whether it failed.
    pub is_error: bool,
    /// Logged content.
    pub content: Vec<ContentBlock>,
    /// Structured failure.
    pub error: Option<ToolFailure>,
    /// Presentation metadata.
    pub meta: Option<Value>,
}

/// Pair call/result and start/dispatch events into a tree, in log order.
pub fn build_tree(events: &[SessionEvent]) -> Vec<CallNode> {
    let mut roots: Vec<CallNode> = Vec::new();
    let mut root_index: HashMap<String, usize> = HashMap::new();
    let mut child_index: HashMap<String, (usize, usize)> = HashMap::new();
    for event in events {
        match event {
            SessionEvent::ToolCall {
                at_ms,
                call_id,
                name,
                arguments,
                ..
            } => {
                root_index.insert(call_id.clone(), roots.len());
                roots.push(node(call_id, name, arguments, *at_ms));
            }
            SessionEvent::ToolResult {
                at_ms,
                call_id,
                is_error,
                content,
                error,
                meta,
                ..
            } => {
                if let Some(&i) = root_index.get(call_id) {
                    roots[i].settled = Some(settled(*at_ms, *is_error, content, error, meta));
                }
            }
            SessionEvent::PtcDispatchStart {
                at_ms,
                parent_call_id,
                sub_call_id,
                name,
                arguments,
            } => {
                if let Some(&i) = root_index.get(parent_call_id) {
                    child_index.insert(sub_call_id.clone(), (i, roots[i].children.len()));
                    roots[i]
                        .children
                        .push(node(sub_call_id, name, arguments, *at_ms));
                }
            }
            SessionEvent::PtcDispatch {
                at_ms,
                sub_call_id,
                is_error,
                content,
                error,
                meta,
                ..
            } => {
                if let Some(&(i, j)) = child_index.get(sub_call_id) {
                    roots[i].children[j].settled =
                        Some(settled(*at_ms, *is_error, content, error, meta));
                }
            }
            SessionEvent::Approval { .. } | SessionEvent::PtcReplayed { .. } => {}
        }
    }
    roots
}

fn node(call_id: &str, name: &str, arguments: &Value, at_ms: u64) -> CallNode {
    CallNode {
        call_id: call_id.to_string(),
        name: name.to_string(),
        arguments: arguments.clone(),
        started_ms: at_ms,
        settled: None,
        children: Vec::new(),
    }
}

fn settled(
    at_ms: u64,
    is_error: bool,
    content: &[ContentBlock],
    error: &Option<ToolFailure>,
    meta: &Option<Value>,
) -> Settled {
    Settled {
        at_ms,
        is_error,
        content: content.to_vec(),
        error: error.clone(),
        meta: meta.clone(),
    }
}

/// Render the tree, one line per call. With a registry, titles and summaries come from
/// the tools' presentation cards; otherwise the tool name and the first content line.
pub fn render_tree(roots: &[CallNode], registry: Option<&ToolRegistry>) -> String {
    let mut out = String::new();
    for root in roots {
        line(&mut out, "", root, registry);
        for (k, child) in root.children.iter().enumerate() {
            let branch = if k + 1 == root.children.len() {
                "└─ "
            } else {
                "├─ "
            };
            line(&mut out, branch, child, registry);
        }
    }
    out
}

fn line(out: &mut String, prefix: &str, call: &CallNode, registry: Option<&ToolRegistry>) {
    let (title, summary) = describe(call, registry);
    let _ = write!(out, "{prefix}{} {title}", call.call_id);
    match (&call.settled, summary) {
        (Some(s), Some(summary)) => {
            let took = s.at_ms.saturating_sub(call.started_ms);
            let outcome = if s.is_error { "error" } else { "ok" };
            let _ = writeln!(out, "  {took} ms {outcome}: {summary}");
        }
        _ => {
            let _ = writeln!(out, "  (never settled)");
        }
    }
}

/// A call's title and, once it settled, a one-line summary of its result. With a
/// registry they come from the tool's presentation cards; otherwise the tool name and
/// the first content line.
pub(crate) fn describe(
    call: &CallNode,
    registry: Option<&ToolRegistry>,
) -> (String, Option<String>) {
    let def = registry.and_then(|r| r.view(None, None).get(&call.name));
    let title = def
        .as_ref()
        .and_then(|d| d.present_call(&call.arguments))
        .map(|view| view.title().to_string())
        .unwrap_or_else(|| call.name.clone());
    let summary = call.settled.as_ref().map(|s| {
        def.as_ref()
            .and_then(|d| {
                let result = ToolResult {
                    is_error: s.is_error,
                    content: s.content.clone(),
                    meta: s.meta.clone(),
                };
                d.present_result(&call.arguments, &result)
            })
            .and_then(|view| card_summary(&view))
            .unwrap_or_else(|| first_line(&content_text(&s.content)))
    });
    (title, summary)
}

fn card_summary(view: &ToolResultView) -> Option<String> {
    Some(match view {
        ToolResultView::Search {
            total, truncated, ..
        } => {
            format!(
                "{total} found{}",
                if *truncated { " (truncated)" } else { "" }
            )
        }
        ToolResultView::Read {
            path,
            offset,
            lines,
            total_lines,
            ..
        } => {
            format!(
                "{path} lines {offset}..{} of {total_lines}",
                offset + lines.len() as u64
            )
        }
        ToolResultView::Terminal { exit_code, .. } => {
            format!("exit {}", exit_code.map_or("?".into(), |c| c.to_string()))
        }
        ToolResultView::Diff { diffs, .. } => format!("{} file(s) changed", diffs.len()),
        ToolResultView::Generic { title: Some(t), .. } => t.clone(),
        _ => return None,
    })
}

/// The first line of `text`, cut to 80 characters; JSON (a tool's pretty-printed object,
/// say) is compacted first, so the line shows more than its opening brace.
fn first_line(text: &str) -> String {
    let json = text.len() <= 1 << 20 && text.trim_start().starts_with(['{', '[']);
    let compact = json
        .then(|| serde_json::from_str::<Value>(text).ok())
        .flatten()
        .and_then(|v| serde_json::to_string(&v).ok());
    let line = compact
        .as_deref()
        .unwrap_or(text)
        .lines()
        .next()
        .unwrap_or("");
    if line.chars().count() > 80 {
        format!("{}…", line.chars().take(79).collect::<String>())
    } else {
        line.to_string()
    }
}
