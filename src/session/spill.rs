//! Large values in a JSON-lines log: spilled to side files, so each line stays small.
//!
//! The seed's spill idea: a value too large for the log line is written once to a side file
//! named by its sha256 (in `<log>.blobs/`), and the line keeps a locator with a preview:
//!
//! ```json
//! {"$ptcSpill": "<sha256>", "bytes": 8388608, "preview": "first 512 characters…"}
//! ```
//!
//! What is spilled: an event's `arguments` or `meta` whose JSON is longer than
//! [`SPILL_JSON_BYTES`] (whole), and every other string longer than [`SPILL_STRING_BYTES`]
//! (content text, error messages). Equal values share one file, so fifty echoes of
//! one 8 MB string store it once. One log spills at most [`MAX_SPILL_BYTES`]; past that a
//! value is cut to its preview with a `[truncated: …]` marker. Reading a log puts spilled
//! values back (`restore`); a missing or damaged side file leaves the preview and says so.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::digest::sha256_hex;

/// Strings longer than this are spilled.
pub const SPILL_STRING_BYTES: usize = 16 * 1024;
/// Arrays and objects under `arguments` and `meta` whose JSON is longer than this are spilled.
pub const SPILL_JSON_BYTES: usize = 64 * 1024;
/// The most one log writes to side files.
pub const MAX_SPILL_BYTES: u64 = 512 * 1024 * 1024;
/// Characters of a spilled value kept in the line.
const PREVIEW_CHARS: usize = 512;
/// The key of a locator object.
const LOCATOR: &str = "$ptcSpill";

/// The side files of one log and what has been written to them.
#[derive(Debug)]
pub(super) struct Spill {
    dir: PathBuf,
    written: HashSet<String>,
    bytes: u64,
}

impl Spill {
    /// The side files of the log at `log` (`<log>.blobs/`, created when first needed).
    pub(super) fn for_log(log: &Path) -> Self {
        Spill {
            dir: blob_dir(log),
            written: HashSet::new(),
            bytes: 0,
        }
    }

    /// Replace the large values of an event (as JSON) by locators, writing their side files.
    /// `Err` names a side file that could not be written (the value is then cut instead).
    pub(super) fn apply(&mut self, event: &mut Value) -> Result<(), String> {
        let mut first_error = Ok(());
        // `structural`: the value of an `arguments` or `meta` key, spilled whole when large
        // (and kept whole, without a look inside, when not).
        let mut stack: Vec<(&mut Value, bool)> = vec![(event, false)];
        while let Some((value, structural)) = stack.pop() {
            let container = matches!(value, Value::Array(_) | Value::Object(_));
            if structural && container {
                let json = ptc_schema::value::to_string_unbounded(value);
                if json.len() > SPILL_JSON_BYTES {
                    let (locator, error) = self.spill(json.as_bytes(), &json, true);
                    ptc_schema::value::drop_deep(std::mem::replace(value, locator));
                    first_error = first_error.and(error);
                }
                continue;
            }
            match value {
                Value::String(text) if text.len() > SPILL_STRING_BYTES => {
                    let text = std::mem::take(text);
                    let (locator, error) = self.spill(text.as_bytes(), &text, false);
                    *value = locator;
                    first_error = first_error.and(error);
                }
                Value::Array(items) => stack.extend(items.iter_mut().map(|v| (v, false))),
                Value::Object(map) => stack.extend(
                    map.iter_mut()
                        .map(|(k, v)| (v, k == "arguments" || k == "meta")),
                ),
                _ => {}
            }
        }
        first_error
    }

    /// The locator of one value (`json`: it is JSON text, not a string), written unless an
    /// equal one already was; past the budget, or when writing fails, the preview with a
    /// marker.
    fn spill(&mut self, bytes: &[u8], text: &str, json: bool) -> (Value, Result<(), String>) {
        let preview: String = text.chars().take(PREVIEW_CHARS).collect();
        let hash = sha256_hex(bytes);
        if !self.written.contains(&hash) {
            let size = bytes.len() as u64;
            if self.bytes + size > MAX_SPILL_BYTES {
                let marker = format!(
                    "{preview}… [truncated: {} bytes; this log's side files are full]",
                    bytes.len()
                );
                return (Value::String(marker), Ok(()));
            }
            let file = self.dir.join(blob_name(&hash, json));
            let written = fs::create_dir_all(&self.dir).and_then(|_| {
                if file.exists() {
                    Ok(())
                } else {
                    fs::write(&file, bytes)
                }
            });
            if let Err(e) = written {
                let marker = format!("{preview}… [truncated: {} bytes]", bytes.len());
                return (
                    Value::String(marker),
                    Err(format!("{}: {e}", file.display())),
                );
            }
            self.bytes += size;
            self.written.insert(hash.clone());
        }
        let mut locator = Map::new();
        locator.insert(LOCATOR.into(), Value::String(hash));
        locator.insert("bytes".into(), Value::from(bytes.len()));
        if json {
            locator.insert("json".into(), Value::Bool(true));
        }
        locator.insert("preview".into(), Value::String(preview));
        (Value::Object(locator), Ok(()))
    }
}

/// Put spilled values back into an event read from the log at `log` (see the module docs).
pub(super) fn restore(event: &mut Value, log: &Path) {
    let dir = blob_dir(log);
    let mut stack: Vec<&mut Value> = vec![event];
    while let Some(value) = stack.pop() {
        if let Some(restored) = restored(value, &dir) {
            *value = restored;
            continue;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
}

/// The value a locator stands for, or `None` when `value` is not a locator.
fn restored(value: &Value, dir: &Path) -> Option<Value> {
    let map = value.as_object()?;
    let hash = map.get(LOCATOR)?.as_str()?;
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let json = map.get("json").and_then(Value::as_bool).unwrap_or(false);
    let file = dir.join(blob_name(hash, json));
    let text = fs::read(&file)
        .ok()
        .filter(|bytes| sha256_hex(bytes) == hash)
        .and_then(|bytes| String::from_utf8(bytes).ok());
    match text {
        Some(text) if json => ptc_schema::value::parse_unbounded(&text).ok(),
        Some(text) => Some(Value::String(text)),
        None => {
            let preview = map.get("preview").and_then(Value::as_str).unwrap_or("");
            let bytes = map.get("bytes").and_then(Value::as_u64).unwrap_or(0);
            Some(Value::String(format!(
                "{preview}… [{bytes} bytes not restored: {} is missing or damaged]",
                file.display()
            )))
        }
    }
}

fn blob_dir(log: &Path) -> PathBuf {
    let mut name = log.file_name().unwrap_or_default().to_os_string();
    name.push(".blobs");
    log.with_file_name(name)
}

fn blob_name(hash: &str, json: bool) -> String {
    format!("{hash}.{}", if json { "json" } else { "txt" })
}
