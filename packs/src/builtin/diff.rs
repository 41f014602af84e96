//! Hunks for `write` and `edit`: the changed lines with up to [`CONTEXT`] lines of
//! context on each side, computed from the before and after text. They are part of the
//! tools' values (so a program can check what changed) and feed the `diff` result card.

use ptc_schema::ValueSpec;
use serde::{Deserialize, Serialize};

use ptc::presentation::FileDiff;

/// Hunks a value carries at most; later changes are counted but not shown.
pub(crate) const MAX_HUNKS: usize = 50;

/// One changed region of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Hunk {
    /// 1-based line of the new file where the region starts.
    pub line: u64,
    /// The region before the change.
    pub old_text: String,
    /// The region after the change.
    pub new_text: String,
}

impl Hunk {
    /// The diff-card entry for this hunk of `path`.
    pub(crate) fn file_diff(&self, path: &str) -> FileDiff {
        FileDiff {
            path: path.to_string(),
            old_text: Some(self.old_text.clone()),
            new_text: self.new_text.clone(),
        }
    }
}

/// The output schema of a hunk list.
pub(crate) fn hunks_spec() -> ValueSpec {
    ValueSpec::array(
        ValueSpec::object(false)
            .required_property("line", ValueSpec::integer())
            .required_property("old_text", ValueSpec::string())
            .required_property("new_text", ValueSpec::string()),
    )
    .describe("Changed regions (≤ 50); `line`: its first in the new file (up to 3 of context).")
}

/// Context lines kept around each change.
pub(crate) const CONTEXT: usize = 3;
/// Bytes kept of each side of a hunk; longer sides are cut with a marker.
pub(crate) const MAX_SIDE: usize = 64 * 1024;

/// The whole file as a new file (`oldText: null`).
pub(crate) fn created(path: &str, new: &str) -> FileDiff {
    FileDiff {
        path: path.to_string(),
        old_text: None,
        new_text: cap(new),
    }
}

/// The hunks between `old` and `new`: a line diff (Myers', through `similar`), changes less
/// than twice [`CONTEXT`] lines apart in one hunk, the first [`MAX_HUNKS`]; none when they
/// are equal. A diff that would take long (two large, very different files) gives up in
/// [`DIFF_DEADLINE`] and says one hunk spans the changes, as a common prefix and suffix do.
pub(crate) fn replaced(old: &str, new: &str) -> Vec<Hunk> {
    if old == new {
        return Vec::new();
    }
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new);
    let (old_lines, new_lines) = (diff.old_slices(), diff.new_slices());
    diff.grouped_ops(CONTEXT)
        .iter()
        .take(MAX_HUNKS)
        .filter_map(|group| {
            let (first, last) = (group.first()?, group.last()?);
            let olds = first.old_range().start..last.old_range().end;
            let news = first.new_range().start..last.new_range().end;
            Some(Hunk {
                line: news.start as u64 + 1,
                old_text: cap(&old_lines[olds].concat()),
                new_text: cap(&new_lines[news].concat()),
            })
        })
        .collect()
}

/// How long a diff may take before it settles for a coarser answer.
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(200);

/// Replace the non-overlapping byte ranges `matches` (ascending) of `old` with
/// `replacement`; returns the new text (of `new_len` bytes, reserved up front, so an
/// allocation that fails is an error, not an abort) and one hunk per group of nearby changes
/// (the first [`MAX_HUNKS`]). One pass over `old`, whatever the number of matches.
pub(crate) fn apply_edits(
    old: &str,
    matches: impl IntoIterator<Item = (usize, usize)>,
    replacement: &str,
    new_len: usize,
) -> Result<(String, Vec<Hunk>), std::collections::TryReserveError> {
    let mut new = String::new();
    new.try_reserve_exact(new_len)?;
    // Spans of lines (0-based, inclusive) around the matches, merged, with the bytes the
    // replacements before the span's first match and through its last one added.
    let mut spans: Vec<(usize, usize, isize, isize)> = Vec::new();
    let (mut last, mut shift, mut full) = (0usize, 0isize, false);
    let (mut counted, mut line) = (0usize, 0usize); // newlines in old[..counted]
    let mut line_of = |pos: usize| {
        line += newlines(&old.as_bytes()[counted..pos]);
        counted = pos;
        line
    };
    for (start, end) in matches {
        new.push_str(&old[last..start]);
        new.push_str(replacement);
        last = end;
        let before = shift;
        shift += replacement.len() as isize - (end - start) as isize;
        if full {
            continue;
        }
        let first = line_of(start).saturating_sub(CONTEXT);
        let through = line_of(end.max(start + 1) - 1) + CONTEXT;
        match spans.last_mut() {
            Some(span) if first <= span.1 + 1 => {
                span.1 = through;
                span.3 = shift;
            }
            _ => match spans.len() < MAX_HUNKS {
                true => spans.push((first, through, before, shift)),
                false => full = true,
            },
        }
    }
    new.push_str(&old[last..]);

    let starts = line_starts(old, spans.iter().flat_map(|s| [s.0, s.1 + 1]));
    let mut line = 1u64;
    let mut counted = 0usize;
    let hunks = spans
        .iter()
        .zip(starts.chunks(2))
        .map(|(&(_, _, before, after), bounds)| {
            let (s, e) = (bounds[0], bounds[1]);
            let ns = (s as isize + before) as usize;
            let ne = (e as isize + after) as usize;
            line += newlines(&new.as_bytes()[counted..ns]) as u64;
            counted = ns;
            Hunk {
                line,
                old_text: cap(&old[s..e]),
                new_text: cap(&new[ns..ne]),
            }
        })
        .collect();
    Ok((new, hunks))
}

