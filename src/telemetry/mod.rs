//! Telemetry: every call and sub-call as a [`tracing`] span, shaped for OpenTelemetry.
//!
//! The pipeline opens one span per call when admission starts and closes it when the
//! call is finalized (`tools/result`), so its duration is the call's. A `run_code` call's
//! sub-calls `<callId>:ptc:<n>` are its children: the parent is looked up explicitly from
//! the sub-call's `parent` token, never taken from "the current span", because sub-calls are
//! polled from the engine's thread. A root call's parent is the caller's current span, so
//! a host's own span (an agent turn, say) encloses the calls it makes.
//!
//! Spans use the target [`TARGET`] and follow the OpenInference and OpenTelemetry GenAI
//! conventions for tool spans, so LLM observability tools (Arize Phoenix, Langfuse, …)
//! show them natively:
//!
//! | attribute | value |
//! |---|---|
//! | span name (`otel.name`) | `execute_tool <tool>` |
//! | `openinference.span.kind` | `TOOL` |
//! | `gen_ai.operation.name` | `execute_tool` |
//! | `tool.name`, `gen_ai.tool.name` | the tool name |
//! | `gen_ai.tool.call.id`, `ptc.call_id` | the call id (`<callId>:ptc:<n>` for sub-calls) |
//! | `ptc.root_call_id`, `ptc.scope` | the model's call, the agent scope |
//! | `input.value`, `input.mime_type` | the arguments as JSON, truncated |
//! | `output.value`, `output.mime_type` | the value (JSON or text) or the error message, truncated |
//! | `ptc.outcome` | `ok`, `error`, `denied`, `cancelled` or `timeout` ([`CallOutcome`]) |
//! | `ptc.error.code` | the error code of a failed call |
//! | status | `ERROR` with the message, for every outcome but `ok` |
//!
//! Policy decisions are span events named `policy` (`ptc.policy.stage`,
//! `ptc.policy.decision`, `ptc.policy.reason`); failures add an `exception` event.
//! Values are cut to [`max_attribute_chars`] characters.
//!
//! Without a subscriber that wants [`TARGET`] spans, the pipeline does no telemetry work
//! beyond the disabled-span check. The `otlp` feature adds `otlp`, which installs one
//! that exports to an OTLP collector.

#[cfg(feature = "otlp")]
pub mod otlp;
pub(crate) mod span;

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{codes, ToolFailure};

/// The `tracing` target of ptc's call spans and their events.
pub const TARGET: &str = "ptc::tool";

/// The default cut for input and output values on spans.
pub const DEFAULT_MAX_ATTRIBUTE_CHARS: usize = 4096;

static MAX_ATTRIBUTE_CHARS: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_ATTRIBUTE_CHARS);

/// How many characters of an input or output value a span carries (default
/// [`DEFAULT_MAX_ATTRIBUTE_CHARS`]); longer values are cut and end with `…`.
pub fn max_attribute_chars() -> usize {
    MAX_ATTRIBUTE_CHARS.load(Ordering::Relaxed)
}

/// Set [`max_attribute_chars`] for every registry in this process (at least 16).
pub fn set_max_attribute_chars(chars: usize) {
    MAX_ATTRIBUTE_CHARS.store(chars.max(16), Ordering::Relaxed);
}

/// How a call ended, as spans, the waterfall and traces name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallOutcome {
    /// A value.
    Ok,
    /// A failure other than the ones below.
    Error,
    /// A policy, guard or approval denied it, or post-execute blocked its result.
    Denied,
    /// The caller cancelled it (before or during dispatch).
    Cancelled,
    /// A timeout stopped it (the timeout policy, or a program's wall clock).
    Timeout,
}

impl CallOutcome {
    /// The outcome of a call that ended with `failure` (`None`: a success).
    pub fn of(failure: Option<&ToolFailure>) -> CallOutcome {
        let Some(failure) = failure else {
            return CallOutcome::Ok;
        };
        match failure.code() {
            Some(codes::TOOL_DENIED | codes::TOOL_BLOCKED) => CallOutcome::Denied,
            Some(codes::ABORTED | codes::ABORTED_BEFORE_DISPATCH) => CallOutcome::Cancelled,
            Some(codes::TOOL_TIMEOUT) => CallOutcome::Timeout,
            Some(codes::CODE_RUN_FAILED)
                if failure.message.starts_with("code run failed (timeout)") =>
            {
                CallOutcome::Timeout
            }
            _ => CallOutcome::Error,
        }
    }

    /// `ok`, `error`, `denied`, `cancelled` or `timeout`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Error => "error",
            CallOutcome::Denied => "denied",
            CallOutcome::Cancelled => "cancelled",
            CallOutcome::Timeout => "timeout",
        }
    }
}

/// `text` cut to at most `max` characters; a cut text ends with `…`.
pub fn truncate(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => {
            let keep = text[..end]
                .char_indices()
                .nth(max.saturating_sub(1))
                .map_or(end, |(i, _)| i);
            std::borrow::Cow::Owned(format!("{}…", &text[..keep]))
        }
    }
}

/// `value` as compact JSON cut to at most `max` characters, without serializing more
/// than about `max * 4` bytes of it (a huge value costs no more than a small one).
pub fn json_truncated(value: &serde_json::Value, max: usize) -> String {
    json_cut(value, max, false)
}

/// [`json_truncated`], pretty-printed when `pretty`.
pub(crate) fn json_cut(value: &serde_json::Value, max: usize, pretty: bool) -> String {
    let mut out = Bounded {
        bytes: Vec::new(),
        limit: max.saturating_mul(4).saturating_add(4),
    };
    let complete = if pretty {
        serde_json::to_writer_pretty(&mut out, value).is_ok()
    } else {
        serde_json::to_writer(&mut out, value).is_ok()
    };
    let text = String::from_utf8_lossy(&out.bytes);
    match truncate(&text, max) {
        std::borrow::Cow::Borrowed(all) if complete => all.to_string(),
        std::borrow::Cow::Borrowed(all) => format!("{all}…"),
        std::borrow::Cow::Owned(cut) => cut,
    }
}

/// A writer that refuses to grow past `limit` bytes.
struct Bounded {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = self.limit.saturating_sub(self.bytes.len());
        if room == 0 {
            return Err(std::io::Error::other("long enough"));
        }
        let n = room.min(buf.len());
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
