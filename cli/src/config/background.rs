//! `[tasks]` and `[terminals]`: the caps of background tasks and terminals (the `builtin`
//! pack's `bash` with `run_in_background`, `task_*`, `terminal_*`).
//!
//! ```toml
//! [tasks]
//! max_tasks = 16                 # per owner (MCP session, `ptc run` process)
//! max_output_bytes = 8388608     # output kept per task (the newest bytes)
//! max_wait_ms = 30000            # task_output / terminal_read wait, terminal_send timeout
//!
//! [terminals]
//! max_terminals = 8              # per owner
//! scrollback_bytes = 8388608     # output kept per terminal
//! idle_timeout_ms = 1800000      # closed after this long without a terminal call
//! max_lifetime_ms = 14400000     # closed after this long regardless
//! ```
//!
//! Every value must be at least 1. An untrusted workspace file may only lower them.

use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use ptc_packs::builtin::{TaskLimits, TerminalLimits};

/// The `[tasks]` table; unset fields keep [`TaskLimits`]'s defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TasksConfig {
    /// See [`TaskLimits::max_tasks`].
    pub max_tasks: Option<u64>,
    /// See [`TaskLimits::max_output_bytes`].
    pub max_output_bytes: Option<u64>,
    /// See [`TaskLimits::max_wait`], in milliseconds.
    pub max_wait_ms: Option<u64>,
}

/// The `[terminals]` table; unset fields keep [`TerminalLimits`]'s defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerminalsConfig {
    /// See [`TerminalLimits::max_terminals`].
    pub max_terminals: Option<u64>,
    /// See [`TerminalLimits::scrollback_bytes`].
    pub scrollback_bytes: Option<u64>,
    /// See [`TerminalLimits::idle_timeout`], in milliseconds.
    pub idle_timeout_ms: Option<u64>,
    /// See [`TerminalLimits::max_lifetime`], in milliseconds.
    pub max_lifetime_ms: Option<u64>,
}

fn size(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

impl TasksConfig {
    /// The caps: the defaults with the set fields applied.
    pub fn limits(&self) -> TaskLimits {
        let d = TaskLimits::default();
        TaskLimits {
            max_tasks: self.max_tasks.map_or(d.max_tasks, size),
            max_output_bytes: self.max_output_bytes.map_or(d.max_output_bytes, size),
            max_wait: self.max_wait_ms.map_or(d.max_wait, Duration::from_millis),
        }
    }

    /// Drop the values above the defaults (an untrusted file may only lower them); say which.
    pub(super) fn narrow(&mut self) -> Vec<String> {
        let d = TaskLimits::default();
        let mut out = Vec::new();
        cap(
            &mut self.max_tasks,
            d.max_tasks as u64,
            "tasks.max_tasks",
            &mut out,
        );
        cap(
            &mut self.max_output_bytes,
            d.max_output_bytes as u64,
            "tasks.max_output_bytes",
            &mut out,
        );
        cap(
            &mut self.max_wait_ms,
            d.max_wait.as_millis() as u64,
            "tasks.max_wait_ms",
            &mut out,
        );
        out
    }
}

impl TerminalsConfig {
    /// The caps: the defaults with the set fields applied.
    pub fn limits(&self) -> TerminalLimits {
        let d = TerminalLimits::default();
        TerminalLimits {
            max_terminals: self.max_terminals.map_or(d.max_terminals, size),
            scrollback_bytes: self.scrollback_bytes.map_or(d.scrollback_bytes, size),
            idle_timeout: self
                .idle_timeout_ms
                .map_or(d.idle_timeout, Duration::from_millis),
            max_lifetime: self
                .max_lifetime_ms
                .map_or(d.max_lifetime, Duration::from_millis),
        }
    }

    /// Drop the values above the defaults (an untrusted file may only lower them); say which.
    pub(super) fn narrow(&mut self) -> Vec<String> {
        let d = TerminalLimits::default();
        let mut out = Vec::new();
        let t = "terminals.";
        cap(
            &mut self.max_terminals,
            d.max_terminals as u64,
            &format!("{t}max_terminals"),
            &mut out,
        );
        cap(
            &mut self.scrollback_bytes,
            d.scrollback_bytes as u64,
            &format!("{t}scrollback_bytes"),
            &mut out,
        );
        cap(
            &mut self.idle_timeout_ms,
            d.idle_timeout.as_millis() as u64,
            &format!("{t}idle_timeout_ms"),
            &mut out,
        );
        cap(
            &mut self.max_lifetime_ms,
            d.max_lifetime.as_millis() as u64,
            &format!("{t}max_lifetime_ms"),
            &mut out,
        );
        out
    }
}

fn cap(value: &mut Option<u64>, default: u64, key: &str, dropped: &mut Vec<String>) {
    if let Some(v) = value.filter(|&v| v > default) {
        *value = None;
        dropped.push(format!("{key} = {v} (above the default {default})"));
    }
}

/// `[tasks]` as written, with positions for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTasks {
    max_tasks: Option<Spanned<u64>>,
    max_output_bytes: Option<Spanned<u64>>,
    max_wait_ms: Option<Spanned<u64>>,
}

/// `[terminals]` as written, with positions for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTerminals {
    max_terminals: Option<Spanned<u64>>,
    scrollback_bytes: Option<Spanned<u64>>,
    idle_timeout_ms: Option<Spanned<u64>>,
    max_lifetime_ms: Option<Spanned<u64>>,
}

/// `value`, refused when 0; the error is `(line, message)`.
fn positive(
    value: Option<Spanned<u64>>,
    key: &str,
    text: &str,
) -> Result<Option<u64>, (usize, String)> {
    match value {
        Some(v) if *v.get_ref() == 0 => Err((
            super::line_of(text, v.span().start),
            format!("{key} must be at least 1 (0 would refuse or drop everything)"),
        )),
        v => Ok(v.map(Spanned::into_inner)),
    }
}

impl RawTasks {
    pub(super) fn resolve(self, text: &str) -> Result<TasksConfig, (usize, String)> {
        Ok(TasksConfig {
            max_tasks: positive(self.max_tasks, "tasks.max_tasks", text)?,
            max_output_bytes: positive(self.max_output_bytes, "tasks.max_output_bytes", text)?,
            max_wait_ms: positive(self.max_wait_ms, "tasks.max_wait_ms", text)?,
        })
    }
}

impl RawTerminals {
    pub(super) fn resolve(self, text: &str) -> Result<TerminalsConfig, (usize, String)> {
        let t = "terminals.";
        Ok(TerminalsConfig {
            max_terminals: positive(self.max_terminals, &format!("{t}max_terminals"), text)?,
            scrollback_bytes: positive(
                self.scrollback_bytes,
                &format!("{t}scrollback_bytes"),
                text,
            )?,
            idle_timeout_ms: positive(self.idle_timeout_ms, &format!("{t}idle_timeout_ms"), text)?,
            max_lifetime_ms: positive(self.max_lifetime_ms, &format!("{t}max_lifetime_ms"), text)?,
        })
    }
}
