//! The JSON-lines file sink and its replay.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{SessionError, SessionEvent, SessionLog};

/// Appends each event as one JSON line, flushed before `append` returns.
#[derive(Debug)]
pub struct JsonlLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl JsonlLog {
    /// Open (creating or appending to) `path`.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(JsonlLog {
            path,
            file: Mutex::new(file),
        })
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl SessionLog for JsonlLog {
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError> {
        let mut line = serde_json::to_vec(event).map_err(|e| SessionError(e.to_string()))?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.write_all(&line)
            .and_then(|_| file.flush())
            .map_err(|e| SessionError(format!("{}: {e}", self.path.display())))
    }
}

/// Read a JSON-lines session file back into events. Blank lines are skipped; a bad
/// line is an error naming its line number.
pub fn read_jsonl(path: impl AsRef<Path>) -> Result<Vec<SessionEvent>, SessionError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| SessionError(format!("{}: {e}", path.display())))?;
    let mut events = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| SessionError(format!("{}:{}: {e}", path.display(), i + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let event = crate::json::parse_unbounded(&line)
            .and_then(serde_json::from_value)
            .map_err(|e| SessionError(format!("{}:{}: {e}", path.display(), i + 1)))?;
        events.push(event);
    }
    Ok(events)
}

/// A line of a session file that is not an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// Why it was skipped.
    pub error: String,
}

/// Read a JSON-lines session file, skipping lines that are not events (a damaged or
/// truncated log, say, or values nested deeper than [`ptc_schema::value::MAX_DEPTH`]) and
/// reporting each. Only an unreadable file is an error.
pub fn read_jsonl_lossy(
    path: impl AsRef<Path>,
) -> Result<(Vec<SessionEvent>, Vec<BadLine>), SessionError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| SessionError(format!("{}: {e}", path.display())))?;
    let mut events = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in BufReader::new(file).split(b'\n').enumerate() {
        let line = line.map_err(|e| SessionError(format!("{}:{}: {e}", path.display(), i + 1)))?;
        let parsed = std::str::from_utf8(&line)
            .map_err(|e| format!("not UTF-8: {e}"))
            .and_then(|text| {
                if text.trim().is_empty() {
                    return Ok(None);
                }
                let value = crate::json::parse_unbounded(text).map_err(|e| e.to_string())?;
                // Nothing ptc writes nests deeper; what does is not walked recursively.
                if let Err(deep) = ptc_schema::value::check_depth(&value) {
                    ptc_schema::value::drop_deep(value);
                    return Err(deep);
                }
                serde_json::from_value(value)
                    .map(Some)
                    .map_err(|e| e.to_string())
            });
        match parsed {
            Ok(Some(event)) => events.push(event),
            Ok(None) => {}
            Err(error) => bad.push(BadLine { line: i + 1, error }),
        }
    }
    Ok((events, bad))
}
