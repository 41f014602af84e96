//! `terminal_open`: a terminal running a backend, answered once it is ready.

use std::path::Path;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::answer::{answer, answer_spec, cwd_spec, render_answer, say_cut, Answer};
use super::pty::{self, Launch};
use super::settle::{settle, Wait, SILENCE};
use crate::builtin::background::Background;
use crate::builtin::shared::invalid_args;
use ptc::ToolDefinition;
use ptc::ToolError;

/// The backends: name, what runs, what the model is told.
const BACKENDS: &[(&str, &[&str], &str)] = &[
    ("shell", &[], "the user's $SHELL, else bash, interactive"),
    ("bash", &["bash", "-i"], "bash -i"),
    ("sh", &["sh", "-i"], "sh -i"),
    ("python", &["python3", "-i"], "python3 -i"),
    ("node", &["node", "-i"], "node -i"),
];

/// The command line a terminal of backend `kind` starts (`"bash -i"`, `"python3 -i"`, the
/// user's shell for `"shell"`), or `None` for an unknown backend: what policies on `bash`'s
/// `command` see of a `terminal_open`.
pub fn backend_command(kind: &str) -> Option<String> {
    argv(kind).ok().map(|(_, argv)| argv.join(" "))
}

/// The command line of backend `kind`.
fn argv(kind: &str) -> Result<(&'static str, Vec<String>), ToolError> {
    let Some((name, argv, _)) = BACKENDS.iter().find(|(name, ..)| *name == kind) else {
        let known: Vec<&str> = BACKENDS.iter().map(|(name, ..)| *name).collect();
        return Err(invalid_args(format!(
            "unknown terminal type `{kind}` (available: {})",
            known.join(", ")
        )));
    };
    if argv.is_empty() {
        let shell = std::env::var("SHELL")
            .ok()
            .filter(|s| Path::new(s).is_absolute() && Path::new(s).is_file())
            .unwrap_or_else(|| "bash".to_string());
        return Ok((name, vec![shell, "-i".to_string()]));
    }
    Ok((name, argv.iter().map(|s| s.to_string()).collect()))
}

#[derive(Deserialize)]
struct Args {
    #[serde(rename = "type")]
    kind: String,
    name: Option<String>,
    cwd: Option<String>,
}

#[derive(Serialize)]
struct Output {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    cwd: String,
    #[serde(flatten)]
    answer: Answer,
}

/// `terminal_open`.
pub(crate) fn open_tool(bg: Background) -> ToolDefinition {
    let backends: Vec<String> = BACKENDS
        .iter()
        .map(|(name, _, what)| format!("`{name}` ({what})"))
        .collect();
    let limits = *bg.terminals.limits();
    ToolDefinition::builder("terminal_open")
        .path_arguments(bg.ws.path_arguments(&[("cwd", Some("."))]))
        .description(format!(
            "Create a persistent, owner-isolated terminal session from a registered backend \
             type. Use this for shell or REPL state that must survive across tool calls. \
             Backends: {}. It runs in the same sandbox as bash, answers once the backend waits \
             for input, and is closed after {} ms without a terminal call on it (at most {} \
             open per session).",
            backends.join(", "),
            limits.idle_timeout.as_millis(),
            limits.max_terminals,
        ))
        .code_description(format!(
            "A terminal (sandboxed like bash) whose shell/REPL state lasts across calls; answers \
             once it waits for input. Closed after {} unused; ≤ {} open.",
            crate::builtin::shared::millis(limits.idle_timeout.as_millis()),
            limits.max_terminals,
        ))
        .parameters(
            ParameterSpec::new()
                .required(
                    "type",
                    ValueSpec::string()
                        .enum_values(BACKENDS.iter().map(|(name, ..)| json!(name)))
                        .describe("Registered terminal backend type, usually \"shell\"."),
                )
                .optional(
                    "name",
                    ValueSpec::string()
                        .describe("Optional owner-local display name such as \"main\" or \"gdb\"."),
                )
                .optional(
                    "cwd",
                    ValueSpec::string().describe(
                        "Initial working directory. Defaults to the deployment workspace root.",
                    ),
                ),
        )
        .output(answer_spec(
            ValueSpec::object(false)
                .required_property("type", ValueSpec::string())
                .property("name", ValueSpec::string())
                .required_property("cwd", cwd_spec()),
        ))
        .concurrency_safe(false)
        .execute(move |args: Args, ctx| {
            let bg = bg.clone();
            let owner = bg.owner(&ctx);
            let signal = ctx.signal().clone();
            async move {
                let (backend, argv) = argv(&args.kind)?;
                let cwd = args.cwd.as_deref().unwrap_or(".");
                let dir = bg.ws.resolve(cwd, "cwd")?;
                if !dir.exists || !dir.path.is_dir() {
                    return Err(ToolError::new(format!(
                        "`cwd` `{cwd}` is not an existing directory in the workspace."
                    )));
                }
                if let Some(why) = bg.sandbox.unavailable() {
                    return Err(ToolError::new(why));
                }
                let shown = match dir.display.as_str() {
                    "" => ".".to_string(),
                    shown => shown.to_string(),
                };
                let launch = Launch {
                    backend,
                    argv,
                    dir: dir.path,
                    cwd: shown.clone(),
                    name: args.name.clone(),
                };
                let term = pty::open(&bg, &owner, launch).await?;
                let wait = Wait {
                    since: 0,
                    timeout: Some(bg.tasks.limits().max_wait),
                    silence: Some(SILENCE),
                    any_output: false,
                    after_newline: false,
                };
                let until = settle(&term, &wait, &signal)
                    .await
                    .ok_or_else(|| ToolError::new("cancelled while the terminal started"))?;
                let answer = answer(&term, until.as_str());
                say_cut(&ctx, answer.dropped_bytes, None);
                Ok(Output {
                    kind: backend,
                    name: args.name,
                    cwd: shown,
                    answer,
                })
            }
        })
        .render(|_, value| render_answer(value, "opened"))
        .build()
        .expect("the terminal_open definition is valid")
}
