//! The run store (`ptc_cli::store`): SQLite and PostgreSQL round trips of every event kind
//! with spilled blobs, several writers, replay's filters, `ptc serve`'s and `ptc run`'s stores
//! read back by `ptc replay`, reconnection, `[log]`, and clear errors for bad URLs. This module
//! holds what the three share: a run of every event kind, and the checks both databases pass.

mod cli;
mod postgres;
mod sqlite;

use std::sync::Arc;

use ptc::session::{SessionEvent, SessionLog};
use ptc::{ContentBlock, ToolFailure};
use ptc_cli::store::{self, Filter, LogTarget, Options, Store};
use serde_json::json;

/// A run `id` starting at `at`: every event kind, `big` in the arguments and as the sub-call's
/// and the result's text (spilled when large).
pub fn run_events(id: &str, at: u64, big: &str) -> Vec<SessionEvent> {
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

pub fn open(target: &LogTarget, instance: &str) -> Store {
    let options = Options {
        batch_interval: std::time::Duration::from_millis(5),
        ..Options::default()
    };
    Store::open_with(target, instance, options)
        .unwrap()
        .expect("a store")
}

pub fn append_all(store: &Store, events: &[SessionEvent]) {
    for event in events {
        store.append(event).unwrap();
    }
}

pub fn read(target: &LogTarget, filter: &Filter) -> Vec<SessionEvent> {
    block_on(store::read(target, filter)).unwrap().events
}

pub fn runs(target: &LogTarget, filter: &Filter) -> Vec<store::RunRow> {
    block_on(store::list(target, filter)).unwrap()
}

pub fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

pub fn ids(runs: &[store::RunRow]) -> Vec<&str> {
    runs.iter().map(|r| r.run_id.as_str()).collect()
}

/// Every event kind and a 100 kB value come back equal, the value stored once as a blob.
pub fn assert_round_trip(target: &LogTarget, count_blobs: impl Fn() -> i64) {
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

/// Filters by run, instance and start time select whole runs.
pub fn assert_filters(target: &LogTarget) {
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
