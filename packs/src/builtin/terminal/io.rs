//! `terminal_send` and `terminal_read`.

use std::sync::Arc;
use std::time::Duration;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};

use super::answer::{
    answer, answer_spec, render_answer, say_cut, session_param, status_of, Answer,
};
use super::settle::{settle, waiting_for_input, Until, Wait, SILENCE};
use super::{text, InUse, Terminal};
use crate::builtin::background::Background;
use crate::builtin::background::Caller;
use crate::builtin::data_caps::PROGRAM_MAX_ENTRIES;
use crate::builtin::shared;
use crate::builtin::tasks::{new_id, spawn_on_host, Control, Resource, Status, Task, TaskKind};
use ptc::ToolDefinition;
use ptc::ToolError;

/// The most lines one `terminal_read` returns (in a program: [`PROGRAM_MAX_ENTRIES`], which is
/// also its default `count` there).
const MAX_LINES: u64 = 2_000;

/// `owner`'s terminal `id`, in use until the guard is dropped.
pub(super) fn find(bg: &Background, owner: &Caller, id: &str) -> Result<InUse, ToolError> {
    let store = bg.terminals.owned();
    let term = store
        .get(owner, id, "terminal_list")
        .map_err(ToolError::new)?;
    Ok(term.in_use())
}

#[derive(Deserialize)]
struct SendArgs {
    #[serde(rename = "sessionId")]
    session_id: String,
    text: String,
    submit: Option<bool>,
    run_in_background: Option<bool>,
}

