//! Durable runs (`ptc::code::journal`): a journaled run replays byte for byte without
//! dispatching a call, resumes after its instance died, says which calls are in doubt, and
//! fails with `nondeterminism` where a replay goes another way.

use ptc_testing::code as code_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use code_support::*;
use futures::FutureExt;
use ptc::journal::{Batch, Entry, JournalStore, Journaling, MemoryJournal};
use ptc::policy::approval::{ApprovalAnswer, ApprovalRequest};
use ptc::session::SessionEvent;
use ptc::{PreNext, PreToolDecision, ToolExecution, ToolRegistry};
use ptc_testing::tools::*;

/// A registry whose runs are journaled in `store` (`live`: record and go on past the
/// journal; else every call must be answered by it), with `effect` (changes something,
/// counts its calls in `hits`) and `look` (concurrency-safe, counted in `looks`).
fn journaled(
    store: &Arc<MemoryJournal>,
    live: bool,
    hits: &Arc<AtomicUsize>,
    looks: &Arc<AtomicUsize>,
) -> ToolRegistry {
    let journaling = Journaling::new(store.clone(), live);
    let registry = code_registry_with(config(|c| c.journaling = Some(journaling)));
    registry
        .register(counting("effect", false, hits.clone()))
        .unwrap();
    registry
        .register(counting("look", true, looks.clone()))
        .unwrap();
    registry
}

/// Everything a program observes from outside: results, timers racing calls, the clock,
/// random numbers.
const OBSERVER: &str = r#"
const t0 = Date.now();
const seen = [];
const timer = new Promise((resolve) => setTimeout(resolve, 5)).then(() => seen.push('timer'));
const slow = tools.sleep({ ms: 30 }).then(() => seen.push('slow'));
const first = await Promise.race([tools.look({}), tools.sleep({ ms: 20 })]);
const a = await tools.effect({});
const b = await tools.effect({});
await Promise.all([timer, slow]);
const c = await tools.effect({});
const picks = [Math.random(), Math.random()].map((r) => Math.floor(r * 1e6));
console.log('uuid', crypto.randomUUID());
console.log('took', Date.now() - t0 >= 0, performance.now() >= 0);
return { first, a, b, c, seen, picks, at: new Date(t0).toISOString() };
"#;

