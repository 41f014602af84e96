//! TypeScript type stripping with `swc_ts_fast_strip`: types become whitespace, so every line and
//! column of the output matches the input.
//!
//! The input is the *body* of an async function (top-level `await` and `return`), which no
//! TypeScript parser accepts as a whole program; it is parsed inside a wrapper whose first line is
//! its own, so only line numbers need a shift and columns stay exact.
//!
//! swc recurses once per level of nesting (parsing, visiting, dropping the tree), so no program
//! reaches it before [`nesting::estimate`](crate::nesting) has bounded its depth: deeper than
//! [`MAX_NESTING`] is refused as a syntax failure, and anything but a small, shallow program is
//! stripped on a thread of its own with a large stack ([`STRIP_STACK_BYTES`], reserved, not
//! committed), which a run waits for within its wall clock and cancellation.

use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use swc_common::{
    errors::{DiagnosticBuilder, Emitter, Handler},
    sync::Lrc,
    BytePos, SourceMap, GLOBALS,
};
use swc_ts_fast_strip::{operate, Options};
use tokio_util::sync::CancellationToken;

use crate::nesting::{self, MAX_NESTING};
use crate::{FailureKind, RunFailure};

/// The largest program accepted, in bytes of source text.
pub const MAX_PROGRAM_BYTES: usize = 10 * 1024 * 1024;
/// Programs up to this estimated nesting (and [`INLINE_BYTES`]) are stripped on the calling
/// thread; typical programs estimate 5–25. Each level can take tens of KiB of stack in a debug
/// build, so this keeps well inside a 2 MiB thread stack.
const INLINE_NESTING: usize = 32;
/// Programs up to this size (and [`INLINE_NESTING`]) are stripped on the calling thread.
const INLINE_BYTES: usize = 64 * 1024;
/// The stack of the thread that strips larger or deeper programs: [`MAX_NESTING`] levels take at
/// most about 32 MiB in a debug build; the rest is margin. Only the pages used are committed.
const STRIP_STACK_BYTES: usize = 256 * 1024 * 1024;
/// How often a wait for the stripping thread looks at its cancellation token.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// The line put before the user's code. It ends in a newline, so user line `n` is line `n + 1`.
const PREFIX: &str = "(async function () {\n";
/// The text put after the user's code.
const SUFFIX: &str = "\n});";

/// Strip TypeScript types in place (`swc_ts_fast_strip`, positions preserved).
///
/// The input is the body of an async function: top-level `await` and `return` are allowed.
/// Non-erasable syntax (`enum`, namespaces with values, parameter properties) or a parse error gives
/// a [`RunFailure`] of kind [`FailureKind::Syntax`] whose message starts with `"<line>:<col> "`
/// (1-based, pointing into `ts`).
///
/// ```
/// let js = ptc_engine::strip_types("const n: number = 1;\nreturn n as number;").unwrap();
/// assert_eq!(js, "const n         = 1;\nreturn n          ;");
///
/// let err = ptc_engine::strip_types("let a = 1;\n  enum E { A }").unwrap_err();
/// assert_eq!(err.kind, ptc_engine::FailureKind::Syntax);
/// assert!(err.message.starts_with("2:3 "), "{}", err.message);
/// ```
pub fn strip_types(ts: &str) -> Result<String, RunFailure> {
    strip_within(ts, None, &CancellationToken::new())
}

/// Why [`strip_within`] gave up waiting.
pub(crate) struct Deadline {
    /// When to give up.
    pub(crate) at: Instant,
    /// The run's wall clock, for the failure message.
    pub(crate) wall_clock: Duration,
}

