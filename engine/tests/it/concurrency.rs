//! Host calls overlap: the engine never serializes pending calls.

use crate::common;

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use ptc_engine::{strip_types, Engine, Host, HostCall, Limits, Program, RunFailure};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// Every call waits until all 100 calls of the program are in flight (a rendezvous only
/// overlapping calls can pass); tracks how many are in flight at once.
#[derive(Default)]
struct Sleeper {
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    all_started: Arc<tokio::sync::Notify>,
}

impl Host for Sleeper {
    fn call_tool(&self, _name: &str, args: Value) -> Result<HostCall, RunFailure> {
        let in_flight = self.in_flight.clone();
        let max = self.max_in_flight.clone();
        let all_started = self.all_started.clone();
        Ok(Box::pin(async move {
            let started = all_started.notified();
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            max.fetch_max(now, Ordering::SeqCst);
            if now == 100 {
                all_started.notify_waiters();
            } else {
                // A safety net against a regression that serializes calls (the run then fails
                // the assertion below instead of hanging).
                let _ = tokio::time::timeout(Duration::from_secs(30), started).await;
            }
            Ok(args.into())
        }))
    }
}

async fn fan_out(engine: &dyn Engine) {
    let host = Arc::new(Sleeper::default());
    let program = Program {
        source: strip_types(
            "const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => tools.sleep({ i })));\nreturn rs.map(r => r.i).reduce((a, b) => a + b, 0)",
        )
        .unwrap(),
        tool_names: vec!["sleep".into()],
        result_shapes: Default::default(),
        filename: "run_code.ts".into(),
    };
    let report = engine
        .run(
            program,
            host.clone(),
            Limits::default(),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(report.outcome, Ok(Some(json!(4950))));
    // All 100 calls were in flight at once: the engine overlapped them (serialized
    // calls would peak at 1). No wall-clock assertion: speed lives in the benchmarks.
    assert_eq!(host.max_in_flight.load(Ordering::SeqCst), 100);
}

engine_test! {
    async fn promise_all_overlaps_host_calls() {
        fan_out(&*common::engine()).await;
    }
}

#[cfg(feature = "quickjs")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promise_all_overlaps_host_calls_in_place() {
    use ptc_engine::{Placement, QuickJsEngine};
    fan_out(&QuickJsEngine::with_placement(Placement::InPlace)).await;
}

#[cfg(feature = "quickjs")]
#[tokio::test(flavor = "current_thread")]
async fn runs_on_a_current_thread_runtime() {
    use ptc_engine::{Placement, QuickJsEngine};
    // InPlace falls back to the blocking pool here; host futures still reach the tokio timer.
    fan_out(&QuickJsEngine::with_placement(Placement::InPlace)).await;
}

#[cfg(any(feature = "v8", feature = "deno-quickjs"))]
#[tokio::test(flavor = "current_thread")]
async fn deno_runs_on_a_current_thread_runtime() {
    // Host futures run on the caller's runtime (its timer), while JavaScript runs on an engine thread.
    fan_out(&ptc_engine::DenoEngine::new()).await;
}

engine_test! {
    async fn concurrent_runs_are_independent() {
        let runs = (0..8).map(|i| async move {
            let report = common::engine()
                .run(
                    common::program(&format!(
                        "globalThis.mine = {i};\nawait tools.sleep({{ ms: 5 }});\nreturn globalThis.mine"
                    )),
                    common::TestHost::new(),
                    Limits::default(),
                    CancellationToken::new(),
                )
                .await;
            assert_eq!(report.outcome, Ok(Some(json!(i))));
        });
        futures::future::join_all(runs).await;
    }
}
