//! What `write` keeps of the file it replaces, whatever the content says there: its CRLF line
//! endings, its UTF-8 byte order mark, and its final newline or lack of one.
//!
//! `read` shows lines without their endings and without a leading BOM, so content a program
//! builds from them (`lines.map(l => l.text).join("\n")`) says nothing of either; writing it
//! as given would turn a Windows file's endings to LF, drop its BOM or its final newline.
//! Each thing kept is said ([`Kept::note`]): in a program as a `[note]` on the write, so a
//! program that meant to change them learns that it did not (bash changes line endings; edit
//! adds or drops a final newline).

use super::data_caps::thousands;

/// The UTF-8 byte order mark.
pub(crate) const BOM: char = '\u{FEFF}';

/// What [`keep`] changed in the content to keep the replaced file's form.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Kept {
    /// The content's `\n` were written as `\r\n`.
    crlf: bool,
    /// A BOM was put before the content.
    bom: bool,
    /// A final newline was added (`Some(true)`) or dropped (`Some(false)`).
    final_newline: Option<bool>,
    /// The replaced file's lines ended in CRLF and in LF, and the content has LF alone: the
    /// file has the content's.
    mixed: Option<Endings>,
    /// The replaced file ended in more blank lines than the content does: how many each.
    blank: Option<(usize, usize)>,
}

impl Kept {
    /// What was kept of `shown`, for a note: `` `a.ini` kept its CRLF line endings (…) ``.
    pub(crate) fn note(&self, shown: &str) -> Option<String> {
        let mut what = Vec::new();
        if self.crlf {
            what.push(
                "CRLF line endings (the content's \\n written as \\r\\n; exact: true writes LF)",
            );
        }
        if self.bom {
            what.push("UTF-8 byte order mark (put back before the content; exact: true drops it)");
        }
        match self.final_newline {
            Some(true) => what.push("final newline (one added)"),
            Some(false) => what.push(
                "lack of a final newline (the content's last one dropped; exact: true keeps it)",
            ),
            None => {}
        }
        let kept = (!what.is_empty()).then(|| format!("`{shown}` kept its {}", what.join(", ")));
        let lost = self.mixed.map(|Endings { crlf, lf }| {
            format!(
                "`{shown}` had both CRLF ({crlf}) and LF ({lf}) line endings: written with \
                 the content's LF alone (`\\r\\n` where a line should end in CRLF)"
            )
        });
        // Said, not undone: a program may have meant to trim them.
        let blank = self.blank.map(|(before, after)| {
            format!(
                "`{shown}` ended in {before} blank line(s), the content in {after}: lines read \
                 and joined with \"\\n\" (the last one empty) need one more \"\\n\" to keep \
                 them"
            )
        });
        let said: Vec<String> = [kept, lost, blank].into_iter().flatten().collect();
        (!said.is_empty()).then(|| said.join("; "))
    }
}

/// What a BOM read from line 1 of `shown` becomes: not text, and kept by `write`.
pub(crate) fn bom_note(shown: &str) -> String {
    format!("`{shown}` starts with a UTF-8 byte order mark, not in line 1's text (write keeps it)")
}

/// How the lines of a text end: how many in CRLF, how many in a bare LF.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Endings {
    pub(crate) crlf: usize,
    pub(crate) lf: usize,
}

impl Endings {
    /// The line endings of `text`.
    pub(crate) fn of(text: &str) -> Self {
        let lines = text.matches('\n').count();
        let crlf = text.matches("\r\n").count();
        Endings {
            crlf,
            lf: lines - crlf,
        }
    }

    /// Every line ends in CRLF (and one does).
    pub(crate) fn all_crlf(self) -> bool {
        self.crlf > 0 && self.lf == 0
    }

    /// Some lines end in CRLF, others in LF.
    pub(crate) fn mixed(self) -> bool {
        self.crlf > 0 && self.lf > 0
    }
}

/// What a program is told of `shown`, whose lines end in both CRLF and LF: read shows
/// neither, and neither write nor edit can tell which line had which.
pub(crate) fn mixed_note(shown: &str, Endings { crlf, lf }: Endings) -> String {
    format!(
        "`{shown}` has both CRLF ({crlf}) and LF ({lf}) line endings, which read does not \
         show: write and edit keep only the endings written (`\\r\\n` where a line ends in \
         CRLF; or change the file with bash)"
    )
}

/// What a program is told of `shown`, whose lines hold `cr` carriage returns not followed by a
/// line feed: the line endings of classic Mac OS (or a progress bar's), which no tool splits
/// lines at.
pub(crate) fn lone_cr_note(shown: &str, cr: usize) -> String {
    format!(
        "`{shown}` has {} carriage return(s) (`\\r`) inside its lines, as files ending lines in \
         CR alone (classic Mac OS) do: lines are split at `\\n` only, so each such line holds \
         several (split its text on \"\\r\", or convert the file: bash tr '\\r' '\\n')",
        thousands(cr as u64)
    )
}

