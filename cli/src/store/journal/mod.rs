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
mod postgres;
mod sqlite;
mod tasks;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use ptc::journal::{Batch, Entry, JournalError, JournalStore};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::LogTarget;

/// The statements both databases share: `$n` placeholders (SQLite reads them as `?n`) and
/// `NOW_MS`, the database's clock in milliseconds since the Unix epoch.
mod sql {
    /// The tables, made if absent.
    pub const SCHEMA: [&str; 4] = [
        "CREATE TABLE IF NOT EXISTS journal (run_id TEXT NOT NULL, seq BIGINT NOT NULL, \
         body TEXT NOT NULL, PRIMARY KEY (run_id, seq))",
        "CREATE TABLE IF NOT EXISTS leases (run_id TEXT PRIMARY KEY, owner TEXT NOT NULL, \
         epoch BIGINT NOT NULL, expires_ms BIGINT NOT NULL, ended BOOLEAN NOT NULL, \
         cancel BOOLEAN NOT NULL DEFAULT FALSE)",
        "CREATE TABLE IF NOT EXISTS questions (run_id TEXT NOT NULL, key TEXT NOT NULL, \
         request TEXT NOT NULL, answer TEXT, asked_ms BIGINT NOT NULL, \
         PRIMARY KEY (run_id, key))",
        "CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ];
    /// Make a secret ($1 name, $2 value) unless it exists.
    pub const SECRET_NEW: &str =
        "INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";
    /// A secret's value ($1 name).
    pub const SECRET: &str = "SELECT value FROM secrets WHERE name = $1";
    /// Put a question ($1 run, $2 key, $3 request) unless it was put.
    pub const ASK: &str = "INSERT INTO questions (run_id, key, request, asked_ms) \
        VALUES ($1, $2, $3, NOW_MS) ON CONFLICT (run_id, key) DO NOTHING";
    /// Put a question ($1 run, $2 key, $3 request) already answered ($4) unless it was put:
    /// what a run keeps that is not asked (a grant of "allow for this run").
    pub const REMEMBER: &str = "INSERT INTO questions (run_id, key, request, answer, asked_ms) \
        VALUES ($1, $2, $3, $4, NOW_MS) ON CONFLICT (run_id, key) DO NOTHING";
    /// A question's answer and how long ago it was put ($1 run, $2 key).
    pub const ASKED: &str =
        "SELECT answer, NOW_MS - asked_ms FROM questions WHERE run_id = $1 AND key = $2";
    /// A run's open questions, oldest first ($1 run).
    pub const OPEN: &str = "SELECT key, request FROM questions \
        WHERE run_id = $1 AND answer IS NULL ORDER BY asked_ms, key";
    /// Answer an open question ($1 run, $2 key, $3 answer); no row when it is not open.
    pub const ANSWER: &str = "UPDATE questions SET answer = $3 \
        WHERE run_id = $1 AND key = $2 AND answer IS NULL";
    /// One append's entries ($1 run, $2 number of the first, $3 their JSON array).
    pub const ENTRY: &str = "INSERT INTO journal (run_id, seq, body) VALUES ($1, $2, $3)";
    /// A run's entries.
    pub const LOAD: &str = "SELECT seq, body FROM journal WHERE run_id = $1 ORDER BY seq";
    /// A run's last row.
    pub const LAST: &str = "SELECT body FROM journal WHERE run_id = $1 ORDER BY seq DESC LIMIT 1";
    /// A new run's lease ($1 run, $2 owner, $3 lease ms, $4 ended); no row when it exists.
    pub const LEASE_NEW: &str = "INSERT INTO leases (run_id, owner, epoch, expires_ms, ended) \
        VALUES ($1, $2, 1, NOW_MS + $3, $4) ON CONFLICT (run_id) DO NOTHING";
    /// Whether this owner holds the lease under this epoch ($1 run, $2 owner, $3 epoch): no
    /// row when it is not theirs. An append checks it (the lease is renewed by a thread of its
    /// own), holding the row so that no one takes it over before the append commits.
    pub const LEASE_HELD: &str = "SELECT 1 FROM leases \
        WHERE run_id = $1 AND owner = $2 AND epoch = $3 AND NOT ended FOR_SHARE";
    /// Extend a lease this owner holds under this epoch ($1 run, $2 owner, $3 lease ms,
    /// $4 epoch, $5 ended); no row when it is not theirs.
    pub const LEASE_KEEP: &str = "UPDATE leases SET expires_ms = NOW_MS + $3, ended = $5 \
        WHERE run_id = $1 AND owner = $2 AND epoch = $4 AND NOT ended";
    /// A run's lease: owner, epoch, ms left, ended, cancel ($1 run).
    pub const LEASE_GET: &str =
        "SELECT owner, epoch, expires_ms - NOW_MS, ended, cancel FROM leases WHERE run_id = $1";
    /// Renew a lease (as [`LEASE_KEEP`], not ending it): whether the run was cancelled.
    pub const LEASE_RENEW: &str = "UPDATE leases SET expires_ms = NOW_MS + $3 \
        WHERE run_id = $1 AND owner = $2 AND epoch = $4 AND NOT ended RETURNING cancel";
    /// Let a lease lapse now ($1 run, $2 owner, $3 epoch): another instance takes it over.
    pub const LEASE_RELEASE: &str = "UPDATE leases SET expires_ms = NOW_MS - 1 \
        WHERE run_id = $1 AND owner = $2 AND epoch = $3 AND NOT ended";
    /// Ask a run to stop ($1 run): no row when it ended.
    pub const CANCEL: &str = "UPDATE leases SET cancel = TRUE WHERE run_id = $1 AND NOT ended";
    /// Take a lease ($1 run, $2 owner, $3 lease ms): the new epoch.
    pub const LEASE_TAKE: &str = "UPDATE leases SET owner = $2, epoch = epoch + 1, \
        expires_ms = NOW_MS + $3 WHERE run_id = $1 RETURNING epoch";
    /// Take lapsed leases ($1 owner, $2 lease ms, $3 at most), `SKIP_LOCKED` where the
    /// database has it: the runs and their new epochs. A run with an open question waits
    /// for its answer, not for an instance.
    pub const ORPHANS: &str = "UPDATE leases SET owner = $1, epoch = epoch + 1, \
        expires_ms = NOW_MS + $2 WHERE run_id IN (SELECT l.run_id FROM leases l WHERE NOT \
        l.ended AND l.expires_ms < NOW_MS AND NOT EXISTS (SELECT 1 FROM questions q WHERE \
        q.run_id = l.run_id AND q.answer IS NULL) ORDER BY l.expires_ms LIMIT $3 SKIP_LOCKED) \
        RETURNING run_id, epoch";
}

/// How long a lease lasts unless renewed, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// Who takes leases, and for how long.
#[derive(Debug, Clone)]
pub struct Lease {
    /// The owner's name in the `leases` table: `HOST/PID/TAG` (a process of a host).
    pub owner: String,
    /// How long a lease lasts unless renewed (renewed every third of it).
    pub duration: Duration,
}

impl Lease {
    /// Leases of this process lasting `duration`.
    pub fn new(duration: Duration) -> Lease {
        Lease {
            owner: format!(
                "{}/{}/{}",
                host(),
                std::process::id(),
                ptc::session::process_tag()
            ),
            duration,
        }
    }

