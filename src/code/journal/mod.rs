//! Durable runs: a journal of everything a program observes from outside, so that a run can be
//! replayed in a fresh sandbox and come out the same.
//!
//! A program is deterministic given what it observes: its sub-calls' results, the order in
//! which they and its timers reach it, the clock and its random numbers (see
//! `ptc_engine::Host::{seed, clock, deliveries}`). A run whose [`CodeConfig`] has
//! [`Journaling`] records all of that, keyed by the `run_code` call's id, in a
//! [`JournalStore`]:
//!
//! ```text
//! start  (program, engine, tools digests, seed, time)
//! call n (tool, arguments or their hash)  — once a live call is admitted (approved), as it is
//!        dispatched; on record before a call that may change something (not
//!        concurrency-safe) runs, unless it is idempotent and the run's lease surely holds
//!        ([`JournalStore::holds`]): written ahead ([`JournalStore::write_ahead`]) while the
//!        lease surely holds, else appended; a call refused before that, with its result
//! result n (the reply the program got)    — as the call commits; a call that may change
//!        something has it written with the run's next write, or once [`Journaling::wait`]
//!        is over (2 ms by default)
//! clock ms ×count, delivery id            — in the order the program saw them
//! returned                                — the program ended; what settles after was cut
//!                                           off as the run wound down
//! end    (the run's output)
//! ```
//!
//! A run whose journal already holds entries replays them: a sub-call whose result is
//! recorded gets it back without being dispatched (logged as `tool/ptc-replayed`); deliveries,
//! clock readings and the seed come from the journal; a program that goes another way (another
//! tool or other arguments at call n) fails with `code run failed (nondeterminism)` naming
//! `<callId>:ptc:<n>`. Another engine or tool list fails at once; a changed program replays
//! for as long as it makes the recorded calls. Once the journal is played out the run goes
//! live and records on, unless it had ended: a finished run only replays. A call recorded as started without a result is in
//! doubt: it runs again only if it is concurrency-safe or idempotent (its tool does its effect
//! once per idempotency key, `ToolRunContext::idempotency_key`, which is `<runId>:ptc:<n>` again),
//! otherwise the program gets a `ToolCallError` saying it may or may not have happened
//! (`IN_DOUBT`). A call that was still waiting to be admitted (for a person's approval) is not
//! in doubt: it is asked for again, and an approval service that keeps its answers by call id
//! answers it from there.
//!
//! A store shared by instances ([`JournalStore::claim`]) hands each unfinished run to one owner
//! at a time: a run continued elsewhere is claimed first, and an owner that lost it cannot
//! append.
//!
//! [`CodeConfig`]: super::CodeConfig

mod batch;
mod deferred;
mod run;

pub use batch::Batch;
pub(crate) use batch::{Mark, Record};
pub use deferred::{write_waiting, WAIT};
pub(crate) use run::{new_seed, Answer, Recorded, Repeat, RunJournal};

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One entry of a run's journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    /// The run began.
    Start(Start),
    /// The program read the clock `count` times in a row and saw `ms` (since the Unix epoch,
    /// whole milliseconds) each time.
    Clock {
        /// What it read.
        ms: f64,
        /// How many times in a row.
        count: u64,
    },
    /// Sub-call `n` was dispatched live.
    Call {
        /// The call's number in the run (`<callId>:ptc:<n>`).
        n: u64,
        /// The tool.
        name: String,
        /// Its arguments' JSON text when that is shorter than 64 bytes, else the text's
        /// sha256 (64 hex digits): what a replay compares the program's arguments with.
        args: String,
    },
    /// Sub-call `n` settled: what the program got.
    Result {
        /// The call's number.
        n: u64,
        /// The tool's value, on success.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
        /// A cap's note on the value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        /// The tool's other note on the value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remark: Option<String>,
        /// A note taken back if the program reads one of these fields: the fields, the note.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unless_read: Option<(Vec<String>, String)>,
        /// The error message the program's `ToolCallError` carries, on failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The failure's code (`ABORTED`, `NOT_STARTED`, …): how the call ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// The program returned (or failed): calls that settle after this were cut off or
    /// closed as the run wound down, and a replay leaves them unsettled.
    Returned,
    /// A call or timer reached the program (the engine's numbering: calls and timers
    /// together, in the order the program made them).
    Delivery {
        /// Its number.
        id: u64,
        /// Whether it was a timer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        timer: bool,
    },
    /// The run ended.
    End {
        /// What `run_code` returned (the model's text).
        output: String,
        /// Whether that was an error.
        is_error: bool,
    },
}

/// [`Entry::Result`] as a live run records it: borrowed from the reply the program gets, so
/// that recording a result copies nothing but its JSON text (written by [`Record`]).
pub(crate) struct ResultEntry<'a> {
    pub(crate) n: u64,
    pub(crate) value: Option<&'a Value>,
    pub(crate) note: Option<&'a str>,
    pub(crate) remark: Option<&'a str>,
    pub(crate) unless_read: Option<(&'a [String], &'a str)>,
    pub(crate) error: Option<&'a str>,
    pub(crate) code: Option<&'a str>,
}

impl<'a> ResultEntry<'a> {
    /// Sub-call `n`'s `result`, which ended with failure `code` if any.
    pub(crate) fn of(
        n: u64,
        result: &'a Result<ptc_engine::Reply, String>,
        code: Option<&'a str>,
    ) -> Self {
        let reply = result.as_ref().ok();
        ResultEntry {
            n,
            value: reply.map(|r| &r.value),
            note: reply.and_then(|r| r.note.as_deref()),
            remark: reply.and_then(|r| r.remark.as_deref()),
            unless_read: reply
                .and_then(|r| r.unless_read.as_ref())
                .map(|u| (&u.fields[..], u.text.as_str())),
            error: result.as_ref().err().map(String::as_str),
            code,
        }
    }
}