/// `terminal_send`.
pub(crate) fn send_tool(bg: Background) -> ToolDefinition {
    let cap = bg.tasks.limits().max_wait.as_millis();
    ToolDefinition::builder("terminal_send")
        .description(format!(
            "Send text to a persistent terminal. By default Enter is submitted and the call \
             waits for a prompt, stdin wait, output silence, timeout, or session exit. \
             Background mode returns a task id for task_output/task_kill. Here silence is {} \
             ms, the timeout {cap} ms; the answer is the output not read yet. Send control \
             characters as text with submit: false, e.g. \"\\u0003\" for Ctrl-C.",
            SILENCE.as_millis()
        ))
        .code_description(format!(
            "Send text to a terminal; waits for a prompt, an input read, {} of silence or \
             {}; answers the unread output. Ctrl-C: `text: \"\\u0003\", submit: false`.",
            shared::millis(SILENCE.as_millis()),
            shared::millis(cap)
        ))
        .parameters(
            ParameterSpec::new()
                .required("sessionId", session_param())
                .required(
                    "text",
                    ValueSpec::string().describe("UTF-8 text to write to the terminal."),
                )
                .optional(
                    "submit",
                    ValueSpec::boolean().describe(
                        "Submit Enter after text (default true). Set false for control \
                         characters or incomplete REPL input.",
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
        .output(answer_spec(ValueSpec::object(false)))
        .concurrency_safe(false)
        .execute(move |args: SendArgs, ctx| {
            let bg = bg.clone();
            let owner = bg.owner(&ctx);
            let signal = ctx.signal().clone();
            async move {
                let term = find(&bg, &owner, &args.session_id)?;
                if !term.is_running() {
                    return Err(ToolError::new(format!(
                        "terminal {} is no longer running ({}); open a new one",
                        args.session_id,
                        term.status_line()
                    )));
                }
                let mut bytes = args.text.clone().into_bytes();
                let submit = args.submit != Some(false);
                if submit {
                    bytes.push(b'\r');
                }
                let since = term.end();
                if args.run_in_background == Some(true) {
                    let task = background(&bg, &owner, &term, &args.text, submit)?;
                    term.write(&bytes, &signal).await?;
                    return Ok(Answer {
                        until: "background",
                        task_id: Some(task.id().to_string()),
                        ..status_of(&term)
                    });
                }
                term.write(&bytes, &signal).await?;
                let wait = Wait {
                    since,
                    timeout: Some(bg.tasks.limits().max_wait),
                    silence: Some(SILENCE),
                    any_output: false,
                    after_newline: submit,
                };
                let until = settle(&term, &wait, &signal)
                    .await
                    .ok_or_else(|| ToolError::new("cancelled while waiting for the terminal"))?;
                if matches!(until, Until::Silence | Until::Timeout) && !waiting_for_input(&term) {
                    // A slow command's output would come with the next send, taken for that
                    // one's (the eleventh fresh pass read one count as the other's).
                    let why = match until {
                        Until::Silence => format!(
                            "{} of silence is not its end",
                            shared::millis(SILENCE.as_millis())
                        ),
                        _ => "the wait timed out".to_string(),
                    };
                    ctx.note(format!(
                        "the command is still running ({why}): read the rest with terminal_read \
                         (wait: true) before sending more"
                    ));
                }
                let answer = answer(&term, until.as_str());
                say_cut(&ctx, answer.dropped_bytes, None);
                Ok(answer)
            }
        })
        .render(|_, value| render_answer(value, "sent"))
        .build()
        .expect("the terminal_send definition is valid")
}

/// A task that collects the terminal's output from now until it waits for input again (or
/// exits); killing it interrupts the terminal's foreground job.
fn background(
    bg: &Background,
    owner: &Caller,
    term: &Arc<Terminal>,
    text: &str,
    submit: bool,
) -> Result<Arc<Task>, ToolError> {
    let store = bg.tasks.owned();
    let limits = bg.tasks.limits();
    let weak = Arc::downgrade(term);
    let interrupt = Control::Interrupt(Box::new(move || {
        if let Some(term) = weak.upgrade() {
            let _ = term.signal_foreground(nix::sys::signal::Signal::SIGINT);
        }
    }));
    let first = text.lines().next().unwrap_or_default();
    let task = Arc::new(Task::new(
        new_id("task", &owner.owner),
        TaskKind::Terminal,
        format!(
            "terminal_send to {}: {}",
            term.id,
            shared::cap_chars(first, 80)
        ),
        limits.max_output_bytes,
        interrupt,
    ));
    store
        .insert(owner, task.clone(), limits.max_tasks)
        .map_err(ToolError::new)?;
    term.listen(&task);
    let since = term.end();
    let (term, watched, hold) = (term.clone(), task.clone(), owner.hold());
    spawn_on_host(async move {
        let wait = Wait {
            since,
            timeout: None,
            silence: None,
            any_output: false,
            after_newline: submit,
        };
        let why = match settle(&term, &wait, &watched.force).await {
            Some(Until::Exit) => format!("the terminal ended ({})", term.status_line()),
            Some(until) => format!("the terminal waits for input ({})", until.as_str()),
            None => "its session ended".to_string(),
        };
        watched.settle(Status::Settled(why), None);
        drop(hold);
    });
    Ok(task)
}

#[derive(Deserialize)]
struct ReadArgs {
    #[serde(rename = "sessionId")]
    session_id: String,
    offset: Option<f64>,
    count: Option<f64>,
    wait: Option<bool>,
    timeout_ms: Option<f64>,
}

#[derive(Serialize)]
struct ReadOutput {
    #[serde(flatten)]
    answer: Answer,
    lines: u64,
    skipped_lines: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    wait_capped_ms: Option<u64>,
}

/// `terminal_read`.
pub(crate) fn read_tool(bg: Background) -> ToolDefinition {
    let cap = bg.tasks.limits().max_wait.as_millis() as u64;
    ToolDefinition::builder("terminal_read")
        .description(format!(
            "Read a bounded page of retained output from a persistent terminal without sending \
             input. With offset 0 (the default) the page is the output not read yet (by \
             terminal_read or terminal_send), its newest `count` lines; `wait: true` first waits \
             for new output (at most {cap} ms). A positive offset re-reads older retained \
             output instead."
        ))
        .code_description(format!(
            "A terminal's unread output, newest `count` lines (`wait` ≤ {}).",
            shared::millis(cap.into())
        ))
        .parameters(
            ParameterSpec::new()
                .required("sessionId", session_param())
                .optional(
                    "offset",
                    ValueSpec::number().describe("Newest-relative line offset (default 0)."),
                )
                .optional(
                    "count",
                    ValueSpec::number()
                        .describe("Requested line count (default 500; backend caps apply)."),
                )
                .optional(
                    "wait",
                    ValueSpec::boolean().describe(
                        "With offset 0: when nothing is unread, block until new output \
                         settles, the terminal exits, or the timeout expires.",
                    ),
                )
                .optional(
                    "timeout_ms",
                    ValueSpec::number().describe(
                        "Max wait in milliseconds (only meaningful with wait: true). Defaults to \
                         the configured wait timeout; capped by the configured maximum.",
                    ),
                ),
        )
        .output(answer_spec(
            ValueSpec::object(false)
                .required_property("lines", ValueSpec::integer())
                .required_property(
                    "skipped_lines",
                    ValueSpec::integer().describe("Older lines not shown."),
                )
                .property("wait_capped_ms", ValueSpec::integer()),
        ))
        .concurrency_safe(true)
        .execute(move |args: ReadArgs, ctx| {
            let bg = bg.clone();
            let owner = bg.owner(&ctx);
            let signal = ctx.signal().clone();
            async move {
                let term = find(&bg, &owner, &args.session_id)?;
                let offset = shared::whole_number(args.offset, "offset", 0, 0)? as usize;
                // In a program the page is data: all the unread output, up to the data cap.
                let (default, most) = match ctx.in_program() {
                    true => (PROGRAM_MAX_ENTRIES as u64, PROGRAM_MAX_ENTRIES as u64),
                    false => (500, MAX_LINES),
                };
                let count = shared::whole_number(args.count, "count", default, 1)?.min(most);
                let max = bg.tasks.limits().max_wait;
                let mut wait_capped_ms = None;
                let mut until = "none";
                if args.wait == Some(true) && offset == 0 && term.unread() == 0 {
                    let asked = shared::whole_number(
                        args.timeout_ms,
                        "timeout_ms",
                        max.as_millis() as u64,
                        0,
                    )?;
                    if Duration::from_millis(asked) > max {
                        wait_capped_ms = Some(max.as_millis() as u64);
                    }
                    let wait = Wait {
                        since: term.end(),
                        timeout: Some(Duration::from_millis(asked).min(max)),
                        silence: None,
                        any_output: true,
                        after_newline: false,
                    };
                    until = settle(&term, &wait, &signal)
                        .await
                        .ok_or_else(|| ToolError::new("cancelled while waiting for output"))?
                        .as_str();
                }
                let (answer, skipped) = if offset == 0 {
                    let mut answer = answer(&term, until);
                    let (page, skipped) = text::page(&answer.output, 0, count as usize);
                    answer.output = page;
                    (answer, skipped)
                } else {
                    let (page, skipped) = text::page(&term.retained(), offset, count as usize);
                    let answer = Answer {
                        output: page,
                        ..status_of(&term)
                    };
                    (answer, skipped)
                };
                let lines = answer.output.split_inclusive('\n').count() as u64;
                let unread = (offset == 0).then_some((skipped as u64, lines));
                say_cut(&ctx, answer.dropped_bytes, unread);
                Ok(ReadOutput {
                    answer,
                    lines,
                    skipped_lines: skipped as u64,
                    wait_capped_ms,
                })
            }
        })
        .render(|_, value| render_answer(value, "read"))
        .build()
        .expect("the terminal_read definition is valid")
}
