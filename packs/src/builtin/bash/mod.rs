//! `bash`: one `bash -c COMMAND` per call, in a fresh process group (`terminal` card).
//!
//! The shell runs in `workdir` (inside the workspace root; the root by default) with
//! standard input closed. Its stdout and stderr are read as they arrive: the value keeps
//! the tail of each (up to [`MAX_STREAM_BYTES`]; in a program, [`PROGRAM_STREAM_BYTES`]), the
//! model sees the tail of both
//! interleaved (up to [`MAX_CONTENT_BYTES`]; in a program, as much as both streams keep); in a
//! program, a cut `stdout` or `stderr` is said
//! through `ToolRunContext::cut_short`, and a command that failed through
//! `ToolRunContext::note_unless_read` (it stands if the program never reads `exit_code`,
//! `signal` or `stderr`). The whole process group is killed with
//! SIGKILL when the timeout expires, when the caller cancels, when the call's future is
//! dropped, and when the shell exits (so a command's background children never outlive
//! the call).
//!
//! `TMPDIR` is the calling owner's scratch directory (`scratch.rs`): one per owner, kept
//! across its calls, removed when it ends.
//!
//! With `run_in_background: true` the same command starts as a background task of the
//! calling session (see [`super::tasks`]) and the call returns its id at once.
//!
//! The working directory is confined to the root, and the command runs in the kernel
//! sandbox of [`crate::sandbox`] (unless the mode is `danger-full-access`): it reads
//! everything but the deny paths, writes only where the mode allows, has no network unless
//! allowed, and every process it starts dies with the call, `setsid` included. A failure that
//! looks like a refusal of the sandbox ends the result with
//! `[sandbox: file access denied under <mode> mode]` (or `network`); the value carries the
//! note as `sandbox`, and in a program the run's result says it at the call site
//! (`exit 1, likely the sandbox: …`), since a program that reads only `stdout` would miss it.

mod foreign;
mod tail;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::unistd::Pid;
use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::process::Command;

pub(crate) use tail::signal_name;
use tail::{pump, GroupGuard, Tail};

use super::background::Background;
use super::shared::{self, arg_str, invalid_args};
use super::tasks::{spawn, Resource};
use super::workspace::Workspace;
use crate::builtin::background::Caller;
use crate::sandbox::{Prepared, Sandbox, SandboxMode};
use ptc::presentation::{ToolCallView, ToolResultView};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::{codes, ToolError, ToolErrorInfo};

/// Timeout when `timeoutMs` is absent.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest timeout a call may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// Bytes of each stream the value keeps (the tail).
pub const MAX_STREAM_BYTES: usize = 1024 * 1024;
/// Bytes of interleaved output the model sees (the tail).
pub const MAX_CONTENT_BYTES: usize = 30_000;
/// Bytes kept of each stream in a program: twice the other tools' data cap, as a program's
/// commands often print the data they extract (a field cut from a 35 MB log is about 10 MB).
pub const PROGRAM_STREAM_BYTES: usize = 16 * 1024 * 1024;
/// How long to wait for the pipes to close after the group was killed.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

#[derive(Deserialize)]
struct Args {
    command: String,
    description: String,
    #[serde(rename = "timeoutMs")]
    timeout_ms: Option<f64>,
    workdir: Option<String>,
    run_in_background: Option<bool>,
}

#[derive(Serialize)]
struct Output {
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<String>,
    stdout: String,
    stderr: String,
    output: String,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<String>,
    /// What the stream caps cut from `stdout`/`stderr`, for a program's cut-short note.
    #[serde(skip)]
    cut_streams: Option<String>,
    /// Which streams had bytes that are not UTF-8, for a program's note.
    #[serde(skip)]
    not_utf8: Option<String>,
}

impl Output {
    /// A background start: only the task id.
    fn started(task_id: &str) -> Self {
        Output {
            exit_code: None,
            signal: None,
            stdout: String::new(),
            stderr: String::new(),
            output: String::new(),
            truncated: false,
            sandbox: None,
            task_id: Some(task_id.to_string()),
            cut_streams: None,
            not_utf8: None,
        }
    }
}

