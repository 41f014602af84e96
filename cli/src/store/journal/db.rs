//! What a database that keeps journals and leases does ([`JournalDb`], SQLite's or
//! PostgreSQL's), and the answers it gives.

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
