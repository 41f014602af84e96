//! Run journals (`ptc::journal`) in the run store, and the leases that hand each unfinished
//! run to one owner at a time.
//!
//! Two tables beside `runs`, `events` and `blobs`:
//!
//! - `journal (run_id, seq, body)`: one row per append, keyed by the run and the number of
//!   its first entry, its body the JSON array of the entries (a row of a journal written
//!   before appends were batched holds one entry, not an array);
//! - `leases (run_id, owner, epoch, expires_ms, ended, cancel)`: who holds each run, under
//!   which epoch, until when (the database's clock), and whether it was asked to stop;
//! - `questions (run_id, key, request, answer, asked_ms)`: what a run that is an MCP task put
//!   to a person (keyed by call id) and the answer, once given (see `tasks.rs`);
//! - `secrets (name, value)`: what the instances share, such as the key of their
//!   `requestState`s.
//!
//! A new run's first append makes its lease (epoch 1). Every later append is one transaction
//! that first extends the lease, and only while this owner holds it under the same epoch: an
//! owner paused past its lease (`SIGSTOP`, a partition) that wakes after another instance
//! claimed the run (epoch + 1) cannot write, so its run stops there, before it dispatches
//! anything more (a call that may change something is journaled before it runs; one that is
//! idempotent, only when this owner cannot be sure it still holds the run: its last renewal
//! is more than a third of the lease time from lapsing, [`JournalStore::holds`]). On SQLite,
//! while the lease surely holds, "journaled before it runs" is a write ahead of the store
//! (`ahead.rs`), and the lease's margin is the fence; [`JournalStore::claim`] and
//! [`JournalStore::orphans`] append what a run's last owner wrote ahead before resuming it. Each owner
//! renews its leases from a thread of its own every third of the lease time. Lapsed leases are
//! claimed by [`RunJournals::orphans`] (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances
//! share them out; SQLite serialises writers, one host), and `ptc resume` claims a run whose
//! lease lapsed or whose owner is a process of this host that is gone.

mod ahead;
mod db;
mod lease;
mod postgres;
mod sql;
mod sqlite;
mod tasks;

use db::{held_by_another, Claim, Fence, JournalDb, Refused};
use lease::gone;
pub use lease::{Lease, DEFAULT_LEASE};

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use ptc::journal::{Batch, Entry, JournalError, JournalStore};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::LogTarget;

/// The journals of a run store, and the leases of the runs this process owns.
pub struct RunJournals {
    db: Box<dyn JournalDb>,
    /// Entries written ahead of the store (SQLite, whose runs stay on one host).
    ahead: Option<ahead::AheadLog>,
    /// The store, for messages.
    name: String,
    lease: Lease,
    /// The runs this process holds: under which epoch, and until when at least.
    held: Mutex<HashMap<String, Hold>>,
    /// The runs this process began, counted as they begin.
    begun: Mutex<HashSet<String>>,
    begun_count: watch::Sender<u64>,
    /// What to cancel when a run running here is cancelled through the store.
    watched: Mutex<HashMap<String, CancellationToken>>,
    /// Set by [`RunJournals::hand_over`]: nothing more is written.
    handed_over: std::sync::atomic::AtomicBool,
    /// Woken when this process answers a question of a run (which may be parked).
    answered: tokio::sync::Notify,
}

/// A run this process holds.
#[derive(Debug, Clone, Copy)]
struct Hold {
    epoch: i64,
    /// The lease lasts at least until then: the database set its end a lease from a moment
    /// after this process asked.
    until: Instant,
}

