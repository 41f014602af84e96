//! Durable runs on a PostgreSQL store shared by two instances: a run whose owner is
//! `kill -9`ed finishes on the other (`ptc serve --durable`, which claims runs whose lease
//! lapsed), each effect once; a call cut off between its effect and its commit runs once more
//! only if its tool is idempotent (same idempotency key), else reaches the program in doubt;
//! an owner stopped past its lease writes nothing more when it wakes.
//!
//! The effects are a real MCP server's (`tests/mcp/witness-server.mjs`): each call records the
//! idempotency key ptc sends in `_meta` in the same PostgreSQL, in a unique-keyed table, and
//! every attempt in another. Nothing waits a fixed time: the tests watch the journal.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ptc::journal::{Entry, JournalStore};
use ptc_cli::store::journal::{self, Lease, RunJournals};
use ptc_cli::store::LogTarget;
pub(crate) use ptc_testing::postgres::psql;
use ptc_testing::postgres::Server;

use crate::mcp_support::{node_module, ptc_bin, root};

/// Five effects; after the third the program waits on a call that changes nothing.
const PROGRAM: &str = r#"
const out = [];
for (let i = 1; i <= 5; i++) {
  try {
    out.push(await tools.witness__TOOL({ label: `effect ${i}` }));
  } catch (e) {
    out.push(`failed: ${e.message}`);
  }
  if (i === 3) await tools.sleep({ ms: 1500 });
}
return out;
"#;

const LEASE_MS: &str = "1000";

pub(crate) struct Store {
    _pg: Server,
    pub(crate) url: String,
    pub(crate) dir: tempfile::TempDir,
    journals: Arc<RunJournals>,
}

impl Store {
    pub(crate) fn start() -> Option<Store> {
        let pg = Server::start()?;
        node_module("@modelcontextprotocol/sdk/package.json");
        let url = pg.url();
        psql(
            &url,
            "CREATE TABLE attempts (key TEXT NOT NULL, label TEXT NOT NULL); \
             CREATE TABLE witness (key TEXT PRIMARY KEY, label TEXT NOT NULL);",
        );
        let dir = tempfile::tempdir().unwrap();
        for tool in ["record", "record_once"] {
            std::fs::write(
                dir.path().join(format!("{tool}.ts")),
                PROGRAM.replace("TOOL", tool),
            )
            .unwrap();
        }
        let journals = journal::open(&LogTarget::Postgres(url.clone()), Lease::default()).unwrap();
        Some(Store {
            _pg: pg,
            url,
            dir,
            journals,
        })
    }

    fn hold(&self) -> PathBuf {
        self.dir.path().join("hold")
    }

    /// `ptc ARGS` on this store with the witness and testkit's tools.
    pub(crate) fn ptc(&self, args: &[&str]) -> Command {
        let mut command = Command::new(ptc_bin());
        command
            .current_dir(self.dir.path())
            .args(args)
            .args([
                "--log",
                &self.url,
                "--lease-ms",
                LEASE_MS,
                "--tools",
                "testkit",
            ])
            .arg("--mcp")
            .arg(format!(
                "witness=node {} {} {}",
                root().join("tests/mcp/witness-server.mjs").display(),
                self.url,
                self.hold().display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// A durable `ptc run` of the program that calls `tool`, as run `id`.
    fn run(&self, id: &str, tool: &str) -> Child {
        self.ptc(&["run", "--run-id", id, &format!("{tool}.ts")])
            .spawn()
            .unwrap()
    }

    /// The other instance: `ptc serve --durable`, its stderr lines collected.
    fn serve(&self) -> Instance {
        let mut child = self.ptc(&["serve", "--durable"]);
        let mut child = child.stdin(Stdio::piped()).spawn().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let collected = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                collected.lock().unwrap().push(line);
            }
        });
        Instance { child, lines }
    }

    pub(crate) fn journal(&self, id: &str) -> Vec<Entry> {
        self.journals.load(id).unwrap()
    }

