//! The run store: where `ptc run --log` and `ptc serve` keep session events, and what
//! `ptc replay` reads.
//!
//! A [`LogTarget`] is one of
//!
//! - `PATH` (e.g. `session.jsonl`): one JSON line per event, large values in `PATH.blobs/`
//!   ([`ptc::session::JsonlLog`]);
//! - `sqlite:PATH`: a SQLite file several processes can share;
//! - `postgres://…` or `postgresql://…`: one database for many instances;
//! - `off`: no log.
//!
//! A database keeps three tables: `runs` (one row per root call: its id, the **instance** and
//! **process** that ran it, tool, start and end time, status; indexed by start time and by
//! instance), `events` (each event's JSON, large values replaced by locators of `blobs`, in
//! write order, indexed by run and by time) and `blobs` (the spilled values by sha256, as the
//! JSON-lines log's side files: [`ptc::session::spill`]). A database is written by one thread
//! in batches ([`DbLog`]); `ptc serve` logs to [`default_sqlite`] unless told otherwise.

mod checkpoint;
pub mod journal;
mod postgres;
mod query;
mod record;
mod sqlite;
mod writer;

use std::path::{Path, PathBuf};

use ptc::session::{JsonlLog, Replayed, SessionError, SessionEvent, SessionLog};

pub use query::{parse_time, Filter, RunRow};
pub use writer::{DbLog, Options};

/// Where session events go (`--log`, `[log] url`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogTarget {
    /// No log.
    Off,
    /// A JSON-lines file.
    Jsonl(PathBuf),
    /// A SQLite file (`sqlite:PATH`).
    Sqlite(PathBuf),
    /// A PostgreSQL database (`postgres://…`).
    Postgres(String),
}

impl std::str::FromStr for LogTarget {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text == "off" {
            return Ok(LogTarget::Off);
        }
        if let Some(path) = text.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err("`sqlite:` needs a file path, e.g. sqlite:runs.sqlite".into());
            }
            return Ok(LogTarget::Sqlite(PathBuf::from(path)));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            postgres::config(text)?;
            return Ok(LogTarget::Postgres(text.to_string()));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(format!(
                "unknown log URL scheme `{scheme}://`: give a file path (JSON lines), \
                 sqlite:PATH, postgres://… or off"
            ));
        }
        if text.is_empty() {
            return Err(
                "an empty log path: give a file path, sqlite:PATH, postgres://… or off".into(),
            );
        }
        Ok(LogTarget::Jsonl(PathBuf::from(text)))
    }
}

/// Where `ptc serve` keeps its runs when no log is given: `$XDG_STATE_HOME/ptc/runs.sqlite`,
/// else `~/.local/state/ptc/runs.sqlite`.
pub fn default_sqlite() -> Result<PathBuf, String> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(state) = absolute("XDG_STATE_HOME") {
        return Ok(state.join("ptc").join("runs.sqlite"));
    }
    match absolute("HOME") {
        Some(home) => Ok(home.join(".local/state/ptc/runs.sqlite")),
        None => {
            Err("no default run store: neither XDG_STATE_HOME nor HOME is set (give --log)".into())
        }
    }
}

/// The instance `ptc run` records: the host's name, else `local`.
pub fn host_instance() -> String {
    let uname = rustix::system::uname();
    let name = uname.nodename().to_string_lossy();
    if name.is_empty() {
        "local".into()
    } else {
        name.into_owned()
    }
}

/// An open session log of any kind.
pub enum Store {
    /// A JSON-lines file.
    Jsonl(JsonlLog),
    /// A database.
    Db(DbLog),
}

impl Store {
    /// Open `target` (`None` for [`LogTarget::Off`]); runs record `instance`.
    pub fn open(target: &LogTarget, instance: &str) -> Result<Option<Store>, String> {
        Store::open_with(target, instance, Options::default())
    }

    /// [`Store::open`] with the database writer's batching and buffering.
    pub fn open_with(
        target: &LogTarget,
        instance: &str,
        options: Options,
    ) -> Result<Option<Store>, String> {
        Ok(Some(match target {
            LogTarget::Off => return Ok(None),
            LogTarget::Jsonl(path) => Store::Jsonl(
                JsonlLog::open(path)
                    .map_err(|e| format!("cannot open the log {}: {e}", path.display()))?,
            ),
            LogTarget::Sqlite(path) => {
                let name = format!("sqlite:{}", path.display());
                let path = path.clone();
                Store::Db(DbLog::start(name, instance, options, move || {
                    sqlite::Sqlite::open(&path)
                })?)
            }
            LogTarget::Postgres(url) => {
                let (_, name) = postgres::config(url)?;
                let url = url.clone();
                Store::Db(DbLog::start(name, instance, options, move || {
                    postgres::Postgres::open(&url)
                })?)
            }
        }))
    }