/// Open the journals of the run store `target`, taking leases as `lease` says.
pub fn open(target: &LogTarget, lease: Lease) -> Result<Arc<RunJournals>, String> {
    let (db, name, ahead): (Box<dyn JournalDb>, String, _) = match target {
        LogTarget::Sqlite(path) => (
            Box::new(sqlite::SqliteJournal::open(path)?),
            path.display().to_string(),
            Some(ahead::AheadLog::new(path, &lease.owner)),
        ),
        LogTarget::Postgres(url) => {
            let db = postgres::PostgresJournal::open(url)?;
            let name = db.name().to_string();
            (Box::new(db), name, None)
        }
        LogTarget::Jsonl(_) | LogTarget::Off => {
            return Err(
                "durable runs keep their journal in a run store: pass --log sqlite:PATH or \
                 --log postgres://…"
                    .into(),
            )
        }
    };
    let journals = Arc::new(RunJournals {
        db,
        ahead,
        name,
        lease,
        held: Mutex::new(HashMap::new()),
        begun: Mutex::new(HashSet::new()),
        begun_count: watch::Sender::new(0),
        watched: Mutex::new(HashMap::new()),
        handed_over: Default::default(),
        answered: tokio::sync::Notify::new(),
    });
    renew_in_background(Arc::downgrade(&journals), journals.lease.duration / 3);
    Ok(journals)
}

