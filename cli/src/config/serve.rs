//! `[serve]`: how `ptc serve` bounds what clients can make it do, and its HTTP token.
//!
//! ```toml
//! [serve]
//! max_connections = 128          # HTTP connections open at once (more wait in the backlog)
//! max_sessions = 64              # MCP sessions (HTTP); beyond: 503 with a JSON-RPC error
//! session_idle_timeout_ms = 300000
//! max_concurrent_runs = 8        # tools/call running at once (stdio and HTTP)
//! max_queued_runs = 64           # waiting for a slot; beyond: a "busy" tool error (0: never wait)
//! header_timeout_ms = 10000      # to receive a request's headers, and again its body
//! idle_timeout_ms = 120000       # an HTTP connection with no byte moving is closed
//! max_request_bytes = 4194304    # an HTTP body or a stdio line
//! approval_timeout_ms = 120000   # how long an approval asked through the client may take
//! handle_idle_timeout_ms = 600000 # a task/terminal of a request without a session, unused
//! token_file = "secrets/ptc-token"   # bearer token for --http (relative to this file)
//! ```
//!
//! Every number but `max_queued_runs` must be at least 1; unset keys keep
//! [`ServeLimits`]'s defaults.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use ptc_mcp::ServeLimits;

/// The `[serve]` table; unset fields keep the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServeConfig {
    /// See [`ServeLimits::max_connections`].
    pub max_connections: Option<usize>,
    /// See [`ServeLimits::max_sessions`].
    pub max_sessions: Option<usize>,
    /// See [`ServeLimits::session_idle_timeout`], in milliseconds.
    pub session_idle_timeout_ms: Option<u64>,
    /// See [`ServeLimits::max_concurrent_runs`].
    pub max_concurrent_runs: Option<usize>,
    /// See [`ServeLimits::max_queued_runs`].
    pub max_queued_runs: Option<usize>,
    /// See [`ServeLimits::header_timeout`], in milliseconds.
    pub header_timeout_ms: Option<u64>,
    /// See [`ServeLimits::idle_timeout`], in milliseconds.
    pub idle_timeout_ms: Option<u64>,
    /// See [`ServeLimits::max_request_bytes`].
    pub max_request_bytes: Option<usize>,
    /// See [`ServeLimits::approval_timeout`], in milliseconds.
    pub approval_timeout_ms: Option<u64>,
    /// See [`ServeLimits::handle_idle_timeout`], in milliseconds.
    pub handle_idle_timeout_ms: Option<u64>,
    /// The bearer token file for `--http`, resolved against the configuration's folder.
    pub token_file: Option<PathBuf>,
}

impl ServeConfig {
    /// Apply the set fields to `limits`.
    pub fn apply(&self, limits: &mut ServeLimits) {
        let ms = Duration::from_millis;
        set(&mut limits.max_connections, self.max_connections);
        set(&mut limits.max_sessions, self.max_sessions);
        set(
            &mut limits.session_idle_timeout,
            self.session_idle_timeout_ms.map(ms),
        );
        set(&mut limits.max_concurrent_runs, self.max_concurrent_runs);
        set(&mut limits.max_queued_runs, self.max_queued_runs);
        set(&mut limits.header_timeout, self.header_timeout_ms.map(ms));
        set(&mut limits.idle_timeout, self.idle_timeout_ms.map(ms));
        set(&mut limits.max_request_bytes, self.max_request_bytes);
        set(
            &mut limits.approval_timeout,
            self.approval_timeout_ms.map(ms),
        );
        set(
            &mut limits.handle_idle_timeout,
            self.handle_idle_timeout_ms.map(ms),
        );
    }
}

fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *field = value;
    }
}

/// `[serve]` as written, with the position of each value for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawServe {
    max_connections: Option<Spanned<usize>>,
    max_sessions: Option<Spanned<usize>>,
    session_idle_timeout_ms: Option<Spanned<u64>>,
    max_concurrent_runs: Option<Spanned<usize>>,
    max_queued_runs: Option<Spanned<usize>>,
    header_timeout_ms: Option<Spanned<u64>>,
    idle_timeout_ms: Option<Spanned<u64>>,
    max_request_bytes: Option<Spanned<usize>>,
    approval_timeout_ms: Option<Spanned<u64>>,
    handle_idle_timeout_ms: Option<Spanned<u64>>,
    token_file: Option<Spanned<PathBuf>>,
}

impl RawServe {
    /// Check every number is positive; resolve `token_file` against `dir`. The error is
    /// `(line, message)`.
    pub(super) fn resolve(
        self,
        text: &str,
        dir: Option<&Path>,
    ) -> Result<ServeConfig, (usize, String)> {
        fn positive<T: Copy + Default + PartialEq>(
            value: Option<Spanned<T>>,
            key: &str,
            text: &str,
        ) -> Result<Option<T>, (usize, String)> {
            match value {
                Some(v) if *v.get_ref() == T::default() => Err((
                    super::line_of(text, v.span().start),
                    format!("serve.{key} must be at least 1 (0 would refuse everything)"),
                )),
                v => Ok(v.map(Spanned::into_inner)),
            }
        }
        let token_file = match self.token_file {
            Some(path) if path.get_ref().as_os_str().is_empty() => {
                return Err((
                    super::line_of(text, path.span().start),
                    "serve.token_file is empty".into(),
                ))
            }
            Some(path) => {
                let path = path.into_inner();
                Some(match dir {
                    Some(dir) if path.is_relative() => dir.join(path),
                    _ => path,
                })
            }
            None => None,
        };
        Ok(ServeConfig {
            max_connections: positive(self.max_connections, "max_connections", text)?,
            max_sessions: positive(self.max_sessions, "max_sessions", text)?,
            session_idle_timeout_ms: positive(
                self.session_idle_timeout_ms,
                "session_idle_timeout_ms",
                text,
            )?,
            max_concurrent_runs: positive(self.max_concurrent_runs, "max_concurrent_runs", text)?,
            // 0 is meaningful: never wait, answer "busy" at once.
            max_queued_runs: self.max_queued_runs.map(Spanned::into_inner),
            header_timeout_ms: positive(self.header_timeout_ms, "header_timeout_ms", text)?,
            idle_timeout_ms: positive(self.idle_timeout_ms, "idle_timeout_ms", text)?,
            max_request_bytes: positive(self.max_request_bytes, "max_request_bytes", text)?,
            approval_timeout_ms: positive(self.approval_timeout_ms, "approval_timeout_ms", text)?,
            handle_idle_timeout_ms: positive(
                self.handle_idle_timeout_ms,
                "handle_idle_timeout_ms",
                text,
            )?,
            token_file,
        })
    }
}
