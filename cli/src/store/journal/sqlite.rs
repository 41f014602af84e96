//! Journals and leases in a SQLite run store: one host's processes share it, each
//! transaction taking the write lock at once (`BEGIN IMMEDIATE`), so claims never race.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior};

use super::{sql, Claim, Fence, JournalDb, Refused};
use crate::store::checkpoint::Checkpoints;

/// SQLite's clock in milliseconds since the Unix epoch.
const NOW_MS: &str = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";

/// A shared statement in SQLite's words, converted once per process.
fn sqlite(statement: &'static str) -> &'static str {
    static CONVERTED: Mutex<Option<HashMap<&'static str, &'static str>>> = Mutex::new(None);
    let mut converted = CONVERTED.lock().unwrap_or_else(|e| e.into_inner());
    converted
        .get_or_insert_with(HashMap::new)
        .entry(statement)
        .or_insert_with(|| {
            let words = statement
                .replace("NOW_MS", NOW_MS)
                .replace(" SKIP_LOCKED", "")
                .replace(" FOR_SHARE", "")
                .replace('$', "?");
            // A few dozen statements, kept for the process.
            Box::leak(words.into_boxed_str())
        })
}

/// The journals of a SQLite run store.
pub(super) struct SqliteJournal {
    conn: Mutex<Connection>,
    /// Its log's checkpoints, off the appending thread.
    checkpoints: Checkpoints,
}

impl SqliteJournal {
    /// Open (creating, private to the user) the journals of the store at `path`.
    pub(super) fn open(path: &Path) -> Result<SqliteJournal, String> {
        let conn = crate::store::sqlite::open_with_schema(path, &sql::SCHEMA)?;
        let checkpoints = Checkpoints::start(&conn, path)?;
        Ok(SqliteJournal {
            conn: Mutex::new(conn),
            checkpoints,
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn db(e: rusqlite::Error) -> Refused {
    Refused::Db(e.to_string())
}

impl JournalDb for SqliteJournal {
    fn append(&self, run: &str, from: i64, body: &str, fence: Fence<'_>) -> Result<(), Refused> {
        let conn = self.conn();
        // Statements kept prepared: an append is one short transaction, often one a call.
        let run_cached = |sql: &str| conn.prepare_cached(sql).and_then(|mut s| s.execute([]));
        run_cached("BEGIN IMMEDIATE").map_err(db)?;
        let appended = append_in(&conn, run, from, body, fence)
            .and_then(|()| run_cached("COMMIT").map(drop).map_err(db));
        match &appended {
            Ok(()) => self.checkpoints.committed(),
            Err(_) if !conn.is_autocommit() => {
                let _ = conn.execute_batch("ROLLBACK");
            }
            Err(_) => {}
        }
        appended
    }

    fn load(&self, run: &str) -> Result<Vec<(i64, String)>, String> {
        let conn = self.conn();
        let mut select = conn
            .prepare_cached(sqlite(sql::LOAD))
            .map_err(|e| e.to_string())?;
        let rows = select
            .query_map([run], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| e.to_string())?;
        rows.collect::<Result<_, _>>().map_err(|e| e.to_string())
    }

    fn runs(&self) -> Result<Vec<String>, String> {
        let conn = self.conn();
        let mut select = conn
            .prepare_cached("SELECT run_id FROM journal GROUP BY run_id ORDER BY min(rowid)")
            .map_err(|e| e.to_string())?;
        let rows = select
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(|e| e.to_string())?;
        rows.collect::<Result<_, _>>().map_err(|e| e.to_string())
    }

    fn claim(
        &self,
        run: &str,
        owner: &str,
        lease_ms: i64,
        dead: Option<&str>,
    ) -> Result<Claim, String> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| e.to_string())?;
        let lease = tx
            .query_row(sqlite(sql::LEASE_GET), [run], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, bool>(3)?,
                ))
            })
            .optional()
            .map_err(|e| e.to_string())?;
        let claim = match lease {
            // A journal written before leases: its first claim makes one.
            None => {
                tx.execute(sqlite(sql::LEASE_NEW), (run, owner, lease_ms, false))
                    .map_err(|e| e.to_string())?;
                Claim::Taken(1)
            }
            Some((_, _, _, true)) => Claim::Ended,
            Some((holder, _, left_ms, false))
                if super::held_by_another(&holder, left_ms, owner, dead) =>
            {
                Claim::Held {
                    owner: holder,
                    left_ms,
                }
            }
            Some(_) => Claim::Taken(
                tx.query_row(sqlite(sql::LEASE_TAKE), (run, owner, lease_ms), |row| {
                    row.get(0)
                })
                .map_err(|e| e.to_string())?,
            ),
        };
        tx.commit().map_err(|e| e.to_string())?;
        Ok(claim)
    }

    fn orphans(
        &self,
        owner: &str,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<(String, i64)>, String> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| e.to_string())?;
        let taken = {
            let mut take = tx
                .prepare_cached(sqlite(sql::ORPHANS))
                .map_err(|e| e.to_string())?;
            let rows = take
                .query_map((owner, lease_ms, limit), |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .map_err(|e| e.to_string())?;
            rows.collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?
        };
        tx.commit().map_err(|e| e.to_string())?;
        Ok(taken)
    }

    fn renew(
        &self,
        run: &str,
        owner: &str,
        epoch: i64,
        lease_ms: i64,
    ) -> Result<Option<bool>, String> {
        let conn = self.conn();
        conn.prepare_cached(sqlite(sql::LEASE_RENEW))
            .and_then(|mut s| {
                s.query_row((run, owner, lease_ms, epoch), |row| row.get(0))
                    .optional()
            })
            .map_err(|e| e.to_string())
    }

    fn lease(&self, run: &str) -> Result<Option<(String, bool, bool)>, String> {
        let conn = self.conn();
        conn.prepare_cached(sqlite(sql::LEASE_GET))
            .and_then(|mut s| {
                s.query_row([run], |row| Ok((row.get(0)?, row.get(3)?, row.get(4)?)))
                    .optional()
            })
            .map_err(|e| e.to_string())
    }

    fn last(&self, run: &str) -> Result<Option<String>, String> {
        let conn = self.conn();
        conn.prepare_cached(sqlite(sql::LAST))
            .and_then(|mut s| s.query_row([run], |row| row.get(0)).optional())
            .map_err(|e| e.to_string())
    }

    fn cancel(&self, run: &str) -> Result<bool, String> {
        let conn = self.conn();
        let cancelled = conn
            .prepare_cached(sqlite(sql::CANCEL))
            .and_then(|mut s| s.execute([run]))
            .map_err(|e| e.to_string())?;
        Ok(cancelled > 0)
    }

    fn release(&self, run: &str, owner: &str, epoch: i64) -> Result<(), String> {
        let conn = self.conn();
        conn.prepare_cached(sqlite(sql::LEASE_RELEASE))
            .and_then(|mut s| s.execute((run, owner, epoch)))
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn ask(&self, run: &str, key: &str, request: &str) -> Result<(Option<String>, i64), String> {
        {
            let conn = self.conn();
            conn.prepare_cached(sqlite(sql::ASK))
                .and_then(|mut s| s.execute((run, key, request)))
                .map_err(|e| e.to_string())?;
        }
        Ok(self.asked(run, key)?.unwrap_or((None, 0)))
    }

    fn asked(&self, run: &str, key: &str) -> Result<Option<(Option<String>, i64)>, String> {
        let conn = self.conn();
        conn.prepare_cached(sqlite(sql::ASKED))
            .and_then(|mut s| {
                s.query_row((run, key), |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()
            })
            .map_err(|e| e.to_string())
    }

    fn open_questions(&self, run: &str) -> Result<Vec<(String, String)>, String> {
        let conn = self.conn();
        let mut select = conn
            .prepare_cached(sqlite(sql::OPEN))
            .map_err(|e| e.to_string())?;
        let rows = select
            .query_map([run], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| e.to_string())?;
        rows.collect::<Result<_, _>>().map_err(|e| e.to_string())
    }

    fn answer(&self, run: &str, key: &str, answer: &str) -> Result<bool, String> {
        let conn = self.conn();
        let answered = conn
            .prepare_cached(sqlite(sql::ANSWER))
            .and_then(|mut s| s.execute((run, key, answer)))
            .map_err(|e| e.to_string())?;
        Ok(answered > 0)
    }

    fn remember(&self, run: &str, key: &str, request: &str, answer: &str) -> Result<(), String> {
        let conn = self.conn();
        conn.prepare_cached(sqlite(sql::REMEMBER))
            .and_then(|mut s| s.execute((run, key, request, answer)))
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn secret(&self, name: &str, fresh: &str) -> Result<String, String> {
        let conn = self.conn();
        conn.prepare_cached(sqlite(sql::SECRET_NEW))
            .and_then(|mut s| s.execute((name, fresh)))
            .and_then(|_| conn.query_row(sqlite(sql::SECRET), [name], |row| row.get(0)))
            .map_err(|e| e.to_string())
    }
}

/// [`JournalDb::append`]'s work, in the transaction it began under `BEGIN IMMEDIATE` (no one
/// else writes until it commits).
fn append_in(
    tx: &Connection,
    run: &str,
    from: i64,
    body: &str,
    fence: Fence<'_>,
) -> Result<(), Refused> {
    let leased = match fence {
        Fence::New {
            owner,
            lease_ms,
            ends,
        } => tx
            .prepare_cached(sqlite(sql::LEASE_NEW))
            .and_then(|mut s| s.execute((run, owner, lease_ms, ends)))
            .map_err(db)?,
        // Under `BEGIN IMMEDIATE` no one else writes until this commits.
        Fence::Held {
            owner,
            epoch,
            ends: false,
            ..
        } => tx
            .prepare_cached(sqlite(sql::LEASE_HELD))
            .and_then(|mut s| s.exists((run, owner, epoch)))
            .map(usize::from)
            .map_err(db)?,
        Fence::Held {
            owner,
            epoch,
            lease_ms,
            ends,
        } => tx
            .prepare_cached(sqlite(sql::LEASE_KEEP))
            .and_then(|mut s| s.execute((run, owner, lease_ms, epoch, ends)))
            .map_err(db)?,
    };
    if leased == 0 {
        return Err(if from == 0 {
            Refused::Taken
        } else {
            Refused::Fenced
        });
    }
    tx.prepare_cached(sqlite(sql::ENTRY))
        .and_then(|mut insert| insert.execute((run, from, body)))
        .map(drop)
        .map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::ConstraintViolation => {
                Refused::Taken
            }
            other => db(other),
        })
}