/// [`strip_types`] for a run: refuses programs over [`MAX_PROGRAM_BYTES`], deeper than
/// [`MAX_NESTING`] or with an ambiguous `/`, and waits for a stripping thread at most until
/// `deadline` (a timeout failure) or until `cancel` fires (an aborted failure). A thread given up on
/// finishes on its own; its result is dropped.
pub(crate) fn strip_within(
    ts: &str,
    deadline: Option<Deadline>,
    cancel: &CancellationToken,
) -> Result<String, RunFailure> {
    if ts.len() > MAX_PROGRAM_BYTES {
        return Err(RunFailure::new(
            FailureKind::Syntax,
            format!(
                "1:1 the program is {} bytes; programs may be at most {MAX_PROGRAM_BYTES} bytes",
                ts.len()
            ),
        ));
    }
    let nesting = nesting::estimate(ts);
    if let Some(at) = nesting.ambiguous {
        let (line, col) = line_col(ts, at);
        return Err(RunFailure::new(
            FailureKind::Syntax,
            format!(
                "{line}:{col} this `/` could start a regular expression or divide; \
                 put the expression in parentheses (or end the statement before it with `;`)"
            ),
        ));
    }
    if let Some(at) = nesting.stray_brace {
        let (line, col) = line_col(ts, at);
        return Err(RunFailure::new(
            FailureKind::Syntax,
            format!(
                "{line}:{col} this `}}` closes more than the program opened; a program is the \
                 body of one function, so its braces must balance"
            ),
        ));
    }
    if nesting.depth > MAX_NESTING {
        let (line, col) = line_col(ts, nesting.at);
        return Err(RunFailure::new(
            FailureKind::Syntax,
            format!(
                "{line}:{col} the program nests deeper than {MAX_NESTING} levels (brackets, \
                 operators or statements inside one another); build deep values in a loop \
                 instead of writing them out"
            ),
        ));
    }
    if nesting.depth <= INLINE_NESTING && ts.len() <= INLINE_BYTES {
        return strip_now(ts);
    }
    let (tx, rx) = mpsc::channel();
    let owned = ts.to_owned();
    std::thread::Builder::new()
        .name("ptc-strip".into())
        .stack_size(STRIP_STACK_BYTES)
        .spawn(move || {
            let _ = tx.send(strip_now(&owned));
        })
        .map_err(|e| RunFailure::engine(format!("could not start a thread to strip types: {e}")))?;
    loop {
        if cancel.is_cancelled() {
            return Err(RunFailure::aborted());
        }
        let wait = match &deadline {
            Some(deadline) => {
                let left = deadline.at.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(RunFailure::timed_out(deadline.wall_clock));
                }
                left.min(CANCEL_POLL)
            }
            None => CANCEL_POLL,
        };
        match rx.recv_timeout(wait) {
            Ok(result) => return result,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(RunFailure::engine("the thread stripping types panicked"))
            }
        }
    }
}

/// The 1-based line and column (in characters) of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

/// Strip on this thread (the caller has bounded the nesting); a panic in swc is a syntax failure.
fn strip_now(ts: &str) -> Result<String, RunFailure> {
    std::panic::catch_unwind(|| strip_unguarded(ts)).unwrap_or_else(|_| {
        Err(RunFailure::new(
            FailureKind::Syntax,
            "1:1 the TypeScript stripper failed on this program",
        ))
    })
}

