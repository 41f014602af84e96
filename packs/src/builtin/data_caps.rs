//! Caps in programs: when a tool runs as a `run_code` sub-call
//! ([`ptc::ToolRunContext::in_program`]) its result is data the program works on, not text
//! for the model's context, so `read`, `glob` and `grep` use the data caps here instead of
//! their context caps. A cap the program did not ask for that still cuts a result is said
//! through [`ptc::ToolRunContext::cut_short`] (the run's result names it with the call site);
//! `bash` says so too when its 1 MiB stream tails cut `stdout` or `stderr`.

/// Bytes of text one `read` returns at most in a program (and the longest line it keeps).
pub const PROGRAM_MAX_BYTES: usize = 8 * 1024 * 1024;
/// Entries (`glob` paths, `grep` matches) one call returns at most in a program.
pub const PROGRAM_MAX_ENTRIES: usize = 10_000;
/// Characters kept of one `grep` matching line in a program, once it has kept
/// [`PROGRAM_LONG_LINE_BYTES`] of longer lines whole.
pub const PROGRAM_MAX_LINE_CHARS: usize = 10_000;
/// Bytes of matching lines longer than [`PROGRAM_MAX_LINE_CHARS`] one `grep` keeps whole in a
/// program.
pub const PROGRAM_LONG_LINE_BYTES: usize = 32 * 1024 * 1024;

pub(crate) use ptc_sdk_gen::thousands;

/// The note of a capped search: `10,000 of 23,456 matches (narrow the pattern, or page
/// with offset=10000)`, or `matches 10,001-20,000 of 23,456 (…)` past an `offset`.
pub(crate) fn entries_note(noun: &str, offset: u64, kept: u64, total: u64, narrow: &str) -> String {
    let next = offset + kept;
    let kept = match offset {
        0 => format!("{} of {}", thousands(kept), thousands(total)),
        _ => format!("{noun} {}-{} of", thousands(offset + 1), thousands(next)),
    };
    let total = match offset {
        0 => noun.to_string(),
        _ => thousands(total),
    };
    format!("{kept} {total} (narrow the {narrow}, or page with offset={next})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_note_says_what_was_kept_of_what_total_and_how_to_page() {
        assert_eq!(
            entries_note("matches", 0, 10_000, 23_456, "pattern"),
            "10,000 of 23,456 matches (narrow the pattern, or page with offset=10000)"
        );
        assert_eq!(
            entries_note("matches", 10_000, 10_000, 23_456, "pattern"),
            "matches 10,001-20,000 of 23,456 (narrow the pattern, or page with offset=20000)"
        );
    }
}