impl RunJournals {
    fn error(&self, e: impl std::fmt::Display) -> JournalError {
        JournalError(format!("{}: {e}", self.name))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Hold>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hold `run` under `epoch`, its lease made or extended by a statement sent at `sent`.
    fn hold(&self, run: &str, epoch: i64, sent: Instant) {
        let until = sent + self.lease.duration;
        self.held().insert(run.to_string(), Hold { epoch, until });
    }

    /// `run`'s lease under `epoch` was extended by a statement sent at `sent` (unless this
    /// process holds it under another epoch now, or not at all).
    fn extended(&self, run: &str, epoch: i64, sent: Instant) {
        if let Some(hold) = self.held().get_mut(run).filter(|h| h.epoch == epoch) {
            hold.until = hold.until.max(sent + self.lease.duration);
        }
    }

    /// The leases this process takes.
    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// Woken when this process answers a question of a run: a parked run may be ready to
    /// resume (see [`RunJournals::orphans`](JournalStore::orphans)).
    pub fn answered(&self) -> &tokio::sync::Notify {
        &self.answered
    }

    /// This instance is stopping (a deploy, SIGTERM): write nothing more, and let every lease
    /// it holds lapse now, so other instances take its runs over from what is on record
    /// instead of their ending here as cancelled. Call it before the runs are cancelled.
    pub fn hand_over(&self) {
        use std::sync::atomic::Ordering;
        self.handed_over.store(true, Ordering::SeqCst);
        let held: Vec<(String, Hold)> = self.held().drain().collect();
        for (run, Hold { epoch, .. }) in held {
            if let Err(e) = self.db.release(&run, &self.lease.owner, epoch) {
                eprintln!("ptc: run {run} is taken over once its lease lapses ({e})");
            }
        }
    }

    /// The epoch under which this process surely still holds `run`: more than a renewal's
    /// interval of its lease is left (a renewal that is late or failed makes its calls write
    /// first, and so find out whether the run is still theirs), and it has not handed its runs
    /// over.
    fn surely_held(&self, run: &str) -> Option<i64> {
        if self.handed_over.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let margin = Instant::now() + self.lease.duration / 3;
        let held = self.held();
        held.get(run).filter(|h| margin < h.until).map(|h| h.epoch)
    }

    /// `run` was taken here under `epoch`: append what its last owner wrote ahead of the store
    /// and never appended, before it is resumed (a call written only there is in doubt, not
    /// unmade). Unless that succeeds the run is let go again, for a later claim to retry.
    fn take_ahead(&self, run: &str, epoch: i64) -> Result<(), JournalError> {
        let Some(ahead) = &self.ahead else {
            return Ok(());
        };
        let taken = (|| {
            let from = self.load(run)?.len() as u64;
            let batch = ahead.unwritten(run, from).map_err(|e| self.error(e))?;
            match batch.is_empty() {
                true => Ok(()),
                false => self.append(run, from, &batch),
            }
        })();
        if let Err(e) = taken {
            self.held().remove(run);
            let _ = self.db.release(run, &self.lease.owner, epoch);
            return Err(e);
        }
        // The files of owners gone whose runs are all taken over or ended: what matters in
        // them is in the store now. A file left is swept at the next claim.
        let held_by = |owner: &str, run: &str| match self.db.lease(run) {
            Ok(Some((holder, ended, _))) => holder == owner && !ended,
            Ok(None) => false,
            Err(_) => true,
        };
        let _ = ahead.sweep(gone, held_by);
        Ok(())
    }

    /// Renew every lease this process holds; forget those another owner took; cancel the
    /// runs cancelled through the store.
    fn renew(&self) {
        let held: Vec<(String, i64)> = self
            .held()
            .iter()
            .map(|(r, h)| (r.clone(), h.epoch))
            .collect();
        for (run, epoch) in held {
            // A database that cannot be reached now is tried again next time; a lease that
            // lapses meanwhile is found taken at the next append.
            let sent = Instant::now();
            let renewed = self
                .db
                .renew(&run, &self.lease.owner, epoch, self.lease.ms());
            if let Ok(Some(_)) = renewed {
                self.extended(&run, epoch, sent);
            }
            match renewed {
                Ok(None) => {
                    // Lost, unless this process took it again meanwhile (a newer epoch).
                    let mut held = self.held();
                    if held.get(&run).is_some_and(|h| h.epoch == epoch) {
                        held.remove(&run);
                    }
                }
                Ok(Some(true)) => self.cancel_here(&run),
                Ok(Some(false)) | Err(_) => {}
            }
        }
    }

    /// Cancel run `run` if it runs here.
    fn cancel_here(&self, run: &str) {
        let watched = self.watched.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(signal) = watched.get(run) {
            signal.cancel();
        }
    }
}

impl JournalStore for RunJournals {
    fn append(&self, run: &str, from: u64, batch: &Batch) -> Result<(), JournalError> {
        if self.handed_over.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(JournalError(format!(
                "run {run}: this instance is stopping and handed its runs over to the others"
            )));
        }
        // One row per append: a run's calls that change nothing are written together.
        let body = batch.json();
        let from = i64::try_from(from).map_err(|e| self.error(e))?;
        let ends = batch.ends();
        let (owner, lease_ms) = (self.lease.owner.as_str(), self.lease.ms());
        let epoch = self.held().get(run).map(|h| h.epoch);
        let fence = match (from, epoch) {
            (0, _) => Fence::New {
                owner,
                lease_ms,
                ends,
            },
            (_, Some(epoch)) => Fence::Held {
                owner,
                epoch,
                lease_ms,
                ends,
            },
            (_, None) => {
                return Err(JournalError(format!(
                    "run {run} is not held by this instance ({owner}): another instance took it \
                     over, or it was never claimed here"
                )))
            }
        };
        let sent = Instant::now();
        match self.db.append(run, from, body, fence) {
            Ok(()) => {
                if let Some(ahead) = &self.ahead {
                    ahead.committed(run, from as u64 + batch.len());
                }
                if ends {
                    self.held().remove(run);
                    self.watched
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(run);
                } else if from == 0 {
                    self.hold(run, 1, sent);
                } else if let Some(epoch) = epoch {
                    self.extended(run, epoch, sent);
                }
                if from == 0 {
                    self.begun
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(run.to_string());
                    self.begun_count.send_modify(|n| *n += 1);
                }
                Ok(())
            }
            Err(Refused::Taken) => Err(JournalError(format!(
                "entry {from} of run {run} is written already: another instance has this run"
            ))),
            Err(Refused::Fenced) => {
                self.held().remove(run);
                Err(JournalError(format!(
                    "run {run} was taken over by another instance: this instance's lease on it \
                     (epoch {}) lapsed, so it writes nothing more",
                    epoch.unwrap_or_default()
                )))
            }
            Err(Refused::Db(e)) => Err(self.error(e)),
        }
    }

