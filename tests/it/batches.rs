//! Behaviours 30–34: batches, scheduling, quiescence, root-call logging.

use ptc_testing::tools as common;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use ptc::schema::ValueSpec;
use ptc::session::read_jsonl;
use ptc::session::JsonlLog;
use ptc::session::MemoryLog;
use ptc::session::SessionEvent;
use ptc::session::SessionLog;
use ptc::{
    codes, Agent, LogStep, NativeExecutor, ScopeKey, ToolBatchInput, ToolCallBlock, ToolDefinition,
    ToolRegistry, UserMessage,
};
use serde_json::json;
use tokio::time::Instant;

fn sleep_call(id: &str, name: &str, ms: u64) -> ToolCallBlock {
    ToolCallBlock::new(id, name, json!({"ms": ms}))
}

fn registry_with(tracker: &Arc<Concurrency>) -> ToolRegistry {
    let registry = ToolRegistry::new();
    register_sleepers(&registry, "ex", tracker);
    registry
}

#[tokio::test(start_paused = true)]
async fn b30_results_in_model_order() {
    let tracker = Arc::new(Concurrency::default());
    let registry = registry_with(&tracker);
    let calls = vec![
        sleep_call("a", "par", 30),
        sleep_call("b", "par", 10),
        sleep_call("c", "par", 20),
    ];
    let batch = registry.execute(ToolBatchInput::new(calls)).await.unwrap();
    let ids: Vec<&str> = batch.results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    let values: Vec<u64> = batch
        .results
        .iter()
        .map(|r| r.result.value().unwrap().as_u64().unwrap())
        .collect();
    assert_eq!(values, [30, 10, 20]);
}

#[tokio::test(start_paused = true)]
async fn b30_abort_yields_skipped_results_for_every_call() {
    let tracker = Arc::new(Concurrency::default());
    let registry = registry_with(&tracker);
    let mut input = ToolBatchInput::new(vec![
        sleep_call("a", "ex", 50),
        sleep_call("b", "ex", 50),
        sleep_call("c", "par", 50),
    ]);
    let signal = input.signal.clone();
    input.signal = signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(10)).await;
        signal.cancel();
    });
    let batch = registry.execute(input).await.unwrap();
    let codes_seen: Vec<Option<&str>> = batch
        .results
        .iter()
        .map(|r| r.result.error_code())
        .collect();
    assert_eq!(
        codes_seen,
        [
            Some(codes::ABORTED),
            Some(codes::ABORTED_BEFORE_DISPATCH),
            Some(codes::ABORTED_BEFORE_DISPATCH)
        ]
    );
    assert_eq!(tracker.started.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn b31_only_exactly_true_is_parallel() {
    let tracker = Arc::new(Concurrency::default());
    let registry = ToolRegistry::new();
    let t = tracker.clone();
    registry
        .register(
            sleeper("panicky", true, t.clone()).is_concurrency_safe(|_| panic!("classifier bug")),
        )
        .unwrap();
    registry
        .register(sleeper("absent", false, t.clone()))
        .unwrap();
    let by_arg = sleeper("by_arg", true, t).is_concurrency_safe(|args| args["ms"] == json!(10));
    registry.register(by_arg).unwrap();
    for name in ["panicky", "absent"] {
        let calls = (0..3)
            .map(|i| sleep_call(&format!("{name}{i}"), name, 10))
            .collect();
        registry.execute(ToolBatchInput::new(calls)).await.unwrap();
        assert_eq!(tracker.max(), 1, "{name} must run exclusively");
    }
    let calls = (0..3)
        .map(|i| sleep_call(&format!("x{i}"), "by_arg", 10))
        .collect();
    registry.execute(ToolBatchInput::new(calls)).await.unwrap();
    assert_eq!(tracker.max(), 3);
}

#[tokio::test(start_paused = true)]
async fn b32_rolling_pool_respects_limit_and_batch_override() {
    let tracker = Arc::new(Concurrency::default());
    let registry = registry_with(&tracker);
    registry.set_executor(Arc::new(NativeExecutor::with_max_parallel(3)));
    let calls: Vec<_> = (0..9)
        .map(|i| sleep_call(&format!("c{i}"), "par", 100))
        .collect();
    let start = Instant::now();
    registry
        .execute(ToolBatchInput::new(calls.clone()))
        .await
        .unwrap();
    assert_eq!(tracker.max(), 3);
    assert_eq!(start.elapsed(), Duration::from_millis(300));

    let tracker2 = Arc::new(Concurrency::default());
    let registry = registry_with(&tracker2);
    registry.set_executor(Arc::new(NativeExecutor::with_max_parallel(3)));
    let mut input = ToolBatchInput::new(calls);
    input.max_parallel_tool_calls = Some(5);
    let start = Instant::now();
    registry.execute(input).await.unwrap();
    assert_eq!(tracker2.max(), 5);
    assert_eq!(start.elapsed(), Duration::from_millis(200));
}

#[tokio::test(start_paused = true)]
async fn b32_pool_is_rolling_not_chunked() {
    let tracker = Arc::new(Concurrency::default());
    let registry = registry_with(&tracker);
    let mut input = ToolBatchInput::new(vec![
        sleep_call("long", "par", 100),
        sleep_call("s1", "par", 10),
        sleep_call("s2", "par", 10),
        sleep_call("s3", "par", 10),
    ]);
    input.max_parallel_tool_calls = Some(2);
    let start = Instant::now();
    registry.execute(input).await.unwrap();
    // s1..s3 run one after another beside `long`: 100 ms, not 110 or 120
    assert_eq!(start.elapsed(), Duration::from_millis(100));
}

#[tokio::test(start_paused = true)]
async fn b32_exclusive_call_is_a_barrier() {
    let events: Arc<Mutex<Vec<String>>> = Arc::default();
    let registry = ToolRegistry::new();
    for (name, safe) in [("par", true), ("ex", false)] {
        let ev = events.clone();
        registry
            .register(
                ToolDefinition::builder(name)
                    .parameters(
                        ptc::schema::ParameterSpec::new().required("ms", ValueSpec::integer()),
                    )
                    .output(ValueSpec::null())
                    .concurrency_safe(safe)
                    .execute_raw(move |args, ctx| {
                        let ev = ev.clone();
                        async move {
                            let id = ctx.execution().call_id().to_string();
                            ev.lock().unwrap().push(format!("start {id}"));
                            tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap()))
                                .await;
                            ev.lock().unwrap().push(format!("end {id}"));
                            Ok(json!(null))
                        }
                    }),
            )
            .unwrap();
    }
    let calls = vec![
        sleep_call("p1", "par", 20),
        sleep_call("p2", "par", 10),
        sleep_call("x", "ex", 5),
        sleep_call("p3", "par", 5),
    ];
    registry.execute(ToolBatchInput::new(calls)).await.unwrap();
    assert_eq!(
        *events.lock().unwrap(),
        ["start p1", "start p2", "end p2", "end p1", "start x", "end x", "start p3", "end p3"]
    );
}