/// How many blank lines `text` ends in (`a\n\n` one, `a\n` none).
fn trailing_blank_lines(text: &str) -> usize {
    let newlines = text.len() - text.trim_end_matches(['\n', '\r']).len();
    let newlines = text[text.len() - newlines..].matches('\n').count();
    newlines.saturating_sub(1)
}

/// Whether `text` has content and its last line has no line ending.
fn lacks_final_newline(text: &str) -> bool {
    !text.is_empty() && !text.ends_with('\n')
}

/// Change `content`, which replaces a file that held `before`, so that the file keeps its CRLF
/// line endings (content with a `\r` anywhere is taken as written), its BOM, and its final
/// newline or lack of one; say what was changed.
pub(crate) fn keep(before: &str, content: &mut String) -> Kept {
    let mut kept = Kept::default();
    let endings = Endings::of(before);
    let crlf_file = endings.all_crlf();
    if content.contains('\n') && !content.contains('\r') {
        if crlf_file {
            *content = content.replace('\n', "\r\n");
            kept.crlf = true;
        } else if endings.mixed() {
            kept.mixed = Some(endings);
        }
    }
    if before.starts_with(BOM) && !content.starts_with(BOM) {
        content.insert(0, BOM);
        kept.bom = true;
    }
    // Only the BOM: no line, no final newline to keep or lack.
    let body = |text: &str| text.strip_prefix(BOM).unwrap_or(text).is_empty();
    if body(before) || body(content) {
        return kept;
    }
    if lacks_final_newline(before) {
        let trimmed = content
            .strip_suffix("\r\n")
            .or_else(|| content.strip_suffix('\n'))
            .map(str::len);
        if let Some(len) = trimmed {
            content.truncate(len);
            kept.final_newline = Some(false);
        }
    } else if lacks_final_newline(content) {
        content.push_str(if crlf_file { "\r\n" } else { "\n" });
        kept.final_newline = Some(true);
    }
    let (before_blank, after_blank) = (trailing_blank_lines(before), trailing_blank_lines(content));
    if after_blank < before_blank {
        kept.blank = Some((before_blank, after_blank));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(before: &str, content: &str) -> (String, Kept) {
        let mut content = content.to_string();
        let kept = keep(before, &mut content);
        (content, kept)
    }

    #[test]
    fn trailing_blank_lines_the_content_lacks_are_said_not_undone() {
        // read's lines of "a\n\n" are "a" and "": joined, "a\n", which lost the blank line.
        let (text, k) = kept("a\n\n", "A\n");
        assert_eq!(text, "A\n");
        assert_eq!(
            k.note("f").unwrap(),
            "`f` ended in 1 blank line(s), the content in 0: lines read and joined with \"\\n\" \
             (the last one empty) need one more \"\\n\" to keep them"
        );
        assert_eq!(kept("a\r\n\r\n", "A\r\n\r\n").1.note("f"), None);
        assert_eq!(kept("a\n", "A\n\n").1.note("f"), None);
        assert_eq!(trailing_blank_lines("a\n\n\n"), 2);
        assert_eq!(trailing_blank_lines("a"), 0);
    }

    #[test]
    fn a_crlf_file_keeps_its_endings_and_says_so() {
        let (text, k) = kept("a\r\nb\r\n", "A\nB\n");
        assert_eq!(text, "A\r\nB\r\n");
        assert_eq!(
            k.note("a.ini").unwrap(),
            "`a.ini` kept its CRLF line endings (the content's \\n written as \\r\\n; exact: \
             true writes LF)"
        );
        // Content with a `\r` is taken as written.
        assert_eq!(kept("a\r\nb\r\n", "A\r\nB\n").0, "A\r\nB\n");
    }

    #[test]
    fn the_final_newline_or_its_lack_is_kept_and_said() {
        let (text, k) = kept("a\nb\n", "A\nB");
        assert_eq!(text, "A\nB\n");
        assert_eq!(
            k.note("f").unwrap(),
            "`f` kept its final newline (one added)"
        );
        let (text, k) = kept("a\nb", "A\nB\n");
        assert_eq!(text, "A\nB");
        assert!(k.note("f").unwrap().contains("lack of a final newline"));
        let (text, k) = kept("a\r\nb\r\n", "A\nB");
        assert_eq!(text, "A\r\nB\r\n");
        assert!(k.crlf && k.final_newline == Some(true));
    }

    #[test]
    fn a_bom_is_put_back_once_and_said() {
        let (text, k) = kept("\u{FEFF}a\n", "A\n");
        assert_eq!(text, "\u{FEFF}A\n");
        assert!(k.note("f").unwrap().contains("UTF-8 byte order mark"));
        let (text, k) = kept("\u{FEFF}a\n", "\u{FEFF}A\n");
        assert_eq!(text, "\u{FEFF}A\n");
        assert_eq!(k, Kept::default());
    }

    #[test]
    fn content_in_the_file_s_form_or_an_empty_file_changes_nothing() {
        for (before, content) in [("a\n", "b\n"), ("a", "b"), ("", "b"), ("a\n", "")] {
            let (text, k) = kept(before, content);
            assert_eq!(text, content, "{before:?}");
            assert!(k == Kept::default() && k.note("f").is_none(), "{before:?}");
        }
    }
}
