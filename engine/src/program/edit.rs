//! Edits to a program's text, made in one pass that keeps track of where positions move.

use super::{
    positions::PositionMap,
    sites::{self, Site},
};

/// One change to the program text, at byte offsets of the original.
pub(super) enum Edit {
    /// Replace `start..end` with spaces (newlines kept).
    Blank(usize, usize),
    /// Replace `start..end` with `text`, padded with spaces to the same length.
    Replace(usize, usize, &'static str),
    /// Insert `text` before `at`.
    Insert(usize, &'static str),
}

/// What happens at one offset of the original, in the order [`apply`] meets them.
enum Event<'a> {
    Edit(Edit),
    /// The name of direct call `sites[i]` starts here: note its running position.
    Name(usize),
    /// Insert the mark of direct call `sites[i]` here.
    Mark(usize, &'a Site),
}

/// Apply `edits` to `original` and mark the direct calls at `sites` (see [`sites`]), in one pass
/// from the start, recording insertions in `map`; the edited text. It runs after `lead`
/// characters of the engine's wrapper on its first line, which marks count in their columns.
pub(super) fn apply(
    original: &str,
    map: &mut PositionMap,
    edits: Vec<Edit>,
    sites: &[Site],
    lead: usize,
) -> String {
    // At one offset, insertions go first (before the text there, so a name after an insertion at
    // its offset moves with the text), then replacements, then names.
    let mut events = Vec::with_capacity(edits.len() + 2 * sites.len());
    for edit in edits {
        let (at, order) = match edit {
            Edit::Insert(at, _) => (at, 0),
            Edit::Blank(at, _) | Edit::Replace(at, _, _) => (at, 1),
        };
        events.push((at, order, Event::Edit(edit)));
    }
    for (i, site) in sites.iter().enumerate() {
        events.push((site.mark, 0, Event::Mark(i, site)));
        events.push((site.name, 2, Event::Name(i)));
    }
    events.sort_by_key(|(at, order, _)| (*at, *order));
    let mut pass = Pass::new(original, sites.len(), lead);
    for (at, _, event) in events {
        pass.copy_to(at);
        match event {
            Event::Edit(Edit::Blank(_, end)) => {
                let blank = blanked(pass.ahead(end));
                pass.replace(end, &blank);
            }
            Event::Edit(Edit::Replace(_, end, with)) => {
                let replaced = pass.ahead(end);
                if replaced.contains(['\n', '\r']) {
                    // Keep the lines (`export\ndefault …`): blank the range, then insert `with`.
                    let blank = blanked(replaced);
                    pass.replace(end, &blank);
                    pass.insert(map, with);
                } else {
                    let width = replaced.chars().count();
                    pass.replace(end, &format!("{with:<width$}"));
                }
            }
            Event::Edit(Edit::Insert(_, text)) => pass.insert(map, text),
            Event::Name(i) => pass.names[i] = pass.running(),
            Event::Mark(i, site) => {
                let (line, col) = pass.names[i];
                pass.insert(map, &sites::mark(site, line, col));
            }
        }
    }
    pass.copy_to(original.len());
    pass.out
}

/// `text` as spaces, its line breaks kept.
fn blanked(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
        .collect()
}

/// The state of one [`apply`] pass.
struct Pass<'a> {
    original: &'a str,
    /// The next byte of `original` to copy.
    from: usize,
    /// The original's line and column (in characters, 1-based) at `from`.
    line: usize,
    col: usize,
    /// The edited text so far, and its line and column (in characters, 1-based) at the end.
    out: String,
    out_line: usize,
    out_col: usize,
    /// The running `line:col` of each call's name.
    names: Vec<(usize, usize)>,
}

impl<'a> Pass<'a> {
    fn new(original: &'a str, sites: usize, lead: usize) -> Self {
        Pass {
            original,
            from: 0,
            line: 1,
            col: 1,
            out: String::with_capacity(original.len() + 24 * sites),
            out_line: 1,
            out_col: 1 + lead,
            names: vec![(0, 0); sites],
        }
    }

    /// Copy the original up to `at` unchanged (nothing when already past it).
    fn copy_to(&mut self, at: usize) {
        if at > self.from {
            let text = &self.original[self.from..at];
            self.replace(at, text);
        }
    }

    /// The original from the next byte up to `end` (empty when already past it).
    fn ahead(&self, end: usize) -> &'a str {
        &self.original[self.from..end.max(self.from)]
    }

    /// Read the original up to `end`, writing `with` in its place.
    fn replace(&mut self, end: usize, with: &str) {
        let read = self.ahead(end);
        (self.line, self.col) = advance((self.line, self.col), read);
        self.from = self.from.max(end);
        self.write(with);
    }

    /// Write `text` that replaces nothing, recording it in `map`.
    fn insert(&mut self, map: &mut PositionMap, text: &str) {
        map.insert(self.line, self.col, text.chars().count());
        self.write(text);
    }

    fn write(&mut self, text: &str) {
        self.out.push_str(text);
        (self.out_line, self.out_col) = advance((self.out_line, self.out_col), text);
    }

    /// The running line and column of the next character written.
    fn running(&self) -> (usize, usize) {
        (self.out_line, self.out_col)
    }
}

/// The line and column (in characters, 1-based) after `text`, starting at `line:col`.
fn advance((line, col): (usize, usize), text: &str) -> (usize, usize) {
    match text.rfind('\n') {
        Some(last) => (
            line + text.bytes().filter(|&b| b == b'\n').count(),
            text[last + 1..].chars().count() + 1,
        ),
        None => (line, col + text.chars().count()),
    }
}