fn newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// The byte offset where each of `lines` (0-based, ascending) starts in `text` (its length
/// for a line past the end), in one pass.
fn line_starts(text: &str, lines: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut out = Vec::new();
    let mut breaks = text
        .bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i + 1);
    let (mut at_line, mut at) = (0usize, 0usize);
    for wanted in lines {
        while at_line < wanted && at < text.len() {
            at = breaks.next().unwrap_or(text.len());
            at_line += 1;
        }
        out.push(if at_line < wanted { text.len() } else { at });
    }
    out
}

fn cap(text: &str) -> String {
    if text.len() <= MAX_SIDE {
        return text.to_string();
    }
    let mut cut = MAX_SIDE;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n… [cut: {} bytes in all]", &text[..cut], text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_far_apart_make_separate_hunks_with_context() {
        let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let a = old.find("line 2\n").unwrap();
        let b = old.find("line 18\n").unwrap();
        let matches = [(a, a + 6), (b, b + 7)];
        let (new, hunks) = apply_edits(&old, matches, "X", old.len()).unwrap();
        assert!(new.starts_with("line 1\nX\nline 3\n"));
        assert!(new.contains("line 17\nX\nline 19\n"));
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].line, 1);
        assert_eq!(
            hunks[0].old_text,
            "line 1\nline 2\nline 3\nline 4\nline 5\n"
        );
        assert_eq!(hunks[0].new_text, "line 1\nX\nline 3\nline 4\nline 5\n");
        assert_eq!(hunks[1].line, 15);
        assert_eq!(
            hunks[1].old_text,
            "line 15\nline 16\nline 17\nline 18\nline 19\nline 20\n"
        );
        assert_eq!(
            hunks[1].new_text,
            "line 15\nline 16\nline 17\nX\nline 19\nline 20\n"
        );
    }

    #[test]
    fn nearby_edits_merge_into_one_hunk() {
        let old = "a\nb\nc\nd\ne\n";
        let (new, hunks) = apply_edits(old, [(0, 1), (4, 5)], "zz", 12).unwrap();
        assert_eq!(new, "zz\nb\nzz\nd\ne\n");
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].old_text, old);
        assert_eq!(hunks[0].new_text, new);
    }

    #[test]
    fn replaced_trims_common_lines_to_context() {
        let old: String = (1..=10).map(|i| format!("{i}\n")).collect();
        let new = old.replace("5\n", "five\n");
        let hunk = &replaced(&old, &new)[0];
        assert_eq!(hunk.line, 2);
        assert_eq!(hunk.old_text, "2\n3\n4\n5\n6\n7\n8\n");
        assert_eq!(hunk.new_text, "2\n3\n4\nfive\n6\n7\n8\n");
    }

    #[test]
    fn a_write_changing_places_far_apart_makes_a_hunk_for_each() {
        let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 39\n", "line thirty-nine\n");
        let hunks = replaced(&old, &new);
        assert_eq!(hunks.len(), 2, "{hunks:?}");
        assert_eq!(hunks[0].line, 1);
        assert_eq!(
            hunks[0].old_text,
            "line 1\nline 2\nline 3\nline 4\nline 5\n"
        );
        assert_eq!(hunks[1].line, 36);
        assert_eq!(
            hunks[1].new_text,
            "line 36\nline 37\nline 38\nline thirty-nine\nline 40\n"
        );
        // Lines inserted before a change move its `line` in the new file.
        let grown = format!("new 1\nnew 2\n{}", new);
        assert_eq!(replaced(&old, &grown).last().unwrap().line, 38);
    }

    #[test]
    fn replaced_handles_pure_insertions_and_deletions() {
        let hunk = &replaced("a\nb\n", "a\nb\nc\n")[0];
        assert_eq!(hunk.old_text, "a\nb\n");
        assert_eq!(hunk.new_text, "a\nb\nc\n");
        let hunk = &replaced("a\nb\nc\n", "")[0];
        assert_eq!(hunk.new_text, "");
        assert!(replaced("same\n", "same\n").is_empty());
    }
}
