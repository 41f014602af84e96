//! What `ptc replay` asks a store for: the runs a [`Filter`] selects (by run id, instance and
//! start time), their events, or a listing ([`RunRow`]); and the SQL both databases share.

use ptc::session::SessionEvent;

use super::record::run_of;

/// The statements SQLite and PostgreSQL share (`$n` placeholders; SQLite reads them as `?n`).
pub(crate) mod sql {
    /// Keep a blob unless it is there already.
    pub const BLOB: &str =
        "INSERT INTO blobs (hash, json, bytes) VALUES ($1, $2, $3) ON CONFLICT (hash, json) DO NOTHING";
    /// Read a blob.
    pub const BLOB_GET: &str = "SELECT bytes FROM blobs WHERE hash = $1 AND json = $2";
    /// A run starts: its tool and time replace a placeholder row's.
    pub const RUN_START: &str = "INSERT INTO runs (run_id, instance, process, tool, started_ms) \
        VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id) DO UPDATE SET instance = excluded.instance, \
        process = excluded.process, tool = excluded.tool, started_ms = excluded.started_ms";
    /// A run ends.
    pub const RUN_END: &str =
        "INSERT INTO runs (run_id, instance, process, tool, started_ms, ended_ms, status) \
        VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (run_id) DO UPDATE SET \
        ended_ms = excluded.ended_ms, status = excluded.status";
    /// Any other event: the run's row exists from then on.
    pub const RUN_TOUCH: &str = "INSERT INTO runs (run_id, instance, process, tool, started_ms) \
        VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id) DO NOTHING";
    /// One event.
    pub const EVENT: &str =
        "INSERT INTO events (run_id, at_ms, kind, body) VALUES ($1, $2, $3, $4)";
}

/// A query parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Param {
    Text(String),
    Int(i64),
}

/// Which runs to read: every condition given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// The run (root call) id.
    pub run: Option<String>,
    /// The instance that ran it.
    pub instance: Option<String>,
    /// Runs that started at or after this time (ms since the Unix epoch).
    pub since_ms: Option<i64>,
    /// Runs that started at or before this time (ms since the Unix epoch).
    pub until_ms: Option<i64>,
}

/// One run as `ptc replay --list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRow {
    /// The root call id.
    pub run_id: String,
    /// The instance that ran it.
    pub instance: String,
    /// The process that ran it ([`ptc::session::process_tag`]).
    pub process: String,
    /// The tool called.
    pub tool: String,
    /// When it started (ms since the Unix epoch).
    pub started_ms: i64,
    /// When it settled, if it did.
    pub ended_ms: Option<i64>,
    /// `ok` or `error`, once settled.
    pub status: Option<String>,
}

impl RunRow {
    /// One tab-separated line: run, instance, process, started (RFC 3339), tool, status.
    pub fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}",
            self.run_id,
            self.instance,
            self.process,
            rfc3339(self.started_ms),
            self.tool,
            self.status.as_deref().unwrap_or("running")
        )
    }
}

impl Filter {
    /// The WHERE clause over `runs r` and its parameters.
    fn conditions(&self) -> (String, Vec<Param>) {
        let mut clauses = Vec::new();
        let mut params = Vec::new();
        let mut add = |clause: &str, param: Param| {
            params.push(param);
            clauses.push(clause.replace('?', &format!("${}", params.len())));
        };
        if let Some(run) = &self.run {
            add("r.run_id = ?", Param::Text(run.clone()));
        }
        if let Some(instance) = &self.instance {
            add("r.instance = ?", Param::Text(instance.clone()));
        }
        if let Some(since) = self.since_ms {
            add("r.started_ms >= ?", Param::Int(since));
        }
        if let Some(until) = self.until_ms {
            add("r.started_ms <= ?", Param::Int(until));
        }
        let clause = if clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", clauses.join(" AND "))
        };
        (clause, params)
    }

    /// `(run_id, body)` of the selected runs' events, in the order they were written.
    pub(crate) fn events_query(&self) -> (String, Vec<Param>) {
        let (clause, params) = self.conditions();
        let sql = format!(
            "SELECT e.run_id, e.body FROM events e JOIN runs r ON r.run_id = e.run_id{clause} \
             ORDER BY e.seq"
        );
        (sql, params)
    }

    /// The selected runs, oldest first.
    pub(crate) fn runs_query(&self) -> (String, Vec<Param>) {
        let (clause, params) = self.conditions();
        let sql = format!(
            "SELECT r.run_id, r.instance, r.process, r.tool, r.started_ms, r.ended_ms, r.status \
             FROM runs r{clause} ORDER BY r.started_ms, r.run_id"
        );
        (sql, params)
    }

    /// The events of a JSON-lines log that the filter selects. Such a log records no
    /// instance: an instance filter is an error.
    pub fn apply_to_jsonl(&self, events: Vec<SessionEvent>) -> Result<Vec<SessionEvent>, String> {
        if self.instance.is_some() {
            return Err(
                "a JSON-lines log records no instances: --instance needs a sqlite: or postgres:// store"
                    .into(),
            );
        }
        if *self == Filter::default() {
            return Ok(events);
        }
        // A run is selected by its tool/call event: its id and start time.
        let selected: std::collections::HashSet<String> = events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolCall { call_id, at_ms, .. } => {
                    let at = i64::try_from(*at_ms).unwrap_or(i64::MAX);
                    let ok = self.run.as_ref().is_none_or(|r| r == call_id)
                        && self.since_ms.is_none_or(|s| at >= s)
                        && self.until_ms.is_none_or(|u| at <= u);
                    ok.then(|| call_id.clone())
                }
                _ => None,
            })
            .collect();
        Ok(events
            .into_iter()
            .filter(|e| selected.contains(run_of(e)))
            .collect())
    }
}

/// A time given as RFC 3339 (`2026-12-02T10:00:00Z`, any offset) or as milliseconds since the
/// Unix epoch.
pub fn parse_time(text: &str) -> Result<i64, String> {
    if let Ok(ms) = text.parse::<i64>() {
        return Ok(ms);
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .map_err(|e| {
            format!("`{text}` is not a time: give RFC 3339 (2026-12-02T10:00:00Z) or ms since the epoch ({e})")
        })
}

/// Milliseconds since the epoch as RFC 3339 in UTC, to the millisecond.
fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_else(|| ms.to_string())
}
