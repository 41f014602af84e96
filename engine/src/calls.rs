//! The host side of the two raw functions every backend installs, `hostCall` and `hostLog`,
//! minus the engine: accepting a tool call, containing a panicking host, and recording a console
//! line against the output limit. A backend only converts values and throws the returned message.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::FutureExt;

use crate::contain::{contain, contain_async};
use crate::{json, output::Output, stop::Stop, Host, HostCall, LogLevel, Reply, RunFailure};

/// The failure message of a host call whose future panicked (or whose `call_tool` did).
pub(crate) const PANICKED: &str = "the tool call panicked";

/// Bytes counted for every value of a tool call's arguments, on top of its text (a
/// `serde_json::Value` and its share of the container holding it).
pub(crate) const VALUE_BYTES: usize = 48;

/// What the host holds of a run's tool-call arguments: every accepted call's, until it settles,
/// counted against one cap (the run's heap cap). A program cannot make the host hold more for its
/// calls in flight than its own heap may, however often a value is referenced, however many
/// calls wait in the queue.
#[derive(Clone)]
pub(crate) struct Held {
    bytes: Arc<AtomicUsize>,
    cap: usize,
}

/// One call's share of [`Held`], given back when dropped.
pub(crate) struct Share {
    bytes: Arc<AtomicUsize>,
    taken: usize,
}

impl Drop for Share {
    fn drop(&mut self) {
        self.bytes.fetch_sub(self.taken, Ordering::Relaxed);
    }
}

impl Held {
    /// Nothing held yet, at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> Self {
        Held {
            bytes: Arc::default(),
            cap,
        }
    }

    /// Bytes one more call's arguments may take.
    pub(crate) fn room(&self) -> usize {
        self.cap.saturating_sub(self.bytes.load(Ordering::Relaxed))
    }

    /// Take `taken` bytes, or the message the call is refused with.
    fn take(&self, taken: usize) -> Result<Share, String> {
        let before = self.bytes.fetch_add(taken, Ordering::Relaxed);
        let share = Share {
            bytes: self.bytes.clone(),
            taken,
        };
        if before.saturating_add(taken) > self.cap {
            return Err(self.refusal_with(before));
        }
        Ok(share)
    }

    /// Take the share of a tool call's `result` while it waits to be handed to the program
    /// (the arguments' share given back first), or the failure that ends the run: the results of
    /// settled calls the program has not taken yet count against the same cap as the arguments of
    /// calls in flight, so calls that settle faster than the program takes their results cannot
    /// make the host hold more than the program's own heap may.
    pub(crate) fn take_result(&self, result: &serde_json::Value) -> Result<Share, RunFailure> {
        let room = self.room();
        let bytes = value_bytes(result, room);
        match bytes <= room {
            true => self.take(bytes).map_err(|_| self.results_too_large()),
            false => Err(self.results_too_large()),
        }
    }

    fn results_too_large(&self) -> RunFailure {
        let mut failure = RunFailure::heap_exceeded(self.cap);
        failure.message.push_str(
            ": the results of its tool calls not yet handed to it, with the arguments of the \
             calls still in flight, take more (await fewer large results at once)",
        );
        failure
    }

    /// The refusal of arguments past the room left now.
    pub(crate) fn refusal(&self) -> String {
        self.refusal_with(self.bytes.load(Ordering::Relaxed))
    }

    /// The refusal of arguments past the room left while calls holding `held` bytes are in flight.
    fn refusal_with(&self, held: usize) -> String {
        let mut message = format!(
            "arguments are too large: they take more than {} bytes once expanded (a value \
             referenced many times counts each time)",
            self.cap
        );
        if held > 0 {
            message.push_str(&format!(
                "; calls still in flight hold {held} of them, with the results the program has \
                 not taken yet (await some before making more)"
            ));
        }
        message
    }
}

/// A call the host accepted: its future, and what it holds of [`Held`] (none for a timer), which
/// the engine keeps with the pending call and drops when it settles or is dropped unsettled.
pub(crate) struct Accepted {
    /// The host's future.
    pub(crate) call: HostCall,
    /// The arguments' share of [`Held`].
    pub(crate) share: Option<Share>,
}

impl From<HostCall> for Accepted {
    fn from(call: HostCall) -> Self {
        Accepted { call, share: None }
    }
}

/// Hand one tool call to `host`: `args` is the glue's strict JSON text, counted against `held`
/// before it is parsed.
///
/// `Err(message)` is what the program sees thrown: the run is already over, the arguments are not
/// JSON or too large, the host panicked, or the host refused the call (its failure is then
/// recorded in `stop`, which ends the run).
pub(crate) fn accept_json(
    host: &dyn Host,
    stop: &Stop,
    held: &Held,
    name: &str,
    args: &str,
) -> Result<Accepted, String> {
    still_running(stop)?;
    let share = held.take(expanded_bytes(args))?;
    let args = json::parse(args).map_err(|e| format!("arguments are not JSON: {e}"))?;
    accept_held(host, stop, name, args, share)
}