/// What the model is told about the sandbox of `mode`.
fn sandbox_sentence(mode: SandboxMode, network: bool) -> String {
    let net = if network {
        ""
    } else {
        " There is no network, not even localhost."
    };
    match mode {
        SandboxMode::WorkspaceWrite => format!(
            " Commands run sandboxed (workspace-write): they may read files outside the \
             workspace except credentials, and write only inside the workspace and $TMPDIR.{net}"
        ),
        SandboxMode::ReadOnly => format!(
            " Commands run sandboxed (read-only): they may read files except credentials, and \
             write only inside $TMPDIR.{net}"
        ),
        SandboxMode::DangerFullAccess => String::new(),
    }
}

/// For a program: a command the sandbox likely refused (`out.sandbox`), how it ended
/// and where it may write, e.g. `exit 1, likely the sandbox: file access denied under
/// workspace-write mode (write inside the workspace or $TMPDIR)`.
fn sandbox_note(out: &Output, mode: SandboxMode) -> Option<String> {
    let denied = out.sandbox.as_deref()?;
    let ended = match (out.exit_code, out.signal.as_deref()) {
        (Some(0), _) => "exit 0, yet stderr shows a refusal".to_string(),
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by {signal}"),
        (None, None) => "failed".to_string(),
    };
    let writable = match mode {
        SandboxMode::ReadOnly => " (write only inside $TMPDIR)",
        _ => " (write inside the workspace or $TMPDIR)",
    };
    let said: Vec<String> = denied
        .lines()
        .map(|line| match line {
            _ if line.starts_with("file") => format!("{line}{writable}"),
            _ if line.starts_with("network") => format!("{line} (no network here)"),
            // Another user's file (`foreign`): said whole.
            _ => line.to_string(),
        })
        .collect();
    Some(format!("{ended}, likely the sandbox: {}", said.join("; ")))
}

/// For a program: how a command that failed ended, with the first line of its stderr, said
/// unless the program reads `exit_code`, `signal` or `stderr` (a program that reads only
/// `stdout` would take a failure for an empty answer).
fn unread_failure_note(out: &Output) -> Option<String> {
    let (ended, fields) = match (out.exit_code, out.signal.as_deref()) {
        (Some(0), _) | (None, None) => return None,
        (Some(code), _) => (format!("exited with code {code}"), "exit_code or stderr"),
        // Killed, it has no exit_code: a program that tests `exit_code > 0` sees no failure.
        (None, Some(signal)) => (
            format!("was killed by {signal} (so it has no exit_code)"),
            "signal or stderr",
        ),
    };
    let stderr = match out.stderr.lines().find(|l| !l.trim().is_empty()) {
        Some(line) => format!("; stderr: {}", shared::cap_chars(line.trim(), 200)),
        None => "; stderr was empty".to_string(),
    };
    Some(format!(
        "the command {ended} and the program never read its {fields}{stderr}"
    ))
}

/// [`sandbox_sentence`], tersely, for the code-mode description.
fn sandbox_clause(mode: SandboxMode, network: bool) -> String {
    let net = if network {
        ""
    } else {
        "; no network (nor localhost)"
    };
    match mode {
        SandboxMode::WorkspaceWrite => format!(
            " Sandbox: reads all but credentials, writes only the workspace and $TMPDIR{net}."
        ),
        SandboxMode::ReadOnly => {
            format!(" Sandbox: reads all but credentials, writes only $TMPDIR{net}.")
        }
        SandboxMode::DangerFullAccess => String::new(),
    }
}

