//! The statements both databases share: `$n` placeholders (SQLite reads them as `?n`) and
//! `NOW_MS`, the database's clock in milliseconds since the Unix epoch.

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
