//! The matcher `grep` searches with: ripgrep's regex matcher, bounded and cancellable, and
//! PCRE2 for the patterns the regex crate refuses (look-around, backreferences), as
//! `rg --auto-hybrid-regex` does.
//!
//! - Lines end in `\n` or `\r\n` (ripgrep's CRLF mode): `$` matches before either, and a
//!   match never takes the `\r`.
//! - The compiled pattern is capped ([`MAX_REGEX_BYTES`], [`MAX_DFA_BYTES`]): `a{100000}` is
//!   refused as invalid arguments instead of taking a gigabyte and minutes. PCRE2 backtracks:
//!   its own match limit stops a pattern that would take exponential time on a line, and the
//!   file is then reported as not searched to the end ([`MatchError::Failed`]).
//! - Every time the searcher asks for a candidate line or a match (once per buffer of lines,
//!   or per line while confirming), the call's cancellation is checked, so a search stops soon
//!   after its run's deadline even inside one large file. One call into the regex engine is
//!   bounded by the pattern's size times the buffer, which the searcher's heap limit bounds.

use grep_matcher::{LineMatchKind, LineTerminator, Match, Matcher, NoCaptures};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use tokio_util::sync::CancellationToken;

/// The compiled pattern's size limit (ripgrep's default is 100 MiB).
pub const MAX_REGEX_BYTES: usize = 1024 * 1024;
/// The lazy DFA's cache per searching thread (ripgrep's default is 1,000 MiB).
pub const MAX_DFA_BYTES: usize = 16 * 1024 * 1024;

/// Why a search of a file stopped.
#[derive(Debug, Clone)]
pub(super) enum MatchError {
    /// The call was cancelled.
    Cancelled,
    /// PCRE2 gave up on a line (its match limit): what it said.
    Failed(String),
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::Cancelled => f.write_str("the search was cancelled"),
            MatchError::Failed(why) => write!(f, "{PCRE2_FAILED}: {why}"),
        }
    }
}

/// How a PCRE2 failure starts, to know it again in the searcher's error.
pub(super) const PCRE2_FAILED: &str = "PCRE2 gave up matching";

/// The engine a pattern compiled in.
#[derive(Clone, Debug)]
enum Engine {
    Rust(RegexMatcher),
    Pcre2(grep_pcre2::RegexMatcher),
}

/// [`Engine`]'s matcher that fails with [`MatchError::Cancelled`] once its call is cancelled.
#[derive(Clone, Debug)]
pub(super) struct CancellableMatcher {
    inner: Engine,
    signal: CancellationToken,
    ascii: bool,
}

impl CancellableMatcher {
    /// Compile `pattern` within the size limits; `Err` is the reason it is refused.
    pub(super) fn new(pattern: &str, signal: CancellationToken) -> Result<Self, String> {
        // Anchors at line boundaries, in CRLF mode, as `rg --crlf`: `$` matches before a
        // `\r\n` as well as a `\n`, so `;$` finds the lines of a Windows file too.
        let rust = RegexMatcherBuilder::new()
            .multi_line(true)
            .crlf(true)
            .size_limit(MAX_REGEX_BYTES)
            .dfa_size_limit(MAX_DFA_BYTES)
            .build(pattern);
        let inner = match rust {
            Ok(rust) => Engine::Rust(rust),
            Err(e) if needs_pcre2(&e.to_string()) => grep_pcre2::RegexMatcherBuilder::new()
                .multi_line(true)
                .crlf(true)
                .utf(true)
                .ucp(true)
                .jit_if_available(true)
                .build(pattern)
                .map(Engine::Pcre2)
                .map_err(|e| format!("regex parse error (PCRE2, for look-around): {e}"))?,
            Err(e) => return Err(as_written(&e.to_string(), pattern)),
        };
        Ok(CancellableMatcher {
            inner,
            signal,
            ascii: pattern.is_ascii(),
        })
    }

    /// Whether the pattern is ASCII (its matches do not depend on the text's encoding).
    pub(super) fn is_ascii(&self) -> bool {
        self.ascii
    }

    fn check(&self) -> Result<(), MatchError> {
        match self.signal.is_cancelled() {
            true => Err(MatchError::Cancelled),
            false => Ok(()),
        }
    }
}

/// Whether the regex crate refused a pattern for what only a backtracking engine does.
fn needs_pcre2(error: &str) -> bool {
    error.contains("look-around") || error.contains("backreferences are not supported")
}

/// A PCRE2 failure as the searcher's error.
fn failed(e: grep_pcre2::Error) -> MatchError {
    MatchError::Failed(e.to_string())
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
    // The searcher asks for matches, never for groups.
    type Captures = NoCaptures;
    type Error = MatchError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, MatchError> {
        self.check()?;
        match &self.inner {
            Engine::Rust(m) => Ok(m.find_at(haystack, at).unwrap_or(None)),
            Engine::Pcre2(m) => m.find_at(haystack, at).map_err(failed),
        }
    }

    fn new_captures(&self) -> Result<NoCaptures, MatchError> {
        Ok(NoCaptures::new())
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, MatchError> {
        self.check()?;
        match &self.inner {
            Engine::Rust(m) => Ok(m.shortest_match_at(haystack, at).unwrap_or(None)),
            Engine::Pcre2(m) => m.shortest_match_at(haystack, at).map_err(failed),
        }
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, MatchError> {
        self.check()?;
        match &self.inner {
            Engine::Rust(m) => Ok(m.is_match_at(haystack, at).unwrap_or(false)),
            Engine::Pcre2(m) => m.is_match_at(haystack, at).map_err(failed),
        }
    }

    fn non_matching_bytes(&self) -> Option<&grep_matcher::ByteSet> {
        match &self.inner {
            Engine::Rust(m) => m.non_matching_bytes(),
            Engine::Pcre2(m) => m.non_matching_bytes(),
        }
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        match &self.inner {
            Engine::Rust(m) => m.line_terminator(),
            Engine::Pcre2(m) => m.line_terminator(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, MatchError> {
        self.check()?;
        match &self.inner {
            Engine::Rust(m) => Ok(m.find_candidate_line(haystack).unwrap_or(None)),
            Engine::Pcre2(m) => m.find_candidate_line(haystack).map_err(failed),
        }
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

    #[test]
    fn look_around_and_backreferences_compile_in_pcre2_other_refusals_stay() {
        for pattern in ["foo(?!bar)", "(?<=\\$)\\d+", "(\\w)\\1"] {
            let m = CancellableMatcher::new(pattern, CancellationToken::new()).unwrap();
            assert!(matches!(m.inner, Engine::Pcre2(_)), "{pattern}");
        }
        let m = CancellableMatcher::new("foo(?!bar)", CancellationToken::new()).unwrap();
        assert_eq!(
            m.find_at(b"foobar foobaz", 0).unwrap(),
            Some(Match::new(7, 10))
        );
        assert!(refusal("(?<=a").contains("PCRE2"), "{}", refusal("(?<=a"));
        assert!(refusal("a{2,1}").contains("invalid repetition"));
    }
}
