//! Tool modes: how the model is offered tools.

use std::fmt;
use std::str::FromStr;

/// How a scope's tools reach the model.
///
/// - `Native`: every visible tool schema, no `run_code`, no SDK, no engine needed.
/// - `Code`: only `run_code`, plus code-only guidance and the SDK; a direct call to any
///   other tool fails as `UNKNOWN_TOOL` with a hint.
/// - `Both`: the native schemas plus `run_code` (last), and the SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolMode {
    /// One tool call per model step.
    Native,
    /// Programs only.
    Code,
    /// Native calls and programs.
    Both,
}

impl ToolMode {
    /// `"native"`, `"code"` or `"both"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolMode::Native => "native",
            ToolMode::Code => "code",
            ToolMode::Both => "both",
        }
    }

    /// Whether `run_code` is offered.
    pub fn offers_run_code(&self) -> bool {
        !matches!(self, ToolMode::Native)
    }
}

impl fmt::Display for ToolMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ToolMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "native" => Ok(ToolMode::Native),
            "code" => Ok(ToolMode::Code),
            "both" => Ok(ToolMode::Both),
            other => Err(format!(
                "unknown mode `{other}`: expected native, code or both"
            )),
        }
    }
}
