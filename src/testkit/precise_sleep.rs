//! A sleep that ends when it should, for the testkit `sleep` tool.
//!
//! tokio's timer wheel ticks once per millisecond and rounds every deadline up to a tick, so
//! `tokio::time::sleep(10 ms)` ends about 11.3 ms later on a typical machine. Ten rounds of 10 ms
//! sleeps then cost 113 ms instead of 100, which is what the fan-out benchmark measures.
//!
//! [`sleep`] waits for most of the duration on tokio's timer (cheap, cancellable by dropping, and
//! it follows tokio's paused clock in tests), then finishes the last [`FINISH_WINDOW`] on one
//! small process-wide timer thread that parks until the exact deadline and wakes the task. No
//! runtime worker ever blocks, and dropping the future at any point cancels it.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// The tail of a sleep that runs on the timer thread: more than tokio's usual lateness
/// (deadline rounded up to the next tick, plus the driver's own millisecond rounding).
pub(crate) const FINISH_WINDOW: Duration = Duration::from_millis(3);

/// Wait `duration`, ending as close after it as the OS allows (never before).
pub(crate) async fn sleep(duration: Duration) {
    let deadline = Instant::now() + duration;
    if let Some(coarse) = duration.checked_sub(FINISH_WINDOW) {
        tokio::time::sleep(coarse).await;
    }
    Until::new(deadline).await;
}

/// A future that completes at `deadline`, woken by the timer thread.
pub(crate) struct Until {
    deadline: Instant,
    /// This future's key in the timer's table while it is registered there.
    key: Option<(Instant, u64)>,
}

impl Until {
    /// A future that completes at `deadline` (at once if it has passed).
    pub(crate) fn new(deadline: Instant) -> Self {
        Until {
            deadline,
            key: None,
        }
    }
}

impl Future for Until {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        if Instant::now() >= this.deadline {
            if let Some(key) = this.key.take() {
                Timer::global().remove(key);
            }
            return Poll::Ready(());
        }
        let timer = Timer::global();
        match this.key {
            Some(key) => timer.update(key, cx.waker()),
            None => this.key = Some(timer.insert(this.deadline, cx.waker().clone())),
        }
        Poll::Pending
    }
}

impl Drop for Until {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            Timer::global().remove(key);
        }
    }
}

/// The deadlines waited for, earliest first, and the thread that wakes them.
struct Timer {
    table: Mutex<Table>,
    /// Signalled when a new earliest deadline arrives.
    changed: Condvar,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    wakers: BTreeMap<(Instant, u64), Waker>,
}

impl Timer {
    /// The process-wide timer, its thread started on first use.
    fn global() -> &'static Timer {
        static TIMER: OnceLock<&'static Timer> = OnceLock::new();
        TIMER.get_or_init(|| {
            let timer: &'static Timer = Box::leak(Box::new(Timer {
                table: Mutex::new(Table::default()),
                changed: Condvar::new(),
            }));
            std::thread::Builder::new()
                .name("ptc-testkit-timer".into())
                .spawn(move || {
                    // Linux may postpone a timed wait by up to 50 µs ("timer slack") to batch
                    // wake-ups; this thread exists to wake on time.
                    #[cfg(target_os = "linux")]
                    no_timer_slack();
                    timer.run()
                })
                .expect("the testkit timer thread starts");
            timer
        })
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn insert(&self, deadline: Instant, waker: Waker) -> (Instant, u64) {
        let mut table = self.lock();
        let key = (deadline, table.next_id);
        table.next_id += 1;
        let earliest = table.wakers.keys().next().is_none_or(|first| key < *first);
        table.wakers.insert(key, waker);
        drop(table);
        if earliest {
            self.changed.notify_one();
        }
        key
    }

    fn update(&self, key: (Instant, u64), waker: &Waker) {
        let mut table = self.lock();
        match table.wakers.get_mut(&key) {
            Some(registered) => registered.clone_from(waker),
            // Fired meanwhile: its wake-up is on its way.
            None => waker.wake_by_ref(),
        }
    }

    fn remove(&self, key: (Instant, u64)) {
        self.lock().wakers.remove(&key);
    }

    /// Wake each waker at its deadline, forever.
    fn run(&self) {
        let mut table = self.lock();
        loop {
            let now = Instant::now();
            let mut due = Vec::new();
            while let Some(entry) = table.wakers.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                due.push(entry.remove());
            }
            if !due.is_empty() {
                drop(table);
                due.into_iter().for_each(Waker::wake);
                table = self.lock();
                continue;
            }
            table = match table.wakers.keys().next() {
                Some(&(deadline, _)) => {
                    self.changed
                        .wait_timeout(table, deadline.saturating_duration_since(now))
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(table).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

/// Ask Linux for 1 ns of timer slack on the calling thread.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn no_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and only changes the calling
    // thread's timer slack; the return value is ignored (a failure keeps the default slack).
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn never_ends_early_and_leaves_nothing_registered() {
        for ms in [0, 1, 2, 5] {
            let started = Instant::now();
            sleep(Duration::from_millis(ms)).await;
            assert!(started.elapsed() >= Duration::from_millis(ms));
        }
        let deadline = Instant::now() + Duration::from_millis(4);
        Until::new(deadline).await;
        assert!(Instant::now() >= deadline);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_tail_does_not_block_the_runtime() {
        // On a single-threaded runtime, a task keeps running while another sleeps.
        let deadline = Instant::now() + FINISH_WINDOW;
        let ticks = tokio::spawn(async move {
            let mut ticks = 0u64;
            while Instant::now() < deadline {
                ticks += 1;
                tokio::task::yield_now().await;
            }
            ticks
        });
        Until::new(deadline).await;
        assert!(ticks.await.unwrap() > 0);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn dropping_a_sleep_unregisters_it() {
        let far = Instant::now() + Duration::from_secs(3600);
        let mut until = Box::pin(Until::new(far));
        let waker = futures::task::noop_waker();
        assert!(until
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        let key = until.key.expect("registered while pending");
        assert!(Timer::global().lock().wakers.contains_key(&key));
        drop(until);
        assert!(!Timer::global().lock().wakers.contains_key(&key));
    }
}
