//! Structured tool errors: the seed's codes, the failure detail results carry, and the
//! error a tool body returns.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The seed's error codes, spelled exactly.
pub mod codes {
    /// No visible, executable tool has that name.
    pub const UNKNOWN_TOOL: &str = "UNKNOWN_TOOL";
    /// Arguments were not JSON or did not match the parameter schema.
    pub const INVALID_ARGS: &str = "INVALID_ARGS";
    /// The tool's value broke its declared output schema (or could not be rendered).
    pub const INVALID_TOOL_OUTPUT: &str = "INVALID_TOOL_OUTPUT";
    /// The caller cancelled while the call was dispatched.
    pub const ABORTED: &str = "ABORTED";
    /// The caller cancelled before the tool body was invoked.
    pub const ABORTED_BEFORE_DISPATCH: &str = "ABORTED_BEFORE_DISPATCH";
    /// A pre-execute policy, an approval or a guard denied the call.
    pub const TOOL_DENIED: &str = "TOOL_DENIED";
    /// The timeout policy stopped the call.
    pub const TOOL_TIMEOUT: &str = "TOOL_TIMEOUT";
    /// The tool body failed (returned an error or panicked).
    pub const TOOL_ERROR: &str = "TOOL_ERROR";
    /// A post-execute policy blocked the result with corrective feedback.
    pub const TOOL_BLOCKED: &str = "TOOL_BLOCKED";
    /// A `run_code` program failed.
    pub const CODE_RUN_FAILED: &str = "CODE_RUN_FAILED";
    /// A journaled run's sub-call was running when its instance stopped, and is not safe to
    /// repeat: it may or may not have happened.
    pub const IN_DOUBT: &str = "IN_DOUBT";
}

/// Structured error identity for a failed call, alongside the model-facing text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolErrorInfo {
    /// Error class name, e.g. `ToolArgsError`.
    pub name: String,
    /// One of [`codes`] (or a tool's own code).
    pub code: String,
    /// Raw user-facing detail; durable projections keep it, model-facing content does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ToolErrorInfo {
    /// Info with `name` and `code`, no reason.
    pub fn new(name: impl Into<String>, code: impl Into<String>) -> Self {
        ToolErrorInfo {
            name: name.into(),
            code: code.into(),
            reason: None,
        }
    }
}

/// Canonical failure detail of an error result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolFailure {
    /// Human-readable message without the `Error: ` envelope.
    pub message: String,
    /// Structured identity used by policy and diagnostics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<ToolErrorInfo>,
}

impl ToolFailure {
    /// A failure with a message and structured identity.
    pub fn new(message: impl Into<String>, name: &str, code: &str) -> Self {
        ToolFailure {
            message: message.into(),
            info: Some(ToolErrorInfo::new(name, code)),
        }
    }

    /// The structured code, if any.
    pub fn code(&self) -> Option<&str> {
        self.info.as_ref().map(|i| i.code.as_str())
    }

    /// `UNKNOWN_TOOL`: no visible tool is called `name`.
    pub fn unknown_tool(name: &str) -> Self {
        Self::new(
            format!("Unknown tool: {name}"),
            "ToolNotFoundError",
            codes::UNKNOWN_TOOL,
        )
    }

    /// `INVALID_ARGS` for tool `name` (see [`ToolError::invalid_args`]).
    pub fn invalid_args(name: &str, detail: impl fmt::Display) -> Self {
        ToolError::invalid_args(name, detail).into_failure()
    }

    /// `INVALID_TOOL_OUTPUT` for tool `name` (see [`ToolError::invalid_output`]).
    pub fn invalid_output(name: &str, detail: impl fmt::Display) -> Self {
        ToolError::invalid_output(name, detail).into_failure()
    }

    /// `ABORTED`: the call was cancelled after its body started.
    pub fn aborted() -> Self {
        Self::new("Tool call aborted", "AbortError", codes::ABORTED)
    }

    /// `ABORTED_BEFORE_DISPATCH`: the call was cancelled before its body started.
    pub fn aborted_before_dispatch() -> Self {
        Self::new(
            "Tool call aborted before dispatch",
            "AbortError",
            codes::ABORTED_BEFORE_DISPATCH,
        )
    }

    /// `TOOL_DENIED` with a model-facing reason (see [`ToolError::denied`]).
    pub fn denied(reason: impl Into<String>) -> Self {
        ToolError::denied(reason).into_failure()
    }
}

/// The error a tool body returns. Its message becomes the result's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// The message the model sees (after `Error: `).
    pub message: String,
    /// Optional structured identity; defaults to `Error` / `TOOL_ERROR`.
    pub info: Option<ToolErrorInfo>,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            info: None,
        }
    }

    /// `INVALID_ARGS`: `Invalid arguments for tool <name>: <detail>`.
    pub fn invalid_args(name: &str, detail: impl fmt::Display) -> Self {
        ToolError::new(format!("Invalid arguments for tool {name}: {detail}"))
            .with_info(ToolErrorInfo::new("ToolArgsError", codes::INVALID_ARGS))
    }

    /// `INVALID_TOOL_OUTPUT`: `Invalid output from tool <name>: <detail>`.
    pub fn invalid_output(name: &str, detail: impl fmt::Display) -> Self {
        ToolError::new(format!("Invalid output from tool {name}: {detail}")).with_info(
            ToolErrorInfo::new("ToolOutputError", codes::INVALID_TOOL_OUTPUT),
        )
    }

    /// `TOOL_DENIED`: the call is refused for a model-facing `reason`.
    pub fn denied(reason: impl Into<String>) -> Self {
        ToolError::new(reason).with_info(ToolErrorInfo::new("ToolDeniedError", codes::TOOL_DENIED))
    }

    /// Attach a structured identity.
    pub fn with_info(mut self, info: ToolErrorInfo) -> Self {
        self.info = Some(info);
        self
    }

    pub(crate) fn into_failure(self) -> ToolFailure {
        ToolFailure {
            message: self.message,
            info: Some(
                self.info
                    .unwrap_or_else(|| ToolErrorInfo::new("Error", codes::TOOL_ERROR)),
            ),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for ToolError {}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}
impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}
impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        ToolError::new(e.to_string())
    }
}
impl From<serde_json::Error> for ToolError {
    fn from(e: serde_json::Error) -> Self {
        ToolError::new(e.to_string())
    }
}

/// Errors from registry operations (registration, restriction, activation).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The definition is invalid (missing or unsupported output schema, bad timeout, ...).
    #[error("invalid tool definition `{name}`: {reason}")]
    InvalidDefinition {
        /// Tool name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A tool of that name is already registered in the same layer.
    #[error("tool `{0}` is already registered in this layer")]
    Duplicate(String),
    /// `run_code` is reserved for code mode.
    #[error("`run_code` is reserved for code mode and cannot be registered or restricted")]
    Reserved,
    /// The restriction is invalid.
    #[error("invalid restriction: {0}")]
    InvalidRestriction(String),
    /// A `when` condition failed, or resolution was cancelled.
    #[error("tool activation failed: {0}")]
    Activation(String),
}
