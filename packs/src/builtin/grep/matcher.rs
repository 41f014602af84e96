//! The matcher `grep` searches with: ripgrep's regex matcher, bounded and cancellable.
//!
//! - Lines end in `\n` or `\r\n` (ripgrep's CRLF mode): `$` matches before either, and a
//!   match never takes the `\r`.
//! - The compiled pattern is capped ([`MAX_REGEX_BYTES`], [`MAX_DFA_BYTES`]): `a{100000}` is
//!   refused as invalid arguments instead of taking a gigabyte and minutes.
//! - Every time the searcher asks for a candidate line or a match (once per buffer of lines,
//!   or per line while confirming), the call's cancellation is checked, so a search stops soon
//!   after its run's deadline even inside one large file. One call into the regex engine is
//!   bounded by the pattern's size times the buffer, which the searcher's heap limit bounds.

use grep_matcher::{LineMatchKind, LineTerminator, Match, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use tokio_util::sync::CancellationToken;

/// The compiled pattern's size limit (ripgrep's default is 100 MiB).
pub const MAX_REGEX_BYTES: usize = 1024 * 1024;
/// The lazy DFA's cache per searching thread (ripgrep's default is 1,000 MiB).
pub const MAX_DFA_BYTES: usize = 16 * 1024 * 1024;

/// The search was cancelled (the matcher's error).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the search was cancelled")
    }
}

/// [`RegexMatcher`] that fails with [`Cancelled`] once its call is cancelled.
#[derive(Clone, Debug)]
pub(super) struct CancellableMatcher {
    inner: RegexMatcher,
    signal: CancellationToken,
    ascii: bool,
}

impl CancellableMatcher {
    /// Compile `pattern` within the size limits; `Err` is the reason it is refused.
    pub(super) fn new(pattern: &str, signal: CancellationToken) -> Result<Self, String> {
        // Anchors at line boundaries, in CRLF mode, as `rg --crlf`: `$` matches before a
        // `\r\n` as well as a `\n`, so `;$` finds the lines of a Windows file too.
        let inner = RegexMatcherBuilder::new()
            .multi_line(true)
            .crlf(true)
            .size_limit(MAX_REGEX_BYTES)
            .dfa_size_limit(MAX_DFA_BYTES)
            .build(pattern)
            .map_err(|e| as_written(&e.to_string(), pattern))?;
        let ascii = pattern.is_ascii();
        Ok(CancellableMatcher {
            inner,
            signal,
            ascii,
        })
    }

    /// Whether the pattern is ASCII (its matches do not depend on the text's encoding).
    pub(super) fn is_ascii(&self) -> bool {
        self.ascii
    }

    fn check(&self) -> Result<(), Cancelled> {
        match self.signal.is_cancelled() {
            true => Err(Cancelled),
            false => Ok(()),
        }
    }
}

/// A parse error as the caller wrote the pattern: `grep-regex` shows it wrapped in a group
/// of its own (`(?:foo(bar)`), with the caret in the wrapped text; the caret is moved back
/// by the wrapper's width, or left out where it points at the wrapper itself.
fn as_written(error: &str, pattern: &str) -> String {
    let wrapped = format!("(?:{pattern})");
    let mut lines = Vec::new();
    let mut caret_at = None;
    for line in error.lines() {
        if line.trim_start() == wrapped {
            let indent = line.len() - line.trim_start().len();
            caret_at = Some(indent);
            lines.push(format!("{}{pattern}", &line[..indent]));
            continue;
        }
        if let Some(indent) = caret_at.take() {
            let marks = line.trim_start();
            let col = line.len() - marks.len();
            if !marks.is_empty() && marks.chars().all(|c| c == '^' || c == '-') {
                if col >= indent + 3 {
                    lines.push(format!("{}{marks}", " ".repeat(col - 3)));
                }
                continue;
            }
        }
        lines.push(line.to_string());
    }
    lines.join("\n")
}

impl Matcher for CancellableMatcher {
    type Captures = <RegexMatcher as Matcher>::Captures;
    type Error = Cancelled;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Cancelled> {
        self.check()?;
        Ok(self.inner.find_at(haystack, at).unwrap_or(None))
    }

    fn new_captures(&self) -> Result<Self::Captures, Cancelled> {
        Ok(self
            .inner
            .new_captures()
            .expect("RegexMatcher has no errors"))
    }

    fn capture_count(&self) -> usize {
        self.inner.capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.inner.capture_index(name)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, Cancelled> {
        self.check()?;
        Ok(self.inner.shortest_match_at(haystack, at).unwrap_or(None))
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, Cancelled> {
        self.check()?;
        Ok(self.inner.is_match_at(haystack, at).unwrap_or(false))
    }

    fn non_matching_bytes(&self) -> Option<&grep_matcher::ByteSet> {
        self.inner.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.inner.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, Cancelled> {
        self.check()?;
        Ok(self.inner.find_candidate_line(haystack).unwrap_or(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(pattern: &str) -> String {
        match CancellableMatcher::new(pattern, CancellationToken::new()) {
            Ok(_) => panic!("{pattern} compiled"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_parse_error_shows_the_pattern_as_written_with_its_caret_in_place() {
        let unclosed = refusal("foo(bar");
        assert!(!unclosed.contains("(?:"), "{unclosed}");
        assert!(unclosed.contains("\n    foo(bar\n"), "{unclosed}");
        assert!(unclosed.ends_with("error: unclosed group"), "{unclosed}");
        let range = refusal("ab[z-a]");
        let lines: Vec<&str> = range.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == "    ab[z-a]")
            .expect(&range);
        let caret = lines[at + 1];
        assert_eq!(caret.find('^'), Some(4 + 3), "{range}");
    }
}
