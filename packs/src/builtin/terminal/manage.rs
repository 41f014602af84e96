//! `terminal_list`, `terminal_signal` and `terminal_close`.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::answer::{cwd_spec, session_param, session_spec};
use super::io::find;
use super::Terminal;
use crate::builtin::background::Background;
use crate::builtin::shared::invalid_args;
use crate::builtin::tasks::tools::{note_spec, with_note};
use crate::builtin::workspace::Workspace;
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

/// How long `terminal_close` waits for the processes to be gone.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

fn state_spec() -> ValueSpec {
    ValueSpec::string()
        .describe("killed: by a signal; closed: by ptc.")
        .enum_values(["running", "exited", "killed", "closed"].map(|s| json!(s)))
}

#[derive(Deserialize)]
struct NoArgs {}

#[derive(Serialize)]
struct Entry {
    #[serde(rename = "sessionId")]
    session_id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    cwd: String,
    state: &'static str,
    status: String,
    age_ms: u64,
    idle_ms: u64,
    unread_bytes: u64,
}

fn entry(term: &Terminal, ws: &Workspace) -> Entry {
    let idle = term.lock().last_used.elapsed();
    Entry {
        session_id: term.id.clone(),
        kind: term.backend,
        name: term.name.clone(),
        cwd: term.cwd_now(ws),
        state: term.state_name(),
        status: term.status_line(),
        age_ms: term.started.elapsed().as_millis() as u64,
        idle_ms: idle.as_millis() as u64,
        unread_bytes: term.unread(),
    }
}