/// The `bash` tool.
pub(crate) fn tool(bg: Background) -> ToolDefinition {
    let sandbox = bg.sandbox.clone();
    ToolDefinition::builder("bash")
        .path_arguments(bg.ws.path_arguments(&[("workdir", Some("."))]))
        .description(format!(
            "Execute a bash command (`bash -c`) and return its stdout/stderr. Each call runs in a \
             fresh shell: no state (cwd, variables, functions) persists between calls — pass \
             `workdir` instead of using `cd`; files in `$TMPDIR` (your scratch directory) do. Non-zero exits are reported as `[exit code: N]`. \
             The working directory must be inside the workspace. Long output is truncated to \
             its tail. Processes a command leaves running are killed when it exits. Set \
             `run_in_background: true` for long-running commands: the call returns a task id \
             immediately; read its output with `task_output` and stop it with `task_kill`.{}",
            sandbox_sentence(sandbox.mode(), sandbox.network())
        ))
        .code_description(format!(
            "Run `bash -c COMMAND` in a fresh shell (only `$TMPDIR`'s files persist, for bash \
             alone; pass `workdir`, not `cd`). A non-zero exit is a result, not an error; a \
             timeout rejects with output so far. Its processes die with it. One call at a time, \
             even in Promise.all (parallel: `run_in_background`).{}",
            sandbox_clause(sandbox.mode(), sandbox.network())
        ))
        .parameters(
            ParameterSpec::new()
                .required(
                    "command",
                    ValueSpec::string().describe("The bash command to execute."),
                )
                .required(
                    "description",
                    ValueSpec::string().describe(
                        "Clear, concise description of what this command does in active voice, \
                         5-10 words (shown in the UI). Examples: \"ls\" → \"List files in \
                         current directory\"; \"git status\" → \"Show working tree status\"; \
                         \"npm install\" → \"Install package dependencies\".",
                    ),
                )
                .optional(
                    "timeoutMs",
                    ValueSpec::number().describe(
                        "Timeout in milliseconds. The executor applies its configured default \
                         and cap, and kills the command on expiry.",
                    ),
                )
                .optional(
                    "workdir",
                    ValueSpec::string().describe(
                        "Working directory for this command. Defaults to the session workspace; \
                         a relative path is resolved against it.",
                    ),
                )
                .optional(
                    "run_in_background",
                    ValueSpec::boolean().describe(
                        "Run in the background and return a task id immediately (collect with \
                         task_output, stop with task_kill).",
                    ),
                ),
        )
        .output(
            ValueSpec::object(false)
                // Absent when a signal ended it (`signal` says which).
                .property("exit_code", ValueSpec::integer())
                .property("signal", ValueSpec::string())
                .required_property(
                    "stdout",
                    ValueSpec::string().describe("Last 16 MiB at most; same for stderr."),
                )
                .required_property("stderr", ValueSpec::string())
                .required_property(
                    "output",
                    ValueSpec::string().describe("Both interleaved (their last 32 MiB)."),
                )
                .required_property("truncated", ValueSpec::boolean())
                .property(
                    "sandbox",
                    ValueSpec::string().describe("On a likely sandbox refusal."),
                )
                .property(
                    "task_id",
                    ValueSpec::string(),
                ),
        )
        .concurrency_safe(false)
        .execute(move |args: Args, ctx| {
            let bg = bg.clone();
            let owner = bg.owner(&ctx);
            let signal = ctx.signal().clone();
            async move {
                let out = run(&bg, owner, args, signal, ctx.in_program()).await?;
                if ctx.in_program() {
                    if let Some(cut) = out.cut_streams.clone() {
                        ctx.cut_short(cut);
                    }
                    let notes: Vec<String> = [sandbox_note(&out, bg.sandbox.mode())]
                        .into_iter()
                        .chain([out.not_utf8.clone()])
                        .flatten()
                        .collect();
                    if !notes.is_empty() {
                        ctx.note(notes.join("; "));
                    }
                    if let Some(note) = unread_failure_note(&out) {
                        ctx.note_unless_read(&["exit_code", "signal", "stderr"], note);
                    }
                }
                Ok(out)
            }
        })
        .render(|_, value| {
            if let Some(id) = value["task_id"].as_str() {
                return vec![ContentBlock::text(format!(
                    "Started background task {id}. Read its output with task_output, stop it \
                     with task_kill."
                ))];
            }
            let mut text = String::new();
            if value["truncated"] == true {
                text.push_str("[output truncated to its tail]\n");
            }
            let output = value["output"].as_str().unwrap_or_default();
            text.push_str(if output.is_empty() {
                "(no output)"
            } else {
                output
            });
            if let Some(code) = value["exit_code"].as_i64().filter(|&c| c != 0) {
                text.push_str(&format!("\n[exit code: {code}]"));
            }
            if let Some(signal) = value["signal"].as_str() {
                text.push_str(&format!("\n[killed by {signal}]"));
            }
            for note in value["sandbox"].as_str().unwrap_or_default().lines() {
                text.push_str(&format!("\n[sandbox: {note}]"));
            }
            vec![ContentBlock::text(text)]
        })
        .presentation_meta(|_, value| {
            Some(json!({"exitCode": value["exit_code"], "signal": value["signal"]}))
        })
        .present_call(|args| {
            Some(ToolCallView::Terminal {
                title: arg_str(args, "command")?.to_string(),
                description: arg_str(args, "description").map(str::to_string),
                cwd: arg_str(args, "workdir").map(str::to_string),
            })
        })
        .present_result(|_, result| {
            let meta = result.meta.as_ref().filter(|_| !result.is_error);
            Some(ToolResultView::Terminal {
                title: None,
                output: Some(shared::result_text(result)),
                exit_code: meta.and_then(|m| m["exitCode"].as_i64()),
                signal: meta.and_then(|m| m["signal"].as_str().map(str::to_string)),
            })
        })
        .build()
        .expect("the bash definition is valid")
}

