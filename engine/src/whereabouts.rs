//! Where a program was when a limit stopped it: a timeout or the heap cap names the line it
//! was computing at, or the tool calls (or timer) it was waiting for, so the model can tell a
//! loop that never ends from a call that takes too long.

use crate::{diagnostic::Source, FailureKind, RunFailure};

/// Tool calls named at most in a failure (the rest are counted).
const MAX_NAMED: usize = 3;

/// What the program was doing when it was stopped.
pub(crate) enum Whereabouts<'a> {
    /// Running its own code (neither engine can say where cheaply: QuickJS records a frame's
    /// position only at some calls, V8 stops without a stack).
    Computing,
    /// Waiting at the event loop for these tool calls (name, running position of the call)
    /// and this many timers.
    Waiting {
        calls: &'a [(String, Option<(usize, usize)>)],
        timers: usize,
    },
}

/// Add to a timeout's or memory failure's message where the program was (other failures say
/// where already, or are not about a place).
pub(crate) fn locate(failure: &mut RunFailure, whereabouts: Whereabouts<'_>, source: &Source<'_>) {
    if !matches!(failure.kind, FailureKind::Timeout | FailureKind::Memory) {
        return;
    }
    let hint = match failure.kind {
        FailureKind::Timeout => " (a loop that does not end?)",
        _ => "",
    };
    let said = match whereabouts {
        Whereabouts::Computing => {
            format!(" while the program was computing, not waiting for a tool call{hint}")
        }
        Whereabouts::Waiting { calls, timers } => waiting(calls, timers, source),
    };
    failure.message.push_str(&said);
}

/// ` while the program waited for …` (empty when it waited for nothing known).
fn waiting(
    calls: &[(String, Option<(usize, usize)>)],
    timers: usize,
    source: &Source<'_>,
) -> String {
    let named: Vec<String> = calls
        .iter()
        .take(MAX_NAMED)
        .map(|(tool, site)| match site {
            Some((line, col)) => format!("tools.{tool} (called at {})", source.at(*line, *col).0),
            None => format!("tools.{tool}"),
        })
        .collect();
    let mut said = match (named.len(), calls.len()) {
        (0, _) if timers > 0 => return " while the program waited for a timer".into(),
        (0, _) => return String::new(),
        (1, 1) => format!(" while the program waited for {}", named[0]),
        (n, total) if total > n => format!(
            " while the program waited for {total} tool calls: {}, and {} more",
            named.join(", "),
            total - n
        ),
        (_, total) => format!(
            " while the program waited for {total} tool calls: {}",
            named.join(", ")
        ),
    };
    if let Some(&(line, col)) = calls.first().and_then(|(_, site)| site.as_ref()) {
        let (_, line, col) = source.at(line, col);
        said.push_str(&source.snippet(line, col));
    }
    said
}
