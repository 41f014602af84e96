//! What a finished run shows the model (behaviours 49–50).

use ptc_engine::{Left, LeftBehind, Note, RunReport};
use serde_json::Value;

use crate::definition::default_render;
use crate::error::{codes, ToolError, ToolErrorInfo};

/// Shown when a program neither printed nor returned anything.
pub(crate) const NO_OUTPUT: &str = "(run_code completed with no output)";

/// Console lines joined by newlines, then the returned value (a string raw, anything
/// else pretty JSON, or compact JSON where pretty-printing would take the text past
/// `max_output_bytes`: indentation grows with depth), then the run's notes (see `notes`),
/// then what became of the calls a successful program left behind. A failure becomes `code
/// run failed (<kind>): <message>`, then the `changes` its calls made before it (see
/// `Bridge::changes`), what became of its unfinished calls that may change something, its
/// notes, and the output captured so far; so does a program that ended before such a call
/// finished and not all of them happened (`left behind`): its output cannot be trusted to say
/// what was done.
pub(crate) fn run_result(
    report: RunReport,
    max_output_bytes: usize,
    failed: Failed<'_>,
) -> Result<Value, ToolError> {
    let notes = notes(&report.notes, report.notes_left_out);
    match report.outcome {
        Ok(value) => {
            let mut parts = report.logs;
            if let Some(value) = value {
                let logged: usize = parts.iter().map(|line| line.len() + 1).sum();
                let mut text = default_render(&value);
                if logged + text.len() > max_output_bytes {
                    text = ptc_schema::value::to_string_unbounded(&value);
                }
                parts.push(text);
            }
            // A change the program started and did not see through makes the run a failure:
            // the output (often "done") would say otherwise.
            let unfinished = report
                .left_behind
                .iter()
                .any(|call| (failed.may_change)(&call.tool) && unfinished(&call.left));
            if unfinished {
                let mut note = left_behind(&report.left_behind, failed.may_change);
                note.push_str(&notes);
                return Err(failure(
                    "left behind",
                    "calls that change things did not all happen, and the program ended \
                     without awaiting them",
                    &note,
                    &parts,
                ));
            }
            let mut text = if parts.is_empty() {
                NO_OUTPUT.to_string()
            } else {
                parts.join("\n")
            };
            text.push_str(&notes);
            text.push_str(&left_behind(&report.left_behind, failed.may_change));
            Ok(Value::String(text))
        }
        // A failed run is not silent: it says what happened, what was done, what was cut short.
        Err(run) => {
            let mut note = done_before(failed.changes);
            note.push_str(&stopped_calls(&report.left_behind, failed.may_change));
            note.push_str(&notes);
            let kind = run.kind.as_str();
            Err(failure(kind, &run.message, &note, &report.logs))
        }
    }
}

/// Whether a call left behind `left` may have done less than the program meant, or something
/// it cannot see: it failed, was stopped, did not start, or its end is unknown.
fn unfinished(left: &Left) -> bool {
    !matches!(left, Left::Completed | Left::Rejected(_))
}

/// What became of a call left behind, when `ended` ("the program ended", "the run stopped");
/// `changes`: its tool may change something (else a cut-off call only lost its result).
fn fate(left: &Left, ended: &str, changes: bool) -> String {
    let after = match changes {
        true => ": it may already have taken effect, so check before retrying",
        false => {
            " (it changes nothing, and code awaiting it never ran: call it again if you need it)"
        }
    };
    match left {
        Left::Pending => format!("was still running when {ended} and was cancelled{after}"),
        Left::Stopped => format!("was running when {ended} and was stopped{after}"),
        Left::NotStarted => "was cancelled before it started: it did not happen".into(),
        Left::Completed => {
            format!("completed, but {ended} before it used the result: code awaiting it never ran")
        }
        Left::Failed(message) => format!("failed and nothing awaited it: {message}"),
        Left::Rejected(reason) => format!(
            "a promise rejected and nothing handled it (an un-awaited async function?): {reason}"
        ),
    }
}

/// The note on calls a program left behind (empty when there are none).
fn left_behind(calls: &[LeftBehind], may_change: &dyn Fn(&str) -> bool) -> String {
    if calls.is_empty() {
        return String::new();
    }
    let mut note = String::from("\n[left behind when the program ended]");
    let lines = calls.iter().map(|call| {
        let what = fate(&call.left, "the program ended", may_change(&call.tool));
        match call.left {
            Left::Rejected(_) => what,
            _ => format!("{}{}{}: {what}", site_of(call), call.tool, subject_of(call)),
        }
    });
    push_counted(&mut note, lines);
    if calls.iter().any(|c| !matches!(c.left, Left::Rejected(_))) {
        note.push_str(
            "\n(await every call — for…of, or Promise.all over the calls — so the program sees \
             how each ends)",
        );
    }
    note
}

/// `lines` as a list, each run of equal lines once with its count (`- (×3) …`).
fn push_counted(note: &mut String, lines: impl Iterator<Item = String>) {
    let mut lines = lines.peekable();
    while let Some(line) = lines.next() {
        let mut count = 1;
        while lines.next_if_eq(&line).is_some() {
            count += 1;
        }
        match count {
            1 => note.push_str(&format!("\n- {line}")),
            _ => note.push_str(&format!("\n- (×{count}) {line}")),
        }
    }
}