#[tokio::test(start_paused = true)]
async fn b32_zero_parallel_override_is_rejected() {
    let tracker = Arc::new(Concurrency::default());
    let registry = registry_with(&tracker);
    let mut input = ToolBatchInput::new(vec![sleep_call("a", "par", 1)]);
    input.max_parallel_tool_calls = Some(0);
    assert!(registry.execute(input).await.is_err());
}

#[tokio::test(start_paused = true)]
async fn b33_never_settles_before_started_work_is_quiescent() {
    let tracker = Arc::new(Concurrency::default());
    let registry = ToolRegistry::new();
    // this body ignores cancellation for 200 ms
    let t = tracker.clone();
    registry
        .register(
            ToolDefinition::builder("slow")
                .output(ValueSpec::null())
                .concurrency_safe(true)
                .execute_raw(move |_, _| {
                    let t = t.clone();
                    async move {
                        t.enter();
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        t.exit();
                        Ok(json!(null))
                    }
                }),
        )
        .unwrap();
    let input = ToolBatchInput::new(vec![
        ToolCallBlock::new("a", "slow", json!({})),
        ToolCallBlock::new("b", "slow", json!({})),
    ]);
    let signal = input.signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        signal.cancel();
    });
    let batch = registry.execute(input).await.unwrap();
    assert_eq!(
        tracker.finished.load(Ordering::SeqCst),
        2,
        "both bodies finished before the batch settled"
    );
    assert!(batch
        .results
        .iter()
        .all(|r| r.result.error_code() == Some(codes::ABORTED)));
}

#[tokio::test]
async fn b29_batch_collects_contexts_in_call_order_and_conclusion() {
    let registry = ToolRegistry::new();
    for (name, concludes) in [("a", false), ("b", true)] {
        registry
            .register(
                ToolDefinition::builder(name)
                    .output(ValueSpec::null())
                    .concurrency_safe(true)
                    .execute_raw(move |_, ctx| async move {
                        ctx.defer_context(UserMessage::text(name, format!("from {name}")));
                        if concludes {
                            ctx.conclude_turn();
                        }
                        Ok(json!(null))
                    }),
            )
            .unwrap();
    }
    let batch = registry
        .execute(ToolBatchInput::new(vec![
            ToolCallBlock::new("1", "a", "{}"),
            ToolCallBlock::new("2", "b", "{}"),
        ]))
        .await
        .unwrap();
    let sources: Vec<&str> = batch
        .additional_contexts
        .iter()
        .map(|m| m.source.as_str())
        .collect();
    assert_eq!(sources, ["a", "b"]);
    assert!(batch.concluded);
}

