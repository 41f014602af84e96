//! The JSON-lines file sink and its replay.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::spill::{self, DirBlobs, Spill};
use super::{SessionError, SessionEvent, SessionLog};

/// The longest line replay reads; a longer one is skipped without being held in memory.
const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Appends each event as one JSON line, flushed before `append` returns. Large values go to
/// side files ([`super::spill`]), so lines stay small and repeated values are stored once.
///
/// A failed write is returned by `append` and also kept: [`JsonlLog::failure`] reports the
/// first one, so a caller that only looks at the end (e.g. `ptc run`) still learns that
/// events were lost.
#[derive(Debug)]
pub struct JsonlLog {
    path: PathBuf,
    sink: Mutex<Sink>,
    failure: OnceLock<String>,
}

#[derive(Debug)]
struct Sink {
    file: File,
    spill: Spill<DirBlobs>,
}

impl JsonlLog {
    /// Open (creating or appending to) `path`.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(JsonlLog {
            sink: Mutex::new(Sink {
                file,
                spill: Spill::new(DirBlobs::for_log(&path)),
            }),
            path,
            failure: OnceLock::new(),
        })
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The first write that failed, if any (events from then on may be missing).
    pub fn failure(&self) -> Option<&str> {
        self.failure.get().map(String::as_str)
    }

    fn failed(&self, message: String) -> SessionError {
        let _ = self.failure.set(message.clone());
        SessionError(message)
    }
}

impl SessionLog for JsonlLog {
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError> {
        let mut value = serde_json::to_value(event).map_err(|e| self.failed(e.to_string()))?;
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        let spilled = sink.spill.apply(&mut value);
        let mut line = ptc_schema::value::to_string_unbounded(&value).into_bytes();
        ptc_schema::value::drop_deep(value);
        line.push(b'\n');
        let written = sink.file.write_all(&line).and_then(|_| sink.file.flush());
        drop(sink);
        written.map_err(|e| self.failed(format!("{}: {e}", self.path.display())))?;
        spilled.map_err(|e| self.failed(e))
    }
}

/// A session file read back: the events that could be read, and why the other lines could
/// not ([`read_jsonl_lossy`]).
#[derive(Debug, Default)]
pub struct Replayed {
    /// The events, in file order.
    pub events: Vec<SessionEvent>,
    /// Each line that is not an event: its 1-based number and why.
    pub skipped: Vec<(usize, String)>,
}

/// Read a JSON-lines session file back into events. Blank lines are skipped; a bad
/// line is an error naming its line number.
pub fn read_jsonl(path: impl AsRef<Path>) -> Result<Vec<SessionEvent>, SessionError> {
    let path = path.as_ref();
    let replayed = read_jsonl_lossy(path)?;
    match replayed.skipped.first() {
        Some((line, reason)) => Err(SessionError(format!("{}:{line}: {reason}", path.display()))),
        None => Ok(replayed.events),
    }
}

/// Read a JSON-lines session file, keeping every line that is an event and naming the
/// others (truncated, not JSON, not an event, nested too deep, longer than 64 MiB). Only a
/// file that cannot be opened or read is an error.
pub fn read_jsonl_lossy(path: impl AsRef<Path>) -> Result<Replayed, SessionError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| SessionError(format!("{}: {e}", path.display())))?;
    let mut reader = BufReader::new(file);
    let mut replayed = Replayed::default();
    let mut buf = Vec::new();
    for number in 1.. {
        buf.clear();
        let read = read_line(&mut reader, &mut buf, MAX_LINE_BYTES)
            .map_err(|e| SessionError(format!("{}:{number}: {e}", path.display())))?;
        let Some(complete) = read else { break };
        if !complete {
            let reason = format!("longer than {MAX_LINE_BYTES} bytes");
            replayed.skipped.push((number, reason));
            continue;
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            replayed.skipped.push((number, "not UTF-8".into()));
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        match event_of(line, path) {
            Ok(event) => replayed.events.push(event),
            Err(reason) => replayed.skipped.push((number, reason)),
        }
    }
    Ok(replayed)
}

/// One line as an event: parsed at any depth, refused if nested deeper than an event can be,
/// spilled values restored.
fn event_of(line: &str, log: &Path) -> Result<SessionEvent, String> {
    let mut value = ptc_schema::value::parse_unbounded(line).map_err(|e| e.to_string())?;
    // Events hold values of at most MAX_DEPTH inside a few levels of their own.
    let limit = ptc_schema::value::MAX_DEPTH + 8;
    if ptc_schema::value::depth_up_to(&value, limit) > limit {
        ptc_schema::value::drop_deep(value);
        return Err(format!("nested deeper than {limit} levels"));
    }
    spill::restore(&mut value, &DirBlobs::for_log(log));
    serde_json::from_value::<SessionEvent>(value).map_err(|e| format!("not an event: {e}"))
}

/// Read one line (through `\n`) into `buf`, keeping at most `max` bytes: `Some(true)` for a
/// whole line, `Some(false)` for one that was longer (the rest was read past), `None` at the
/// end of input.
fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    let mut any = false;
    let mut whole = true;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then_some(whole));
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(end) => (&chunk[..end], true),
            None => (chunk, false),
        };
        if whole && buf.len() + part.len() <= max {
            buf.extend_from_slice(part);
        } else {
            whole = false;
            buf.clear();
        }
        let used = part.len() + usize::from(done);
        reader.consume(used);
        if done {
            return Ok(Some(whole));
        }
    }
}
