//! The run store (`ptc_cli::store`): SQLite and PostgreSQL round trips of every event kind
//! with spilled blobs, several writers on one file, replay's filters, `ptc serve`'s default
//! SQLite store read back by `ptc replay`, reconnection, and clear errors for bad URLs.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::sync::Arc;

use ptc::session::{SessionEvent, SessionLog};
use ptc::ContentBlock;
use ptc::ToolFailure;
use ptc_cli::store::{self, Filter, LogTarget, Options, Store};
use serde_json::json;

use super::mcp_support::ptc_bin;
use super::mcp_support::serve::StdioPeer;

/// A run `id` starting at `at`: every event kind, `big` in the arguments and as the sub-call's
/// and the result's text (spilled when large).
fn run_events(id: &str, at: u64, big: &str) -> Vec<SessionEvent> {
    let sub = format!("{id}:ptc:1");
    vec![
        SessionEvent::ToolCall {
            at_ms: at,
            turn: 1,
            step: 2,
            call_id: id.into(),
            name: "run_code".into(),
            arguments: Arc::new(json!({ "code": "return 1", "blob": big })),
        },
        SessionEvent::Approval {
            at_ms: at + 1,
            call_id: sub.clone(),
            name: "bash".into(),
            decision: "allowed once".into(),
            reason: "asks first".into(),
        },
        SessionEvent::PtcDispatchStart {
            at_ms: at + 2,
            parent_call_id: id.into(),
            sub_call_id: sub.clone(),
            name: "bash".into(),
            arguments: Arc::new(json!({ "command": "true" })),
        },
        SessionEvent::PtcDispatch {
            at_ms: at + 3,
            parent_call_id: id.into(),
            sub_call_id: sub,
            name: "bash".into(),
            is_error: true,
            content: vec![ContentBlock::text(big)],
            error: Some(ToolFailure::new("exit 1", "bash", "failed")),
            meta: Some(json!({ "exit": 1 })),
        },
        SessionEvent::ToolResult {
            at_ms: at + 4,
            turn: 1,
            step: 2,
            call_id: id.into(),
            name: "run_code".into(),
            is_error: false,
            content: vec![ContentBlock::text(big)],
            error: None,
            meta: None,
        },
    ]
}

fn open(target: &LogTarget, instance: &str) -> Store {
    let options = Options {
        batch_interval: std::time::Duration::from_millis(5),
        ..Options::default()
    };
    Store::open_with(target, instance, options)
        .unwrap()
        .expect("a store")
}

fn append_all(store: &Store, events: &[SessionEvent]) {
    for event in events {
        store.append(event).unwrap();
    }
}

fn read(target: &LogTarget, filter: &Filter) -> Vec<SessionEvent> {
    block_on(store::read(target, filter)).unwrap().events
}