fn logged_batch(agent: Agent) -> ToolBatchInput {
    let mut input = ToolBatchInput::new(vec![
        ToolCallBlock::new("c1", "echo", r#"{"text":"one"}"#),
        ToolCallBlock::new("c2", "nope", "{}"),
        ToolCallBlock::new("c3", "echo", r#"{"text":"three"}"#),
    ]);
    input.agent = Some(agent);
    input.log = Some(LogStep { turn: 1, step: 2 });
    input
}

#[tokio::test]
async fn b34_session_log_gets_call_and_result_events() {
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    let log = Arc::new(MemoryLog::new());
    let agent = Agent::new(ScopeKey::root("a")).with_session(log.clone());
    registry.execute(logged_batch(agent)).await.unwrap();
    let events = log.events();
    let kinds: Vec<(&str, String)> = events
        .iter()
        .map(|e| match e {
            SessionEvent::ToolCall { call_id, .. } => ("call", call_id.clone()),
            SessionEvent::ToolResult {
                call_id, is_error, ..
            } => (if *is_error { "error" } else { "result" }, call_id.clone()),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            // `nope` is unknown, so exclusive: it waits for c1 to settle and commit
            ("call", "c1".into()),
            ("result", "c1".into()),
            ("call", "c2".into()),
            ("error", "c2".into()),
            ("call", "c3".into()),
            ("result", "c3".into()),
        ]
        .iter()
        .map(|(k, c): &(&str, String)| (*k, c.clone()))
        .collect::<Vec<_>>()
    );
    match &events[3] {
        SessionEvent::ToolResult {
            error, turn, step, ..
        } => {
            assert_eq!(error.as_ref().unwrap().code(), Some(codes::UNKNOWN_TOOL));
            assert_eq!((*turn, *step), (1, 2));
        }
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn b34_without_log_step_or_session_no_events() {
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    let log = Arc::new(MemoryLog::new());
    let agent = Agent::new(ScopeKey::root("a")).with_session(log.clone());
    let mut input = logged_batch(agent);
    input.log = None;
    registry.execute(input).await.unwrap();
    assert!(log.events().is_empty());
    // a log step without a session on the agent: nothing to write to, and no error
    let agent = Agent::new(ScopeKey::root("b"));
    assert!(registry.execute(logged_batch(agent)).await.is_ok());
}

#[tokio::test]
async fn b34_jsonl_file_replays_to_the_same_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    let memory = Arc::new(MemoryLog::new());
    let file = Arc::new(JsonlLog::open(&path).unwrap());
    struct Tee(Arc<MemoryLog>, Arc<JsonlLog>);
    impl SessionLog for Tee {
        fn append(&self, e: &SessionEvent) -> Result<(), ptc::session::SessionError> {
            self.0.append(e)?;
            self.1.append(e)
        }
    }
    let agent = Agent::new(ScopeKey::root("a")).with_session(Arc::new(Tee(memory.clone(), file)));
    registry.execute(logged_batch(agent)).await.unwrap();
    let replayed = read_jsonl(&path).unwrap();
    assert_eq!(replayed, memory.events());
    assert_eq!(replayed.len(), 6);
    // the durable spelling is the seed's
    let first_line = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(
        first_line.starts_with(r#"{"type":"tool/call","atMs":"#),
        "{first_line}"
    );
    assert!(first_line.contains(r#""callId":"c1""#));
}

#[tokio::test]
async fn b34_log_failure_keeps_every_outcome() {
    struct Broken;
    impl SessionLog for Broken {
        fn append(&self, _: &SessionEvent) -> Result<(), ptc::session::SessionError> {
            Err(ptc::session::SessionError("disk full".into()))
        }
    }
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    let agent = Agent::new(ScopeKey::root("a")).with_session(Arc::new(Broken));
    let result = registry.execute(logged_batch(agent)).await.unwrap();
    let error = result
        .log_error
        .as_ref()
        .expect("the log failure is reported");
    assert!(error.to_string().contains("disk full"));
    assert_eq!(result.results.len(), 3);
    assert_eq!(
        result.results[2].result.value().unwrap().as_str(),
        Some("three")
    );
}

#[test]
fn b34_bad_jsonl_line_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, "{\"type\":\"tool/call\",\"atMs\":1,\"turn\":0,\"step\":0,\"callId\":\"a\",\"name\":\"x\",\"arguments\":{}}\n\nnot json\n").unwrap();
    let err = read_jsonl(&path).unwrap_err();
    assert!(err.to_string().contains("s.jsonl:3:"), "{err}");
}
