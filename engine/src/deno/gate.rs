//! Ordered deliveries on deno_core (see [`crate::observed`]): deno resolves an op's promise
//! in the first turn of its event loop after the op's future completes, so for a host that
//! keeps the order ([`Deliveries`]) each tool call's and timer's future waits at the gate once
//! its result is ready, and the event loop's driver lets one through a turn: the one the
//! recording names while replaying, else the first that was ready. The next is let through
//! only after a turn of the event loop has handed the last one to the program.

use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

use crate::observed::nondeterminism;
use crate::{Deliveries, Delivery, RunFailure};

/// The gate of one run.
#[derive(Default)]
pub(super) struct Gate(Mutex<State>);

#[derive(Default)]
struct State {
    /// The number the next call or timer takes.
    next_id: u64,
    /// Ready and waiting for their turn, in the order they became ready.
    waiting: Vec<(u64, Delivery, Option<Waker>)>,
    /// Whose turn it is.
    turn: Turn,
    /// Wakes the event loop's driver when something reaches the gate or passes it.
    driver: Option<Waker>,
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// Nobody's: the next may be let through.
    #[default]
    Idle,
    /// Let through; its future has not passed yet.
    Open(u64),
    /// Passed: the next turn of the event loop hands it to the program.
    Passed(u64),
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Number a call or timer the program just made.
    pub(super) fn take_id(&self) -> u64 {
        let mut state = self.lock();
        let id = state.next_id;
        state.next_id += 1;
        id
    }

    /// Wait until it is `id`'s turn (its result is ready).
    pub(super) async fn turn(self: Arc<Self>, id: u64, what: Delivery) {
        poll_fn(|cx| {
            let mut state = self.lock();
            if state.turn == Turn::Open(id) {
                state.turn = Turn::Passed(id);
                wake(state.driver.as_ref());
                return Poll::Ready(());
            }
            match state
                .waiting
                .iter_mut()
                .find(|(waiting, ..)| *waiting == id)
            {
                Some((.., waker)) => *waker = Some(cx.waker().clone()),
                None => {
                    state.waiting.push((id, what, Some(cx.waker().clone())));
                    wake(state.driver.as_ref());
                }
            }
            Poll::Pending
        })
        .await
    }

    /// Before a turn of the event loop: whether it hands a delivery to the program.
    pub(super) fn handing_over(&self) -> bool {
        matches!(self.lock().turn, Turn::Passed(_))
    }

    /// After a turn of the event loop (`handed`: [`Gate::handing_over`] before it): give the
    /// next delivery its turn if the last one was handed over, telling `order`; `driver` wakes
    /// this loop.
    pub(super) fn open_next(
        &self,
        order: &dyn Deliveries,
        handed: bool,
        driver: &Waker,
    ) -> Result<(), RunFailure> {
        let mut state = self.lock();
        if !state.driver.as_ref().is_some_and(|d| d.will_wake(driver)) {
            state.driver = Some(driver.clone());
        }
        if handed && matches!(state.turn, Turn::Passed(_)) {
            state.turn = Turn::Idle;
        }
        if state.turn != Turn::Idle {
            return Ok(());
        }
        let position = match order.next()? {
            None => (!state.waiting.is_empty()).then_some(0),
            Some(want) => {
                let position = state.waiting.iter().position(|(id, ..)| *id == want);
                if position.is_none() && want >= state.next_id {
                    return Err(nondeterminism(format!(
                        "the recording hands the program call {want} next, but it has not \
                         made that call"
                    )));
                }
                position
            }
        };
        let Some(position) = position else {
            return Ok(());
        };
        let (id, what, waker) = state.waiting.remove(position);
        order.delivered(id, what)?;
        state.turn = Turn::Open(id);
        drop(state);
        wake(waker.as_ref());
        Ok(())
    }
}

fn wake(waker: Option<&Waker>) {
    if let Some(waker) = waker {
        waker.wake_by_ref();
    }
}
