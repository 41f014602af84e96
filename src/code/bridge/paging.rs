//! Cut-short notes a program made good: a tool's `[cut short]` note says how to get the rest
//! (`page with offset=N`); a program that goes on to ask for exactly that page, after every
//! call that was cut there, is not told page after page that it was cut short. Nor is a
//! program told a result was cut short when a later call of the same tool on the same target
//! (the same arguments, paging and waiting aside) came back whole: a `task_output` polled until
//! the task ended, say.

use std::collections::HashSet;

use ptc_engine::{Note, NoteKind};

/// The pages a run's calls asked for and where their results were cut, by call number.
#[derive(Default)]
pub(super) struct Paging {
    /// `(tool, offset)` → the last call that asked for that page.
    asked: std::collections::HashMap<(String, u64), u64>,
    /// `(tool, offset of the rest, call)` of each result cut short with a page to go on from.
    cut: Vec<(String, u64, u64)>,
    /// `(tool, target)` → the last call on it that was cut short, and the last that was not.
    targets: std::collections::HashMap<(String, String), (Option<u64>, Option<u64>)>,
}

/// Arguments that page or wait rather than name what a call is about.
const NOT_TARGET: [&str; 5] = ["offset", "limit", "wait", "timeout_ms", "head_limit"];

/// What a call is about: its arguments, paging and waiting aside.
fn target(args: &serde_json::Value) -> String {
    match args.as_object() {
        Some(object) => {
            let kept: serde_json::Map<_, _> = object
                .iter()
                .filter(|(key, _)| !NOT_TARGET.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            serde_json::Value::Object(kept).to_string()
        }
        None => args.to_string(),
    }
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

    /// Call `n` of `tool` with `args` settled, cut short or whole.
    pub(super) fn settled(&mut self, n: u64, tool: &str, args: &serde_json::Value, cut: bool) {
        let entry = self
            .targets
            .entry((tool.to_string(), target(args)))
            .or_default();
        let last = if cut { &mut entry.0 } else { &mut entry.1 };
        *last = Some(last.map_or(n, |m| m.max(n)));
    }

    /// Tools with a call cut short that no later call on the same target made good.
    fn still_cut(&self) -> HashSet<&str> {
        self.targets
            .iter()
            .filter(|(_, (cut, whole))| cut.is_some_and(|cut| whole.is_none_or(|w| w < cut)))
            .map(|((tool, _), _)| tool.as_str())
            .collect()
    }

    /// Drop the cut-short notes whose page every call cut there went on to ask for, and
    /// those of a tool whose every cut target a later call got whole.
    pub(super) fn drop_made_good(&self, notes: &mut Vec<Note>) {
        let still_cut = self.still_cut();
        notes.retain(|note| {
            note.kind != NoteKind::CutShort
                || still_cut.contains(note.subject.as_str())
                || !self.targets.keys().any(|(tool, _)| *tool == note.subject)
        });
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

    #[test]
    fn a_later_whole_result_on_the_same_target_makes_the_note_good_and_another_target_does_not() {
        let running = |task: &str| Note {
            kind: NoteKind::CutShort,
            site: Some((2, 9)),
            subject: "task_output".into(),
            text: format!("{task}: the task is still running: this is its output so far"),
            count: 1,
        };
        let mut paging = Paging::default();
        let task_1 = serde_json::json!({ "task_id": "task-1" });
        paging.settled(1, "task_output", &task_1, true);
        paging.settled(
            2,
            "task_output",
            &serde_json::json!({ "task_id": "task-2" }),
            false,
        );
        let mut notes = vec![running("task-1")];
        paging.drop_made_good(&mut notes);
        assert_eq!(
            notes.len(),
            1,
            "task-2's whole output says nothing of task-1's"
        );
        let waited = serde_json::json!({ "task_id": "task-1", "wait": true });
        paging.settled(3, "task_output", &waited, false);
        paging.drop_made_good(&mut notes);
        assert!(notes.is_empty(), "polled until it ended: {notes:?}");
        // Cut again after that: the note is due again.
        paging.settled(4, "task_output", &task_1, true);
        let mut notes = vec![running("task-1")];
        paging.drop_made_good(&mut notes);
        assert_eq!(notes.len(), 1);
    }
}