enum End {
    Exited(ExitStatus),
    TimedOut(u64),
    Cancelled,
}

/// The working directory of a command, checked: inside the root, an existing directory, and
/// the sandbox can run commands here.
pub(super) fn workdir(
    ws: &Workspace,
    sandbox: &Sandbox,
    command: &str,
    workdir: Option<&str>,
) -> Result<PathBuf, ToolError> {
    if command.trim().is_empty() {
        return Err(invalid_args("`command` is empty"));
    }
    let dir = ws.resolve(workdir.unwrap_or("."), "workdir")?;
    if !dir.exists || !dir.path.is_dir() {
        return Err(ToolError::new(format!(
            "`workdir` `{}` is not an existing directory in the workspace.",
            workdir.unwrap_or(".")
        )));
    }
    if let Some(why) = sandbox.unavailable() {
        return Err(ToolError::new(why).with_info(ToolErrorInfo::new(
            "SandboxUnavailableError",
            codes::TOOL_DENIED,
        )));
    }
    Ok(dir.path)
}

/// `bash -c COMMAND` in `dir`, in a session and process group of its own (no controlling
/// terminal), standard input `/dev/null`, the streams piped, confined when `confinement`
/// says so.
pub(super) fn command(
    dir: &Path,
    command: &str,
    confinement: Option<&Prepared>,
) -> std::process::Command {
    let mut out = std::process::Command::new("bash");
    out.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own session (no controlling terminal) and process group, before the sandbox.
    crate::sandbox::detach(&mut out);
    if let Some(confinement) = confinement {
        confinement.apply(&mut out);
    }
    out
}

