//! Behaviours 31–32 and 45 through the public [`Scheduler`], as a third-party executor uses
//! it: the rolling pool, exclusive calls as barriers that wait for earlier commits, commits in
//! submission order, policy stages one at a time, closing and abandoning.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use futures::future::{poll_fn, BoxFuture, FutureExt};
use ptc::{
    PolicyStages, PostNext, PreNext, PreparedCall, Schedule, Scheduler, ToolDefinition,
    ToolExecution, ToolExecutionInput, ToolExecutionResult, ToolRegistry,
};
use ptc_testing::tools::{register_sleepers, Concurrency};
use serde_json::json;

type Log = Arc<Mutex<Vec<String>>>;

/// A third-party executor's side of the schedule: records when calls start and commit, and
/// holds each commit for `commit_ms` (its own asynchronous bookkeeping).
struct Recorder {
    registry: ToolRegistry,
    log: Log,
    commit_ms: u64,
    results: Vec<(String, bool)>,
}

impl Schedule for Recorder {
    type Call = Option<ToolExecutionInput>;

    fn prepare(&mut self, call: &mut Self::Call) -> PreparedCall {
        self.registry.prepare(call.take().unwrap())
    }

    fn started(&mut self, _: &mut Self::Call, exec: &Arc<ToolExecution>) {
        self.log
            .lock()
            .unwrap()
            .push(format!("call {}", exec.call_id()));
    }

    fn committed(
        &mut self,
        _: Self::Call,
        exec: &Arc<ToolExecution>,
        result: ToolExecutionResult,
    ) -> Option<BoxFuture<'static, ()>> {
        let id = exec.call_id().to_string();
        self.results.push((id.clone(), result.is_error()));
        self.log.lock().unwrap().push(format!("result {id}"));
        let (log, ms) = (self.log.clone(), self.commit_ms);
        (ms > 0).then(|| {
            async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                log.lock().unwrap().push(format!("committed {id}"));
            }
            .boxed()
        })
    }
}

fn registry(tracker: &Arc<Concurrency>) -> ToolRegistry {
    let registry = ToolRegistry::new();
    register_sleepers(&registry, "ex", tracker);
    registry
}

fn scheduler(
    registry: &ToolRegistry,
    commit_ms: u64,
    max_parallel: usize,
) -> (Scheduler<Recorder>, Log) {
    let log = Log::default();
    let recorder = Recorder {
        registry: registry.clone(),
        log: log.clone(),
        commit_ms,
        results: Vec::new(),
    };
    (
        Scheduler::new(registry.clone(), recorder, max_parallel),
        log,
    )
}

fn call(id: &str, name: &str, ms: u64) -> Option<ToolExecutionInput> {
    Some(ToolExecutionInput::new(
        id,
        name,
        json!({ "ms": ms, "label": id }),
    ))
}

fn position(log: &[String], entry: &str) -> usize {
    log.iter()
        .position(|e| e == entry)
        .unwrap_or_else(|| panic!("{entry:?} not in {log:?}"))
}

#[tokio::test(start_paused = true)]
async fn b32_scheduler_gives_a_third_party_executor_the_native_rules() {
    let tracker = Concurrency::new();
    let registry = registry(&tracker);
    let (mut scheduler, log) = scheduler(&registry, 0, 2);
    for (id, name, ms) in [
        ("p1", "par", 30),
        ("p2", "par", 10),
        ("p3", "par", 10),
        ("x", "ex", 5),
        ("p4", "par", 5),
    ] {
        scheduler.push(call(id, name, ms));
    }
    assert_eq!(scheduler.len(), 5);
    scheduler.run().await;
    assert!(scheduler.is_empty());
    assert_eq!(tracker.max(), 2, "the pool holds two");
    assert_eq!(tracker.exclusive_violations.load(Ordering::SeqCst), 0);
    assert_eq!(tracker.finished_order(), ["p2", "p3", "p1", "x", "p4"]);
    let log = log.lock().unwrap().clone();
    // The pool rolls: p3 starts when p2 ends, before p1 has.
    assert!(
        position(&log, "call p3") < position(&log, "result p1"),
        "{log:?}"
    );
    // The exclusive call starts once every earlier call has committed, and nothing after it
    // starts before it has.
    assert!(
        position(&log, "result p3") < position(&log, "call x"),
        "{log:?}"
    );
    assert!(
        position(&log, "result x") < position(&log, "call p4"),
        "{log:?}"
    );
    let results = scheduler.into_schedule().results;
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["p1", "p2", "p3", "x", "p4"],
        "committed in submission order"
    );
    assert!(results.iter().all(|(_, is_error)| !is_error));
}

