//! From the program a model wrote to the JavaScript a sandbox runs.
//!
//! 1. [`nesting`]: a linear scan bounds how deeply the text nests (and refuses a stray `}` or a
//!    `/` whose reading would hide brackets) before any parser sees it: swc recurses once per
//!    level, and a deep enough program would overflow any stack and abort the process.
//! 2. [`shape`]: the shapes models write (a final arrow function, an uncalled `main`, `export`,
//!    a markdown fence, a bare final expression…) become the body of one async function; the
//!    string literals whose escapes a string drops (`"\s+"`) are noted ([`escapes`]).
//! 3. [`strip`]: types become whitespace (`swc_ts_fast_strip`), every position kept.
//!
//! Steps 2 and 3 run on the calling thread for small, shallow programs and otherwise on a
//! thread with a large stack ([`STRIP_STACK_BYTES`], reserved, not committed), which a run
//! waits for within its wall clock and cancellation. [`positions`] maps every position back to
//! the program as written.

mod edit;
mod escapes;
pub(crate) mod nesting;
pub(crate) mod positions;
pub(crate) mod shape;
pub(crate) mod sites;
mod strip;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::{notes::Notes, FailureKind, RunFailure};
use nesting::MAX_NESTING;
use positions::PositionMap;

/// The largest program accepted, in bytes of source text.
pub const MAX_PROGRAM_BYTES: usize = 10 * 1024 * 1024;
/// Programs up to this estimated nesting (and [`INLINE_BYTES`]) are prepared on the calling
/// thread; typical programs estimate 5–25. Each level can take tens of KiB of stack in a debug
/// build, so this keeps well inside a 2 MiB thread stack.
const INLINE_NESTING: usize = 32;
/// Programs up to this size (and [`INLINE_NESTING`]) are prepared on the calling thread.
const INLINE_BYTES: usize = 64 * 1024;
/// The stack of the thread that prepares larger or deeper programs: [`MAX_NESTING`] levels take
/// at most about 32 MiB in a debug build; the rest is margin. Only the pages used are committed.
const STRIP_STACK_BYTES: usize = 256 * 1024 * 1024;
/// How often a wait for the preparing thread looks at its cancellation token.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// A program ready to compile: JavaScript, and the map from its positions to the original's.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The stripped body of the async function.
    pub(crate) js: String,
    /// Positions in `js` → positions in the program as written.
    pub(crate) map: PositionMap,
    /// Notes on the program's text, found before it runs (e.g. a `"\s"` the string drops).
    pub(crate) notes: Notes,
}

/// Until when a run waits for a preparing thread.
pub(crate) struct Deadline {
    /// When to give up.
    pub(crate) at: Instant,
    /// The run's wall clock, for the failure message.
    pub(crate) wall_clock: Duration,
}

/// Strip TypeScript types in place (`swc_ts_fast_strip`, positions preserved).
///
/// The input is the body of an async function: top-level `await` and `return` are allowed.
/// Non-erasable syntax (`enum`, namespaces with values, parameter properties), a parse error, a
/// program nested deeper than 1,000 levels or larger than [`MAX_PROGRAM_BYTES`] gives a
/// [`RunFailure`] of kind [`FailureKind::Syntax`] whose message starts with `"<line>:<col> "`
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
    let owned = ts.to_owned();
    bounded(ts, None, &CancellationToken::new(), move || {
        strip::strip_now(&owned)
    })
}

/// A program in the plain statement-body form with its types kept, for a static type checker:
/// what runs, before types are stripped, and no tool call marked ([`shape_program`]).
#[derive(Debug)]
pub struct ShapedProgram {
    /// The body of the async function, TypeScript as written: fences and shapes undone, the lines
    /// and columns of the program's own text kept (a line the shaping appends comes after them).
    pub text: String,
    map: PositionMap,
}

impl ShapedProgram {
    /// The `line:col` in the program as written (1-based, columns in characters) of `line:col` in
    /// [`ShapedProgram::text`]; a position on an appended line maps to the end of the program.
    pub fn original(&self, line: usize, col: usize) -> (usize, usize) {
        self.map.original(line, col)
    }
}

/// The program as the engines shape it (a fence, a final arrow function, an uncalled `main`,
/// `export default`…: one async function body), with its types kept, for a type checker. A
/// leading byte-order mark is dropped. Refused as the engines refuse it (a [`RunFailure`] of kind
/// [`FailureKind::Syntax`]): a value `import`, a program too large or nested too deeply.
///
/// ```
/// let shaped = ptc_engine::shape_program("```ts\nconst n: number = 1;\nn + 1\n```").unwrap();
/// assert_eq!(shaped.text.lines().nth(2), Some("return n + 1"));
/// assert_eq!(shaped.original(3, 8), (3, 1));
/// ```
pub fn shape_program(source: &str) -> Result<ShapedProgram, RunFailure> {
    let owned = source.strip_prefix('\u{feff}').unwrap_or(source).to_owned();
    bounded(source, None, &CancellationToken::new(), move || {
        shape::shape_unmarked(&owned).map(|shaped| ShapedProgram {
            text: shaped.text,
            map: shaped.map,
        })
    })
}

