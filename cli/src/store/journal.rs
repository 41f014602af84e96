//! Run journals (`ptc::journal`) in the run store: a `journal` table beside `runs`, `events`
//! and `blobs`, one row per entry keyed by the run and the entry's number, so that two
//! instances can never both write entry n of one run (the second append fails).
//!
//! SQLite only for now: a journal in PostgreSQL comes with the leases that let instances take
//! over each other's runs.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ptc::journal::{Entry, JournalError, JournalStore};
use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use super::LogTarget;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS journal (run_id TEXT NOT NULL, \
     seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, seq))";

/// The journals of a SQLite run store.
pub struct SqliteJournal {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl SqliteJournal {
    /// Open (creating, private to the user) the journals of the store at `path`.
    pub fn open(path: &Path) -> Result<SqliteJournal, String> {
        let conn = super::sqlite::connect(path, true)?;
        let named = |e: rusqlite::Error| format!("{}: {e}", path.display());
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(named)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(named)?;
        conn.execute_batch(SCHEMA).map_err(named)?;
        Ok(SqliteJournal {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
        })
    }

    fn error(&self, e: impl std::fmt::Display) -> JournalError {
        JournalError(format!("{}: {e}", self.path.display()))
    }
}

impl JournalStore for SqliteJournal {
    fn append(&self, run: &str, from: u64, entries: &[Entry]) -> Result<(), JournalError> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.error(e))?;
        {
            let mut insert = tx
                .prepare_cached("INSERT INTO journal (run_id, seq, body) VALUES (?1, ?2, ?3)")
                .map_err(|e| self.error(e))?;
            for (seq, entry) in (from..).zip(entries) {
                let body = serde_json::to_string(entry).map_err(|e| self.error(e))?;
                let seq = i64::try_from(seq).map_err(|e| self.error(e))?;
                insert.execute((run, seq, body)).map_err(|e| match e {
                    rusqlite::Error::SqliteFailure(f, _)
                        if f.code == ErrorCode::ConstraintViolation =>
                    {
                        JournalError(format!(
                            "entry {seq} of run {run} is written already: another instance \
                             has this run"
                        ))
                    }
                    other => self.error(other),
                })?;
            }
        }
        tx.commit().map_err(|e| self.error(e))
    }

    fn load(&self, run: &str) -> Result<Vec<Entry>, JournalError> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let mut select = conn
            .prepare_cached("SELECT seq, body FROM journal WHERE run_id = ?1 ORDER BY seq")
            .map_err(|e| self.error(e))?;
        let rows = select
            .query_map([run], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
            })
            .map_err(|e| self.error(e))?;
        let mut entries = Vec::new();
        for row in rows {
            let (seq, body) = row.map_err(|e| self.error(e))?;
            if seq != entries.len() as i64 {
                return Err(
                    self.error(format!("run {run}'s journal lacks entry {}", entries.len()))
                );
            }
            let entry = serde_json::from_str(&body)
                .map_err(|e| self.error(format!("run {run}'s entry {seq}: {e}")))?;
            entries.push(entry);
        }
        Ok(entries)
    }

    fn runs(&self) -> Result<Vec<String>, JournalError> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let mut select = conn
            .prepare_cached("SELECT run_id FROM journal GROUP BY run_id ORDER BY min(rowid)")
            .map_err(|e| self.error(e))?;
        let rows = select
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.error(e))
    }
}

/// The journals of the run store `target`.
pub fn open(target: &LogTarget) -> Result<SqliteJournal, String> {
    match target {
        LogTarget::Sqlite(path) => SqliteJournal::open(path),
        LogTarget::Postgres(_) => Err(
            "durable runs keep their journal in a SQLite run store for now (sqlite:PATH); \
             PostgreSQL journals are not built yet"
                .into(),
        ),
        LogTarget::Jsonl(_) | LogTarget::Off => {
            Err("durable runs keep their journal in a run store: pass --log sqlite:PATH".into())
        }
    }
}