#[tokio::test(start_paused = true)]
async fn b32_scheduler_exclusive_call_waits_for_the_executors_commit() {
    let tracker = Concurrency::new();
    let registry = registry(&tracker);
    let (mut scheduler, log) = scheduler(&registry, 20, 4);
    scheduler.push(call("p1", "par", 5));
    scheduler.push(call("x", "ex", 5));
    scheduler.push(call("p2", "par", 5));
    scheduler.run().await;
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log,
        [
            "call p1",
            "result p1",
            "committed p1",
            "call x",
            "result x",
            "committed x",
            "call p2",
            "result p2",
            "committed p2"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn b45_scheduler_runs_policy_stages_one_at_a_time_when_asked() {
    let tracker = Concurrency::new();
    let registry = registry(&tracker);
    let (inside, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (i, m) = (inside.clone(), most.clone());
    registry.on_pre_execute(move |_: Arc<ToolExecution>, next: PreNext| {
        let (i, m) = (i.clone(), m.clone());
        async move {
            m.fetch_max(i.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(3)).await;
            i.fetch_sub(1, Ordering::SeqCst);
            next.run().await
        }
    });
    let posted = Log::default();
    let sink = posted.clone();
    registry.on_post_execute(
        move |exec: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, next: PostNext| {
            sink.lock().unwrap().push(exec.call_id().to_string());
            next.run()
        },
    );
    let (one_at_a_time, _) = scheduler(&registry, 0, 4);
    let mut one_at_a_time = one_at_a_time.with_policy_stages(PolicyStages::OneAtATime);
    for (id, ms) in [("slow", 40), ("fast", 10), ("middle", 20)] {
        one_at_a_time.push(call(id, "par", ms));
    }
    one_at_a_time.run().await;
    assert_eq!(
        most.load(Ordering::SeqCst),
        1,
        "pre-execute never overlapped"
    );
    assert_eq!(tracker.max(), 3, "the bodies did");
    assert_eq!(tracker.finished_order(), ["fast", "middle", "slow"]);
    assert_eq!(
        *posted.lock().unwrap(),
        ["slow", "fast", "middle"],
        "post-execute in submission order"
    );

    // Under the default, post-execute runs as each body ends.
    posted.lock().unwrap().clear();
    let (mut overlapping, _) = scheduler(&registry, 0, 4);
    for (id, ms) in [("slow", 40), ("fast", 10), ("middle", 20)] {
        overlapping.push(call(id, "par", ms));
    }
    overlapping.run().await;
    assert_eq!(*posted.lock().unwrap(), ["fast", "middle", "slow"]);
}

#[tokio::test]
async fn b32_scheduler_closes_its_queue_and_abandons_started_calls() {
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("hang")
                .output(ptc::schema::ValueSpec::null())
                .execute_raw(|_, _| futures::future::pending()),
        )
        .unwrap();
    let (mut scheduler, log) = scheduler(&registry, 0, 4);
    for id in ["a", "b", "c"] {
        scheduler.push(Some(ToolExecutionInput::new(id, "hang", json!({}))));
    }
    // One poll starts `a`, an exclusive call that never ends; `b` and `c` wait behind it.
    poll_fn(|cx| {
        assert!(scheduler.poll(cx).is_pending());
        Poll::Ready(())
    })
    .await;
    assert_eq!(*log.lock().unwrap(), ["call a"]);
    let closed: Vec<String> = scheduler
        .close()
        .into_iter()
        .map(|c| c.unwrap().call_id)
        .collect();
    assert_eq!(closed, ["b", "c"], "the queued calls, in submission order");
    assert_eq!(scheduler.len(), 1);
    let abandoned: Vec<String> = scheduler
        .abandon()
        .iter()
        .map(|e| e.call_id().to_string())
        .collect();
    assert_eq!(abandoned, ["a"]);
    assert!(scheduler.is_empty());
    scheduler.run().await;
    assert!(
        scheduler.into_schedule().results.is_empty(),
        "nothing committed"
    );
}