    /// The store's name in messages.
    pub fn name(&self) -> String {
        match self {
            Store::Jsonl(log) => log.path().display().to_string(),
            Store::Db(db) => db.name().to_string(),
        }
    }

    /// The instance recorded with the runs that start from now on (a JSON-lines log records
    /// none).
    pub fn set_instance(&self, instance: &str) {
        if let Store::Db(db) = self {
            db.set_instance(instance);
        }
    }

    /// Why events are missing, if they are.
    pub fn failure(&self) -> Option<String> {
        match self {
            Store::Jsonl(log) => log.failure().map(str::to_string),
            Store::Db(db) => db.failure(),
        }
    }

    /// Wait until what was appended is written.
    pub fn flush(&self) {
        if let Store::Db(db) = self {
            db.flush();
        }
    }

    /// Write what is queued and stop writing.
    pub fn close(&self) {
        if let Store::Db(db) = self {
            db.close();
        }
    }
}

impl SessionLog for Store {
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError> {
        match self {
            Store::Jsonl(log) => log.append(event),
            Store::Db(db) => db.append(event),
        }
    }
}

/// The events of the runs in `target` that `filter` selects; a JSON-lines log also names its
/// lines that are not events.
pub async fn read(target: &LogTarget, filter: &Filter) -> Result<Replayed, String> {
    match target {
        LogTarget::Off => Err("no log to read (`off`)".into()),
        LogTarget::Jsonl(path) => {
            let mut replayed = ptc::session::read_jsonl_lossy(path).map_err(|e| e.to_string())?;
            replayed.events = filter.apply_to_jsonl(std::mem::take(&mut replayed.events))?;
            Ok(replayed)
        }
        LogTarget::Sqlite(path) => Ok(Replayed {
            events: sqlite::read(path, filter)?,
            skipped: Vec::new(),
        }),
        LogTarget::Postgres(url) => Ok(Replayed {
            events: postgres::read(url, filter).await?,
            skipped: Vec::new(),
        }),
    }
}

/// The runs in `target` that `filter` selects, oldest first. A JSON-lines log knows no
/// instance or process (`-`).
pub async fn list(target: &LogTarget, filter: &Filter) -> Result<Vec<RunRow>, String> {
    match target {
        LogTarget::Sqlite(path) => sqlite::list(path, filter),
        LogTarget::Postgres(url) => postgres::list(url, filter).await,
        LogTarget::Off | LogTarget::Jsonl(_) => {
            let events = read(target, filter).await?.events;
            Ok(runs_of(&events))
        }
    }
}

/// The runs of a JSON-lines log's events.
fn runs_of(events: &[SessionEvent]) -> Vec<RunRow> {
    let mut runs: Vec<RunRow> = Vec::new();
    for event in events {
        match event {
            SessionEvent::ToolCall {
                call_id,
                name,
                at_ms,
                ..
            } => runs.push(RunRow {
                run_id: call_id.clone(),
                instance: "-".into(),
                process: "-".into(),
                tool: name.clone(),
                started_ms: i64::try_from(*at_ms).unwrap_or(i64::MAX),
                ended_ms: None,
                status: None,
            }),
            SessionEvent::ToolResult {
                call_id,
                at_ms,
                is_error,
                ..
            } => {
                if let Some(run) = runs.iter_mut().rev().find(|r| &r.run_id == call_id) {
                    run.ended_ms = i64::try_from(*at_ms).ok();
                    run.status = Some(if *is_error { "error" } else { "ok" }.into());
                }
            }
            _ => {}
        }
    }
    runs
}

/// A path for messages: the target's file, or its URL without a password.
pub fn describe(target: &LogTarget) -> String {
    match target {
        LogTarget::Off => "off".into(),
        LogTarget::Jsonl(path) => path.display().to_string(),
        LogTarget::Sqlite(path) => format!("sqlite:{}", path.display()),
        LogTarget::Postgres(url) => postgres::config(url)
            .map(|(_, name)| name)
            .unwrap_or_else(|_| "postgres://…".into()),
    }
}

/// The file name a page about `target` is titled with.
pub fn title(target: &LogTarget) -> String {
    match target {
        LogTarget::Jsonl(path) | LogTarget::Sqlite(path) => Path::new(path)
            .file_name()
            .unwrap_or(path.as_os_str())
            .to_string_lossy()
            .into_owned(),
        other => describe(other),
    }
}
