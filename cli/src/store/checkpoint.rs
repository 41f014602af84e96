//! Checkpoints of a SQLite run store's write-ahead log, on a thread of their own.
//!
//! SQLite copies its log into the database (and syncs both) on the thread whose commit
//! crossed the threshold; for a journal, which commits once for each call that may change
//! something, that made a third of a short commit's cost (about 15 of 45 µs here). A
//! [`Checkpoints`] turns that off for its connection and checkpoints on its own connection
//! every [`EVERY`] commits instead (`PASSIVE`: it never holds up a writer).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};

use rusqlite::Connection;

/// Commits between checkpoints: a journal's commit writes a few pages, so about SQLite's own
/// threshold of 1,000 pages.
const EVERY: u64 = 250;

/// The checkpoints of one connection's database, taken over from its commits.
pub(super) struct Checkpoints {
    tick: SyncSender<()>,
    commits: AtomicU64,
}

impl Checkpoints {
    /// Checkpoint `conn`'s database, the file at `path`, from a thread of its own; the thread
    /// ends with this value.
    pub(super) fn start(conn: &Connection, path: &Path) -> Result<Checkpoints, String> {
        let checkpointer = super::sqlite::connect(path, false)?;
        conn.pragma_update(None, "wal_autocheckpoint", 0)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let (tick, ticks) = sync_channel::<()>(1);
        std::thread::Builder::new()
            .name("ptc-checkpoint".into())
            .spawn(move || {
                while ticks.recv().is_ok() {
                    // A checkpoint that cannot finish now (a reader holds the log) is
                    // finished by the next.
                    let _ =
                        checkpointer.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                }
            })
            .map_err(|e| format!("cannot start the checkpoint thread: {e}"))?;
        Ok(Checkpoints {
            tick,
            commits: AtomicU64::new(0),
        })
    }

    /// One more commit on the connection.
    pub(super) fn committed(&self) {
        if self.commits.fetch_add(1, Ordering::Relaxed) % EVERY == EVERY - 1 {
            // Already asked for: the thread is behind, and will checkpoint it all.
            let _ = self.tick.try_send(());
        }
    }
}
