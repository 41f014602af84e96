//! TypeScript type stripping with `swc_ts_fast_strip`: types become whitespace, so every line and
//! column of the output matches the input.
//!
//! The input is the *body* of an async function (top-level `await` and `return`), which no
//! TypeScript parser accepts as a whole program; it is parsed inside a wrapper whose first line is
//! its own, so only line numbers need a shift and columns stay exact. Callers bound the program's
//! nesting first and give swc a large enough stack ([`super`]).

use std::sync::{Arc, Mutex};

use swc_common::{
    errors::{DiagnosticBuilder, Emitter, Handler},
    sync::Lrc,
    BytePos, SourceMap, GLOBALS,
};
use swc_ts_fast_strip::{operate, Options};

use crate::{FailureKind, RunFailure};

/// The line put before the user's code. It ends in a newline, so user line `n` is line `n + 1`.
const PREFIX: &str = "(async function () {\n";
/// The text put after the user's code.
const SUFFIX: &str = "\n});";

/// Strip on this thread (the caller has bounded the nesting); a panic in swc is a syntax failure.
pub(super) fn strip_now(ts: &str) -> Result<String, RunFailure> {
    crate::contain::contain(|| strip_unguarded(ts)).unwrap_or_else(|_| {
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
