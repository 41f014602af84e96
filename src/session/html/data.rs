//! The waterfall's data: each root call as a run, its sub-calls in lanes, as compact JSON.

use serde::Serialize;
use serde_json::Value;

use super::super::tree::describe;
use super::super::CallNode;
use crate::content::content_text;
use crate::error::codes;
use crate::registry::ToolRegistry;
use crate::telemetry::{json_cut, truncate, CallOutcome};

/// Characters of arguments, results and errors the page keeps per call.
const MAX_DETAIL_CHARS: usize = 2000;
/// Characters of a one-line summary.
const MAX_SUMMARY_CHARS: usize = 200;

/// The whole page's data.
#[derive(Debug, Serialize)]
pub(super) struct PageData {
    /// The log's name, for the heading.
    pub title: String,
    /// Milliseconds since the epoch that every `start`/`end` counts from.
    pub epoch_ms: u64,
    /// Calls of every run, sub-calls included.
    pub calls: usize,
    /// Lines of the log that were not events.
    pub skipped: Vec<Skipped>,
    pub runs: Vec<Run>,
}

#[derive(Debug, Serialize)]
pub(super) struct Skipped {
    pub line: usize,
    pub error: String,
}

/// One root call and its sub-calls.
#[derive(Debug, Serialize)]
pub(super) struct Run {
    #[serde(flatten)]
    pub call: Bar,
    /// Lanes the sub-calls need so that overlapping calls never share one.
    pub lanes: usize,
    /// The end of the timeline: the run's end, or its last sub-call's when later.
    pub until: u64,
    pub children: Vec<Bar>,
}

/// One call as a bar.
#[derive(Debug, Serialize)]
pub(super) struct Bar {
    pub id: String,
    pub name: String,
    pub title: String,
    /// Milliseconds after `epoch_ms`.
    pub start: u64,
    /// `None` when the call never settled in the log.
    pub end: Option<u64>,
    /// `ok`, `error`, `denied`, `cancelled`, `timeout` or `unsettled`.
    pub outcome: &'static str,
    pub lane: usize,
    pub args: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorData>,
    /// What a policy decided, when the outcome came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

#[derive(Debug, Serialize)]
pub(super) struct ErrorData {
    pub code: Option<String>,
    pub name: Option<String>,
    pub message: String,
}

/// Build the page data from a replayed tree.
pub(super) fn page_data(
    title: &str,
    roots: &[CallNode],
    skipped: &[(usize, String)],
    registry: Option<&ToolRegistry>,
) -> PageData {
    let epoch_ms = roots.iter().map(|r| r.started_ms).min().unwrap_or(0);
    let runs: Vec<Run> = roots
        .iter()
        .map(|root| run(root, epoch_ms, registry))
        .collect();
    PageData {
        title: title.to_string(),
        epoch_ms,
        calls: runs.iter().map(|r| 1 + r.children.len()).sum(),
        skipped: skipped
            .iter()
            .map(|(line, error)| Skipped {
                line: *line,
                error: truncate(error, MAX_SUMMARY_CHARS).into_owned(),
            })
            .collect(),
        runs,
    }
}

fn run(root: &CallNode, epoch: u64, registry: Option<&ToolRegistry>) -> Run {
    let mut children: Vec<Bar> = root
        .children
        .iter()
        .map(|c| bar(c, epoch, registry))
        .collect();
    let call = bar(root, epoch, registry);
    let last = children
        .iter()
        .map(|c| c.end.unwrap_or(c.start))
        .chain(children.iter().map(|c| c.start))
        .max()
        .unwrap_or(call.start);
    let until = call.end.unwrap_or(last).max(last).max(call.start);
    // A call that never settled runs to the end of the timeline.
    let lanes = assign_lanes(&mut children, until);
    Run {
        call,
        lanes,
        until,
        children,
    }
}

/// Greedy interval partitioning in start order: each call takes the lowest lane whose
/// previous call ended by its start. Times are in milliseconds, so a call that took less
/// than one counts as ending half a millisecond later: calls within the same millisecond
/// get lanes of their own instead of hiding each other. Returns the number of lanes used.
fn assign_lanes(bars: &mut [Bar], until: u64) -> usize {
    // In half milliseconds.
    let mut lane_ends: Vec<u64> = Vec::new();
    let mut order: Vec<usize> = (0..bars.len()).collect();
    order.sort_by_key(|&i| bars[i].start);
    for i in order {
        let bar = &mut bars[i];
        let end = bar.end.unwrap_or(until).max(bar.start);
        let end = 2 * end + u64::from(end == bar.start);
        let lane = match lane_ends.iter().position(|&e| e <= 2 * bar.start) {
            Some(lane) => lane,
            None => {
                lane_ends.push(0);
                lane_ends.len() - 1
            }
        };
        lane_ends[lane] = end;
        bar.lane = lane;
    }
    lane_ends.len()
}

fn bar(call: &CallNode, epoch: u64, registry: Option<&ToolRegistry>) -> Bar {
    let (title, summary) = describe(call, registry);
    let settled = call.settled.as_ref();
    let failure = settled.and_then(|s| s.error.as_ref());
    let outcome = match settled {
        None => "unsettled",
        Some(s) if s.is_error && failure.is_none() => "error",
        Some(_) => CallOutcome::of(failure).as_str(),
    };
    let error = settled.filter(|s| s.is_error).map(|s| match failure {
        Some(f) => ErrorData {
            code: f.info.as_ref().map(|i| i.code.clone()),
            name: f.info.as_ref().map(|i| i.name.clone()),
            message: truncate(&f.message, MAX_DETAIL_CHARS).into_owned(),
        },
        None => ErrorData {
            code: None,
            name: None,
            message: truncate(&content_text(&s.content), MAX_DETAIL_CHARS).into_owned(),
        },
    });
    let policy = failure.and_then(|f| {
        let what = match f.code()? {
            codes::TOOL_DENIED => "denied",
            codes::TOOL_BLOCKED => "result blocked by a post-execute policy",
            codes::ABORTED_BEFORE_DISPATCH => "cancelled before dispatch",
            _ => return None,
        };
        Some(format!(
            "{what}: {}",
            truncate(&f.message, MAX_SUMMARY_CHARS)
        ))
    });
    Bar {
        id: call.call_id.clone(),
        name: call.name.clone(),
        title: truncate(&title, MAX_SUMMARY_CHARS).into_owned(),
        start: call.started_ms.saturating_sub(epoch),
        end: settled.map(|s| s.at_ms.max(call.started_ms).saturating_sub(epoch)),
        outcome,
        lane: 0,
        args: pretty(&call.arguments),
        summary: summary.map(|s| truncate(&s, MAX_SUMMARY_CHARS).into_owned()),
        error,
        policy,
    }
}

fn pretty(value: &Value) -> String {
    json_cut(value, MAX_DETAIL_CHARS, true)
}
