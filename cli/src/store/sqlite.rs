//! The run store in one SQLite file (`sqlite:PATH`): WAL, so readers never block the writer,
//! and a busy timeout, so several processes can append to one file. A new file and the
//! directories made for it are private to the user (0600, 0700); SQLite gives its `-wal` and
//! `-shm` files the database file's mode.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params_from_iter, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use ptc::session::SessionEvent;

use super::query::{sql, Filter, Param, RunRow};
use super::record::{parse_rows, FetchedBlobs, Record, RunUpdate};
use super::writer::Backend;

/// The tables and their indexes (made if absent).
const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, instance TEXT NOT NULL, \
     process TEXT NOT NULL, tool TEXT NOT NULL, started_ms INTEGER NOT NULL, ended_ms INTEGER, \
     status TEXT)",
    "CREATE INDEX IF NOT EXISTS runs_started ON runs (started_ms)",
    "CREATE INDEX IF NOT EXISTS runs_instance ON runs (instance, started_ms)",
    "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, \
     run_id TEXT NOT NULL, at_ms INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS events_run ON events (run_id, seq)",
    "CREATE INDEX IF NOT EXISTS events_at ON events (at_ms)",
    "CREATE TABLE IF NOT EXISTS blobs (hash TEXT NOT NULL, json INTEGER NOT NULL, \
     bytes BLOB NOT NULL, PRIMARY KEY (hash, json))",
];

/// How long a write waits for another process's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The writer's connection.
pub(crate) struct Sqlite {
    conn: Connection,
    path: PathBuf,
}

impl Sqlite {
    /// Open (creating, private to the user) the store at `path` and its tables.
    pub(crate) fn open(path: &Path) -> Result<Sqlite, String> {
        let conn = open_with_schema(path, SCHEMA)?;
        Ok(Sqlite {
            conn,
            path: path.to_path_buf(),
        })
    }
}

impl Backend for Sqlite {
    fn write(&mut self, batch: &[Record]) -> Result<(), String> {
        let named = |e: rusqlite::Error| format!("{}: {e}", self.path.display());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(named)?;
        {
            let mut blob = tx.prepare_cached(&sqlite_sql(sql::BLOB)).map_err(named)?;
            let mut start = tx
                .prepare_cached(&sqlite_sql(sql::RUN_START))
                .map_err(named)?;
            let mut end = tx
                .prepare_cached(&sqlite_sql(sql::RUN_END))
                .map_err(named)?;
            let mut touch = tx
                .prepare_cached(&sqlite_sql(sql::RUN_TOUCH))
                .map_err(named)?;
            let mut event = tx.prepare_cached(&sqlite_sql(sql::EVENT)).map_err(named)?;
            for r in batch {
                for (hash, json, bytes) in &r.blobs {
                    blob.execute((hash, json, bytes)).map_err(named)?;
                }
                let run = (&r.run_id, &*r.instance, r.process, &r.tool, r.at_ms);
                match r.run_update() {
                    RunUpdate::Start => start.execute(run),
                    RunUpdate::End(status) => {
                        end.execute((run.0, run.1, run.2, run.3, run.4, r.at_ms, status))
                    }
                    RunUpdate::Touch => touch.execute(run),
                }
                .map_err(named)?;
                event
                    .execute((&r.run_id, r.at_ms, r.kind, &r.body))
                    .map_err(named)?;
            }
        }
        tx.commit().map_err(named)
    }
}

/// The events of the runs `filter` selects, in the order they were written.
pub(crate) fn read(path: &Path, filter: &Filter) -> Result<Vec<SessionEvent>, String> {
    let conn = connect(path, false)?;
    let named = |e: rusqlite::Error| format!("{}: {e}", path.display());
    let (sql, params) = filter.events_query();
    let mut statement = conn.prepare(&sqlite_sql(&sql)).map_err(named)?;
    let rows = statement
        .query_map(params_from_iter(params.iter().map(param)), |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .map_err(named)?
        .collect::<Result<Vec<(String, String)>, _>>()
        .map_err(named)?;
    let stored = parse_rows(rows)?;
    let mut blobs = FetchedBlobs::default();
    let mut get = conn.prepare(&sqlite_sql(sql::BLOB_GET)).map_err(named)?;
    for (hash, json) in &stored.wanted {
        let bytes = get
            .query_row((hash, json), |row| row.get::<_, Vec<u8>>(0))
            .optional()
            .map_err(named)?;
        if let Some(bytes) = bytes {
            blobs.0.insert((hash.clone(), *json), bytes);
        }
    }
    stored.into_events(&blobs)
}

/// The runs `filter` selects, oldest first.
pub(crate) fn list(path: &Path, filter: &Filter) -> Result<Vec<RunRow>, String> {
    let conn = connect(path, false)?;
    let named = |e: rusqlite::Error| format!("{}: {e}", path.display());
    let (sql, params) = filter.runs_query();
    let mut statement = conn.prepare(&sqlite_sql(&sql)).map_err(named)?;
    let rows = statement
        .query_map(params_from_iter(params.iter().map(param)), |row| {
            Ok(RunRow {
                run_id: row.get(0)?,
                instance: row.get(1)?,
                process: row.get(2)?,
                tool: row.get(3)?,
                started_ms: row.get(4)?,
                ended_ms: row.get(5)?,
                status: row.get(6)?,
            })
        })
        .map_err(named)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(named);
    rows
}

/// A connection to `path`: created (private to the user) when `create`, else it must exist.
pub(super) fn connect(path: &Path, create: bool) -> Result<Connection, String> {
    if !create && !path.exists() {
        return Err(format!("no run store at {}", path.display()));
    }
    let new = create && !path.exists();
    if new {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            private_dirs(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        // Made before SQLite opens it, so it never exists with a wider mode.
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| format!("cannot open the run store {}: {e}", path.display()))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(conn)
}

/// A connection to `path` (created, private to the user) in WAL mode with `schema` made.
///
/// Several processes may open a new file at once: the switch to WAL and the schema are
/// retried while another connection holds the lock (SQLite answers some of those waits
/// with `SQLITE_BUSY` at once rather than through the busy timeout), up to that timeout.
pub(super) fn open_with_schema(path: &Path, schema: &[&str]) -> Result<Connection, String> {
    let conn = connect(path, true)?;
    let prepare = |conn: &Connection| -> rusqlite::Result<()> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE;\n{};\nCOMMIT",
            schema.join(";\n")
        ))
    };
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match prepare(&conn) {
            Ok(()) => return Ok(conn),
            Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                let _ = conn.execute_batch("ROLLBACK");
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
}

/// Whether `e` is another connection holding the lock.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Create `dir` and its missing parents with mode 0700.
pub(crate) fn private_dirs(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// PostgreSQL's `$n` placeholders as SQLite's `?n`.
fn sqlite_sql(sql: &str) -> String {
    sql.replace('$', "?")
}

fn param(p: &Param) -> rusqlite::types::Value {
    match p {
        Param::Text(s) => rusqlite::types::Value::Text(s.clone()),
        Param::Int(n) => rusqlite::types::Value::Integer(*n),
    }
}
