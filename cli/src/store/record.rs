//! One session event as a database row: its run, kind, time and JSON body (large values
//! spilled to blobs, [`ptc::session::spill`]), and the run bookkeeping it implies.

use std::collections::HashMap;
use std::sync::Arc;

use ptc::session::spill::{self, BlobStore, Spill};
use ptc::session::{SessionError, SessionEvent};

/// A blob a record refers to: `(sha256, json, bytes)`.
pub(crate) type Blob = (String, bool, Vec<u8>);

/// An event ready for the writer thread.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    /// The root call this event belongs to.
    pub run_id: String,
    /// The event's `type`.
    pub kind: &'static str,
    /// Milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// The event as JSON, large values replaced by locators.
    pub body: String,
    /// The tool named by the event (the run's tool on `tool/call`).
    pub tool: String,
    /// The instance that ran it.
    pub instance: Arc<str>,
    /// The process that ran it ([`ptc::session::process_tag`]).
    pub process: &'static str,
    /// `ok` or `error` on a `tool/result`.
    pub status: Option<&'static str>,
    /// The blobs first written with this event.
    pub blobs: Vec<Blob>,
}

/// What a run row becomes when a record is written.
pub(crate) enum RunUpdate {
    /// `tool/call`: the run starts (its tool and start time win over a placeholder row).
    Start,
    /// `tool/result`: the run ends with a status.
    End(&'static str),
    /// Any other event: the row is made if missing, else left alone.
    Touch,
}

impl Record {
    /// How this record changes its run's row.
    pub fn run_update(&self) -> RunUpdate {
        match (self.kind, self.status) {
            ("tool/call", _) => RunUpdate::Start,
            (_, Some(status)) => RunUpdate::End(status),
            _ => RunUpdate::Touch,
        }
    }
}

/// Blobs collected while spilling, taken by the writer with their record.
#[derive(Debug, Default)]
pub(crate) struct PendingBlobs(Vec<Blob>);

impl BlobStore for PendingBlobs {
    fn put(&mut self, hash: &str, json: bool, bytes: &[u8]) -> Result<(), String> {
        self.0.push((hash.to_string(), json, bytes.to_vec()));
        Ok(())
    }

    fn get(&self, _: &str, _: bool) -> Option<Vec<u8>> {
        None
    }

    fn place(&self, hash: &str, _: bool) -> String {
        format!("blob {hash}")
    }
}

/// Blobs fetched from a store for the events being read.
#[derive(Debug, Default)]
pub(crate) struct FetchedBlobs(pub HashMap<(String, bool), Vec<u8>>);

impl BlobStore for FetchedBlobs {
    fn put(&mut self, hash: &str, json: bool, bytes: &[u8]) -> Result<(), String> {
        self.0.insert((hash.to_string(), json), bytes.to_vec());
        Ok(())
    }

    fn get(&self, hash: &str, json: bool) -> Option<Vec<u8>> {
        self.0.get(&(hash.to_string(), json)).cloned()
    }

    fn place(&self, hash: &str, _: bool) -> String {
        format!("the store's blob {hash}")
    }
}

/// The record of `event`, spilling its large values through `spill`.
pub(crate) fn record_of(
    event: &SessionEvent,
    spill: &mut Spill<PendingBlobs>,
    instance: Arc<str>,
) -> Result<Record, SessionError> {
    let (at_ms, tool, status) = match event {
        SessionEvent::ToolResult {
            at_ms,
            name,
            is_error,
            ..
        } => (at_ms, name, Some(if *is_error { "error" } else { "ok" })),
        SessionEvent::ToolCall { at_ms, name, .. }
        | SessionEvent::PtcDispatchStart { at_ms, name, .. }
        | SessionEvent::PtcDispatch { at_ms, name, .. }
        | SessionEvent::PtcReplayed { at_ms, name, .. }
        | SessionEvent::Approval { at_ms, name, .. } => (at_ms, name, None),
    };
    let mut value = serde_json::to_value(event).map_err(|e| SessionError(e.to_string()))?;
    let spilled = spill.apply(&mut value);
    let body = ptc_schema::value::to_string_unbounded(&value);
    ptc_schema::value::drop_deep(value);
    spilled.map_err(SessionError)?;
    Ok(Record {
        run_id: run_of(event).to_string(),
        kind: event.kind(),
        at_ms: i64::try_from(*at_ms).unwrap_or(i64::MAX),
        body,
        tool: tool.clone(),
        instance,
        process: ptc::session::process_tag(),
        status,
        blobs: std::mem::take(&mut spill.blobs_mut().0),
    })
}

/// The run (root call) an event belongs to: `<root>:ptc:<n>` names a sub-call of `<root>`.
pub(crate) fn run_of(event: &SessionEvent) -> &str {
    match event {
        SessionEvent::ToolCall { call_id, .. }
        | SessionEvent::ToolResult { call_id, .. }
        | SessionEvent::Approval { call_id, .. } => {
            call_id.split(":ptc:").next().unwrap_or(call_id)
        }
        SessionEvent::PtcDispatchStart { parent_call_id, .. }
        | SessionEvent::PtcDispatch { parent_call_id, .. }
        | SessionEvent::PtcReplayed { parent_call_id, .. } => parent_call_id,
    }
}

/// Stored event bodies, parsed, and the blobs they refer to.
pub(crate) struct Stored {
    values: Vec<(String, serde_json::Value)>,
    /// The `(sha256, json)` of every blob the bodies refer to, each once.
    pub wanted: Vec<(String, bool)>,
}

/// Parse `(run_id, body)` rows; a body that is not JSON is an error naming its run.
pub(crate) fn parse_rows(rows: Vec<(String, String)>) -> Result<Stored, String> {
    let mut values = Vec::with_capacity(rows.len());
    let mut wanted = Vec::new();
    for (run_id, body) in rows {
        let value = ptc_schema::value::parse_unbounded(&body)
            .map_err(|e| format!("an event of run {run_id} is not JSON: {e}"))?;
        wanted.extend(spill::locators(&value));
        values.push((run_id, value));
    }
    wanted.sort();
    wanted.dedup();
    Ok(Stored { values, wanted })
}

impl Stored {
    /// The events, their spilled values restored from `blobs`.
    pub(crate) fn into_events(self, blobs: &FetchedBlobs) -> Result<Vec<SessionEvent>, String> {
        self.values
            .into_iter()
            .map(|(run_id, mut value)| {
                spill::restore(&mut value, blobs);
                serde_json::from_value::<SessionEvent>(value)
                    .map_err(|e| format!("an event of run {run_id} is not an event: {e}"))
            })
            .collect()
    }
}