/// Hand one tool call with already-read JSON `args` (`bytes` as [`VALUE_BYTES`] counts them) to
/// `host` (see [`accept_json`]).
pub(crate) fn accept(
    host: &dyn Host,
    stop: &Stop,
    held: &Held,
    name: &str,
    args: serde_json::Value,
    bytes: usize,
) -> Result<Accepted, String> {
    still_running(stop)?;
    let share = held.take(bytes)?;
    accept_held(host, stop, name, args, share)
}

/// A JSON text's bytes as [`VALUE_BYTES`] counts them: its length, and [`VALUE_BYTES`] per value
/// (every `,`, `[` and `{` outside strings starts one more), read without parsing it.
fn expanded_bytes(text: &str) -> usize {
    let (mut values, mut in_string, mut escaped) = (1usize, false, false);
    for &byte in text.as_bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match byte {
                b'"' => in_string = true,
                b',' | b'[' | b'{' => values += 1,
                _ => {}
            }
        }
    }
    text.len()
        .saturating_add(values.saturating_mul(VALUE_BYTES))
}

/// A value's bytes as [`VALUE_BYTES`] counts them (its strings and keys, and [`VALUE_BYTES`] per
/// value), counted without recursion and only until they pass `limit`.
fn value_bytes(value: &serde_json::Value, limit: usize) -> usize {
    use serde_json::Value;
    let mut bytes = 0usize;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        if bytes > limit {
            break;
        }
        bytes = bytes.saturating_add(VALUE_BYTES);
        match value {
            Value::String(text) => bytes = bytes.saturating_add(text.len()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (key, item) in map {
                    bytes = bytes.saturating_add(key.len());
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    bytes
}

/// [`accept`] once the arguments' share is taken (given back at once if the call is refused).
fn accept_held(
    host: &dyn Host,
    stop: &Stop,
    name: &str,
    args: serde_json::Value,
    share: Share,
) -> Result<Accepted, String> {
    match contain(|| host.call_tool(name, args)) {
        Err(_) => Err(PANICKED.to_string()),
        Ok(Ok(call)) => Ok(Accepted {
            call,
            share: Some(share),
        }),
        Ok(Err(failure)) => {
            let message = format!("the run is over ({}): {}", failure.kind, failure.message);
            stop.fail(failure);
            Err(message)
        }
    }
}

/// `Err(message)` once a stop is recorded.
fn still_running(stop: &Stop) -> Result<(), String> {
    match stop.failure() {
        Some(failure) => Err(format!("the run is over ({})", failure.kind)),
        None => Ok(()),
    }
}

/// `call`, with a panic while polling it turned into the [`PANICKED`] failure.
pub(crate) fn contained(call: HostCall) -> impl Future<Output = Result<Reply, String>> + Send {
    contain_async(call).map(|result| result.unwrap_or_else(|_| Err(PANICKED.to_string())))
}

/// Record one console line at the glue's `level` name and show it to the host as it happens
/// ([`Host::console`]).
///
/// `Err(message)` is what the program sees thrown: the run is already over, or the line does not
/// fit (the output-limit failure is then recorded in `stop`, which ends the run).
pub(crate) fn log(
    host: &dyn Host,
    output: &mut Output,
    stop: &Stop,
    level: &str,
    line: String,
) -> Result<(), String> {
    still_running(stop)?;
    let level = LogLevel::from_name(level).unwrap_or(LogLevel::Log);
    match output.log(level, line) {
        Ok(kept) => {
            host.console(level, kept);
            Ok(())
        }
        Err(failure) => {
            let message = failure.message.clone();
            stop.fail(failure);
            Err(message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{expanded_bytes, Held, VALUE_BYTES};

    #[test]
    fn a_json_text_counts_its_values_not_the_punctuation_in_its_strings() {
        for (text, values) in [
            ("1", 1),
            ("[1,2,3]", 4),
            (r#"{"a":[1,{"b":2}]}"#, 5),
            (r#"{"a,[{":"x\",[{\\","b":1}"#, 3),
            (r#"["\\\\",","]"#, 3),
        ] {
            assert_eq!(
                expanded_bytes(text),
                text.len() + values * VALUE_BYTES,
                "{text}"
            );
        }
    }

    #[test]
    fn results_waiting_for_the_program_count_against_the_cap() {
        let held = Held::new(1_000);
        let text = serde_json::Value::String("x".repeat(600));
        let first = held.take_result(&text).unwrap();
        assert_eq!(held.room(), 1_000 - 600 - VALUE_BYTES);
        let failure = held.take_result(&text).err().unwrap();
        assert_eq!(failure.kind, crate::FailureKind::Memory);
        assert!(
            failure.message.contains("heap limit") && failure.message.contains("not yet handed"),
            "{}",
            failure.message
        );
        drop(first);
        assert!(held.take_result(&text).is_ok());
    }

    #[test]
    fn shares_are_given_back_when_dropped() {
        let held = Held::new(100);
        let first = held.take(60).unwrap();
        assert_eq!(held.room(), 40);
        let refused = held.take(41).err().unwrap();
        assert!(
            refused.contains("calls still in flight hold 60"),
            "{refused}"
        );
        assert_eq!(held.room(), 40, "a refused call takes nothing");
        drop(first);
        assert_eq!(held.room(), 100);
        assert!(held.take(100).is_ok());
        assert!(!held.refusal().contains("in flight"));
    }
}
