//! How a journaled run writes (`ptc::code::journal`): a call that may change something costs
//! one write, its result going on record with the run's next write, or within moments when
//! nothing follows, and that write is one ahead of the store where the store keeps such a log
//! and the run's lease surely holds; an idempotent one costs none while the lease holds.

use ptc_testing::code as code_support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use code_support::*;
use ptc::journal::{Batch, Entry, JournalError, JournalStore, Journaling, MemoryJournal};
use ptc::schema::ValueSpec;
use ptc::{ToolBuilder, ToolDefinition, ToolRegistry};
use ptc_testing::tools::*;
use serde_json::json;

/// A store that keeps each append's entries as it came, on top of a [`MemoryJournal`]; its
/// runs' leases may be `lapsing` (not surely held). One that `writes_ahead` keeps what is
/// written ahead in `log` too, with what `ran` in between.
#[derive(Default)]
struct Appends {
    store: Arc<MemoryJournal>,
    seen: Mutex<Vec<Vec<Entry>>>,
    lapsing: AtomicBool,
    writes_ahead: bool,
    log: Mutex<Vec<String>>,
}

impl JournalStore for Appends {
    fn append(&self, run: &str, from: u64, batch: &Batch) -> Result<(), JournalError> {
        self.store.append(run, from, batch)?;
        self.seen.lock().unwrap().push(batch.entries()?);
        Ok(())
    }

    fn load(&self, run: &str) -> Result<Vec<Entry>, JournalError> {
        self.store.load(run)
    }

    fn runs(&self) -> Result<Vec<String>, JournalError> {
        self.store.runs()
    }

    fn holds(&self, _run: &str) -> bool {
        !self.lapsing.load(Ordering::SeqCst)
    }

    fn write_ahead(&self, run: &str, from: u64, batch: &Batch) -> Result<bool, JournalError> {
        if !self.writes_ahead || !self.holds(run) {
            return Ok(false);
        }
        let entries = kinds(&batch.entries()?).join(", ");
        self.log.lock().unwrap().push(format!("{from}: {entries}"));
        Ok(true)
    }
}

/// The kinds of each append `store` saw.
fn appends(store: &Appends) -> Vec<Vec<String>> {
    store
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|a| kinds(a))
        .collect()
}

/// The kinds of `entries`, with the call numbers of calls and results: `call 2`, `result 1`.
fn kinds(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| match e {
            Entry::Start(_) => Some("start".into()),
            Entry::Call { n, .. } => Some(format!("call {n}")),
            Entry::Result { n, .. } => Some(format!("result {n}")),
            Entry::End { .. } => Some("end".into()),
            // Deliveries, clock readings and the return go along with what they follow.
            _ => None,
        })
        .collect()
}

