//! Notes on a run that did not change how it ended but that the model should know of: a tool
//! that says a cap cut its result short, a read of a field the tool's result type does not
//! have. Each carries the site in the program where it arose; the same note at the same site
//! is kept once with a count, and a run keeps at most [`MAX_NOTES`] different ones.

use crate::program::positions::PositionMap;

/// The most different notes one run keeps (the rest are only counted).
pub const MAX_NOTES: usize = 20;

/// What a note is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoteKind {
    /// A tool's cap cut its result short (the program got less than there is).
    CutShort,
    /// Anything else worth knowing (e.g. a read of a field the result type does not have).
    Note,
}

impl NoteKind {
    /// The stable string form: `"cut short"` or `"note"` (the raw `note` host function takes it).
    pub fn as_str(&self) -> &'static str {
        match self {
            NoteKind::CutShort => "cut short",
            NoteKind::Note => "note",
        }
    }

    /// The kind named by [`NoteKind::as_str`].
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "cut short" => Some(NoteKind::CutShort),
            "note" => Some(NoteKind::Note),
            _ => None,
        }
    }
}

/// One note on a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// What it is about.
    pub kind: NoteKind,
    /// Where it arose (1-based line and column in the program as written), when known.
    pub site: Option<(usize, usize)>,
    /// What it concerns: the tool for a cut-short result, the expression read for a field.
    pub subject: String,
    /// The note itself.
    pub text: String,
    /// How often the program hit it (at least 1).
    pub count: usize,
}

/// A run's notes as they arise (sites in the running program's positions until the report, but
/// for those found in the program before it ran).
#[derive(Debug, Default)]
pub(crate) struct Notes {
    kept: Vec<Note>,
    /// How many of the first kept notes were found before the run, their sites as written.
    written: usize,
    /// Notes past [`MAX_NOTES`] different ones.
    pub(crate) left_out: usize,
}

impl Notes {
    /// The notes found in a program before it runs (sites as written), with `left_out` more.
    pub(crate) fn written(mut kept: Vec<Note>, left_out: usize) -> Self {
        let left_out = left_out + kept.len().saturating_sub(MAX_NOTES);
        kept.truncate(MAX_NOTES);
        Notes {
            written: kept.len(),
            kept,
            left_out,
        }
    }

    /// Record a note at `site` (`"line:col"` as the glue reports it, or `""`).
    pub(crate) fn add(&mut self, kind: NoteKind, site: &str, subject: &str, text: &str) {
        let site = crate::left::parse_site(site);
        let same = |n: &&mut Note| {
            n.kind == kind && n.site == site && n.subject == subject && n.text == text
        };
        if let Some(note) = self.kept.iter_mut().find(same) {
            note.count += 1;
            return;
        }
        if self.kept.len() >= MAX_NOTES {
            self.left_out += 1;
            return;
        }
        self.kept.push(Note {
            kind,
            site,
            subject: subject.to_string(),
            text: text.to_string(),
            count: 1,
        });
    }

    /// Take back one plain note at `site` (`"line:col"` as the glue reports it) made with
    /// [`Notes::add`]: a read made it moot. A note past the cap is taken off the count.
    pub(crate) fn take_back(&mut self, site: &str, subject: &str, text: &str) {
        let site = crate::left::parse_site(site);
        let at = self.kept[self.written..].iter().position(|n| {
            n.kind == NoteKind::Note && n.site == site && n.subject == subject && n.text == text
        });
        match at.map(|i| i + self.written) {
            Some(i) if self.kept[i].count > 1 => self.kept[i].count -= 1,
            Some(i) => {
                self.kept.remove(i);
            }
            None => self.left_out = self.left_out.saturating_sub(1),
        }
    }

    /// The notes kept, in the order they first arose, with every site mapped through `map` to
    /// the program as written.
    pub(crate) fn into_kept(mut self, map: &PositionMap) -> Vec<Note> {
        for note in &mut self.kept[self.written..] {
            note.site = note.site.map(|(line, col)| map.original(line, col));
        }
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::{Note, NoteKind, Notes, PositionMap, MAX_NOTES};

    /// The map of a program that was run as written.
    fn unmoved() -> PositionMap {
        PositionMap::new(&"\n".repeat(MAX_NOTES + 5))
    }

    #[test]
    fn the_same_note_at_the_same_site_is_kept_once_with_a_count() {
        let mut notes = Notes::default();
        for _ in 0..3 {
            notes.add(NoteKind::Note, "4:12", "m.file", "no field file");
        }
        notes.add(NoteKind::Note, "5:1", "m.file", "no field file");
        let kept = notes.into_kept(&unmoved());
        assert_eq!(kept.len(), 2);
        assert_eq!((kept[0].site, kept[0].count), (Some((4, 12)), 3));
        assert_eq!((kept[1].site, kept[1].count), (Some((5, 1)), 1));
    }

    #[test]
    fn a_note_taken_back_counts_once_less_and_is_gone_at_none() {
        let mut notes = Notes::default();
        notes.add(NoteKind::Note, "3:1", "bash", "exited with code 1");
        notes.add(NoteKind::Note, "3:1", "bash", "exited with code 1");
        notes.add(NoteKind::CutShort, "3:1", "bash", "exited with code 1");
        notes.take_back("3:1", "bash", "exited with code 1");
        notes.take_back("9:9", "bash", "exited with code 1");
        let kept = notes.into_kept(&unmoved());
        assert_eq!(kept.len(), 2);
        assert_eq!((kept[0].kind, kept[0].count), (NoteKind::Note, 1));
        let mut notes = Notes::default();
        notes.add(NoteKind::Note, "3:1", "bash", "exited with code 1");
        notes.take_back("3:1", "bash", "exited with code 1");
        assert!(notes.into_kept(&unmoved()).is_empty());
    }

    #[test]
    fn notes_past_the_cap_are_only_counted() {
        let mut notes = Notes::default();
        for line in 1..=MAX_NOTES + 5 {
            notes.add(NoteKind::CutShort, &format!("{line}:1"), "grep", "cut");
        }
        assert_eq!(notes.left_out, 5);
        assert_eq!(notes.into_kept(&unmoved()).len(), MAX_NOTES);
    }

    #[test]
    fn notes_found_before_the_run_keep_their_sites_and_come_first() {
        let written = Note {
            kind: NoteKind::Note,
            site: Some((1, 3)),
            subject: "\"\\s\"".into(),
            text: "dropped".into(),
            count: 1,
        };
        let mut notes = Notes::written(vec![written.clone()], 2);
        notes.add(NoteKind::Note, "1:9", "m.file", "no field file");
        let mut map = PositionMap::new("return 1");
        map.insert(1, 1, 7);
        assert_eq!(notes.left_out, 2);
        let kept = notes.into_kept(&map);
        assert_eq!(kept[0], written);
        assert_eq!(kept[1].site, Some((1, 2)));
    }
}
