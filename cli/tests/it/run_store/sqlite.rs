//! The SQLite store and the JSON-lines log: round trips, two writers on one file, filters,
//! times, and the errors of bad URLs and missing stores.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use ptc::session::SessionEvent;
use ptc_cli::store::{self, Filter, LogTarget, Store};

use super::super::mcp_support::ptc_bin;
use super::*;

#[test]
fn sqlite_store_round_trips_every_event_kind_with_a_spilled_blob() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/dir/runs.sqlite");
    let target = LogTarget::Sqlite(path.clone());
    assert_round_trip(&target, || {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
            .unwrap()
    });
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600, "the file is the user's alone");
    assert_eq!(
        mode(path.parent().unwrap()),
        0o700,
        "so is the directory made for it"
    );
}

#[test]
fn two_writers_append_to_one_sqlite_file_and_every_run_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let target = LogTarget::Sqlite(dir.path().join("runs.sqlite"));
    let writers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|instance| {
            let target = target.clone();
            std::thread::spawn(move || {
                // Each writer its own connection, as two processes would have.
                let store = open(&target, instance);
                for n in 0..100 {
                    append_all(&store, &run_events(&format!("{instance}-{n}"), n, "small"));
                }
                store.close();
                assert_eq!(store.failure(), None);
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    for instance in ["a", "b"] {
        let filter = Filter {
            instance: Some(instance.into()),
            ..Filter::default()
        };
        assert_eq!(runs(&target, &filter).len(), 100);
        let events = read(&target, &filter);
        assert_eq!(events.len(), 500);
        let mut expected: Vec<_> = (0..100)
            .flat_map(|n| run_events(&format!("{instance}-{n}"), n, "small"))
            .collect();
        let mut got = events;
        let key = |e: &SessionEvent| serde_json::to_string(e).unwrap();
        expected.sort_by_key(key);
        got.sort_by_key(key);
        assert_eq!(got, expected);
    }
}

#[test]
fn replay_filters_select_runs_by_id_instance_and_start_time() {
    let dir = tempfile::tempdir().unwrap();
    assert_filters(&LogTarget::Sqlite(dir.path().join("runs.sqlite")));
    // A JSON-lines log filters by run and time; it records no instance.
    let jsonl = LogTarget::Jsonl(dir.path().join("runs.jsonl"));
    let log = open(&jsonl, "ignored");
    append_all(&log, &run_events("j1", 1_000, "x"));
    append_all(&log, &run_events("j2", 2_000, "y"));
    let since = Filter {
        since_ms: Some(1_500),
        ..Filter::default()
    };
    assert_eq!(read(&jsonl, &since), run_events("j2", 2_000, "y"));
    let by_instance = Filter {
        instance: Some("A".into()),
        ..Filter::default()
    };
    let refused = block_on(store::read(&jsonl, &by_instance)).unwrap_err();
    assert!(refused.contains("records no instances"), "{refused}");
}

#[test]
fn replay_times_are_rfc3339_or_epoch_ms_and_bad_ones_are_named() {
    assert_eq!(store::parse_time("1500").unwrap(), 1_500);
    assert_eq!(
        store::parse_time("1970-01-01T01:00:01.5+01:00").unwrap(),
        1_500
    );
    let bad = store::parse_time("yesterday").unwrap_err();
    assert!(bad.contains("`yesterday` is not a time"), "{bad}");
}

#[test]
fn bad_log_urls_and_missing_stores_are_clear_errors() {
    let err = |text: &str| text.parse::<LogTarget>().unwrap_err();
    assert!(err("mysql://db/x").contains("unknown log URL scheme `mysql://`"));
    assert!(err("sqlite:").contains("`sqlite:` needs a file path"));
    assert!(err("postgres://u:secret@h:notaport/db").contains("bad PostgreSQL URL"));
    assert!(
        !err("postgres://u:secret@h:notaport/db").contains("secret"),
        "no password shown"
    );
    assert_eq!("off".parse::<LogTarget>().unwrap(), LogTarget::Off);
    assert_eq!(
        "a.jsonl".parse::<LogTarget>().unwrap(),
        LogTarget::Jsonl("a.jsonl".into())
    );

    // Nothing listens on port 1: opening says which store it could not reach.
    let target: LogTarget = "postgres://ptc:pw@127.0.0.1:1/runs?connect_timeout=5"
        .parse()
        .unwrap();
    let unreachable = Store::open(&target, "x").err().expect("unreachable");
    assert!(
        unreachable.contains("cannot reach the run store postgres://ptc:***@127.0.0.1:1/runs"),
        "{unreachable}"
    );

    let o = Command::new(ptc_bin())
        .args(["replay", "sqlite:/nonexistent/runs.sqlite"])
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("no run store at /nonexistent/runs.sqlite"),
        "{stderr}"
    );
}

#[test]
fn a_sqlite_journal_checkpoints_its_log_into_the_database_as_it_appends() {
    use ptc::journal::{Batch, Entry, JournalStore};
    use ptc_cli::store::journal::{self, Lease};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.sqlite");
    let journals = journal::open(&LogTarget::Sqlite(path.clone()), Lease::default()).unwrap();
    let size = || std::fs::metadata(&path).unwrap().len();
    let empty = size();
    // A thousand commits, as a thousand calls that may change something make; the appending
    // connection leaves checkpoints to a thread of the store's.
    let entry = Batch::of(&[Entry::Clock { ms: 1.0, count: 1 }]);
    for run in 0..10 {
        for n in 0..100 {
            journals.append(&format!("run-{run}"), n, &entry).unwrap();
        }
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while size() <= empty {
        assert!(
            std::time::Instant::now() < deadline,
            "nothing was checkpointed into the database file ({} bytes)",
            size()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(journals.load("run-9").unwrap().len(), 100);
}

#[test]
fn a_run_is_surely_held_while_its_lease_is_renewed_and_not_once_renewal_is_held_up() {
    use ptc::journal::{Batch, Entry, JournalStore};
    use ptc_cli::store::journal::{self, Lease};
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.sqlite");
    // Renewed every 100 ms; surely held while more than 100 ms of it is left.
    let lease = Lease::new(Duration::from_millis(300));
    let journals = journal::open(&LogTarget::Sqlite(path.clone()), lease).unwrap();
    let until = |held: bool, what: &str| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while journals.holds("run-1") != held {
            assert!(Instant::now() < deadline, "run-1 never {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    assert!(!journals.holds("run-1"), "a run never written is not held");
    let clock = Batch::of(&[Entry::Clock { ms: 1.0, count: 1 }]);
    journals.append("run-1", 0, &clock).unwrap();
    assert!(journals.holds("run-1"), "held from its first write");

    // Another connection holds the database's write lock: renewals wait behind it, and the
    // lease this process knows it has runs down.
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    until(
        false,
        "stopped being surely held while its renewals could not commit",
    );
    blocker.execute_batch("ROLLBACK").unwrap();
    until(true, "was held again once renewed");

    journals.append("run-1", 1, &clock).unwrap();
    journals.hand_over();
    assert!(!journals.holds("run-1"), "a run handed over is not held");
}

/// The one file `owner` writes ahead of the store `runs.sqlite` in `dir`.
fn ahead_file(dir: &std::path::Path, owner: &str) -> std::path::PathBuf {
    let prefix = format!("{}.", owner.replace('/', "%2F"));
    let mut files: Vec<_> = std::fs::read_dir(dir.join("runs.sqlite-ahead"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with(&prefix)
        })
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.pop().unwrap()
}

/// A lease of `owner` (no process of its own: leases taken through the API).
fn lease_of(owner: &str) -> ptc_cli::store::journal::Lease {
    ptc_cli::store::journal::Lease {
        owner: owner.into(),
        duration: std::time::Duration::from_secs(10),
    }
}

#[test]
fn a_call_written_only_ahead_of_a_sqlite_store_goes_with_the_run_to_its_next_owner() {
    use ptc::journal::{Batch, Entry, JournalStore};
    use ptc_cli::store::journal;

    let dir = tempfile::tempdir().unwrap();
    let target = LogTarget::Sqlite(dir.path().join("runs.sqlite"));
    let call = |n: u64| Entry::Call {
        n,
        name: "edit".into(),
        args: format!("{{\"n\":{n}}}"),
    };
    let result = |n: u64| Entry::Result {
        n,
        value: Some(serde_json::json!(n)),
        note: None,
        remark: None,
        unless_read: None,
        error: None,
        code: None,
    };
    let first = journal::open(&target, lease_of("elsewhere/1/a")).unwrap();
    let clock = Entry::Clock { ms: 1.0, count: 1 };
    first
        .append("run-1", 0, &Batch::of(std::slice::from_ref(&clock)))
        .unwrap();
    assert!(first
        .write_ahead("run-1", 1, &Batch::of(&[call(1)]))
        .unwrap());
    assert!(first
        .write_ahead("run-1", 2, &Batch::of(&[result(1), call(2)]))
        .unwrap());
    assert_eq!(
        first.load("run-1").unwrap().len(),
        1,
        "ahead, not in the store"
    );
    // It stops without appending them; its lease lapses at once.
    first.hand_over();
    assert!(
        !first
            .write_ahead("run-1", 4, &Batch::of(&[call(3)]))
            .unwrap(),
        "an owner that handed its runs over writes nothing ahead"
    );

    let second = journal::open(&target, lease_of("elsewhere/2/b")).unwrap();
    second.claim("run-1").unwrap();
    assert_eq!(
        second.load("run-1").unwrap(),
        [clock, call(1), result(1), call(2)],
        "the new owner appends what was written ahead before it resumes"
    );
    // On from there, under its own lease.
    second.append("run-1", 4, &Batch::of(&[result(2)])).unwrap();
    assert_eq!(second.load("run-1").unwrap().len(), 5);
}

#[test]
fn a_dead_owners_file_is_read_whole_lines_at_the_latest_epoch_and_removed_once_taken() {
    use ptc::journal::{Batch, Entry, JournalStore};
    use ptc_cli::store::journal;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.sqlite");
    let target = LogTarget::Sqlite(path.clone());
    // A process of this host that is gone.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    let dead = format!("{}/{pid}/x", host.trim());
    let first = journal::open(&target, lease_of(&dead)).unwrap();
    let clock = |ms: f64| Entry::Clock { ms, count: 1 };
    first.append("run-1", 0, &Batch::of(&[clock(0.0)])).unwrap();
    first.append("run-2", 0, &Batch::of(&[clock(0.0)])).unwrap();
    assert!(first
        .write_ahead("run-1", 1, &Batch::of(&[clock(1.0)]))
        .unwrap());
    drop(first);
    let file = ahead_file(dir.path(), &dead);
    assert!(file.exists(), "a file with entries not in the store stays");
    // What else such a file may hold: a line at the same number from an earlier epoch, one
    // of another run, and a last line cut short by the process's death.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.insert_str(
        0,
        "\n{\"run\":\"run-1\",\"epoch\":0,\"from\":1,\"entries\":[{\"type\":\"clock\",\"ms\":9.0,\"count\":1}]}\
         \n{\"run\":\"run-2\",\"epoch\":1,\"from\":1,\"entries\":[{\"type\":\"returned\"}]}",
    );
    text.push_str("\n{\"run\":\"run-1\",\"epoch\":1,\"from\":2,\"entries\":[{\"type\":\"retu");
    std::fs::write(&file, text).unwrap();

    let second = journal::open(&target, lease_of("elsewhere/2/b")).unwrap();
    second.claim("run-1").unwrap();
    assert_eq!(second.load("run-1").unwrap(), [clock(0.0), clock(1.0)]);
    assert!(
        file.exists(),
        "kept while another run in it is still the dead process's"
    );
    second.claim("run-2").unwrap();
    assert_eq!(second.load("run-2").unwrap(), [clock(0.0), Entry::Returned]);
    assert!(
        !file.exists(),
        "removed once no run in it is the dead process's"
    );
}

#[test]
fn a_processs_own_file_is_emptied_once_in_the_store_and_goes_as_it_closes_the_store() {
    use ptc::journal::{Batch, Entry, JournalStore};
    use ptc_cli::store::journal;

    let dir = tempfile::tempdir().unwrap();
    let target = LogTarget::Sqlite(dir.path().join("runs.sqlite"));
    let journals = journal::open(&target, lease_of("elsewhere/3/c")).unwrap();
    let clock = Batch::of(&[Entry::Clock { ms: 1.0, count: 1 }]);
    journals.append("run-1", 0, &clock).unwrap();
    // Past a MiB written ahead, in the store only in part: kept whole.
    let big = Batch::of(&[Entry::End {
        output: "x".repeat(1 << 20),
        is_error: false,
    }]);
    journals.append("run-2", 0, &clock).unwrap();
    assert!(journals.write_ahead("run-1", 1, &clock).unwrap());
    let file = ahead_file(dir.path(), "elsewhere/3/c");
    let size = || std::fs::metadata(&file).unwrap().len();
    assert!(journals.write_ahead("run-2", 1, &big).unwrap());
    journals.append("run-1", 1, &clock).unwrap();
    assert!(size() > 1 << 20);
    // All of it in the store: emptied.
    journals.append("run-2", 1, &clock).unwrap();
    assert_eq!(size(), 0);
    assert!(journals.write_ahead("run-1", 2, &clock).unwrap());
    assert!(size() > 0);
    journals.append("run-1", 2, &clock).unwrap();
    drop(journals);
    assert!(!file.exists());
}