fn counters() -> (Arc<AtomicUsize>, Arc<AtomicUsize>) {
    (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_run_replays_byte_for_byte_without_dispatching_a_call() {
    let store = MemoryJournal::new();
    let (hits, looks) = counters();
    let live = run(&journaled(&store, true, &hits, &looks), OBSERVER).await;
    assert!(!live.result.is_error(), "{}", live.text());
    assert_eq!(hits.load(Ordering::SeqCst), 3);
    let entries = store.load(CALL_ID).unwrap();
    assert!(
        matches!(entries.first(), Some(Entry::Start(_))),
        "{entries:?}"
    );
    assert!(
        matches!(entries.last(), Some(Entry::End { .. })),
        "{entries:?}"
    );

    // Replayed with every tool disabled: the same text, nothing dispatched, each call logged
    // as replayed.
    let (no_hits, no_looks) = counters();
    let replay = run(&journaled(&store, false, &no_hits, &no_looks), OBSERVER).await;
    assert_eq!(replay.text(), live.text());
    assert_eq!(replay.result.is_error(), live.result.is_error());
    assert_eq!(
        no_hits.load(Ordering::SeqCst) + no_looks.load(Ordering::SeqCst),
        0
    );
    assert!(replay.starts().is_empty(), "{:?}", replay.kinds());
    let replayed = replay
        .events
        .iter()
        .filter(|e| matches!(e, SessionEvent::PtcReplayed { .. }))
        .count();
    assert_eq!(replayed, 6, "{:?}", replay.kinds());
    // Replaying again (a journal is read, never consumed) still agrees.
    let again = run(&journaled(&store, false, &no_hits, &no_looks), OBSERVER).await;
    assert_eq!(again.text(), live.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_program_replays_while_it_makes_the_recorded_calls_and_fails_at_the_first_it_changed(
) {
    let store = MemoryJournal::new();
    let (hits, looks) = counters();
    let live = run(&journaled(&store, true, &hits, &looks), OBSERVER).await;
    // A change that calls the same tools the same way replays to the same end.
    let cosmetic = OBSERVER.replace("const picks", "let picks");
    assert_ne!(cosmetic, OBSERVER);
    let replay = run(&journaled(&store, false, &hits, &looks), &cosmetic).await;
    assert_eq!(replay.text(), live.text());
    // The sixth call changed: that is where it stops.
    let changed = OBSERVER.replace("const c = await tools.effect", "const c = await tools.look");
    assert_ne!(changed, OBSERVER);
    let replay = run(&journaled(&store, false, &hits, &looks), &changed).await;
    assert!(replay.result.is_error());
    assert!(
        replay.text().contains(
            "code run failed (nondeterminism): call-1:ptc:6: the recording calls effect there, \
             the program look; the program is not the recorded one"
        ),
        "{}",
        replay.text()
    );
    assert_eq!(hits.load(Ordering::SeqCst), 3, "nothing ran again");
}

/// `store`'s journal of `call-1` with entry `n` changed by `change`, in a new store.
fn tampered(store: &MemoryJournal, change: impl Fn(&mut Entry)) -> Arc<MemoryJournal> {
    let mut entries = store.load(CALL_ID).unwrap();
    entries.iter_mut().for_each(change);
    let copy = MemoryJournal::new();
    copy.append(CALL_ID, 0, &Batch::of(&entries)).unwrap();
    copy
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tool_or_other_arguments_at_call_n_is_nondeterminism_naming_the_call() {
    let store = MemoryJournal::new();
    let (hits, looks) = counters();
    run(&journaled(&store, true, &hits, &looks), OBSERVER).await;
    // The recording's call 4 took other arguments (the environment changed under it).
    let other_args = tampered(&store, |entry| {
        if let Entry::Call { n: 4, args, .. } = entry {
            *args = "0".repeat(64);
        }
    });
    let replay = run(&journaled(&other_args, false, &hits, &looks), OBSERVER).await;
    assert!(
        replay.text().contains(
            "code run failed (nondeterminism): call-1:ptc:4: the recording calls effect there \
             with other arguments"
        ),
        "{}",
        replay.text()
    );
    let other_tool = tampered(&store, |entry| {
        if let Entry::Call { n: 5, name, .. } = entry {
            *name = "look".into();
        }
    });
    let replay = run(&journaled(&other_tool, false, &hits, &looks), OBSERVER).await;
    assert!(
        replay.text().contains(
            "code run failed (nondeterminism): call-1:ptc:5: the recording calls look there, \
             the program effect"
        ),
        "{}",
        replay.text()
    );
}

/// The first entries of `store`'s journal of `call-1`, up to and including the first that
/// `last` picks, in a new store: what an instance had written when it died.
fn cut_after(store: &MemoryJournal, last: impl Fn(&Entry) -> bool) -> Arc<MemoryJournal> {
    let entries = store.load(CALL_ID).unwrap();
    let end = entries
        .iter()
        .position(last)
        .expect("the entry is recorded");
    let copy = MemoryJournal::new();
    copy.append(CALL_ID, 0, &Batch::of(&entries[..=end]))
        .unwrap();
    copy
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_instance_died_resumes_replaying_what_it_did_and_running_the_rest() {
    let store = MemoryJournal::new();
    let (hits, looks) = counters();
    let whole = run(&journaled(&store, true, &hits, &looks), OBSERVER).await;
    // The instance died right after the second effect's result was written.
    let died = cut_after(&store, |e| matches!(e, Entry::Result { n: 5, .. }));
    // The world the other instance finds: two effects happened.
    let (more_hits, more_looks) = (Arc::new(AtomicUsize::new(2)), Arc::new(AtomicUsize::new(0)));
    let resumed = run(&journaled(&died, true, &more_hits, &more_looks), OBSERVER).await;
    assert_eq!(resumed.text(), whole.text());
    // Effects 1 and 2 replayed; only the third ran.
    assert_eq!(more_hits.load(Ordering::SeqCst), 3);
    assert_eq!(more_looks.load(Ordering::SeqCst), 0);
    assert!(matches!(
        died.load(CALL_ID).unwrap().last(),
        Some(Entry::End { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_flight_when_the_instance_died_runs_again_only_if_it_is_safe_to_repeat() {
    let program = "const seen = await tools.look({});\n\
                   try { return [seen, await tools.effect({})]; }\n\
                   catch (e) { return [seen, e.message]; }";
    let store = MemoryJournal::new();
    let (hits, looks) = counters();
    run(&journaled(&store, true, &hits, &looks), program).await;
    // Died while the effect ran: it may or may not have happened.
    let died = cut_after(&store, |e| matches!(e, Entry::Call { n: 2, .. }));
    let (more_hits, more_looks) = counters();
    let resumed = run(&journaled(&died, true, &more_hits, &more_looks), program).await;
    assert_eq!(
        more_hits.load(Ordering::SeqCst),
        0,
        "an effect in doubt is not repeated"
    );
    assert!(
        resumed
            .text()
            .contains("IN_DOUBT: effect was running when the run's last instance stopped"),
        "{}",
        resumed.text()
    );
    // Died while the look ran: it is safe to repeat, so it runs again.
    let died = cut_after(&store, |e| matches!(e, Entry::Call { n: 1, .. }));
    let (more_hits, more_looks) = counters();
    let resumed = run(&journaled(&died, true, &more_hits, &more_looks), program).await;
    assert_eq!(more_looks.load(Ordering::SeqCst), 1);
    assert_eq!(more_hits.load(Ordering::SeqCst), 1);
    assert_eq!(resumed.text(), "[\n  1,\n  1\n]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_of_a_run_that_never_finished_says_where_its_recording_ends() {
    let program = "await tools.effect({}); return await tools.effect({});";
    let store = MemoryJournal::new();
    let (hits, looks) = counters();
    run(&journaled(&store, true, &hits, &looks), program).await;
    let died = cut_after(&store, |e| matches!(e, Entry::Result { n: 1, .. }));
    let rerun = run(&journaled(&died, false, &hits, &looks), program).await;
    assert!(
        rerun.text().contains(
            "code run failed (nondeterminism): call-1: the program goes on past its recording \
             (it would wait for another call or timer)"
        ),
        "{}",
        rerun.text()
    );
}

/// A registry as [`journaled`] whose `effect` calls need a person's approval, answered by
/// `approve` (which sees each call's id).
fn asking(
    store: &Arc<MemoryJournal>,
    hits: &Arc<AtomicUsize>,
    approve: impl Fn(String) -> futures::future::BoxFuture<'static, ApprovalAnswer>
        + Send
        + Sync
        + 'static,
) -> ToolRegistry {
    let registry = journaled(store, true, hits, &Arc::new(AtomicUsize::new(0)));
    registry.on_pre_execute(|exec: Arc<ToolExecution>, next: PreNext| async move {
        match exec.name() {
            "effect" => PreToolDecision::ask("changes the world"),
            _ => next.run().await,
        }
    });
    registry.set_approval(Arc::new(move |request: ApprovalRequest| {
        approve(request.execution.call_id().to_string())
    }));
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_for_approval_when_the_instance_died_is_asked_again_not_in_doubt() {
    let program = "const seen = await tools.look({});\n\
                   return [seen, await tools.effect({})];";
    let store = MemoryJournal::new();
    let hits = Arc::new(AtomicUsize::new(0));
    // The first instance asks, and dies while the person has not answered: what it wrote by
    // then is all the next one finds.
    let (asked_tx, asked) = tokio::sync::oneshot::channel::<Arc<MemoryJournal>>();
    let asked_tx = std::sync::Mutex::new(Some(asked_tx));
    let snapshot = store.clone();
    let first = asking(&store, &hits, move |_| {
        let written = snapshot.load(CALL_ID).unwrap();
        let copy = MemoryJournal::new();
        copy.append(CALL_ID, 0, &Batch::of(&written)).unwrap();
        if let Some(tx) = asked_tx.lock().unwrap().take() {
            let _ = tx.send(copy);
        }
        futures::future::pending().boxed()
    });
    let signal = tokio_util::sync::CancellationToken::new();
    let running = tokio::spawn({
        let signal = signal.clone();
        async move {
            Call::run_code(program)
                .with_signal(signal)
                .send(&first)
                .await
        }
    });
    let died = asked.await.unwrap();
    signal.cancel();
    running.await.unwrap();
    assert!(
        !died
            .load(CALL_ID)
            .unwrap()
            .iter()
            .any(|e| matches!(e, Entry::Call { name, .. } if name == "effect")),
        "a call waiting to be approved is not on record as started: {:?}",
        died.load(CALL_ID).unwrap()
    );
    // The answer is kept by call id; the next instance asks again and gets it.
    let ids = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = ids.clone();
    let resumed = asking(&died, &hits, move |id| {
        seen.lock().unwrap().push(id);
        futures::future::ready(ApprovalAnswer::AllowedOnce).boxed()
    });
    let run = run(&resumed, program).await;
    assert!(!run.result.is_error(), "{}", run.text());
    assert_eq!(hits.load(Ordering::SeqCst), 1, "the approved call ran once");
    assert_eq!(*ids.lock().unwrap(), [sub(2)]);
    assert!(matches!(
        died.load(CALL_ID).unwrap().last(),
        Some(Entry::End { .. })
    ));
}
