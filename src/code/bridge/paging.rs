//! Cut-short notes a program made good: a tool's `[cut short]` note says how to get the rest
//! (`page with offset=N`); a program that goes on to ask for exactly that page, after every
//! call that was cut there, is not told page after page that it was cut short.

use std::collections::HashSet;

use ptc_engine::{Note, NoteKind};

/// The pages a run's calls asked for and where their results were cut, by call number.
#[derive(Default)]
pub(super) struct Paging {
    /// `(tool, offset)` → the last call that asked for that page.
    asked: std::collections::HashMap<(String, u64), u64>,
    /// `(tool, offset of the rest, call)` of each result cut short with a page to go on from.
    cut: Vec<(String, u64, u64)>,
}

/// The `offset=N` a cut-short note tells the program to go on from.
fn next_offset(note: &str) -> Option<u64> {
    let rest = note.split("offset=").nth(1)?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

impl Paging {
    /// Call `n` of `tool` asked for the page at `offset`.
    pub(super) fn asked(&mut self, n: u64, tool: &str, offset: u64) {
        self.asked.insert((tool.to_string(), offset), n);
    }

    /// Call `n` of `tool` was cut short, saying `note`.
    pub(super) fn cut(&mut self, n: u64, tool: &str, note: &str) {
        if let Some(offset) = next_offset(note) {
            self.cut.push((tool.to_string(), offset, n));
        }
    }

    /// Drop the cut-short notes whose page every call cut there went on to ask for.
    pub(super) fn drop_made_good(&self, notes: &mut Vec<Note>) {
        let mut open: HashSet<(&str, u64)> = HashSet::new();
        for (tool, offset, n) in &self.cut {
            let later = self.asked.get(&(tool.clone(), *offset));
            if later.is_none_or(|asked| asked <= n) {
                open.insert((tool, *offset));
            }
        }
        notes.retain(|note| {
            let made_good = note.kind == NoteKind::CutShort
                && next_offset(&note.text).is_some_and(|offset| {
                    let key = (note.subject.clone(), offset);
                    self.asked.contains_key(&key) && !open.contains(&(key.0.as_str(), offset))
                });
            !made_good
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut_note(tool: &str, offset: u64) -> Note {
        Note {
            kind: NoteKind::CutShort,
            site: Some((1, 1)),
            subject: tool.into(),
            text: format!(
                "10,000 of 30,000 matches (narrow the pattern, or page with offset={offset})"
            ),
            count: 1,
        }
    }

    #[test]
    fn a_page_asked_for_after_the_cut_makes_the_note_good_and_one_asked_before_does_not() {
        let mut paging = Paging::default();
        paging.cut(1, "grep", &cut_note("grep", 10_000).text);
        paging.asked(2, "grep", 10_000);
        let mut notes = vec![cut_note("grep", 10_000)];
        paging.drop_made_good(&mut notes);
        assert!(notes.is_empty());
        // A later call cut at the same place, with no page asked after it: the note stays.
        paging.cut(3, "grep", &cut_note("grep", 10_000).text);
        let mut notes = vec![cut_note("grep", 10_000)];
        paging.drop_made_good(&mut notes);
        assert_eq!(notes.len(), 1);
    }
}