    fn ms(&self) -> i64 {
        i64::try_from(self.duration.as_millis()).unwrap_or(i64::MAX)
    }
}

impl Default for Lease {
    fn default() -> Self {
        Lease::new(DEFAULT_LEASE)
    }
}

/// The lease an append must hold.
pub(crate) enum Fence<'a> {
    /// The run's first entries: make its lease (`ends`: they also end the run).
    New {
        owner: &'a str,
        lease_ms: i64,
        ends: bool,
    },
    /// Extend this owner's lease of this epoch; `ends`: the entries end the run.
    Held {
        owner: &'a str,
        epoch: i64,
        lease_ms: i64,
        ends: bool,
    },
}

/// Why an append was refused.
pub(crate) enum Refused {
    /// An entry's number (or, for a new run, the run) is taken.
    Taken,
    /// The lease is another owner's now, or another epoch's.
    Fenced,
    /// The database said no.
    Db(String),
}

/// What a claim found.
pub(crate) enum Claim {
    /// Taken under this epoch.
    Taken(i64),
    /// The run ended: nothing to write.
    Ended,
    /// Another owner holds it for `left_ms` more.
    Held { owner: String, left_ms: i64 },
}

/// Whether a claim for `owner` must leave a lease of `holder` with `left_ms` to run: it is
/// another owner's, still live, and not of a process known to be `dead`.
pub(crate) fn held_by_another(holder: &str, left_ms: i64, owner: &str, dead: Option<&str>) -> bool {
    left_ms > 0 && holder != owner && dead != Some(holder)
}

