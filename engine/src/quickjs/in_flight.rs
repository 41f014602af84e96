//! The host calls of one run still in flight, and the results they settled with until the
//! program takes them: shared between the run's event loop and its interrupt handler, which
//! collects results while the program computes, so each is counted against the run's cap as it
//! arrives ([`Held::take_result`]), not only once the program next yields.

use std::{
    collections::VecDeque,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex, MutexGuard},
    task::{Context, Poll},
};

use futures::stream::{FuturesUnordered, StreamExt};

use crate::{
    calls::{Held, Share},
    stop::Stop,
    Reply,
};

/// A host call in flight, tagged with the id of its promise.
pub(super) type Tagged = Pin<Box<dyn Future<Output = (u64, Result<Reply, String>)> + Send>>;

/// A completed call: its promise's id, its result, and the result's share of the cap.
pub(super) type Done = (u64, Result<Reply, String>, Option<Share>);

/// The calls in flight of one run (cheap to clone: one shared set).
#[derive(Clone)]
pub(super) struct InFlight(Arc<Mutex<Flight>>);

struct Flight {
    futures: FuturesUnordered<Tagged>,
    done: VecDeque<Done>,
    held: Held,
    stop: Arc<Stop>,
}

impl InFlight {
    /// No call yet; results count against `held`, and one past it records its failure in `stop`.
    pub(super) fn new(held: Held, stop: Arc<Stop>) -> Self {
        InFlight(Arc::new(Mutex::new(Flight {
            futures: FuturesUnordered::new(),
            done: VecDeque::new(),
            held,
            stop,
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Flight> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the host holds of the run's cap.
    pub(super) fn held(&self) -> Held {
        self.lock().held.clone()
    }

    /// Track `call` until it completes.
    pub(super) fn push(&self, call: Tagged) {
        self.lock().futures.push(call);
    }

    /// `result` with its share of the cap; past the cap the run fails (the value is dropped
    /// at once, and the promise is rejected with the failure's message).
    pub(super) fn hold(
        &self,
        result: Result<Reply, String>,
    ) -> (Result<Reply, String>, Option<Share>) {
        self.lock().hold(result)
    }

    /// Collect the calls that completed, counting their results, unless the event loop is
    /// collecting right now (from the interrupt handler, which must never wait).
    pub(super) fn collect(&self, cx: &mut Context<'_>) {
        if let Ok(mut flight) = self.0.try_lock() {
            flight.collect(cx);
        }
    }

    /// The next completed call, if any.
    pub(super) fn next(&self, cx: &mut Context<'_>) -> Option<Done> {
        let mut flight = self.lock();
        flight.collect(cx);
        flight.done.pop_front()
    }

    /// The calls that completed and wait to be handed to the program: their ids, and the
    /// failure message of those that failed.
    pub(super) fn waiting(&self) -> Vec<(u64, Option<String>)> {
        let flight = self.lock();
        let failure = |result: &Result<crate::Reply, String>| result.as_ref().err().cloned();
        flight
            .done
            .iter()
            .map(|(id, result, _)| (*id, failure(result)))
            .collect()
    }

    /// Whether no call is in flight and no result waits.
    pub(super) fn is_empty(&self) -> bool {
        let flight = self.lock();
        flight.futures.is_empty() && flight.done.is_empty()
    }

    /// Drop every call in flight (aborting it) and every result waiting.
    pub(super) fn clear(&self) {
        let mut flight = self.lock();
        flight.futures = FuturesUnordered::new();
        flight.done.clear();
    }
}

impl Flight {
    fn collect(&mut self, cx: &mut Context<'_>) {
        while let Poll::Ready(Some((id, result))) = self.futures.poll_next_unpin(cx) {
            let (result, share) = self.hold(result);
            self.done.push_back((id, result, share));
        }
    }

    fn hold(&self, result: Result<Reply, String>) -> (Result<Reply, String>, Option<Share>) {
        let reply = match result {
            // A timer's `undefined` (and any `null`) holds nothing worth counting.
            Ok(Reply {
                value: serde_json::Value::Null,
                ..
            })
            | Err(_) => return (result, None),
            Ok(reply) => reply,
        };
        match self.held.take_result(&reply.value) {
            Ok(share) => (Ok(reply), Some(share)),
            Err(failure) => {
                let message = failure.message.clone();
                self.stop.fail(failure);
                crate::json::drop_deep(reply.value);
                (Err(message), None)
            }
        }
    }
}
