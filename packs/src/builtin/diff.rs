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
    .describe("Changed regions, 3 lines of context, at most 50; `line` is 1-based (new file).")
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

/// One hunk spanning every changed line between `old` and `new` (common leading and
/// trailing lines trimmed, [`CONTEXT`] lines kept); none when they are equal.
pub(crate) fn replaced(old: &str, new: &str) -> Vec<Hunk> {
    if old == new {
        return Vec::new();
    }
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = old_lines
        .iter()
        .zip(&new_lines)
        .take_while(|(a, b)| a == b)
        .count();
    let max_suffix = old_lines.len().min(new_lines.len()) - prefix;
    let suffix = old_lines
        .iter()
        .rev()
        .zip(new_lines.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let start = prefix.saturating_sub(CONTEXT);
    let old_end = (old_lines.len() - suffix + CONTEXT).min(old_lines.len());
    let new_end = (new_lines.len() - suffix + CONTEXT).min(new_lines.len());
    vec![Hunk {
        line: start as u64 + 1,
        old_text: cap(&old_lines[start..old_end].concat()),
        new_text: cap(&new_lines[start..new_end].concat()),
    }]
}

/// Replace the non-overlapping byte ranges `matches` (ascending) of `old` with
/// `replacement`; returns the new text and one hunk per group of nearby changes.
pub(crate) fn apply_edits(
    old: &str,
    matches: &[(usize, usize)],
    replacement: &str,
) -> (String, Vec<Hunk>) {
    let mut new = String::with_capacity(old.len());
    let mut last = 0;
    for &(start, end) in matches {
        new.push_str(&old[last..start]);
        new.push_str(replacement);
        last = end;
    }
    new.push_str(&old[last..]);

    // Line spans (in `old`, as byte ranges on line boundaries) around each match, merged.
    let mut spans: Vec<(usize, usize, usize, usize)> = Vec::new(); // old start/end, first/last match
    for (i, &(start, end)) in matches.iter().enumerate() {
        let s = line_start_back(old, start, CONTEXT);
        let e = line_end_forward(old, end, CONTEXT);
        match spans.last_mut() {
            Some(span) if s <= span.1 => {
                span.1 = span.1.max(e);
                span.3 = i;
            }
            _ => spans.push((s, e, i, i)),
        }
    }
    let delta = replacement.len() as isize;
    let shift = |pos: usize, before: usize| -> usize {
        // Bytes added by the `before` replacements that end at or before `pos`.
        let removed: usize = matches[..before].iter().map(|(s, e)| e - s).sum();
        (pos as isize + delta * before as isize - removed as isize) as usize
    };
    let mut line = 1u64;
    let mut counted = 0usize;
    let hunks = spans
        .into_iter()
        .take(MAX_HUNKS)
        .map(|(s, e, first, last)| {
            let ns = shift(s, first);
            let ne = shift(e, last + 1);
            line += new.as_bytes()[counted..ns]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            counted = ns;
            Hunk {
                line,
                old_text: cap(&old[s..e]),
                new_text: cap(&new[ns..ne]),
            }
        })
        .collect();
    (new, hunks)
}

/// Start of the line `lines` lines above the one holding `pos`.
fn line_start_back(text: &str, pos: usize, lines: usize) -> usize {
    let mut start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    for _ in 0..lines {
        if start == 0 {
            break;
        }
        start = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    start
}

/// End (after the newline) of the line `lines` lines below the one holding `pos - 1`.
fn line_end_forward(text: &str, pos: usize, lines: usize) -> usize {
    // A match that ends right after a newline ends its line there.
    let mut end = if pos > 0 && text.as_bytes()[pos - 1] == b'\n' {
        pos
    } else {
        text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
    };
    for _ in 0..lines {
        if end >= text.len() {
            break;
        }
        end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    }
    end
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
        let (new, hunks) = apply_edits(&old, &matches, "X");
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
        let (new, hunks) = apply_edits(old, &[(0, 1), (4, 5)], "zz");
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
    fn replaced_handles_pure_insertions_and_deletions() {
        let hunk = &replaced("a\nb\n", "a\nb\nc\n")[0];
        assert_eq!(hunk.old_text, "a\nb\n");
        assert_eq!(hunk.new_text, "a\nb\nc\n");
        let hunk = &replaced("a\nb\nc\n", "")[0];
        assert_eq!(hunk.new_text, "");
        assert!(replaced("same\n", "same\n").is_empty());
    }
}
