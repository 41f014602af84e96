//! How an MCP server is declared: `[[mcp]]` in `ptc.toml` or `--mcp 'NAME=COMMAND ARGS…'`.

use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;

use super::McpError;

/// One MCP server to start over stdio.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSpec {
    /// Namespace of its tools (`<name>__<tool>`): ASCII letters, digits, `-` and single `_`.
    pub name: String,
    /// The program to run.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment variables for the process.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// Per-call timeout in milliseconds (default [`McpServerSpec::DEFAULT_TIMEOUT`]);
    /// a call that outlives it is cancelled upstream and fails with `TOOL_TIMEOUT`.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Startup timeout in milliseconds (default [`McpServerSpec::DEFAULT_STARTUP_TIMEOUT`]):
    /// one budget for spawning the process, the `initialize` handshake and the first
    /// `tools/list`. A server that outlives it is killed and the error names the phase.
    #[serde(default)]
    pub startup_timeout_ms: Option<u64>,
    /// The directory the process starts in (`None`: ptc's own). A `ptc.toml` sets it to its own
    /// folder unless it says otherwise, so a server never starts in a workspace a program can
    /// write (where `npx` would prefer the workspace's `node_modules`, and `python` its modules).
    #[serde(default)]
    pub cwd: Option<std::path::PathBuf>,
}

impl McpServerSpec {
    /// The per-call timeout when none is configured.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

    /// The startup timeout when none is configured.
    pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

    /// A server running `command` with `args`, no extra environment, the default timeout.
    pub fn new(name: impl Into<String>, command: impl Into<String>, args: &[&str]) -> Self {
        McpServerSpec {
            name: name.into(),
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Default::default(),
            timeout_ms: None,
            startup_timeout_ms: None,
            cwd: None,
        }
    }

    /// The per-call timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(Self::DEFAULT_TIMEOUT)
    }

    /// The startup timeout (spawn, `initialize`, first `tools/list`).
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(Self::DEFAULT_STARTUP_TIMEOUT)
    }

    /// The command line, for messages.
    pub fn command_line(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .map(|part| shlex::try_quote(part).map_or_else(|_| part.into(), |q| q.into_owned()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Check the name and the command; the error names what is wrong.
    pub fn validate(&self) -> Result<(), McpError> {
        let invalid = |reason: &str| McpError::InvalidSpec {
            spec: self.name.clone(),
            reason: reason.into(),
        };
        if self.name.is_empty() {
            return Err(invalid("the server name is empty"));
        }
        if !self
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(invalid(
                "the server name may only hold ASCII letters, digits, `-` and `_`",
            ));
        }
        if self.name.contains(super::SEPARATOR) || self.name.ends_with('_') {
            return Err(invalid(
                "the server name may not contain `__` or end with `_` (it prefixes tool names as `<server>__<tool>`)",
            ));
        }
        if self.command.trim().is_empty() {
            return Err(invalid("the command is empty"));
        }
        if self.timeout_ms == Some(0) {
            return Err(invalid("timeout_ms must be positive"));
        }
        if self.startup_timeout_ms == Some(0) {
            return Err(invalid("startup_timeout_ms must be positive"));
        }
        Ok(())
    }
}

/// `NAME=COMMAND ARGS…`, the command split like a POSIX shell would (quotes, escapes).
impl FromStr for McpServerSpec {
    type Err = McpError;

    fn from_str(text: &str) -> Result<Self, McpError> {
        let invalid = |reason: &str| McpError::InvalidSpec {
            spec: text.into(),
            reason: reason.into(),
        };
        let (name, command) = text
            .split_once('=')
            .ok_or_else(|| invalid("expected NAME=COMMAND ARGS…"))?;
        let mut words = shlex::split(command)
            .ok_or_else(|| invalid("the command has an unterminated quote or escape"))?
            .into_iter();
        let program = words
            .next()
            .ok_or_else(|| invalid("the command is empty"))?;
        let spec = McpServerSpec {
            name: name.trim().to_string(),
            command: program,
            args: words.collect(),
            env: Default::default(),
            timeout_ms: None,
            startup_timeout_ms: None,
            cwd: None,
        };
        spec.validate().map_err(|e| match e {
            McpError::InvalidSpec { reason, .. } => invalid(&reason),
            other => other,
        })?;
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_name_command_and_quoted_args() {
        let spec: McpServerSpec = "fs=npx -y 'server fs' \"/tmp/a b\"".parse().unwrap();
        assert_eq!(spec.name, "fs");
        assert_eq!(spec.command, "npx");
        assert_eq!(spec.args, ["-y", "server fs", "/tmp/a b"]);
        assert_eq!(spec.timeout(), McpServerSpec::DEFAULT_TIMEOUT);
    }

    #[test]
    fn rejects_malformed_declarations_with_the_reason() {
        for (text, reason) in [
            ("no-equals-sign", "expected NAME=COMMAND"),
            ("x=", "the command is empty"),
            ("=node s.js", "the server name is empty"),
            ("a.b=node s.js", "may only hold"),
            ("a__b=node s.js", "may not contain `__`"),
            ("x=node 'unterminated", "unterminated quote"),
        ] {
            let err = text.parse::<McpServerSpec>().unwrap_err().to_string();
            assert!(err.contains(reason), "{text}: {err}");
            assert!(err.contains(text), "{text}: {err}");
        }
    }
}
