//! When a terminal has answered: it shows a prompt, its foreground process waits for input,
//! its output went silent, the timeout passed, or it exited.
//!
//! "Waits for input" is read from `/proc`: the foreground process group's leader sleeps in a
//! terminal read, `select`, `poll` or `epoll` wait. A prompt is the last line of new output,
//! unterminated, ending in `$`, `#`, `%` or `>` (a space may follow), or in `:`, `?`, `)`,
//! `]` or `...` followed by a space. Either counts only once new output arrived and then
//! stayed quiet ([`SETTLE`] for a prompt, longer for an input wait without one), and, after a
//! submitted line, only once the line's echo ended (a newline arrived): a line editor
//! redrawing a long line is not a prompt.

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::Terminal;

/// Quiet needed after new output before a prompt counts.
pub(super) const SETTLE: Duration = Duration::from_millis(15);
/// Quiet needed after new output before an input wait without a prompt counts: a REPL that
/// evaluates asynchronously (node's) sleeps in `epoll_wait` between a line's echo and its
/// result, and on a busy machine 15 ms of that passed before the result came.
const INPUT_SETTLE: Duration = Duration::from_millis(250);
/// Silence after which `terminal_send` returns anyway.
pub(super) const SILENCE: Duration = Duration::from_secs(2);
/// How often an input wait is looked for while nothing is written.
const POLL: Duration = Duration::from_millis(50);

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Until {
    Prompt,
    Input,
    Output,
    Silence,
    Timeout,
    Exit,
}

impl Until {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Until::Prompt => "prompt",
            Until::Input => "input",
            Until::Output => "output",
            Until::Silence => "silence",
            Until::Timeout => "timeout",
            Until::Exit => "exit",
        }
    }
}

/// What to wait for.
pub(super) struct Wait {
    /// Output after this position is new.
    pub(super) since: u64,
    /// At most this long.
    pub(super) timeout: Option<Duration>,
    /// Return after this long without output.
    pub(super) silence: Option<Duration>,
    /// Return once any new output arrived and settled (no prompt or input wait needed).
    pub(super) any_output: bool,
    /// A prompt or an input wait counts only after a newline (a line was submitted).
    pub(super) after_newline: bool,
}

/// Wait as `wait` says; `None` when `signal` fired first.
pub(super) async fn settle(
    term: &Terminal,
    wait: &Wait,
    signal: &CancellationToken,
) -> Option<Until> {
    let start = Instant::now();
    let deadline = wait.timeout.map(|t| start + t);
    let (mut scanned, mut newline) = (wait.since, !wait.after_newline);
    loop {
        let mut changed = term.changed.subscribe();
        let (end, last_output, running) = {
            let state = term.lock();
            (
                state.ring.end(),
                state.last_output,
                state.status == super::TermStatus::Running,
            )
        };
        if !running || term.finished.is_cancelled() {
            return Some(Until::Exit);
        }
        let now = Instant::now();
        let mut wake = deadline.unwrap_or(now + Duration::from_secs(3600));
        if !newline {
            newline = term.has_newline(scanned);
            scanned = end;
        }
        if end > wait.since {
            let quiet = now.saturating_duration_since(last_output);
            if quiet >= SETTLE && !newline {
                wake = wake.min(now + POLL);
            } else if quiet >= SETTLE {
                if wait.any_output {
                    return Some(Until::Output);
                }
                if is_prompt(&term.tail_since(wait.since)) {
                    return Some(Until::Prompt);
                }
                if quiet >= INPUT_SETTLE && waiting_for_input(term) {
                    return Some(Until::Input);
                }
                wake = wake.min(now + POLL);
            } else {
                wake = wake.min(last_output + SETTLE);
            }
        }
        if let Some(silence) = wait.silence {
            let quiet_since = last_output.max(start);
            if now >= quiet_since + silence {
                return Some(Until::Silence);
            }
            wake = wake.min(quiet_since + silence);
        }
        if deadline.is_some_and(|d| now >= d) {
            return Some(Until::Timeout);
        }
        tokio::select! {
            _ = changed.changed() => {}
            _ = tokio::time::sleep_until(wake.into()) => {}
            _ = term.finished.cancelled() => {}
            _ = signal.cancelled() => return None,
        }
    }
}

/// Whether the last line of `tail` looks like a prompt.
pub(super) fn is_prompt(tail: &str) -> bool {
    let last = tail.rsplit('\n').next().unwrap_or_default();
    let bare = last.trim_end_matches(' ');
    if bare.trim().is_empty() || last.len() > 200 {
        return false;
    }
    let spaced = bare.len() < last.len();
    match bare.chars().last() {
        Some('$' | '#' | '%' | '>') => true,
        Some(':' | '?' | ')' | ']') => spaced,
        Some('.') => spaced && bare.ends_with("..."),
        _ => false,
    }
}

/// Whether the terminal's foreground process sleeps waiting for input.
///
/// The process is found by the number the terminal reports; it counts only if it still belongs
/// to the terminal's session (a job that ended may have left its number to a process outside,
/// whose state must not leak into this terminal's answer).
pub(super) fn waiting_for_input(term: &Terminal) -> bool {
    let Some((fg, sid)) = term.foreground_and_session() else {
        return false;
    };
    let proc = format!("/proc/{fg}");
    let stat = std::fs::read_to_string(format!("{proc}/stat")).unwrap_or_default();
    // After the command's `) `: state, ppid, pgrp, session, …
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest.split(' ').take(4).collect())
        .unwrap_or_default();
    let ours = fields.get(3) == Some(&sid.as_raw().to_string().as_str());
    if !ours || fields.first() != Some(&"S") {
        return false;
    }
    let wchan = std::fs::read_to_string(format!("{proc}/wchan")).unwrap_or_default();
    matches!(
        wchan.as_str(),
        "n_tty_read"
            | "wait_woken"
            | "do_select"
            | "core_sys_select"
            | "do_sys_poll"
            | "do_epoll_wait"
            | "ep_poll"
    ) || wchan.starts_with("poll_schedule_timeout")
}

#[cfg(test)]
mod tests {
    use super::is_prompt;

    #[test]
    fn prompts_are_recognised() {
        for prompt in [
            "user@host:~/src$ ",
            "# ",
            ">>> ",
            "... ",
            "> ",
            "(gdb) ",
            "Password: ",
            "In [3]: ",
        ] {
            assert!(is_prompt(&format!("output\n{prompt}")), "{prompt:?}");
        }
        for not in ["", "done\n", "50% (3/6)", "compiling...", "a: b"] {
            assert!(!is_prompt(not), "{not:?}");
        }
    }
}
