//! Results written a little later: the result of a call that may change something goes on
//! record with its run's next write (usually the next such call's entry, or the end), or
//! when its wait ([`Journaling::wait`](super::Journaling::wait), [`WAIT`] by default) is
//! over, whichever comes first. One commit per call instead of two.
//!
//! Nothing outside depends on a result before it is on record: the next call that may
//! change something is written together with it, and so is the end. A crash within the wait
//! leaves the call in doubt, as a crash while it ran would.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::RunJournal;

/// How long a settled result waits for its run's next write, by default.
pub const WAIT: Duration = Duration::from_millis(2);

/// Runs with a result waiting, in the order their waits end; written by one thread.
#[derive(Default)]
struct Queue {
    state: Mutex<Waiting>,
    changed: Condvar,
}

#[derive(Default)]
struct Waiting {
    runs: BinaryHeap<Reverse<Due>>,
    /// The writer is writing a run it took off the queue.
    writing: bool,
}

/// A run whose result waits until `.0`.
struct Due(Instant, Weak<RunJournal>);

impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Due {}

impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Due {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `run` waits until `due`: the writer wakes for it if it is the soonest.
    fn push(&self, due: Instant, run: Weak<RunJournal>) {
        let mut waiting = self.lock();
        let sooner = waiting
            .runs
            .peek()
            .is_none_or(|Reverse(first)| due < first.0);
        waiting.runs.push(Reverse(Due(due, run)));
        if sooner {
            self.changed.notify_all();
        }
    }
}

static QUEUE: OnceLock<&'static Queue> = OnceLock::new();

/// The queue, and its writer started with it.
fn queue() -> &'static Queue {
    QUEUE.get_or_init(|| {
        let queue: &'static Queue = Box::leak(Box::default());
        std::thread::Builder::new()
            .name("ptc-journal".into())
            .spawn(move || write_when_due(queue))
            .expect("a thread for the journal's waiting results");
        queue
    })
}

/// `journal`'s result waits until `due` at the latest (a run is queued once at a time).
pub(crate) fn write_by(journal: &Arc<RunJournal>, due: Instant) {
    queue().push(due, Arc::downgrade(journal));
}

/// Write every waiting result now (before this instance hands its runs over).
pub fn write_waiting() {
    // Started with the first result that waited.
    let Some(queue) = QUEUE.get() else {
        return;
    };
    let runs: Vec<_> = {
        let mut waiting = queue.lock();
        while waiting.writing {
            waiting = queue
                .changed
                .wait(waiting)
                .unwrap_or_else(|e| e.into_inner());
        }
        waiting.runs.drain().collect()
    };
    for journal in runs.iter().filter_map(|Reverse(Due(_, run))| run.upgrade()) {
        journal.write_waiting(None);
    }
}

fn write_when_due(queue: &'static Queue) {
    let mut waiting = queue.lock();
    loop {
        let Some(due) = waiting.runs.peek().map(|Reverse(first)| first.0) else {
            waiting = queue
                .changed
                .wait(waiting)
                .unwrap_or_else(|e| e.into_inner());
            continue;
        };
        let now = Instant::now();
        if now < due {
            waiting = queue
                .changed
                .wait_timeout(waiting, due - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            continue;
        }
        let Some(Reverse(Due(_, run))) = waiting.runs.pop() else {
            continue;
        };
        waiting.writing = true;
        drop(waiting);
        if let Some(journal) = run.upgrade() {
            // Another result came since: it waits on.
            if let Some(due) = journal.write_waiting(Some(now)) {
                queue.push(due, run);
            }
        }
        waiting = queue.lock();
        waiting.writing = false;
        queue.changed.notify_all();
    }
}