/// How a journaled run began: what must be the same for a replay to be one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Start {
    /// The sha256 of the program's text.
    pub program: String,
    /// The program's text, so that any instance that reaches the store can resume the run.
    pub code: String,
    /// The engine and its glue (`quickjs`/`deno` and ptc-engine's version).
    pub engine: String,
    /// The sha256 of the tools the program could call (names and input schemas).
    pub tools: String,
    /// The seed of the run's random numbers, as 64 hex digits.
    pub seed: String,
    /// When it began (milliseconds since the Unix epoch).
    pub at_ms: u64,
}

/// Why a journal could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("run journal: {0}")]
pub struct JournalError(pub String);

/// Where journals are kept: a run store's table, or memory.
///
/// Entries of one run are numbered from 0; [`JournalStore::append`] writes a [`Batch`] of them
/// as numbers `from..`, durably when it returns, and fails if any of those numbers is taken (an
/// instance that lost the run must not write on). It is called from the engine's thread and
/// from async tasks: it may block briefly (one transaction), never on the program.
pub trait JournalStore: Send + Sync {
    /// Append `batch`'s entries to `run`'s journal as numbers `from`, `from + 1`, ….
    fn append(&self, run: &str, from: u64, batch: &Batch) -> Result<(), JournalError>;

    /// Every entry of `run`'s journal, in order (empty for a run never journaled).
    fn load(&self, run: &str) -> Result<Vec<Entry>, JournalError>;

    /// The runs with a journal, oldest first.
    fn runs(&self) -> Result<Vec<String>, JournalError>;

    /// Take `run`, whose journal exists and has not ended, to continue it here: a store
    /// shared by instances hands each run to one owner at a time (a lease), and refuses while
    /// another owner still holds it. From then on only this owner's appends to `run` succeed.
    /// A store for one process has nothing to take (the default).
    fn claim(&self, run: &str) -> Result<(), JournalError> {
        let _ = run;
        Ok(())
    }

    /// Put `batch`'s entries on record ahead of the store, as numbers `from`, `from + 1`, … of
    /// `run`: as durable against this process's death as an append, and cheaper, but read only
    /// by whoever takes the run over, who appends them ([`JournalStore::claim`],
    /// [`JournalStore::orphans`]); the run's own later append holds them too. Only while this
    /// owner surely holds the run ([`JournalStore::holds`]): an owner that may have lost it
    /// must find out by appending. `Ok(false)`: not written, append instead (the default, for
    /// a store without such a log).
    fn write_ahead(&self, run: &str, from: u64, batch: &Batch) -> Result<bool, JournalError> {
        let _ = (run, from, batch);
        Ok(false)
    }

    /// Whether this owner surely still holds `run`: no other instance can take it over for a
    /// while yet (its lease was renewed lately). A call that is safe to repeat then runs
    /// without being written first, a write that would only have fenced it off. A store for
    /// one process always holds its runs (the default).
    fn holds(&self, run: &str) -> bool {
        let _ = run;
        true
    }

    /// Claim at most `limit` runs whose owner stopped renewing its lease (it died or was
    /// cut off), oldest lapse first, for this owner to resume. None by default.
    fn orphans(&self, limit: usize) -> Result<Vec<String>, JournalError> {
        let _ = limit;
        Ok(Vec::new())
    }
}

/// Whether, where and how `run_code` runs are journaled.
#[derive(Clone)]
pub struct Journaling {
    /// Where the journals are.
    pub store: Arc<dyn JournalStore>,
    /// `false` re-runs recorded runs with every tool disabled: a call the journal does not
    /// answer, or a run that would go live, is a divergence (`ptc replay --rerun`).
    pub live: bool,
    /// How long the result of a call that may change something may wait to be written with
    /// the run's next write ([`WAIT`] by default): a crash within it leaves the call in doubt.
    pub wait: std::time::Duration,
}

impl Journaling {
    /// Runs journaled in `store` (`live` as [`Journaling::live`]), results waiting [`WAIT`].
    pub fn new(store: Arc<dyn JournalStore>, live: bool) -> Self {
        Journaling {
            store,
            live,
            wait: WAIT,
        }
    }
}

impl std::fmt::Debug for Journaling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journaling")
            .field("live", &self.live)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

/// Journals in memory, for tests and for replaying what was read from elsewhere: each
/// append kept as it came, as a store's row is, and read back on load.
#[derive(Default)]
pub struct MemoryJournal {
    runs: Mutex<BTreeMap<String, Journal>>,
    order: Mutex<Vec<String>>,
}

/// One run's appends and how many entries they hold.
#[derive(Default)]
struct Journal {
    appends: Vec<Batch>,
    len: u64,
}

impl MemoryJournal {
    /// An empty store.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
}

impl JournalStore for MemoryJournal {
    fn append(&self, run: &str, from: u64, batch: &Batch) -> Result<(), JournalError> {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let journal = runs.entry(run.to_string()).or_insert_with(|| {
            self.order
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(run.to_string());
            Journal::default()
        });
        if journal.len != from {
            return Err(JournalError(format!(
                "{run}: entry {from} is not the next ({} are written)",
                journal.len
            )));
        }
        journal.len += batch.len();
        journal.appends.push(batch.clone());
        Ok(())
    }

    fn load(&self, run: &str) -> Result<Vec<Entry>, JournalError> {
        let runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let mut entries = Vec::new();
        for batch in runs.get(run).map_or(&[][..], |j| &j.appends) {
            entries.extend(batch.entries()?);
        }
        Ok(entries)
    }

    fn runs(&self) -> Result<Vec<String>, JournalError> {
        Ok(self.order.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }
}
