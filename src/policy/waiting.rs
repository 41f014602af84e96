//! Time a `run_code` run spends waiting for a person (an approval, a question), which
//! does not count against its wall-clock limit.
//!
//! The bridge runs each sub-call's admission and body inside `scope` with its run's
//! [`PersonClock`]; whatever waits for a person there holds [`begin`]'s guard meanwhile.
//! The engine moves the run's deadline by [`PersonClock::waited`].

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The time one run has waited for a person.
#[derive(Debug, Default)]
pub struct PersonClock(Mutex<Clock>);

#[derive(Debug, Default)]
struct Clock {
    done: Duration,
    /// Waits in progress, and since when the first of them began.
    open: usize,
    since: Option<Instant>,
}

impl PersonClock {
    fn lock(&self) -> std::sync::MutexGuard<'_, Clock> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The time waited so far, a wait in progress included (overlapping waits count once).
    pub fn waited(&self) -> Duration {
        let clock = self.lock();
        clock.done + clock.since.map_or(Duration::ZERO, |s| s.elapsed())
    }
}

/// Ends a wait when dropped.
pub struct Waiting(Arc<PersonClock>);

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut clock = self.0.lock();
        clock.open = clock.open.saturating_sub(1);
        if clock.open == 0 {
            if let Some(since) = clock.since.take() {
                clock.done += since.elapsed();
            }
        }
    }
}

tokio::task_local! {
    static CLOCK: Arc<PersonClock>;
}

/// Run `work` with `clock` as the clock [`begin`] finds.
pub(crate) fn scope<F: Future>(
    clock: Arc<PersonClock>,
    work: F,
) -> impl Future<Output = F::Output> {
    CLOCK.scope(clock, work)
}

/// Start waiting for a person on the current run's clock, if there is one; the wait ends
/// when the guard drops.
pub fn begin() -> Option<Waiting> {
    let clock = CLOCK.try_with(Arc::clone).ok()?;
    {
        let mut c = clock.lock();
        c.open += 1;
        if c.since.is_none() {
            c.since = Some(Instant::now());
        }
    }
    Some(Waiting(clock))
}
