//! Large values in a session log: spilled to blobs, so each event stays small.
//!
//! The seed's spill idea: a value too large for the log line is written once as a blob
//! named by its sha256, and the line keeps a locator with a preview:
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
//! values back ([`restore`]); a missing or damaged blob leaves the preview and says so.
//!
//! Where blobs live is a [`BlobStore`]: side files in `<log>.blobs/` for a JSON-lines log
//! ([`DirBlobs`]), a table of the run store for a database (its own `BlobStore`).

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

/// Where a log's blobs are kept: written once each, read back by name.
pub trait BlobStore {
    /// Keep `bytes` as the blob `hash` (`json`: JSON text rather than a string). `Err` says
    /// where it could not be written.
    fn put(&mut self, hash: &str, json: bool, bytes: &[u8]) -> Result<(), String>;
    /// The blob `hash`, if it is there.
    fn get(&self, hash: &str, json: bool) -> Option<Vec<u8>>;
    /// Where the blob `hash` is kept, for messages.
    fn place(&self, hash: &str, json: bool) -> String;
}

/// The side files of a JSON-lines log: `<log>.blobs/<sha256>.txt|json`, the directory created
/// when first needed.
#[derive(Debug, Clone)]
pub struct DirBlobs {
    dir: PathBuf,
}

impl DirBlobs {
    /// The side files of the log at `log`.
    pub fn for_log(log: &Path) -> Self {
        let mut name = log.file_name().unwrap_or_default().to_os_string();
        name.push(".blobs");
        DirBlobs {
            dir: log.with_file_name(name),
        }
    }

    fn file(&self, hash: &str, json: bool) -> PathBuf {
        self.dir
            .join(format!("{hash}.{}", if json { "json" } else { "txt" }))
    }
}

impl BlobStore for DirBlobs {
    fn put(&mut self, hash: &str, json: bool, bytes: &[u8]) -> Result<(), String> {
        let file = self.file(hash, json);
        fs::create_dir_all(&self.dir)
            .and_then(|_| {
                if file.exists() {
                    Ok(())
                } else {
                    fs::write(&file, bytes)
                }
            })
            .map_err(|e| format!("{}: {e}", file.display()))
    }

    fn get(&self, hash: &str, json: bool) -> Option<Vec<u8>> {
        fs::read(self.file(hash, json)).ok()
    }

    fn place(&self, hash: &str, json: bool) -> String {
        self.file(hash, json).display().to_string()
    }
}

/// The spilling state of one log: its blob store, what has been written to it and how much.
#[derive(Debug)]
pub struct Spill<B> {
    blobs: B,
    written: HashSet<String>,
    bytes: u64,
}

impl<B: BlobStore> Spill<B> {
    /// Spill into `blobs`.
    pub fn new(blobs: B) -> Self {
        Spill {
            blobs,
            written: HashSet::new(),
            bytes: 0,
        }
    }

    /// The blob store (e.g. to take the blobs a database store collected).
    pub fn blobs_mut(&mut self) -> &mut B {
        &mut self.blobs
    }

    /// Replace the large values of an event (as JSON) by locators, writing their blobs.
    /// `Err` names a blob that could not be written (the value is then cut instead).
    pub fn apply(&mut self, event: &mut Value) -> Result<(), String> {
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
            if let Err(e) = self.blobs.put(&hash, json, bytes) {
                let marker = format!("{preview}… [truncated: {} bytes]", bytes.len());
                return (Value::String(marker), Err(e));
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

/// Put spilled values back into an event read from a log whose blobs are in `blobs`.
pub fn restore(event: &mut Value, blobs: &impl BlobStore) {
    let mut stack: Vec<&mut Value> = vec![event];
    while let Some(value) = stack.pop() {
        if let Some(restored) = restored(value, blobs) {
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

/// The blobs an event (as stored, with locators) refers to: `(sha256, json)` each, so a
/// reader can fetch them before [`restore`].
pub fn locators(event: &Value) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    let mut stack: Vec<&Value> = vec![event];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => match map.get(LOCATOR).and_then(Value::as_str) {
                Some(hash) => {
                    let json = map.get("json").and_then(Value::as_bool).unwrap_or(false);
                    found.push((hash.to_string(), json));
                }
                None => stack.extend(map.values()),
            },
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

/// The value a locator stands for, or `None` when `value` is not a locator.
fn restored(value: &Value, blobs: &impl BlobStore) -> Option<Value> {
    let map = value.as_object()?;
    let hash = map.get(LOCATOR)?.as_str()?;
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let json = map.get("json").and_then(Value::as_bool).unwrap_or(false);
    let text = blobs
        .get(hash, json)
        .filter(|bytes| sha256_hex(bytes) == hash)
        .and_then(|bytes| String::from_utf8(bytes).ok());
    match text {
        Some(text) if json => ptc_schema::value::parse_unbounded(&text).ok(),
        Some(text) => Some(Value::String(text)),
        None => {
            let place = blobs.place(hash, json);
            let preview = map.get("preview").and_then(Value::as_str).unwrap_or("");
            let bytes = map.get("bytes").and_then(Value::as_u64).unwrap_or(0);
            Some(Value::String(format!(
                "{preview}… [{bytes} bytes not restored: {place} is missing or damaged]"
            )))
        }
    }
}