    /// Wait until run `id`'s journal satisfies `done`, while `owner` (if any) still runs.
    pub(crate) fn wait_for(&self, id: &str, what: &str, done: impl Fn(&[Entry]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(90);
        while !done(&self.journal(id)) {
            assert!(
                Instant::now() < deadline,
                "run {id} never got to {what}: {:?}",
                self.journal(id)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub(crate) fn ended(&self, id: &str) -> String {
        self.wait_for(id, "its end", |e| {
            matches!(e.last(), Some(Entry::End { .. }))
        });
        match self.journal(id).pop() {
            Some(Entry::End { output, .. }) => output,
            other => panic!("{other:?}"),
        }
    }

    /// `(rows, distinct keys)` of `table` whose key is run `id`'s.
    pub(crate) fn rows(&self, table: &str, id: &str) -> (u64, u64) {
        let out = psql(
            &self.url,
            &format!(
                "SELECT count(*), count(DISTINCT key) FROM {table} WHERE key LIKE '{id}:ptc:%'"
            ),
        );
        let (all, distinct) = out.trim().split_once('|').unwrap();
        (all.parse().unwrap(), distinct.parse().unwrap())
    }
}

struct Instance {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Instance {
    fn wait_for_line(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.lines.lock().unwrap().iter().any(|l| l.contains(text)) {
            assert!(
                Instant::now() < deadline,
                "no `{text}` in {:?}",
                self.lines.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) on a process this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

pub(crate) fn has_result(n: u64) -> impl Fn(&[Entry]) -> bool {
    move |entries| {
        entries
            .iter()
            .any(|e| matches!(e, Entry::Result { n: m, .. } if *m == n))
    }
}

fn replayed(url: &str, id: &str) -> String {
    psql(
        url,
        &format!(
            "SELECT count(*) FROM events WHERE run_id = '{id}' AND kind = 'tool/ptc-replayed'"
        ),
    )
    .trim()
    .to_string()
}

fn wait_for_replayed(url: &str, id: &str, count: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while replayed(url, id) != count {
        assert!(Instant::now() < deadline, "{} replayed", replayed(url, id));
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_durable_run_whose_owner_is_killed_after_three_effects_completes_on_the_other_instance() {
    let Some(store) = Store::start() else { return };
    let whole = store.run("whole", "record").wait_with_output().unwrap();
    assert!(whole.status.success(), "{whole:?}");
    let expected = store.ended("whole");
    assert!(expected.contains("recorded effect 5"), "{expected}");

    let other = store.serve();
    let mut owner = store.run("crash-1", "record");
    // Calls 1-3 are the effects (call 4 is the wait).
    store.wait_for("crash-1", "its third effect", has_result(3));
    owner.kill().unwrap();
    owner.wait().unwrap();

    assert_eq!(store.ended("crash-1"), expected);
    other.wait_for_line("ptc: orphaned run crash-1: resumed here and completed");
    assert_eq!(store.rows("witness", "crash-1"), (5, 5));
    assert_eq!(
        store.rows("attempts", "crash-1"),
        (5, 5),
        "calls 1-3 were replayed, not made again"
    );
    wait_for_replayed(&store.url, "crash-1", "3");
}

#[test]
fn a_call_cut_off_between_its_effect_and_its_commit_runs_once_or_reaches_the_program_in_doubt() {
    let Some(store) = Store::start() else { return };
    let other = store.serve();
    for (id, tool) in [("cut-1", "record"), ("cut-2", "record_once")] {
        std::fs::write(store.hold(), "effect 3").unwrap();
        let reached = store.dir.path().join("hold.reached");
        let _ = std::fs::remove_file(&reached);
        let mut owner = store.run(id, tool);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !reached.exists() {
            assert!(
                Instant::now() < deadline,
                "{id}: the third effect never ran"
            );
            assert!(owner.try_wait().unwrap().is_none(), "{id} ended early");
            std::thread::sleep(Duration::from_millis(10));
        }
        owner.kill().unwrap();
        owner.wait().unwrap();
        std::fs::remove_file(store.hold()).unwrap();
        let output = store.ended(id);
        let third = format!("{id}:ptc:3");
        let attempts = psql(
            &store.url,
            &format!("SELECT count(*) FROM attempts WHERE key = '{third}'"),
        );
        let seen = || format!("{:?}\n{:?}", store.journal(id), other.lines.lock().unwrap());
        if tool == "record" {
            // Idempotent: made again under the same key, its effect once.
            assert_eq!(attempts.trim(), "2", "{}", seen());
            assert!(output.contains("recorded effect 3"), "{output}");
        } else {
            // Not safe to repeat: the program hears it is in doubt; never made twice.
            assert_eq!(attempts.trim(), "1", "{}", seen());
            assert!(
                output.contains("failed: IN_DOUBT: witness__record_once was running when"),
                "{output}"
            );
        }
        assert_eq!(store.rows("witness", id), (5, 5), "{output}");
        assert!(output.contains("recorded effect 5"), "{output}");
    }
}

#[test]
fn an_owner_stopped_past_its_lease_is_fenced_when_it_wakes() {
    let Some(store) = Store::start() else { return };
    let _other = store.serve();
    let owner = store.run("stop-1", "record");
    store.wait_for("stop-1", "its third effect", has_result(3));
    signal(&owner, libc::SIGSTOP);
    let output = store.ended("stop-1");
    assert!(output.contains("recorded effect 5"), "{output}");
    signal(&owner, libc::SIGCONT);
    let woke = owner.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&woke.stdout);
    assert_eq!(woke.status.code(), Some(1), "{woke:?}");
    // Fenced by its lease (the renewal or the write found the epoch changed), not only by
    // the entry numbers the other instance took.
    assert!(
        said.contains("was taken over by another instance: this instance's lease on it")
            || said.contains("is not held by this instance"),
        "{said}"
    );
    assert_eq!(store.rows("witness", "stop-1"), (5, 5));
    assert_eq!(
        store.rows("attempts", "stop-1"),
        (5, 5),
        "the stopped owner made no call after it woke"
    );
}
