//! The durable session log: the events root calls and code-mode sub-calls append.
//!
//! [`MemoryLog`] keeps events in memory; [`JsonlLog`] appends one JSON object per line
//! to a file and [`read_jsonl`] replays such a file into the same events.

pub mod html;
mod jsonl;
pub mod spill;
mod tree;

/// The sha256 of `bytes` as 64 lowercase hex digits: how spilled blobs are named, and how
/// an operator's trust store pins a file's content.
pub use crate::digest::sha256_hex;
pub use jsonl::{read_jsonl, read_jsonl_lossy, JsonlLog, Replayed};
pub use tree::{build_tree, render_tree, CallNode, Settled};

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::ContentBlock;
use crate::error::ToolFailure;

/// One durable event. Field names follow the seed's wire spelling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum SessionEvent {
    /// A root call started.
    #[serde(rename = "tool/call")]
    ToolCall {
        /// Milliseconds since the Unix epoch.
        at_ms: u64,
        /// Model turn.
        turn: u64,
        /// Model step.
        step: u64,
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
        /// Normalized arguments (the call's own, shared: logging copies nothing).
        arguments: Arc<Value>,
    },
    /// A root call settled.
    #[serde(rename = "tool/result")]
    ToolResult {
        /// Milliseconds since the Unix epoch.
        at_ms: u64,
        /// Model turn.
        turn: u64,
        /// Model step.
        step: u64,
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
        /// Whether it failed.
        is_error: bool,
        /// Model-facing content.
        content: Vec<ContentBlock>,
        /// Structured failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ToolFailure>,
        /// Presentation metadata.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    /// A `run_code` sub-call actually started.
    #[serde(rename = "tool/ptc-dispatch-start")]
    PtcDispatchStart {
        /// Milliseconds since the Unix epoch.
        at_ms: u64,
        /// The outer `run_code` call id.
        parent_call_id: String,
        /// `<callId>:ptc:<n>`.
        sub_call_id: String,
        /// Sub-tool name.
        name: String,
        /// Normalized arguments (the call's own, shared: logging copies nothing).
        arguments: Arc<Value>,
    },
    /// A started `run_code` sub-call settled.
    #[serde(rename = "tool/ptc-dispatch")]
    PtcDispatch {
        /// Milliseconds since the Unix epoch.
        at_ms: u64,
        /// The outer `run_code` call id.
        parent_call_id: String,
        /// `<callId>:ptc:<n>`.
        sub_call_id: String,
        /// Sub-tool name.
        name: String,
        /// Whether it failed.
        is_error: bool,
        /// The logged content copy (after `tools/ptc-dispatch-log`).
        content: Vec<ContentBlock>,
        /// Structured failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ToolFailure>,
        /// Presentation metadata.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    /// A journaled run's sub-call answered from its journal instead of dispatched (see
    /// `ptc::journal`).
    #[serde(rename = "tool/ptc-replayed")]
    PtcReplayed {
        /// Milliseconds since the Unix epoch.
        at_ms: u64,
        /// The outer `run_code` call id.
        parent_call_id: String,
        /// `<callId>:ptc:<n>`.
        sub_call_id: String,
        /// Sub-tool name.
        name: String,
        /// Whether the recorded result was an error.
        is_error: bool,
    },
    /// An approval service answered an `ask` decision (or none was available).
    #[serde(rename = "tool/approval")]
    Approval {
        /// Milliseconds since the Unix epoch.
        at_ms: u64,
        /// The call asked about (a root call id or `<callId>:ptc:<n>`).
        call_id: String,
        /// Tool name.
        name: String,
        /// The answer: `allowed once`, `allowed for this session`, `denied`, `declined by
        /// the user`, …
        decision: String,
        /// The policy's reason for asking.
        reason: String,
    },
}

impl SessionEvent {
    /// The event's `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            SessionEvent::ToolCall { .. } => "tool/call",
            SessionEvent::ToolResult { .. } => "tool/result",
            SessionEvent::PtcDispatchStart { .. } => "tool/ptc-dispatch-start",
            SessionEvent::PtcDispatch { .. } => "tool/ptc-dispatch",
            SessionEvent::PtcReplayed { .. } => "tool/ptc-replayed",
            SessionEvent::Approval { .. } => "tool/approval",
        }
    }
}

/// A tag unique to this process among processes that write one log: its start time (ms) and
/// pid in base 36, e.g. `m4k2x9a1-1b3`. Hosts put it in the call ids they make up (`ptc run`
/// names its calls `run-<tag>-<n>`), so the runs of two processes appending to one log stay
/// apart.
pub fn process_tag() -> &'static str {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TAG.get_or_init(|| {
        format!(
            "{}-{}",
            base36(now_ms()),
            base36(u64::from(std::process::id()))
        )
    })
}

fn base36(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    String::from_utf8(digits).expect("ASCII digits")
}

/// Milliseconds since the Unix epoch, for event timestamps.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Failure to append to a session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("session log: {0}")]
pub struct SessionError(pub String);

/// A session's durable event sink.
pub trait SessionLog: Send + Sync + 'static {
    /// Append one event durably.
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError>;
}

/// An in-memory session log.
#[derive(Debug, Default)]
pub struct MemoryLog {
    events: Mutex<Vec<SessionEvent>>,
}

impl MemoryLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the events so far.
    pub fn events(&self) -> Vec<SessionEvent> {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl SessionLog for MemoryLog {
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError> {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(event.clone());
        Ok(())
    }
}
