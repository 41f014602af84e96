//! Behaviours 45 and 52: sub-call scheduling (overlap, exclusivity, one admission at a
//! time, commits in submission order) and winding a run down (abort in-flight calls,
//! abandon queued ones, drain before the outer result), including caller cancellation.

use ptc_testing::code as code_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use code_support::*;
use ptc::{
    codes, PostNext, PostToolDecision, PreNext, SubCallLimits, ToolExecution, ToolExecutionResult,
};
use ptc_testing::tools::*;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// Keeps the program busy (no tool calls, no timers) for `ms`, so the bridge has time to
/// start what the program already submitted.
fn busy(ms: u64) -> String {
    format!("{{ const t0 = Date.now(); while (Date.now() - t0 < {ms}) {{}} }}")
}

// ---- b45: scheduling -------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b45_safe_subcalls_overlap_up_to_max_parallel() {
    let registry = code_registry_with(config(|c| {
        c.sub_calls = SubCallLimits {
            max_parallel: 3,
            ..SubCallLimits::default()
        }
    }));
    let tracker = Concurrency::new();
    registry
        .register(sleeper("par", true, tracker.clone()))
        .unwrap();
    let code = "const r = await Promise.all(\n\
                  Array.from({ length: 9 }, (_, i) => tools.par({ ms: 40, label: String(i) })));\n\
                return r.join(',');";
    assert_eq!(run_ok(&registry, code).await, "0,1,2,3,4,5,6,7,8");
    assert_eq!(tracker.started(), 9);
    assert_eq!(tracker.max(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b45_default_fan_out_overlaps_ten_subcalls() {
    let registry = code_registry();
    let tracker = Concurrency::new();
    registry
        .register(sleeper("par", true, tracker.clone()))
        .unwrap();
    let code = "await Promise.all(Array.from({ length: 20 }, () => tools.par({ ms: 100 })));";
    let started = Instant::now();
    let r = run(&registry, code).await;
    let elapsed = started.elapsed();
    assert!(!r.result.is_error(), "{}", r.text());
    assert_eq!(tracker.max(), 10, "maxParallelSubCalls defaults to 10");
    // At most ten at a time means at least two waves (the overlap itself is shown by
    // `max() == 10`; no upper wall-clock bound: speed lives in the benchmarks).
    assert!(
        elapsed >= Duration::from_millis(200),
        "two waves of 100 ms: {elapsed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b45_exclusive_subcalls_run_alone() {
    let registry = code_registry();
    let tracker = Concurrency::new();
    register_sleepers(&registry, "excl", &tracker);
    // The safe calls sleep long enough that a, b and c are all admitted before the first
    // ends, even on a loaded machine (admission is one call at a time).
    let code = "const p = (label) => tools.par({ ms: 300, label });\n\
                const x = (label) => tools.excl({ ms: 30, label });\n\
                const r = await Promise.all([p('a'), p('b'), p('c'), x('X'), p('d'), p('e'), x('Y'), x('Z'), p('f')]);\n\
                return r.join('');";
    assert_eq!(run_ok(&registry, code).await, "abcXdeYZf");
    assert_eq!(tracker.started(), 9);
    assert_eq!(
        tracker.exclusive_violations.load(Ordering::SeqCst),
        0,
        "an exclusive body never overlapped another"
    );
    assert_eq!(tracker.max(), 3, "the safe calls a, b, c still overlapped");
    let order = tracker.finished_order();
    let pos = |l: &str| order.iter().position(|o| o == l).unwrap();
    assert!(
        pos("c") < pos("X") && pos("X") < pos("d") && pos("e") < pos("Y"),
        "{order:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b45_exclusive_subcall_waits_for_earlier_commits_and_runs_alone() {
    let registry = code_registry();
    let tracker = Concurrency::new();
    register_sleepers(&registry, "excl", &tracker);
    let stages: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = stages.clone();
    registry.on_pre_execute(move |exec: Arc<ToolExecution>, next: PreNext| {
        if exec.parent().is_some() {
            sink.lock().unwrap().push(format!("pre {}", exec.call_id()));
        }
        next.run()
    });
    let sink = stages.clone();
    registry.on_post_execute(
        move |exec: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, next: PostNext| {
            let sink = sink.clone();
            async move {
                if exec.parent().is_some() {
                    // A slow commit: the next call must not start before it ends.
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    sink.lock()
                        .unwrap()
                        .push(format!("post {}", exec.call_id()));
                }
                let decision: PostToolDecision = next.run().await;
                decision
            }
        },
    );
    let code = "const r = await Promise.all([\n\
                  tools.par({ ms: 1, label: 'a' }),\n\
                  tools.excl({ ms: 1, label: 'X' }),\n\
                  tools.par({ ms: 1, label: 'b' }),\n\
                ]);\n\
                return r.join('');";
    assert_eq!(run_ok(&registry, code).await, "aXb");
    let (s1, s2, s3) = (sub(1), sub(2), sub(3));
    assert_eq!(
        *stages.lock().unwrap(),
        [
            format!("pre {s1}"),
            format!("post {s1}"),
            format!("pre {s2}"),
            format!("post {s2}"),
            format!("pre {s3}"),
            format!("post {s3}"),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b45_pre_execute_stages_never_overlap() {
    let registry = code_registry();
    let now = Arc::new(AtomicUsize::new(0));
    let max = Arc::new(AtomicUsize::new(0));
    let admitted = Arc::new(AtomicUsize::new(0));
    let (n, m, a) = (now.clone(), max.clone(), admitted.clone());
    registry.on_pre_execute(move |exec: Arc<ToolExecution>, next: PreNext| {
        let (n, m, a) = (n.clone(), m.clone(), a.clone());
        async move {
            if exec.parent().is_some() {
                let inside = n.fetch_add(1, Ordering::SeqCst) + 1;
                m.fetch_max(inside, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                a.fetch_add(1, Ordering::SeqCst);
                n.fetch_sub(1, Ordering::SeqCst);
            }
            next.run().await
        }
    });
    let code = "const r = await Promise.all(\n\
                  Array.from({ length: 6 }, (_, i) => tools.echo({ text: String(i) })));\n\
                return r.join('');";
    assert_eq!(run_ok(&registry, code).await, "012345");
    assert_eq!(admitted.load(Ordering::SeqCst), 6);
    assert_eq!(max.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b45_commits_happen_in_submission_order() {
    let registry = code_registry();
    let tracker = Concurrency::new();
    registry
        .register(sleeper("par", true, tracker.clone()))
        .unwrap();
    let committed = Arc::new(Mutex::new(Vec::new()));
    let sink = committed.clone();
    registry.on_post_execute(
        move |exec: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, next: PostNext| {
            if exec.parent().is_some() {
                sink.lock().unwrap().push(exec.call_id().to_string());
            }
            async move {
                let decision: PostToolDecision = next.run().await;
                decision
            }
        },
    );
    let code = "const r = await Promise.all([\n\
                  tools.par({ ms: 80, label: 'slow' }),\n\
                  tools.par({ ms: 1, label: 'fast' }),\n\
                  tools.par({ ms: 40, label: 'middle' }),\n\
                ]);\n\
                return r;";
    let r = run(&registry, code).await;
    assert_eq!(
        serde_json::from_str::<Value>(&r.text()).unwrap(),
        json!(["slow", "fast", "middle"])
    );
    assert_eq!(
        tracker.finished_order(),
        ["fast", "middle", "slow"],
        "the bodies finished out of order"
    );
    assert_eq!(*committed.lock().unwrap(), [sub(1), sub(2), sub(3)]);
    let logged: Vec<String> = r.dispatches().into_iter().map(|d| d.sub_call_id).collect();
    assert_eq!(logged, [sub(1), sub(2), sub(3)]);
}

// ---- b52: winding down ----------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b52_in_flight_subcalls_are_aborted_when_the_run_ends() {
    let registry = code_registry();
    let code = format!(
        "tools.sleep({{ ms: 60000 }});\n{}\nreturn 'done';",
        busy(400)
    );
    let r = run(&registry, &code).await;
    // The result says what the program left running.
    assert!(
        r.text()
            .starts_with("done\n[left behind when the program ended]\n- run_code.ts:1:"),
        "{}",
        r.text()
    );
    assert!(
        r.text()
            .contains(" sleep: was running when the program ended and was stopped (it changes nothing, and code awaiting it never ran: call it again if you need it)"),
        "{}",
        r.text()
    );
    assert_eq!(r.starts(), [sub(1)]);
    let d = r.dispatches();
    assert_eq!(d.len(), 1, "one dispatch event per started sub-call");
    assert_eq!(d[0].sub_call_id, sub(1));
    assert!(d[0].is_error);
    assert_eq!(d[0].code.as_deref(), Some(codes::ABORTED));
    assert_eq!(
        r.kinds(),
        [
            "tool/call",
            "tool/ptc-dispatch-start",
            "tool/ptc-dispatch",
            "tool/result"
        ],
        "every event lands before the outer result"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b52_queued_subcalls_are_abandoned_and_never_start() {
    let registry = code_registry();
    let tracker = Concurrency::new();
    registry
        .register(sleeper("hold", false, tracker.clone()))
        .unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    registry
        .register(counting("tally", false, hits.clone()))
        .unwrap();
    let seen = record_pre_execute(&registry);
    let code = format!(
        "tools.hold({{ ms: 60000 }});\ntools.tally({{}});\ntools.tally({{}});\n{}\nreturn 'early';",
        busy(400)
    );
    let r = run(&registry, &code).await;
    // Calls that may change something did not all happen: the run failed, saying which.
    assert!(r.result.is_error());
    assert!(
        r.text().starts_with(
            "Error: code run failed (left behind): calls that change things did not all \
             happen, and the program ended without awaiting them\n\
             [left behind when the program ended]\n\
             - run_code.ts:1:7 hold: was running when the program ended and was stopped"
        ),
        "{}",
        r.text()
    );
    assert_eq!(
        r.text()
            .matches(" tally: was cancelled before it started: it did not happen")
            .count(),
        2,
        "{}",
        r.text()
    );
    assert!(
        r.text().ends_with("Captured output:\nearly"),
        "{}",
        r.text()
    );
    assert_eq!(tracker.started(), 1, "hold started");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the queued tallies never ran"
    );
    assert_eq!(r.starts(), [sub(1)], "queued calls get no start event");
    let d = r.dispatches();
    assert_eq!(d.len(), 1, "and no dispatch event");
    assert_eq!(d[0].code.as_deref(), Some(codes::ABORTED));
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().all(|s| s.name != "tally"),
        "queued calls never reach pre-execute: {seen:?}"
    );
    assert_eq!(r.kinds().last(), Some(&"tool/result"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b52_a_timed_out_run_drains_its_subcalls_before_the_outer_result() {
    let registry = code_registry_with(config(|c| c.limits.wall_clock = Duration::from_millis(300)));
    let code = "await Promise.all([tools.sleep({ ms: 60000 }), tools.sleep({ ms: 60000 })]);";
    let r = run(&registry, code).await;
    assert!(
        r.text().starts_with("Error: code run failed (timeout): "),
        "{}",
        r.text()
    );
    assert_eq!(
        r.kinds(),
        [
            "tool/call",
            "tool/ptc-dispatch-start",
            "tool/ptc-dispatch-start",
            "tool/ptc-dispatch",
            "tool/ptc-dispatch",
            "tool/result"
        ]
    );
    assert!(r
        .dispatches()
        .iter()
        .all(|d| d.code.as_deref() == Some(codes::ABORTED)));
}

/// A signal cancelled once `started` has seen `n` bodies start.
fn cancel_after(started: &Arc<Started>, n: usize) -> CancellationToken {
    let signal = CancellationToken::new();
    let (canceller, started) = (signal.clone(), started.clone());
    tokio::spawn(async move {
        started.wait(n).await;
        canceller.cancel();
    });
    signal
}

/// A registry with `hold`: a concurrency-safe tool that says it started, then waits for
/// its cancellation.
fn registry_with_hold() -> (ptc::ToolRegistry, Arc<Started>) {
    let registry = code_registry();
    let started = Started::new();
    registry
        .register(gate("hold", true, started.clone()))
        .unwrap();
    (registry, started)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b52_cancelling_the_batch_stops_a_busy_program_as_aborted() {
    // The program says it is spinning (a console line), then the test cancels.
    let signal = CancellationToken::new();
    let canceller = signal.clone();
    let registry = code_registry_with(config(|c| {
        c.console = Some(Arc::new(move |_, _, line: &str| {
            if line == "spinning" {
                canceller.cancel();
            }
        }))
    }));
    let r = Call::run_code("console.log('spinning');\nwhile (true) {}")
        .with_signal(signal)
        .send(&registry)
        .await;
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED), "{}", r.text());
    assert!(
        r.text().starts_with("Error: code run failed (aborted): "),
        "{}",
        r.text()
    );
    assert!(
        r.text().ends_with("\nCaptured output:\nspinning"),
        "{}",
        r.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b52_cancelling_the_batch_aborts_in_flight_subcalls_and_drains() {
    let (registry, started) = registry_with_hold();
    let r = Call::run_code("await Promise.all([tools.hold({}), tools.hold({})]);")
        .with_signal(cancel_after(&started, 2))
        .send(&registry)
        .await;
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED), "{}", r.text());
    let d = r.dispatches();
    assert_eq!(d.len(), 2);
    assert!(
        d.iter().all(|d| d.code.as_deref() == Some(codes::ABORTED)),
        "{d:?}"
    );
    assert_eq!(r.kinds().last(), Some(&"tool/result"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b52_cancelling_the_batch_while_awaiting_a_subcall_fails_as_aborted() {
    let (registry, started) = registry_with_hold();
    // Cancellation races the program's await: repeat to make a wrong kind show up.
    for round in 1..=5 {
        let r = Call::run_code("console.log('waiting');\nawait tools.hold({});\nreturn 'held';")
            .with_signal(cancel_after(&started, round))
            .send(&registry)
            .await;
        assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED), "{}", r.text());
        assert!(
            r.text().starts_with("Error: code run failed (aborted): "),
            "{}",
            r.text()
        );
        assert!(
            r.text().ends_with("\nCaptured output:\nwaiting"),
            "{}",
            r.text()
        );
        let d = r.dispatches();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code.as_deref(), Some(codes::ABORTED));
    }
}