/// The run's notes, one line each (empty when there are none): `[cut short] run_code.ts:3:15
/// grep: 10,000 of 23,456 matches (…)`, `[note] run_code.ts:4:12 m.file: …`, with how often
/// when the program hit one more than once, and how many were left out past the cap.
fn notes(notes: &[Note], left_out: usize) -> String {
    let mut text = String::new();
    for note in notes {
        let site = match note.site {
            Some((line, col)) => format!("run_code.ts:{line}:{col} "),
            None => String::new(),
        };
        text.push_str(&format!(
            "\n[{}] {site}{}: {}",
            note.kind.as_str(),
            note.subject,
            note.text
        ));
        if note.count > 1 {
            text.push_str(&format!(" ({} times)", note.count));
        }
    }
    if left_out > 0 {
        text.push_str(&format!("\n[note] … and {left_out} more notes"));
    }
    text
}

/// What a failed run's note draws on besides the engine's report.
pub(crate) struct Failed<'a> {
    /// What the run's calls that may change something did (see `Bridge::changes`).
    pub(crate) changes: &'a [String],
    /// Whether a tool's calls may change something (its calls are not concurrency-safe).
    pub(crate) may_change: &'a dyn Fn(&str) -> bool,
}

/// The note on what a failed run's calls changed before it failed (empty when nothing): a
/// retry of the whole program would do it again.
fn done_before(changes: &[String]) -> String {
    if changes.is_empty() {
        return String::new();
    }
    let mut note =
        String::from("\n[done before the failure, and not undone: check before retrying]");
    for change in changes {
        note.push_str("\n- ");
        note.push_str(change);
    }
    note
}

/// The note on calls of tools that `may_change` something that had not settled when a run
/// failed (empty when there are none): what may have taken effect, what did not happen.
fn stopped_calls(calls: &[LeftBehind], may_change: &dyn Fn(&str) -> bool) -> String {
    // A failed call is not listed: the run's failure is usually that very call's error.
    let mut stopped = calls
        .iter()
        .filter(|c| !matches!(c.left, Left::Rejected(_) | Left::Failed(_)))
        .filter(|c| may_change(&c.tool))
        .map(|call| {
            let what = fate(&call.left, "the run stopped", true);
            format!("{}{}{}: {what}", site_of(call), call.tool, subject_of(call))
        })
        .peekable();
    if stopped.peek().is_none() {
        return String::new();
    }
    let mut note = String::from("\n[not finished when the run stopped]");
    push_counted(&mut note, stopped);
    note
}

/// ` (file_path "src/a.ts")`: what the call worked on, or nothing.
fn subject_of(call: &LeftBehind) -> String {
    match &call.subject {
        Some(subject) => format!(" ({subject})"),
        None => String::new(),
    }
}

/// `run_code.ts:LINE:COL ` where the call is written, or nothing.
fn site_of(call: &LeftBehind) -> String {
    match call.site {
        Some((line, col)) => format!("run_code.ts:{line}:{col} "),
        None => String::new(),
    }
}

/// `text` cut to at most `max` characters: its head and its tail, with a notice of what was
/// cut and how to get less (the model-facing result cap).
pub(crate) fn cap_text(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let total = text.chars().count();
    if total <= max {
        return text.into();
    }
    let head = max * 3 / 5;
    let tail = max - head;
    let start_of_tail = text
        .char_indices()
        .nth(total - tail)
        .map_or(text.len(), |(at, _)| at);
    let end_of_head = text.char_indices().nth(head).map_or(0, |(at, _)| at);
    format!(
        "{}\n… [{} of {total} characters cut here: return or print less, or write large results \
         to a file with a tool and read back what you need] …\n{}",
        &text[..end_of_head],
        total - head - tail,
        &text[start_of_tail..]
    )
    .into()
}

/// The structured `CODE_RUN_FAILED` error for a failed run: `code run failed (<kind>):
/// <message>`, the `note` on what its calls did and what it cut short, then the output
/// captured so far.
pub(super) fn failure(kind: &str, message: &str, note: &str, output: &[String]) -> ToolError {
    let mut message = format!("code run failed ({kind}): {message}{note}");
    if !output.is_empty() {
        message.push_str("\nCaptured output:\n");
        message.push_str(&output.join("\n"));
    }
    ToolError::new(message).with_info(ToolErrorInfo::new("CodeRunError", codes::CODE_RUN_FAILED))
}

#[cfg(test)]
mod tests {
    use super::notes;
    use ptc_engine::{Note, NoteKind};

    #[test]
    fn notes_show_kind_site_subject_text_and_how_often() {
        let shown = notes(
            &[
                Note {
                    kind: NoteKind::CutShort,
                    site: Some((3, 15)),
                    subject: "grep".into(),
                    text: "10,000 of 23,456 matches (narrow the pattern)".into(),
                    count: 1,
                },
                Note {
                    kind: NoteKind::Note,
                    site: None,
                    subject: "file".into(),
                    text: "grep matches have no field file (they have path)".into(),
                    count: 4,
                },
            ],
            2,
        );
        assert_eq!(
            shown,
            "\n[cut short] run_code.ts:3:15 grep: 10,000 of 23,456 matches (narrow the pattern)\
             \n[note] file: grep matches have no field file (they have path) (4 times)\
             \n[note] … and 2 more notes"
        );
        assert_eq!(notes(&[], 0), "");
    }
}
