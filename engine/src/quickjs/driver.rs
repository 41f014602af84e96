//! Driving a run from one OS thread: the pending host calls, and a waker that unparks the thread.

use std::{
    collections::{HashMap, VecDeque},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    task::{Context, Poll, Wake, Waker},
    thread::Thread,
    time::Instant,
};

use rquickjs::{Function, Value};

use super::in_flight::InFlight;
use crate::{
    calls::{contained, Accepted, Held, Share, PANICKED},
    left::{first_site, Left},
    observed,
    program::sites::marked_site,
    Deliveries, Delivery, Reply, RunFailure,
};

/// What a pending promise stands for.
#[derive(Debug, Clone)]
pub(super) enum Kind<'js> {
    /// A tool call (a failure becomes a `ToolCallError` naming the tool and the call site).
    Tool {
        /// The tool's name.
        name: String,
        /// Where the program called it: the glue's trace, the call's mark (a number) or the
        /// frames' stack text as QuickJS formatted it. Read ([`Kind::site`]) only when the call
        /// fails or is left behind.
        trace: Value<'js>,
    },
    /// A timer (`setTimeout`): resolves with `undefined`.
    Timer,
}

impl Kind<'_> {
    /// Where a tool call was made: `"line:col"` from its mark or of the program's first frame
    /// in `filename` (`""` for a timer, or when no frame of the program is in the trace).
    pub(super) fn site(&self, filename: &str) -> String {
        let Kind::Tool { trace, .. } = self else {
            return String::new();
        };
        if let Some(site) = trace.as_number().and_then(marked_site) {
            return site;
        }
        let stack = trace.as_string().and_then(|stack| stack.to_string().ok());
        stack.map_or_else(String::new, |stack| first_site(&stack, filename).to_owned())
    }
}

/// A completed host call with what is needed to settle its promise.
pub(super) struct Settled<'js> {
    /// What the promise stands for.
    pub(super) kind: Kind<'js>,
    /// The promise's identity (for the rejection tracker).
    pub(super) promise: usize,
    /// The tool's value or failure message.
    pub(super) result: Result<Reply, String>,
    /// Resolves the program's promise.
    pub(super) resolve: Function<'js>,
    /// Rejects the program's promise.
    pub(super) reject: Function<'js>,
    /// What the value holds of the run's cap until it is handed to the program.
    pub(super) share: Option<Share>,
}

/// A pending promise's resolvers and identity.
struct Resolvers<'js> {
    kind: Kind<'js>,
    promise: usize,
    resolve: Function<'js>,
    reject: Function<'js>,
}

/// The host calls of one run: their promise resolvers (JS side) and futures (Rust side).
pub(super) struct Calls<'js> {
    next_id: u64,
    /// Calls that completed on their first poll, in submission order, with their ids.
    ready: VecDeque<(u64, Settled<'js>)>,
    resolvers: HashMap<u64, Resolvers<'js>>,
    /// Calls in flight and their results, counted against the run's cap (arguments, and
    /// results not yet handed to the program).
    pending: InFlight,
    timers: usize,
}

impl<'js> Calls<'js> {
    pub(super) fn new(pending: InFlight) -> Self {
        Calls {
            next_id: 0,
            ready: VecDeque::new(),
            resolvers: HashMap::new(),
            pending,
            timers: 0,
        }
    }

    /// What the host holds of the run's cap.
    pub(super) fn held(&self) -> Held {
        self.pending.held()
    }

    /// Drop every call not settled yet (aborting it) and every result not handed over.
    pub(super) fn clear(&mut self) {
        self.ready.clear();
        self.resolvers.clear();
        self.pending.clear();
    }

    /// Track `call`, settling the promise with `resolve`/`reject` when it completes.
    ///
    /// The call is polled once right away (with `cx`, whose waker wakes the run's thread): a host
    /// that answers at once costs no task allocation and no extra trip through the driver.
    pub(super) fn push(
        &mut self,
        kind: Kind<'js>,
        promise: usize,
        accepted: Accepted,
        resolve: Function<'js>,
        reject: Function<'js>,
        cx: &mut Context<'_>,
    ) {
        let Accepted { mut call, share } = accepted;
        if matches!(kind, Kind::Timer) {
            self.timers += 1;
        }
        // Every call takes an id, in submission order, settled at once or not.
        let id = self.next_id;
        self.next_id += 1;
        // A panicking host future must not unwind through the engine.
        let first = crate::contain::contain(|| call.as_mut().poll(cx))
            .unwrap_or_else(|_| Poll::Ready(Err(PANICKED.to_string())));
        if let Poll::Ready(result) = first {
            // The arguments' share first: the result takes its place.
            drop(share);
            self.settled(&kind);
            let (result, share) = self.pending.hold(result);
            let settled = Settled {
                kind,
                promise,
                result,
                resolve,
                reject,
                share,
            };
            self.ready.push_back((id, settled));
            return;
        }
        self.resolvers.insert(
            id,
            Resolvers {
                kind,
                promise,
                resolve,
                reject,
            },
        );
        self.pending.push(Box::pin(async move {
            // What the call holds of the run's argument bytes, until it settles.
            let _share = share;
            (id, contained(call).await)
        }));
    }