/// A registry whose runs are journaled in `store`, results waiting `wait` for the next write.
fn journaled(store: Arc<dyn JournalStore>, wait: Duration) -> ToolRegistry {
    let journaling = Journaling {
        wait,
        ..Journaling::new(store, true)
    };
    code_registry_with(config(|c| c.journaling = Some(journaling)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_may_change_something_is_one_write_its_result_going_with_the_next() {
    let store = Arc::new(Appends::default());
    // Longer than any run here: the writes are the run's own.
    let registry = journaled(store.clone(), Duration::from_secs(600));
    let hits = Arc::new(AtomicUsize::new(0));
    registry
        .register(counting("effect", false, hits.clone()))
        .unwrap();
    let program = "let sum = 0;\n\
                   for (let i = 0; i < 3; i++) sum += await tools.effect({});\n\
                   return sum;";
    let run = run(&registry, program).await;
    assert_eq!(run.text(), "6");
    assert_eq!(hits.load(Ordering::SeqCst), 3);
    assert_eq!(
        appends(&store),
        [
            vec!["start"],
            vec!["call 1"],
            vec!["result 1", "call 2"],
            vec!["result 2", "call 3"],
            vec!["result 3", "end"],
        ],
        "each effect is on record before it runs; its result goes with the next write"
    );
}

/// `on_record {}`: concurrency-safe (written lazily itself), it waits up to 30 s for effect
/// 1's result to be on record in `store` and says whether it is; first it writes what waits
/// (as an instance handing its runs over does) when `write_waiting`.
fn on_record(store: &Arc<Appends>, write_waiting: bool) -> ToolBuilder {
    let store = store.clone();
    ToolDefinition::builder("on_record")
        .output(ValueSpec::boolean())
        .concurrency_safe(true)
        .execute_raw(move |_, _| {
            let store = store.clone();
            async move {
                if write_waiting {
                    ptc::journal::write_waiting();
                }
                let deadline = Instant::now() + Duration::from_secs(30);
                let written = || {
                    let entries = store.load(CALL_ID).unwrap();
                    kinds(&entries).contains(&"result 1".to_string())
                };
                while !written() && Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                Ok(json!(written()))
            }
        })
}

/// Whether `registry`'s run of one effect and then `on_record` found the effect's result on
/// record before the run ended.
async fn effect_then_on_record(registry: &ToolRegistry) -> String {
    let hits = Arc::new(AtomicUsize::new(0));
    registry.register(counting("effect", false, hits)).unwrap();
    let program = "await tools.effect({}); return await tools.on_record({});";
    run(registry, program).await.text()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_with_no_write_after_it_is_on_record_within_moments() {
    let store = Arc::new(Appends::default());
    let registry = journaled(store.clone(), ptc::journal::WAIT);
    registry.register(on_record(&store, false)).unwrap();
    assert_eq!(effect_then_on_record(&registry).await, "true");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_handing_its_runs_over_writes_the_results_still_waiting() {
    let store = Arc::new(Appends::default());
    let registry = journaled(store.clone(), Duration::from_secs(600));
    registry.register(on_record(&store, true)).unwrap();
    assert_eq!(effect_then_on_record(&registry).await, "true");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotent_call_is_written_first_only_when_the_runs_lease_may_have_lapsed() {
    let program = "let sum = 0;\n\
                   for (let i = 0; i < 3; i++) sum += await tools.put({});\n\
                   return sum;";
    for lapsing in [false, true] {
        let store = Arc::new(Appends::default());
        store.lapsing.store(lapsing, Ordering::SeqCst);
        let registry = journaled(store.clone(), Duration::from_secs(600));
        let hits = Arc::new(AtomicUsize::new(0));
        let put = counting("put", false, hits.clone()).idempotent(true);
        registry.register(put.build().unwrap()).unwrap();
        assert_eq!(run(&registry, program).await.text(), "6");
        assert_eq!(hits.load(Ordering::SeqCst), 3);
        let expected = match lapsing {
            // Run again under its key after a crash, on record or not: nothing to write first.
            false => vec![
                vec!["start"],
                vec![
                    "call 1", "result 1", "call 2", "result 2", "call 3", "result 3", "end",
                ],
            ],
            // The write first is the fence: an owner that lost the run stops there.
            true => vec![
                vec!["start"],
                vec!["call 1"],
                vec!["result 1", "call 2"],
                vec!["result 2", "call 3"],
                vec!["result 3", "end"],
            ],
        };
        assert_eq!(appends(&store), expected, "lapsing: {lapsing}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_may_change_something_is_written_ahead_of_the_store_while_the_lease_holds() {
    let program = "let sum = 0;\n\
                   for (let i = 0; i < 3; i++) sum += await tools.effect({});\n\
                   return sum;";
    for lapsing in [false, true] {
        let store = Arc::new(Appends {
            writes_ahead: true,
            ..Appends::default()
        });
        store.lapsing.store(lapsing, Ordering::SeqCst);
        let registry = journaled(store.clone(), Duration::from_secs(600));
        let log = store.clone();
        let effect = ToolDefinition::builder("effect")
            .output(ValueSpec::integer())
            .execute_raw(move |_, _| {
                let mut log = log.log.lock().unwrap();
                log.push("ran".into());
                let ran = log.iter().filter(|l| *l == "ran").count();
                async move { Ok(json!(ran)) }
            });
        registry.register(effect.build().unwrap()).unwrap();
        assert_eq!(run(&registry, program).await.text(), "6");
        let (log, appended) = (store.log.lock().unwrap().clone(), appends(&store));
        match lapsing {
            false => {
                // Each call on record (ahead) before it runs, numbered on from the store's
                // entries; all of it appended at the end (the wait is long here).
                assert_eq!(
                    log,
                    [
                        "1: call 1",
                        "ran",
                        "2: result 1, call 2",
                        "ran",
                        // (Each result's delivery goes with it, unlisted.)
                        "5: result 2, call 3",
                        "ran"
                    ]
                );
                assert_eq!(
                    appended,
                    [
                        vec!["start"],
                        vec![
                            "call 1", "result 1", "call 2", "result 2", "call 3", "result 3", "end"
                        ]
                    ]
                );
            }
            // An owner that may have lost the run appends, and stops there if it did.
            true => {
                assert_eq!(log, ["ran", "ran", "ran"]);
                assert_eq!(appended.len(), 5, "{appended:?}");
            }
        }
    }
}