/// `program` without a leading byte-order mark. swc reads past one, so the offsets it reports
/// would be three bytes short of the text the edits apply to; positions count from after it.
pub(crate) fn without_bom(mut program: crate::Program) -> crate::Program {
    if let Some(rest) = program.source.strip_prefix('\u{feff}') {
        program.source = rest.to_string();
    }
    program
}

/// Shape and strip a run's program (see the module docs), waiting for a preparing thread at
/// most until `deadline` (a timeout failure) or until `cancel` fires (an aborted failure). A
/// syntax failure is a diagnostic on the program as written (its line and a caret). `lead` is how
/// many characters of the engine's wrapper precede the program on its first line.
pub(crate) fn prepare(
    program: &crate::Program,
    lead: usize,
    deadline: Option<Deadline>,
    cancel: &CancellationToken,
) -> Result<Prepared, RunFailure> {
    let owned = program.source.clone();
    let prepared = bounded(&program.source, deadline, cancel, move || {
        let shaped = shape::shape(&owned, lead)?;
        let js =
            strip::strip_now(&shaped.text).map_err(|failure| at_original(failure, &shaped.map))?;
        Ok(Prepared {
            js,
            map: shaped.map,
            notes: shaped.notes,
        })
    });
    prepared.map_err(|failure| match failure.kind {
        FailureKind::Syntax => {
            let source = crate::diagnostic::Source {
                text: &program.source,
                map: &PositionMap::default(),
                filename: &program.filename,
            };
            RunFailure::new(
                FailureKind::Syntax,
                crate::diagnostic::syntax_message(&failure.message, &source),
            )
        }
        _ => failure,
    })
}

/// A syntax failure's leading `line:col` mapped back through `map`.
fn at_original(mut failure: RunFailure, map: &PositionMap) -> RunFailure {
    let position = failure.message.split_once(' ').and_then(|(head, rest)| {
        let (line, col) = head.split_once(':')?;
        Some((line.parse().ok()?, col.parse().ok()?, rest.to_string()))
    });
    if let Some((line, col, rest)) = position {
        let (line, col) = map.original(line, col);
        failure.message = format!("{line}:{col} {rest}");
    }
    failure
}

/// Refuse what must never reach swc, then run `work` on this thread (small, shallow programs)
/// or on a thread with [`STRIP_STACK_BYTES`] of stack, waiting within `deadline` and `cancel`.
/// A thread given up on finishes on its own; its result is dropped.
fn bounded<T: Send + 'static>(
    ts: &str,
    deadline: Option<Deadline>,
    cancel: &CancellationToken,
    work: impl FnOnce() -> Result<T, RunFailure> + Send + 'static,
) -> Result<T, RunFailure> {
    let depth = check(ts)?;
    if depth <= INLINE_NESTING && ts.len() <= INLINE_BYTES {
        return work();
    }
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("ptc-strip".into())
        .stack_size(STRIP_STACK_BYTES)
        .spawn(move || {
            let _ = tx.send(work());
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

/// The estimated nesting of `ts`, or why it is refused before parsing: too large, too deep, a
/// `}` closing more than was opened, or a `/` whose reading would change what counts.
fn check(ts: &str) -> Result<usize, RunFailure> {
    let syntax = |at: usize, what: String| {
        let (line, col) = shape::line_col(ts, at);
        Err(RunFailure::new(
            FailureKind::Syntax,
            format!("{line}:{col} {what}"),
        ))
    };
    if ts.len() > MAX_PROGRAM_BYTES {
        return syntax(
            0,
            format!(
                "the program is {} bytes; programs may be at most {MAX_PROGRAM_BYTES} bytes",
                ts.len()
            ),
        );
    }
    let nesting = nesting::estimate(ts);
    if let Some(at) = nesting.ambiguous {
        return syntax(
            at,
            "this `/` could start a regular expression or divide; put the expression in \
             parentheses (or end the statement before it with `;`)"
                .into(),
        );
    }
    if let Some(at) = nesting.stray_brace {
        return syntax(
            at,
            "this `}` closes more than the program opened; a program is the body of one \
             function, so its braces must balance"
                .into(),
        );
    }
    if nesting.depth > MAX_NESTING {
        return syntax(
            nesting.at,
            format!(
                "the program nests deeper than {MAX_NESTING} levels (brackets, operators or \
                 statements inside one another); build deep values in a loop instead of writing \
                 them out"
            ),
        );
    }
    Ok(nesting.depth)
}

#[cfg(test)]
mod tests {
    use super::{nesting::estimate, strip::strip_now, INLINE_NESTING};

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
                .spawn(move || {
                    let shaped = super::shape::shape(&program, 0).map(|s| s.text);
                    shaped.and_then(|text| strip_now(&text)).map(|_| ())
                })
                .unwrap();
            let _ = handle.join().expect("no stack overflow");
        }
    }
}
