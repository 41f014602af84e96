//! Console capture and output accounting, counted on the Rust side so a program cannot exceed
//! [`Limits::max_output_bytes`](crate::Limits::max_output_bytes) unnoticed.

use crate::{
    json, left::LeftBehind, notes::Notes, program::positions::PositionMap, FailureKind, LogLevel,
    NoteKind, Program, RunFailure, RunReport,
};

/// What the glue's `encodeResult(value, maxLength)` answered.
#[derive(Debug)]
pub(crate) enum Encoded {
    /// The program returned `undefined`.
    Undefined,
    /// The JSON text would pass `maxLength` (the output still allowed).
    TooLong,
    /// The JSON text.
    Text(String),
}

/// The console lines of one run and the bytes counted so far.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub(crate) logs: Vec<String>,
    pub(crate) levels: Vec<LogLevel>,
    /// The run's notes so far (not counted against the output limit: they are few and capped).
    notes: Notes,
    used: usize,
    max: usize,
}

impl Output {
    /// An empty capture that allows `max` bytes, with the notes found before the run.
    pub(crate) fn new(max: usize, notes: Notes) -> Self {
        Output {
            max,
            notes,
            ..Default::default()
        }
    }

    /// Record one console line and return it as kept; `Err` when it does not fit (the
    /// line is then not kept).
    pub(crate) fn log(&mut self, level: LogLevel, line: String) -> Result<&str, RunFailure> {
        self.charge(line.len())?;
        self.logs.push(line);
        self.levels.push(level);
        Ok(self.logs.last().map(String::as_str).unwrap_or_default())
    }

    /// Record a note at `site` (`"line:col"` in the running program, or `""`).
    pub(crate) fn note(&mut self, kind: NoteKind, site: &str, subject: &str, text: &str) {
        self.notes.add(kind, site, subject, text);
    }

    /// The raw `note(kind, site, subject, text)`: a note of the kind [`NoteKind::from_name`]
    /// names (an unknown kind is a plain note), or with `"unsaid"` one plain note made before
    /// taken back (a read made it moot, see [`crate::Reply::unless_read`]).
    pub(crate) fn note_named(&mut self, kind: &str, site: &str, subject: &str, text: &str) {
        match kind {
            "unsaid" => self.notes.take_back(site, subject, text),
            _ => {
                let kind = NoteKind::from_name(kind).unwrap_or(NoteKind::Note);
                self.note(kind, site, subject, text);
            }
        }
    }

    /// Count `bytes` more (e.g. the serialized returned value) against the limit.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), RunFailure> {
        let used = self.used.saturating_add(bytes);
        if used > self.max {
            return Err(self.exceeded());
        }
        self.used = used;
        Ok(())
    }

    /// The bytes still allowed.
    pub(crate) fn remaining(&self) -> usize {
        self.max.saturating_sub(self.used)
    }

    /// The failure reported when the limit is exceeded.
    pub(crate) fn exceeded(&self) -> RunFailure {
        RunFailure::new(
            FailureKind::OutputLimit,
            format!(
                "console output and the returned value exceeded {} bytes",
                self.max
            ),
        )
    }

    /// The returned value from the glue's `encodeResult` answer, counted against the limit.
    pub(crate) fn finish(
        &mut self,
        encoded: Encoded,
    ) -> Result<Option<serde_json::Value>, RunFailure> {
        let text = match encoded {
            Encoded::Undefined => return Ok(None),
            Encoded::TooLong => return Err(self.exceeded()),
            Encoded::Text(text) => text,
        };
        self.charge(text.len())?;
        json::parse(&text).map(Some).map_err(RunFailure::not_json)
    }

    /// A returned value read without JSON text, counted against the limit by its JSON text's
    /// length.
    #[cfg(feature = "quickjs")]
    pub(crate) fn finish_value(
        &mut self,
        value: serde_json::Value,
    ) -> Result<Option<serde_json::Value>, RunFailure> {
        self.charge(json::to_string(&value).len())?;
        Ok(Some(value))
    }

    /// The report of a run that ended with `outcome`, with the lines captured so far and the
    /// calls it left behind and its notes (sites mapped to the program as written through `map`;
    /// a note about a read names what was read from the program, see [`name_read`]).
    pub(crate) fn report(
        self,
        outcome: Result<Option<serde_json::Value>, RunFailure>,
        mut left_behind: Vec<LeftBehind>,
        map: &PositionMap,
        program: &Program,
    ) -> RunReport {
        for call in &mut left_behind {
            call.site = call.site.map(|(line, col)| map.original(line, col));
        }
        let source = &program.source;
        let notes_left_out = self.notes.left_out;
        let mut notes = self.notes.into_kept(map);
        for note in &mut notes {
            name_read(note, source);
        }
        RunReport {
            logs: self.logs,
            log_levels: self.levels,
            outcome,
            left_behind,
            notes,
            notes_left_out,
        }
    }
}

/// A note whose subject is `.field` (a read the glue noted) names the expression read, from the
/// program's line at its site, and points at where that expression starts (engines place a
/// read's frame differently): `m.file` (just `file` when it cannot be found).
fn name_read(note: &mut crate::Note, source: &str) {
    let Some(field) = note.subject.strip_prefix('.') else {
        return;
    };
    let line = note
        .site
        .and_then(|(line, col)| Some((source.split('\n').nth(line.checked_sub(1)?)?, col)));
    let expression = line.and_then(|(text, col)| crate::unreadable::expression(text, col, field));
    note.subject = match expression {
        Some((expression, start)) => {
            note.site = note.site.map(|(line, _)| (line, start));
            format!("{expression}.{field}")
        }
        None => field.to_string(),
    };
}