#[derive(Serialize)]
struct ListOutput {
    terminals: Vec<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// `terminal_list`.
pub(crate) fn list_tool(bg: Background) -> ToolDefinition {
    ToolDefinition::builder("terminal_list")
        .description("List persistent terminal sessions owned by the current agent.")
        .code_description("Your terminals.")
        .parameters(ParameterSpec::new())
        .output(
            ValueSpec::object(false)
                .required_property(
                    "terminals",
                    ValueSpec::array(
                        ValueSpec::object(false)
                            .required_property("sessionId", session_spec())
                            .required_property("type", ValueSpec::string())
                            .property("name", ValueSpec::string())
                            .required_property("cwd", cwd_spec())
                            .required_property("state", state_spec())
                            .required_property("status", ValueSpec::string())
                            .required_property("age_ms", ValueSpec::integer())
                            .required_property("idle_ms", ValueSpec::integer())
                            .required_property("unread_bytes", ValueSpec::integer()),
                    )
                    .describe("Oldest first."),
                )
                .property("note", note_spec()),
        )
        .concurrency_safe(true)
        .execute(move |_: NoArgs, ctx| {
            let owner = bg.owner(&ctx);
            let note = bg.terminals.owned().scope_note(
                &owner,
                "terminal_send, terminal_read, terminal_signal, terminal_close",
            );
            let terminals = bg
                .terminals
                .owned()
                .list(&owner)
                .iter()
                .map(|t| entry(t, &bg.ws))
                .collect();
            async move { Ok::<_, ToolError>(ListOutput { terminals, note }) }
        })
        .render(|_, value| {
            let terms = value["terminals"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            if terms.is_empty() {
                return vec![ContentBlock::text(with_note("No terminals.", value))];
            }
            let lines: Vec<String> = terms
                .iter()
                .map(|t| {
                    format!(
                        "{}  {}{}  {}  cwd {}  idle {:.1}s  ({} unread bytes)",
                        t["sessionId"].as_str().unwrap_or_default(),
                        t["type"].as_str().unwrap_or_default(),
                        t["name"]
                            .as_str()
                            .map(|n| format!(" \"{n}\""))
                            .unwrap_or_default(),
                        t["status"].as_str().unwrap_or_default(),
                        t["cwd"].as_str().unwrap_or_default(),
                        t["idle_ms"].as_f64().unwrap_or_default() / 1e3,
                        t["unread_bytes"],
                    )
                })
                .collect();
            vec![ContentBlock::text(with_note(&lines.join("\n"), value))]
        })
        .build()
        .expect("the terminal_list definition is valid")
}

/// What `terminal_signal` sends: the signals the kernel delivers through a PTY's master side
/// to its foreground group (`TIOCSIG`), the only way that never signals a group by number.
const SIGNALS: [&str; 3] = ["SIGINT", "SIGQUIT", "SIGTSTP"];

#[derive(Deserialize)]
struct SignalArgs {
    #[serde(rename = "sessionId")]
    session_id: String,
    signal: String,
}

#[derive(Serialize)]
struct SignalOutput {
    #[serde(rename = "sessionId")]
    session_id: String,
    signal: String,
    shell: bool,
}

/// `terminal_signal`.
pub(crate) fn signal_tool(bg: Background) -> ToolDefinition {
    ToolDefinition::builder("terminal_signal")
        .description(
            "Send an allowed signal to the current foreground process group of a persistent \
             terminal (as the terminal's own Ctrl-C, Ctrl-\\ and Ctrl-Z would). To end a job \
             that survives them, stop it (SIGTSTP) and kill it from the shell (`kill -KILL %1`), \
             or use terminal_close.",
        )
        .code_description(
            "Signal a terminal's foreground job. If it survives: SIGTSTP, then `kill -KILL %1` \
             in the shell, or terminal_close.",
        )
        .parameters(
            ParameterSpec::new()
                .required("sessionId", session_param())
                .required(
                    "signal",
                    ValueSpec::string()
                        .describe(
                            "Signal to deliver. Shell-targeted SIGQUIT is rejected; use \
                             terminal_close.",
                        )
                        .enum_values(SIGNALS.map(|s| json!(s))),
                ),
        )
        .output(
            ValueSpec::object(false)
                .required_property("sessionId", session_spec())
                .required_property("signal", ValueSpec::string())
                .required_property(
                    "shell",
                    ValueSpec::boolean().describe("No job ran: the backend got it."),
                ),
        )
        .concurrency_safe(false)
        .execute(move |args: SignalArgs, ctx| {
            let owner = bg.owner(&ctx);
            let found = find(&bg, &owner, &args.session_id);
            async move {
                let term = found?;
                let signal: Signal = args
                    .signal
                    .parse()
                    .ok()
                    .filter(|_| SIGNALS.contains(&args.signal.as_str()))
                    .ok_or_else(|| {
                        invalid_args(format!("`signal` `{}` is not allowed", args.signal))
                    })?;
                if !term.is_running() {
                    return Err(ToolError::new(format!(
                        "terminal {} is no longer running ({})",
                        args.session_id,
                        term.status_line()
                    )));
                }
                let shell = term.shell_in_foreground().ok_or_else(|| {
                    ToolError::new("the terminal has no foreground process group")
                })?;
                if shell && signal == Signal::SIGQUIT {
                    return Err(ToolError::new(
                        "SIGQUIT would end the terminal's shell itself (no job is running in \
                         the foreground); use terminal_close",
                    ));
                }
                term.signal_foreground(signal).map_err(ToolError::new)?;
                Ok::<_, ToolError>(SignalOutput {
                    session_id: args.session_id,
                    signal: args.signal,
                    shell,
                })
            }
        })
        .render(|_, value| {
            let target = if value["shell"] == true {
                "the terminal's shell"
            } else {
                "the foreground job"
            };
            vec![ContentBlock::text(format!(
                "Sent {} to {target} of {}. Read what it printed with terminal_read.",
                value["signal"].as_str().unwrap_or_default(),
                value["sessionId"].as_str().unwrap_or_default(),
            ))]
        })
        .build()
        .expect("the terminal_signal definition is valid")
}

#[derive(Deserialize)]
struct CloseArgs {
    #[serde(rename = "sessionId")]
    session_id: String,
}

#[derive(Serialize)]
struct CloseOutput {
    #[serde(rename = "sessionId")]
    session_id: String,
    status: String,
    gone: bool,
    waited_ms: u64,
}

/// `terminal_close`.
pub(crate) fn close_tool(bg: Background) -> ToolDefinition {
    ToolDefinition::builder("terminal_close")
        .description(
            "Close one persistent terminal and wait until its captured owned process tree is \
             gone.",
        )
        .code_description("Close a terminal; waits until its processes are gone.")
        .parameters(ParameterSpec::new().required("sessionId", session_param()))
        .output(
            ValueSpec::object(false)
                .required_property("sessionId", session_spec())
                .required_property("status", ValueSpec::string())
                .required_property(
                    "gone",
                    ValueSpec::boolean().describe("All its processes ended."),
                )
                .required_property("waited_ms", ValueSpec::integer()),
        )
        .concurrency_safe(false)
        .execute(move |args: CloseArgs, ctx| {
            let owner = bg.owner(&ctx);
            let found = find(&bg, &owner, &args.session_id);
            let store = bg.terminals.owned().clone();
            async move {
                let term = found?;
                let start = Instant::now();
                term.close("closed by terminal_close");
                let gone = term.gone(CLOSE_GRACE).await;
                if gone {
                    store.remove(&owner, &args.session_id);
                }
                Ok::<_, ToolError>(CloseOutput {
                    session_id: args.session_id,
                    status: term.status_line(),
                    gone,
                    waited_ms: start.elapsed().as_millis() as u64,
                })
            }
        })
        .render(|_, value| {
            let id = value["sessionId"].as_str().unwrap_or_default();
            let text = if value["gone"] == true {
                format!("Closed {id}; its processes are gone.")
            } else {
                format!("Closing {id}: its processes did not all end in time.")
            };
            vec![ContentBlock::text(format!(
                "{text}\n[status: {}]",
                value["status"].as_str().unwrap_or_default()
            ))]
        })
        .build()
        .expect("the terminal_close definition is valid")
}
