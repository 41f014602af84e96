//! The host side of a run: how a program's `tools.x(args)` reaches ptc's bridge.

use std::{future::Future, pin::Pin, task::Context, time::Duration};

use crate::{Deliveries, LogLevel, RunFailure};

/// A pending host call: resolves to the tool's [`Reply`], or to a failure message that the program
/// sees as a rejected `ToolCallError`.
///
/// Dropping it aborts the call: the engine drops every unsettled call when a run ends.
pub type HostCall = Pin<Box<dyn Future<Output = Result<Reply, String>> + Send>>;

/// A tool call's successful answer: the JSON value the program gets and what the tool says of
/// it, each reported with the call's site (see [`RunReport::notes`](crate::RunReport::notes)):
/// that a cap cut it short (`[cut short]`), anything else (`[note]`), and a note that stands
/// only if the program never reads certain fields of the value ([`UnlessRead`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    /// The tool's JSON value.
    pub value: serde_json::Value,
    /// What a cap left out, e.g. `"10,000 of 23,456 matches (narrow the pattern)"`.
    pub note: Option<String>,
    /// Anything else the tool says of the value, e.g. that a pattern's slashes were searched
    /// for as characters.
    pub remark: Option<String>,
    /// A note kept only if the program never reads one of some fields of the value.
    pub unless_read: Option<UnlessRead>,
}

/// A note on a tool's value that the program makes moot by reading one of `fields` of it (e.g.
/// a failed command's `exit_code` or `stderr`): noted at the call's site, and taken back at the
/// first read of one of those fields (reading it, printing or returning the value, spreading or
/// serializing it all count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnlessRead {
    /// The fields of the value (an object) whose read takes the note back.
    pub fields: Vec<String>,
    /// The note.
    pub text: String,
}

impl From<serde_json::Value> for Reply {
    fn from(value: serde_json::Value) -> Self {
        Reply {
            value,
            ..Reply::default()
        }
    }
}

/// The host side of a run, implemented by ptc's bridge.
pub trait Host: Send + Sync + 'static {
    /// Called synchronously, in the program's submission order, each time the program calls a tool.
    ///
    /// `args` is already checked to be strict JSON. `Ok(call)` means the call was accepted (its result
    /// is delivered when `call` completes; it may be polled from any thread); `Err(failure)` is a fatal
    /// run failure (e.g. [`FailureKind::CallLimit`](crate::FailureKind::CallLimit)) that ends the run
    /// with that failure.
    ///
    /// This runs inside the JavaScript engine: it must not block.
    fn call_tool(&self, name: &str, args: serde_json::Value) -> Result<HostCall, RunFailure>;

    /// Let the host make progress on its accepted calls from the engine's own thread.
    ///
    /// Engines call this from their event loop before they look for settled calls, with a
    /// waker that wakes the engine; engines whose
    /// [`Engine::polls_host_while_computing`](crate::Engine::polls_host_while_computing) is
    /// `true` also call it every so often while the program computes, and right after
    /// [`Host::call_tool`] accepted a call (so a call that can complete at once does). A host that schedules calls itself (ptc's bridge does) can
    /// then run them right here instead of on another task, saving two thread hand-offs per
    /// call. It must not block; the default does nothing.
    fn poll_progress(&self, cx: &mut Context<'_>) {
        let _ = cx;
    }

    /// A console line the program just printed (and that fit the output limit), for hosts
    /// that show output live. The line is also in the run's report. The default ignores it.
    fn console(&self, level: LogLevel, line: &str) {
        let _ = (level, line);
    }

    /// How long the run has waited for a person so far (an approval, a question), a wait
    /// in progress included. Engines move the run's wall-clock deadline by it: waiting for
    /// a person does not count against the limit. The default is zero.
    fn paused(&self) -> Duration {
        Duration::ZERO
    }

    /// The seed of the run's random numbers (`Math.random`, `crypto.getRandomValues`,
    /// `crypto.randomUUID`), asked once as the run starts. The default is the operating
    /// system's generator; a host that records runs returns the recorded seed.
    fn seed(&self) -> [u8; 32] {
        crate::observed::os_seed()
    }

    /// The clock the program reads (`Date`, `Date.now()`, `performance.now()`): milliseconds
    /// since the Unix epoch. The default is the system clock; a host that replays a run
    /// returns what the recording read. An error (the recording read no clock here) ends the
    /// run.
    fn clock(&self) -> Result<f64, RunFailure> {
        Ok(crate::observed::system_clock())
    }

    /// The order of deliveries, for a host that records or replays runs (see
    /// [`Deliveries`]); the default, `None`, hands over whatever settles as it settles.
    fn deliveries(&self) -> Option<&dyn Deliveries> {
        None
    }
}