async fn run(
    bg: &Background,
    owner: Caller,
    args: Args,
    signal: tokio_util::sync::CancellationToken,
    in_program: bool,
) -> Result<Output, ToolError> {
    let (ws, sandbox) = (&bg.ws, &bg.sandbox);
    let dir = workdir(ws, sandbox, &args.command, args.workdir.as_deref())?;
    if args.run_in_background == Some(true) {
        let task = spawn::start(bg, &owner, dir, args.command, args.description).await?;
        return Ok(Output::started(task.id()));
    }
    let timeout = shared::whole_number(args.timeout_ms, "timeoutMs", DEFAULT_TIMEOUT_MS, 1)?
        .min(MAX_TIMEOUT_MS);
    // The owner's scratch directory is `TMPDIR`, kept across calls; held until this one ends.
    let scratch = bg
        .scratch
        .of(&owner.owner)
        .map_err(|e| ToolError::new(format!("cannot make the scratch directory for bash: {e}")))?;
    // Kept until the call ends: dropping it removes the command's private sandbox dir.
    let confinement = sandbox
        .prepare_with_tmp(Some(scratch.path()))
        .map_err(|e| ToolError::new(format!("cannot set up the sandbox for bash: {e}")))?;
    let mut command = command(&dir, &args.command, confinement.as_ref());
    command.env("TMPDIR", scratch.path());
    let mut child = Command::from(command)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ToolError::new(format!("cannot start bash: {e}")))?;
    let mut guard = GroupGuard {
        pgid: child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    };
    // In a program the streams are data: they keep the data cap, and `output` as much as
    // both do, so it is cut only when one of them is (and that is said).
    let (stream_bytes, both_bytes) = match in_program {
        true => (PROGRAM_STREAM_BYTES, 2 * PROGRAM_STREAM_BYTES),
        false => (MAX_STREAM_BYTES, MAX_CONTENT_BYTES),
    };
    let out = Arc::new(Mutex::new(Tail::new(stream_bytes)));
    let err = Arc::new(Mutex::new(Tail::new(stream_bytes)));
    let both = Arc::new(Mutex::new(Tail::new(both_bytes)));
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let readers = futures::future::join(
        pump(stdout, out.clone(), both.clone()),
        pump(stderr, err.clone(), both.clone()),
    );
    tokio::pin!(readers);
    let mut readers_done = false;
    // Read while waiting, so a chatty command never blocks on a full pipe.
    let end = loop {
        tokio::select! {
            status = child.wait() => break match status {
                Ok(status) => End::Exited(status),
                Err(e) => return Err(ToolError::new(format!("waiting for bash failed: {e}"))),
            },
            _ = &mut readers, if !readers_done => readers_done = true,
            _ = tokio::time::sleep(Duration::from_millis(timeout)) => break End::TimedOut(timeout),
            _ = signal.cancelled() => break End::Cancelled,
        }
    };
    // Whatever the outcome, nothing of the group survives the call.
    guard.kill();
    if !matches!(end, End::Exited(_)) {
        let _ = child.wait().await;
    }
    if !readers_done {
        // Killed processes close their pipe ends; a process that left the group could
        // keep one open, so the drain is bounded.
        let _ = tokio::time::timeout(DRAIN_GRACE, &mut readers).await;
    }
    // The group was killed and the shell reaped: never signal that pgid again.
    guard.pgid = None;
    let take = |tail: &Arc<Mutex<Tail>>| {
        let tail = std::mem::replace(
            &mut *tail.lock().unwrap_or_else(|e| e.into_inner()),
            Tail::new(0),
        );
        let seen = tail.seen();
        let (text, cut, not_utf8, decoded) = tail.text();
        (text, cut, seen, (not_utf8, decoded))
    };
    let (stdout, cut_out, seen_out, odd_out) = take(&out);
    let (stderr, cut_err, seen_err, odd_err) = take(&err);
    let (output, cut_both, _, _) = take(&both);
    let not_utf8: Vec<String> = [("stdout", odd_out), ("stderr", odd_err)]
        .into_iter()
        .filter_map(|(name, odd)| match odd {
            (_, Some((encoding, lines))) => Some(format!(
                "{name}: {} line(s) not in UTF-8 were decoded from {} (the encoding they are \
                 in, judged from their bytes)",
                crate::builtin::data_caps::thousands(lines as u64),
                encoding.name()
            )),
            (0, None) => None,
            (odd, None) => Some(format!(
                "{name} has {} bytes that are not UTF-8, shown as \u{FFFD}: text in \
                 another encoding (convert it, e.g. | iconv -f cp1252 -t utf-8)",
                crate::builtin::data_caps::thousands(odd as u64)
            )),
        })
        .collect();
    let cut_streams: Vec<String> = [("stdout", cut_out, seen_out), ("stderr", cut_err, seen_err)]
        .into_iter()
        .filter(|(_, cut, _)| *cut)
        .map(|(name, _, seen)| {
            format!(
                "{name}: the last {} of {}, from a line's start (redirect it to a file and \
                 read that)",
                shared::size(stream_bytes as u64),
                shared::size(seen)
            )
        })
        .collect();
    drop((confinement, scratch));
    match end {
        End::Exited(status) => Ok(Output {
            exit_code: status.code().map(i64::from),
            signal: status.signal().map(signal_name),
            sandbox: sandbox
                .denial_note(!status.success(), &stderr, &stdout)
                .map(|denied| foreign::explain(denied, ws.root(), &dir, &stderr)),
            stdout,
            stderr,
            output,
            truncated: cut_out || cut_err || cut_both,
            task_id: None,
            cut_streams: (!cut_streams.is_empty()).then(|| cut_streams.join("; ")),
            not_utf8: (!not_utf8.is_empty()).then(|| not_utf8.join("; ")),
        }),
        End::TimedOut(ms) => Err(ToolError::new(format!(
            "Command timed out after {ms} ms; its process group was killed. Output so far:\n{}",
            if output.is_empty() {
                "(no output)"
            } else {
                &output
            }
        ))
        .with_info(ToolErrorInfo::new("BashTimeoutError", codes::TOOL_ERROR))),
        End::Cancelled => Err(ToolError::new(
            "Command cancelled; its process group was killed.",
        )),
    }
}