    /// The next completed call with its resolvers, if one is ready.
    ///
    /// Of the calls settled by now, the earliest made comes first: a call answered at its first
    /// poll does not overtake an earlier one whose answer already waited (the host answers a
    /// run's calls in the order they were made), so two reads in a `Promise.all` reach the
    /// program in the same order on every run.
    pub(super) fn poll_ready(&mut self, cx: &mut Context<'_>) -> Option<Settled<'js>> {
        while let Some((id, result, share)) = self.pending.next(cx) {
            if let Some(settled) = self.take_settled(id, result, share) {
                let at = self.ready.partition_point(|(earlier, _)| *earlier < id);
                self.ready.insert(at, (id, settled));
            }
        }
        self.ready.pop_front().map(|(_, settled)| settled)
    }

    /// Call `id` completed with `result`: its resolvers, no longer pending (`None` for a call
    /// already dropped).
    fn take_settled(
        &mut self,
        id: u64,
        result: Result<Reply, String>,
        share: Option<Share>,
    ) -> Option<Settled<'js>> {
        let r = self.resolvers.remove(&id)?;
        self.settled(&r.kind);
        Some(Settled {
            kind: r.kind,
            promise: r.promise,
            result,
            resolve: r.resolve,
            reject: r.reject,
            share,
        })
    }

    /// The next call to hand the program when a host orders deliveries ([`Deliveries`]): the
    /// one the recording names while replaying (`None` until it has settled), else the first
    /// settled. Either is told to `order` as delivered.
    pub(super) fn poll_ordered(
        &mut self,
        cx: &mut Context<'_>,
        order: &dyn Deliveries,
    ) -> Result<Option<Settled<'js>>, RunFailure> {
        // Everything settled so far waits in `ready`, in the order it settled.
        while let Some((id, result, share)) = self.pending.next(cx) {
            if let Some(settled) = self.take_settled(id, result, share) {
                self.ready.push_back((id, settled));
            }
        }
        let position = match order.next()? {
            None => (!self.ready.is_empty()).then_some(0),
            Some(want) => {
                let position = self.ready.iter().position(|(id, _)| *id == want);
                if position.is_none() && !self.resolvers.contains_key(&want) {
                    return Err(observed::nondeterminism(format!(
                        "the recording hands the program call {want} next, but it {}",
                        if want >= self.next_id {
                            "has not made that call"
                        } else {
                            "was handed over already"
                        }
                    )));
                }
                position
            }
        };
        let Some((id, settled)) = position.and_then(|p| self.ready.remove(p)) else {
            return Ok(None);
        };
        let what = match settled.kind {
            Kind::Tool { .. } => Delivery::Tool,
            Kind::Timer => Delivery::Timer,
        };
        order.delivered(id, what)?;
        Ok(Some(settled))
    }

    /// The id the next call or timer takes.
    pub(super) fn next_id(&self) -> u64 {
        self.next_id
    }

    fn settled(&mut self, kind: &Kind<'js>) {
        if matches!(kind, Kind::Timer) {
            self.timers -= 1;
        }
    }

    /// Timers not yet fired.
    pub(super) fn timers(&self) -> usize {
        self.timers
    }

    /// The tool calls whose promises had not settled (name, call site in `filename`, and what
    /// became of it: [`Left::Pending`] while in flight, completed or failed when its result
    /// was still waiting to be handed to the program), in submission order.
    pub(super) fn unsettled_tools(&self, filename: &str) -> Vec<(String, String, Left)> {
        let waiting: HashMap<u64, Option<String>> = self.pending.waiting().into_iter().collect();
        let after =
            |failure: Option<&String>| failure.map_or(Left::Completed, |m| Left::Failed(m.clone()));
        let in_flight = self.resolvers.iter().map(|(id, r)| {
            let left = waiting.get(id).map_or(Left::Pending, |f| after(f.as_ref()));
            (*id, &r.kind, left)
        });
        let ready = self
            .ready
            .iter()
            .map(|(id, s)| (*id, &s.kind, after(s.result.as_ref().err())));
        let mut unsettled: Vec<(u64, &Kind<'js>, Left)> = in_flight.chain(ready).collect();
        unsettled.sort_by_key(|(id, ..)| *id);
        unsettled
            .into_iter()
            .map(|(_, kind, left)| (kind, left))
            .filter_map(|(kind, left)| match kind {
                Kind::Tool { name, .. } => Some((name.clone(), kind.site(filename), left)),
                Kind::Timer => None,
            })
            .collect()
    }

    /// Whether no call is in flight or waiting to be settled.
    pub(super) fn is_empty(&self) -> bool {
        self.pending.is_empty() && self.ready.is_empty()
    }
}

/// Wakes the run's thread: sets a flag and unparks it.
pub(super) struct ThreadWaker {
    thread: Thread,
    notified: AtomicBool,
}

impl ThreadWaker {
    /// A waker for the current thread.
    pub(super) fn current() -> Arc<Self> {
        Arc::new(ThreadWaker {
            thread: std::thread::current(),
            notified: AtomicBool::new(false),
        })
    }

    /// Park until woken or until `deadline`, unless a wake-up already arrived.
    pub(super) fn park_until(&self, deadline: Instant) {
        while !self.notified.swap(false, Ordering::Acquire) {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            std::thread::park_timeout(deadline - now);
        }
    }

    /// A [`Waker`] for this thread.
    pub(super) fn waker(self: &Arc<Self>) -> Waker {
        Waker::from(self.clone())
    }
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.notified.store(true, Ordering::Release);
        self.thread.unpark();
    }
}
