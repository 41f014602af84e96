//! Stopping a run from outside its thread: the shared [`Stop`], the isolate to terminate and the
//! event loop to wake; plus the [`Watchdog`] thread that enforces every run's wall clock.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    sync::{mpsc, Arc, Mutex, OnceLock, Weak},
    task::Waker,
    time::{Duration, Instant},
};

use deno_core::v8;
use futures::task::AtomicWaker;

use crate::{stop::Stop, Host, RunFailure};

/// How one run is stopped: record the failure first (so the run reports `timeout`, `aborted`,
/// `memory`, ... rather than a bare termination), then terminate the isolate and wake the loop.
#[derive(Default)]
pub(super) struct Control {
    stop: Stop,
    isolate: Mutex<Option<v8::IsolateHandle>>,
    waker: AtomicWaker,
}

impl Control {
    /// A control for a run that has not started.
    pub(super) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The run's stop.
    pub(super) fn stop(&self) -> &Stop {
        &self.stop
    }

    /// Connect the isolate that runs the program; terminates it at once if the run was already
    /// halted.
    pub(super) fn attach(&self, isolate: v8::IsolateHandle) {
        let mut slot = self.isolate.lock().unwrap_or_else(|e| e.into_inner());
        if self.stop.failure().is_some() {
            isolate.terminate_execution();
        }
        *slot = Some(isolate);
    }

    /// Forget the isolate (the run is over and its sandbox is about to be dropped).
    pub(super) fn detach(&self) {
        *self.isolate.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The waker of the run's event loop, woken when the run is halted.
    pub(super) fn register(&self, waker: &Waker) {
        self.waker.register(waker);
    }

    /// Record `failure` (unless an earlier one is recorded) and stop the program: terminate
    /// JavaScript wherever it is and wake the event loop.
    pub(super) fn halt(&self, failure: RunFailure) {
        self.stop.fail(failure);
        self.halt_if_stopped();
    }

    /// Stop the program if a failure is recorded (e.g. by a host call refused for a call cap).
    pub(super) fn halt_if_stopped(&self) {
        if self.stop.failure().is_none() {
            return;
        }
        if let Some(isolate) = &*self.isolate.lock().unwrap_or_else(|e| e.into_inner()) {
            isolate.terminate_execution();
        }
        self.waker.wake();
    }
}

/// One thread that halts runs whose wall clock has passed, on real time (independent of the
/// caller's runtime, which may run on paused time in tests).
pub(super) struct Watchdog {
    tx: Mutex<mpsc::Sender<Deadline>>,
}

/// A run to time out at `at`, later by the time it waits for a person ([`Host::paused`]).
struct Deadline {
    at: Instant,
    wall_clock: Duration,
    control: Weak<Control>,
    host: Weak<dyn Host>,
}

/// A watched run: its wall clock, its control, its host, and the pause already added to its
/// deadline.
type Watched = (Duration, Weak<Control>, Weak<dyn Host>, Duration);

impl Watchdog {
    /// The process-wide watchdog (its thread starts on first use).
    pub(super) fn global() -> &'static Watchdog {
        static WATCHDOG: OnceLock<Watchdog> = OnceLock::new();
        WATCHDOG.get_or_init(|| {
            let (tx, rx) = mpsc::channel();
            std::thread::Builder::new()
                .name("ptc-deno-watchdog".into())
                .spawn(move || watch(rx))
                .expect("the watchdog thread starts");
            Watchdog { tx: Mutex::new(tx) }
        })
    }

    /// Halt `control` with a timeout once `wall_clock` has passed since `started` (unless the run
    /// is over); the failure names `wall_clock`, the limit as configured.
    pub(super) fn watch(
        &self,
        control: &Arc<Control>,
        started: Instant,
        wall_clock: Duration,
        host: &Arc<dyn Host>,
    ) {
        // A wall clock too long to represent never passes.
        let Some(at) = started.checked_add(wall_clock) else {
            return;
        };
        let deadline = Deadline {
            at,
            wall_clock,
            control: Arc::downgrade(control),
            host: Arc::downgrade(host),
        };
        let tx = self.tx.lock().unwrap_or_else(|e| e.into_inner());
        let _ = tx.send(deadline);
    }
}

/// The watchdog's loop: sleep until the earliest deadline or a new one.
fn watch(rx: mpsc::Receiver<Deadline>) {
    let mut due: BinaryHeap<Reverse<(Instant, u64)>> = BinaryHeap::new();
    let mut runs: std::collections::HashMap<u64, Watched> = std::collections::HashMap::new();
    let mut next_id = 0u64;
    loop {
        let now = Instant::now();
        while let Some(Reverse((at, id))) = due.peek().copied() {
            if at > now {
                break;
            }
            due.pop();
            if let Some((wall_clock, control, host, counted)) = runs.remove(&id) {
                // Time spent waiting for a person moves the deadline.
                let paused = host.upgrade().map_or(Duration::ZERO, |h| h.paused());
                if paused > counted {
                    due.push(Reverse((at + (paused - counted), id)));
                    runs.insert(id, (wall_clock, control, host, paused));
                } else if let Some(control) = control.upgrade() {
                    control.halt(RunFailure::timed_out(wall_clock));
                }
            }
        }
        let received = match due.peek() {
            Some(Reverse((at, _))) => rx.recv_timeout(at.saturating_duration_since(now)),
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match received {
            Ok(deadline) => {
                let id = next_id;
                next_id += 1;
                due.push(Reverse((deadline.at, id)));
                runs.insert(
                    id,
                    (
                        deadline.wall_clock,
                        deadline.control,
                        deadline.host,
                        Duration::ZERO,
                    ),
                );
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}
