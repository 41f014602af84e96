//! QuickJS's interrupt handler for one run: the limits that stop a busy program, and the host's
//! progress while the program computes.
//!
//! QuickJS calls the handler every few thousand interpreter steps while JavaScript runs (a hot
//! loop included). Each call
//! * ends the run (returns `true`) once a stop is recorded, the run is cancelled, or its wall clock
//!   has passed;
//! * otherwise, at most every [`PROGRESS_INTERVAL`], lets the host advance its accepted calls
//!   ([`Host::poll_progress`]), so calls a program submitted start even while it keeps computing,
//!   without any other thread having to be woken for them, and collects the calls that completed,
//!   so their results count against the run's cap as they arrive ([`InFlight`]).

use std::{
    sync::Arc,
    task::Context,
    time::{Duration, Instant},
};

use tokio_util::sync::CancellationToken;

use super::{driver::ThreadWaker, in_flight::InFlight};
use crate::{stop::Stop, Host, RunFailure};

/// How often a computing program lets the host make progress, at most.
const PROGRESS_INTERVAL: Duration = Duration::from_micros(200);

/// The state the interrupt handler of one run needs.
pub(super) struct Interrupts {
    pub(super) stop: Arc<Stop>,
    pub(super) cancel: CancellationToken,
    pub(super) deadline: Instant,
    pub(super) wall_clock: Duration,
    pub(super) host: Arc<dyn Host>,
    /// The run's thread waker: a call the host advances here wakes the run's event loop.
    pub(super) waker: Arc<ThreadWaker>,
    /// The run's calls in flight, whose results are collected here.
    pub(super) in_flight: InFlight,
}

impl Interrupts {
    /// The handler to install with `Runtime::set_interrupt_handler`.
    pub(super) fn into_handler(self) -> Box<dyn FnMut() -> bool + Send + 'static> {
        let mut next_progress = Instant::now();
        Box::new(move || {
            if self.stop.failure().is_some() {
                return true;
            }
            if self.cancel.is_cancelled() {
                self.stop.fail(RunFailure::aborted());
                return true;
            }
            let now = Instant::now();
            // The deadline moves by the time spent waiting for a person (checked only once
            // the original deadline has passed: the pause can only extend it).
            if now >= self.deadline && now >= self.deadline + self.host.paused() {
                self.stop.fail(RunFailure::timed_out(self.wall_clock));
                return true;
            }
            if now >= next_progress {
                next_progress = now + PROGRESS_INTERVAL;
                let waker = self.waker.waker();
                let mut cx = Context::from_waker(&waker);
                self.host.poll_progress(&mut cx);
                self.in_flight.collect(&mut cx);
            }
            false
        })
    }
}