fn runs(target: &LogTarget, filter: &Filter) -> Vec<store::RunRow> {
    block_on(store::list(target, filter)).unwrap()
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

fn ids(runs: &[store::RunRow]) -> Vec<&str> {
    runs.iter().map(|r| r.run_id.as_str()).collect()
}

/// Every event kind and a 100 kB value come back equal, the value stored once as a blob.
fn assert_round_trip(target: &LogTarget, count_blobs: impl Fn() -> i64) {
    let big = "x".repeat(100_000);
    let events = run_events("r1", 1_000, &big);
    let store = open(target, "inst-a");
    append_all(&store, &events);
    store.close();
    assert_eq!(store.failure(), None);
    assert_eq!(read(target, &Filter::default()), events);
    // Two blobs: the large arguments (as JSON), and the text that the sub-call and the
    // result both carry, stored once.
    assert_eq!(count_blobs(), 2);
    let listed = runs(target, &Filter::default());
    assert_eq!(listed.len(), 1, "{listed:?}");
    let run = &listed[0];
    assert_eq!(
        (
            run.run_id.as_str(),
            run.instance.as_str(),
            run.tool.as_str()
        ),
        ("r1", "inst-a", "run_code")
    );
    assert_eq!(run.process, ptc::session::process_tag());
    assert_eq!((run.started_ms, run.ended_ms), (1_000, Some(1_004)));
    assert_eq!(run.status.as_deref(), Some("ok"));
}

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

/// Filters by run, instance and start time select whole runs.
fn assert_filters(target: &LogTarget) {
    let a = open(target, "A");
    append_all(&a, &run_events("a1", 1_000, "one"));
    append_all(&a, &run_events("a2", 2_000, "two"));
    a.close();
    let b = open(target, "B");
    append_all(&b, &run_events("b1", 3_000, "three"));
    b.close();
    let filter = |run: Option<&str>, instance: Option<&str>, since, until| Filter {
        run: run.map(str::to_string),
        instance: instance.map(str::to_string),
        since_ms: since,
        until_ms: until,
    };
    assert_eq!(ids(&runs(target, &Filter::default())), ["a1", "a2", "b1"]);
    assert_eq!(
        ids(&runs(target, &filter(None, Some("A"), None, None))),
        ["a1", "a2"]
    );
    assert_eq!(
        ids(&runs(target, &filter(None, None, Some(1_500), None))),
        ["a2", "b1"]
    );
    assert_eq!(
        ids(&runs(target, &filter(None, None, None, Some(2_000)))),
        ["a1", "a2"]
    );
    assert_eq!(
        ids(&runs(
            target,
            &filter(None, Some("B"), Some(0), Some(2_999))
        )),
        Vec::<&str>::new()
    );
    // Events: the whole run, its sub-calls and approval included.
    assert_eq!(
        read(target, &filter(Some("a2"), None, None, None)),
        run_events("a2", 2_000, "two")
    );
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
fn serve_logs_to_the_default_sqlite_store_and_replay_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("xdg-state");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = [
        ("XDG_STATE_HOME", state.to_str().unwrap()),
        ("HOME", home.to_str().unwrap()),
    ];
    let mut peer = StdioPeer::start_with_env(
        dir.path(),
        &["--tools", "testkit", "--mode", "native"],
        &env,
    );
    let result = peer.call(1, "add", json!({ "a": 2, "b": 3 }));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(peer.finish(), Some(0));

    let db = state.join("ptc/runs.sqlite");
    assert!(db.exists(), "the default store is {}", db.display());
    let url = format!("sqlite:{}", db.display());
    let replay = |args: &[&str]| {
        let o = Command::new(ptc_bin())
            .arg("replay")
            .args(args)
            .arg(&url)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    let listing = replay(&["--list"]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines[0], "run\tinstance\tprocess\tstarted\ttool\tstatus");
    assert_eq!(lines.len(), 2, "{listing}");
    let columns: Vec<&str> = lines[1].split('\t').collect();
    assert!(columns[0].starts_with("mcp-"), "{listing}");
    assert_eq!(
        columns[1],
        store::host_instance(),
        "over stdio: the host's name"
    );
    assert_eq!((columns[4], columns[5]), ("add", "ok"), "{listing}");
    let tree = replay(&["--tools", "testkit", "--run", columns[0]]);
    assert!(tree.contains("add"), "{tree}");
    let none = replay(&["--list", "--instance", "elsewhere"]);
    assert_eq!(none.lines().count(), 1, "{none}");
}

/// A PostgreSQL server of its own, or `None` (skipped, said on stderr) without the binaries.
fn postgres() -> Option<ptc_testing::postgres::Server> {
    ptc_testing::postgres::Server::start()
}

#[test]
fn postgres_store_round_trips_every_event_kind_and_filters_runs() {
    let Some(pg) = postgres() else { return };
    let target: LogTarget = pg.create_database("round_trip").parse().unwrap();
    let psql = pg.bin_dir().join("psql");
    let url = pg.database_url("round_trip");
    assert_round_trip(&target, || {
        let o = Command::new(&psql)
            .args([url.as_str(), "-tAc", "select count(*) from blobs"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    });
    let target: LogTarget = pg.create_database("filters").parse().unwrap();
    assert_filters(&target);
}

#[test]
fn postgres_stores_starting_at_once_make_the_schema_once() {
    let Some(pg) = postgres() else { return };
    let target: LogTarget = pg.create_database("racing").parse().unwrap();
    let opened: Vec<_> = (0..4)
        .map(|i| {
            let target = target.clone();
            std::thread::spawn(move || {
                let store = open(&target, &format!("i{i}"));
                append_all(&store, &run_events(&format!("r{i}"), i, "v"));
                store.close();
                store.failure()
            })
        })
        .collect();
    for store in opened {
        assert_eq!(store.join().unwrap(), None);
    }
    assert_eq!(runs(&target, &Filter::default()).len(), 4);
}

#[test]
fn postgres_store_reconnects_after_losing_its_connection_without_losing_events() {
    let Some(pg) = postgres() else { return };
    let target: LogTarget = pg.create_database("reconnect").parse().unwrap();
    let store = open(&target, "A");
    append_all(&store, &run_events("before", 1, "v"));
    store.flush();
    // The server ends the store's connection (as a restart or a proxy would).
    let o = Command::new(pg.bin_dir().join("psql"))
        .args([
            pg.url().as_str(),
            "-tAc",
            "select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity \
             where application_name = 'ptc' and datname = 'reconnect') t",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "1", "{o:?}");
    append_all(&store, &run_events("after", 2, "w"));
    store.close();
    assert_eq!(store.failure(), None, "nothing dropped or lost");
    assert_eq!(ids(&runs(&target, &Filter::default())), ["before", "after"]);
    assert_eq!(read(&target, &Filter::default()).len(), 10);
}