    fn load(&self, run: &str) -> Result<Vec<Entry>, JournalError> {
        let mut entries = Vec::new();
        for (seq, body) in self.db.load(run).map_err(|e| self.error(e))? {
            if seq != entries.len() as i64 {
                return Err(
                    self.error(format!("run {run}'s journal lacks entry {}", entries.len()))
                );
            }
            let unreadable = |e| self.error(format!("run {run}'s entry {seq}: {e}"));
            entries.extend(row_entries(&body).map_err(unreadable)?);
        }
        Ok(entries)
    }

    fn runs(&self) -> Result<Vec<String>, JournalError> {
        self.db.runs().map_err(|e| self.error(e))
    }

    fn claim(&self, run: &str) -> Result<(), JournalError> {
        if self.held().contains_key(run) {
            // Claimed already (an orphan this process took over).
            return Ok(());
        }
        let (owner, lease_ms) = (self.lease.owner.as_str(), self.lease.ms());
        let mut dead = None;
        loop {
            let sent = Instant::now();
            match self
                .db
                .claim(run, owner, lease_ms, dead.as_deref())
                .map_err(|e| self.error(e))?
            {
                Claim::Taken(epoch) => {
                    self.hold(run, epoch, sent);
                    return self.take_ahead(run, epoch);
                }
                Claim::Ended => return Ok(()),
                Claim::Held { owner: holder, .. } if dead.is_none() && gone(&holder) => {
                    // Its owner is a process of this host that is gone: no need to wait for
                    // its lease to lapse.
                    dead = Some(holder);
                }
                Claim::Held {
                    owner: holder,
                    left_ms,
                } => {
                    return Err(JournalError(format!(
                        "run {run} is held by {holder} for {left_ms} ms more (its lease is renewed \
                         while it runs): it is not orphaned"
                    )))
                }
            }
        }
    }

    fn orphans(&self, limit: usize) -> Result<Vec<String>, JournalError> {
        if self.handed_over.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(Vec::new());
        }
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sent = Instant::now();
        let taken = self
            .db
            .orphans(&self.lease.owner, self.lease.ms(), limit)
            .map_err(|e| self.error(e))?;
        let mut orphans = Vec::with_capacity(taken.len());
        for (run, epoch) in taken {
            self.hold(&run, epoch, sent);
            match self.take_ahead(&run, epoch) {
                Ok(()) => orphans.push(run),
                Err(e) => eprintln!("ptc: run {run} is not resumed here: {e}"),
            }
        }
        Ok(orphans)
    }

    fn write_ahead(&self, run: &str, from: u64, batch: &Batch) -> Result<bool, JournalError> {
        let (Some(ahead), Some(epoch)) = (&self.ahead, self.surely_held(run)) else {
            return Ok(false);
        };
        // A file that cannot be written leaves the store to be: the run appends.
        Ok(ahead.write(run, epoch, from, batch).is_ok())
    }

    fn holds(&self, run: &str) -> bool {
        self.surely_held(run).is_some()
    }
}

/// The entries of one row: a JSON array (a row written before appends were batched holds
/// one entry).
fn row_entries(body: &str) -> Result<Vec<Entry>, serde_json::Error> {
    match body.trim_start().starts_with('[') {
        true => serde_json::from_str(body),
        false => serde_json::from_str(body).map(|entry| vec![entry]),
    }
}

/// Renew the leases of `journals` every `every` until it is dropped.
fn renew_in_background(journals: Weak<RunJournals>, every: Duration) {
    let every = every.max(Duration::from_millis(10));
    let spawned = std::thread::Builder::new()
        .name("ptc-lease".into())
        .spawn(move || loop {
            std::thread::sleep(every);
            match journals.upgrade() {
                Some(journals) => journals.renew(),
                None => return,
            }
        });
    // Without the thread leases lapse while runs are long: such a run is taken over, and
    // stops at its next write, saying so.
    if let Err(e) = spawned {
        eprintln!("ptc: cannot start the thread that renews run leases: {e}");
    }
}