/// A database that keeps journals and leases (SQLite or PostgreSQL).
pub(crate) trait JournalDb: Send + Sync + 'static {
    /// Write `body` (a JSON array) as entries `from..` of `run` under `fence`, in one
    /// transaction.
    fn append(&self, run: &str, from: i64, body: &str, fence: Fence<'_>) -> Result<(), Refused>;
    /// The rows of `run`: the number of each one's first entry and its body, in order.
    fn load(&self, run: &str) -> Result<Vec<(i64, String)>, String>;
    /// The runs with a journal, oldest first.
    fn runs(&self) -> Result<Vec<String>, String>;
    /// Take `run` for `owner` if its lease lapsed or its owner is `dead` (or it has none).
    fn claim(
        &self,
        run: &str,
        owner: &str,
        lease_ms: i64,
        dead: Option<&str>,
    ) -> Result<Claim, String>;
    /// Take at most `limit` runs whose lease lapsed: their ids and new epochs.
    fn orphans(&self, owner: &str, lease_ms: i64, limit: i64)
        -> Result<Vec<(String, i64)>, String>;
    /// Extend `owner`'s lease of `run` under `epoch`: whether the run was cancelled, `None`
    /// when the lease is not theirs any more.
    fn renew(
        &self,
        run: &str,
        owner: &str,
        epoch: i64,
        lease_ms: i64,
    ) -> Result<Option<bool>, String>;
    /// `run`'s lease: its owner, whether the run ended and whether it was cancelled.
    fn lease(&self, run: &str) -> Result<Option<(String, bool, bool)>, String>;
    /// The body of `run`'s last row (the JSON array of its last append's entries).
    fn last(&self, run: &str) -> Result<Option<String>, String>;
    /// Ask `run` to stop: `false` when it ended (or has no lease).
    fn cancel(&self, run: &str) -> Result<bool, String>;
    /// Let `owner`'s lease of `run` under `epoch` lapse now.
    fn release(&self, run: &str, owner: &str, epoch: i64) -> Result<(), String>;
    /// Put question `key` of `run` (`request` as JSON) unless it was put: its answer (JSON)
    /// if given, and how many ms ago it was first put.
    fn ask(&self, run: &str, key: &str, request: &str) -> Result<(Option<String>, i64), String>;
    /// Question `key` of `run`: its answer if given, and its age in ms (`None`: never put).
    fn asked(&self, run: &str, key: &str) -> Result<Option<(Option<String>, i64)>, String>;
    /// The open questions of `run`, oldest first: key and request.
    fn open_questions(&self, run: &str) -> Result<Vec<(String, String)>, String>;
    /// Answer open question `key` of `run`: `false` when it is not open.
    fn answer(&self, run: &str, key: &str, answer: &str) -> Result<bool, String>;
    /// Put question `key` of `run` with its `answer` at once, unless it was put.
    fn remember(&self, run: &str, key: &str, request: &str, answer: &str) -> Result<(), String>;
    /// Secret `name`, made `fresh` by the first instance that asks.
    fn secret(&self, name: &str, fresh: &str) -> Result<String, String>;
}

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
        let Some(ahead) = &self.ahead else {
            return Ok(false);
        };
        let epoch = self.held().get(run).map(|h| h.epoch);
        match epoch {
            // A file that cannot be written leaves the store to be: the run appends.
            Some(epoch) if self.holds(run) => Ok(ahead.write(run, epoch, from, batch).is_ok()),
            _ => Ok(false),
        }
    }

    fn holds(&self, run: &str) -> bool {
        // Sure while more than a renewal's interval is left: a renewal that is late or failed
        // makes its calls write first, and so find out whether the run is still theirs.
        !self.handed_over.load(std::sync::atomic::Ordering::SeqCst)
            && self
                .held()
                .get(run)
                .is_some_and(|h| Instant::now() + self.lease.duration / 3 < h.until)
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

/// This host's name.
fn host() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// Whether `owner` (`HOST/PID/TAG`) is a process of this host that no longer exists.
fn gone(owner: &str) -> bool {
    let mut parts = owner.splitn(3, '/');
    let (Some(host_name), Some(pid)) = (parts.next(), parts.next()) else {
        return false;
    };
    if host_name != host() {
        return false;
    }
    let Some(pid) = pid
        .parse::<i32>()
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    pid.as_raw_nonzero().get() as u32 != std::process::id()
        && rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}