fn strip_unguarded(ts: &str) -> Result<String, RunFailure> {
    let mut wrapped = String::with_capacity(PREFIX.len() + ts.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(ts);
    wrapped.push_str(SUFFIX);

    let cm: Lrc<SourceMap> = Default::default();
    let diagnostics = Arc::new(Mutex::new(Vec::new()));
    let handler = Handler::with_emitter(
        false,
        false,
        Box::new(Collector {
            diagnostics: diagnostics.clone(),
        }),
    );
    let result = GLOBALS.set(&Default::default(), || {
        operate(&cm, &handler, wrapped, Options::default())
    });
    match result {
        Ok(output) => {
            let code = output.code;
            match code
                .strip_prefix(PREFIX)
                .and_then(|rest| rest.strip_suffix(SUFFIX))
            {
                Some(body) => Ok(body.to_owned()),
                // swc preserves positions, so this is not expected; fail loudly rather than run
                // something that does not match the user's code.
                None => Err(RunFailure::new(
                    FailureKind::Syntax,
                    "1:1 the program could not be stripped in place",
                )),
            }
        }
        Err(err) => {
            let diagnostics = diagnostics.lock().unwrap_or_else(|e| e.into_inner());
            let message = match diagnostics.first() {
                Some((pos, what)) => {
                    let loc = cm.lookup_char_pos(*pos);
                    let (line, col) = user_position(ts, loc.line, loc.col_display);
                    format!("{line}:{col} {what}{}", unsupported_hint(ts, line, col))
                }
                None => format!("1:1 {}", err.message),
            };
            Err(RunFailure::new(FailureKind::Syntax, message))
        }
    }
}

/// A hint for syntax that programs do not support and whose parse error says something else:
/// a decorator (`@name` where the error is) or JSX (a `<Tag` on the error's line).
fn unsupported_hint(ts: &str, line: usize, col: usize) -> &'static str {
    let text = ts.split('\n').nth(line.saturating_sub(1)).unwrap_or("");
    let rest: String = text.chars().skip(col.saturating_sub(1)).collect();
    if rest.starts_with('@') {
        return " (decorators are not supported in programs)";
    }
    let bytes = text.as_bytes();
    let jsx = bytes
        .windows(2)
        .any(|w| w[0] == b'<' && w[1].is_ascii_alphabetic())
        && (text.contains("</") || text.contains("/>"));
    if jsx {
        return " (JSX is not supported in programs; build strings instead)";
    }
    ""
}

/// The 1-based position in the user's code of 1-based `line` and 0-based `col` of the wrapped text.
/// Positions on the wrapper's own lines are clamped into the code (its start or its end).
fn user_position(ts: &str, line: usize, col: usize) -> (usize, usize) {
    let last_line = ts.split('\n').count();
    match line.checked_sub(1) {
        None | Some(0) => (1, 1),
        Some(line) if line > last_line => {
            let last = ts.rsplit('\n').next().unwrap_or("");
            (last_line, last.chars().count() + 1)
        }
        Some(line) => (line, col + 1),
    }
}

/// An swc emitter that keeps the position and text of every diagnostic.
struct Collector {
    diagnostics: Arc<Mutex<Vec<(BytePos, String)>>>,
}

impl Emitter for Collector {
    fn emit(&mut self, db: &mut DiagnosticBuilder<'_>) {
        let pos = db.span.primary_span().map(|s| s.lo).unwrap_or(BytePos(1));
        let what = db.message();
        self.diagnostics
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((pos, what));
    }
}

#[cfg(test)]
mod tests {
    use super::{strip_now, INLINE_NESTING};
    use crate::nesting::estimate;

    /// Whatever is stripped on the calling thread fits in half of tokio's 2 MiB thread stack,
    /// whichever construct does the nesting (in this build profile, debug included).
    #[test]
    fn inline_stripping_fits_in_a_small_stack() {
        let shapes: [(&str, &str, &str); 8] = [
            ("return ", "(", ")"),
            ("return ", "[", "]"),
            ("return ", "{a:", "}"),
            ("", "{", "}"),
            ("let x: ", "Array<", ">"),
            ("return ", "()=>", ""),
            ("return ", "a?b:", ""),
            ("return `", "${`", "`}"),
        ];
        for (head, open, close) in shapes {
            let mut n = 1;
            let program = loop {
                let candidate = |n: usize| format!("{head}{}1{}", open.repeat(n), close.repeat(n));
                if estimate(&candidate(n + 1)).depth > INLINE_NESTING {
                    break candidate(n);
                }
                n += 1;
            };
            let handle = std::thread::Builder::new()
                .stack_size(1024 * 1024)
                .spawn(move || strip_now(&program).map(|_| ()))
                .unwrap();
            let _ = handle.join().expect("no stack overflow");
        }
    }
}
