//! What became of the sub-calls a program left behind.
//!
//! When a program ends, the engine drops the calls it never awaited and reports them as
//! [`Left::Pending`]: it cannot know more. The bridge can, once it has wound the run down:
//! each call's host future carries a guard that notes it when it is dropped unsettled, and
//! each call's end is recorded as it commits (or is abandoned, or closed unstarted). So a
//! call left behind is reported as it really ended: cancelled before it started, stopped
//! while running (it may have taken effect), failed with its own error, or completed with
//! its result unused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use ptc_engine::{Left, LeftBehind};

use crate::error::codes;
use crate::result::{Outcome, ToolExecutionResult};

/// The characters of a failure message kept for the report.
const MAX_MESSAGE_CHARS: usize = 1_000;

/// How one sub-call ended, so far.
#[derive(Debug, Clone)]
enum Fate {
    /// Queued or running.
    Unsettled,
    /// It succeeded.
    Succeeded,
    /// It failed with this message.
    Failed(String),
    /// It was cancelled before its body ran.
    NotStarted,
    /// It was stopped while its body ran.
    Stopped,
}

/// How a call ended: with no error, or with this message and failure code (`NOT_STARTED`
/// for a call closed before it started).
fn fate(error: Option<(&str, Option<&str>)>) -> Fate {
    match error {
        None => Fate::Succeeded,
        Some((_, Some(codes::ABORTED))) => Fate::Stopped,
        Some((_, Some(codes::ABORTED_BEFORE_DISPATCH | NOT_STARTED))) => Fate::NotStarted,
        Some((message, _)) => Fate::Failed(message.chars().take(MAX_MESSAGE_CHARS).collect()),
    }
}

/// The code a journal records for a call closed before it started.
pub(super) const NOT_STARTED: &str = "NOT_STARTED";

/// The fates of one run's sub-calls, by number, and the calls the program dropped unsettled.
#[derive(Default)]
pub(super) struct Fates {
    /// Index `n - 1`.
    fates: Vec<Fate>,
    /// What each call worked on (see [`subject`]), index `n - 1`.
    subjects: Vec<Option<String>>,
    /// `(n, tool)` of the calls whose results the program never took, as they were dropped.
    dropped: Vec<(u64, String)>,
    /// The calls that failed, in the order they committed.
    failed: Vec<Failed>,
    /// How many calls of each tool the program made.
    made: HashMap<String, u64>,
}

/// A call that failed.
struct Failed {
    /// Its number.
    n: u64,
    tool: String,
    message: String,
    /// Its arguments as JSON text (cut at [`MAX_ARGS_CHARS`]).
    args: String,
}

/// The characters of a failed call's arguments kept to name it.
const MAX_ARGS_CHARS: usize = 300;

/// The fates of one run, shared by the host, the schedule and the guards.
pub(super) type SharedFates = Arc<Mutex<Fates>>;

pub(super) fn lock(fates: &SharedFates) -> MutexGuard<'_, Fates> {
    fates.lock().unwrap_or_else(|e| e.into_inner())
}

impl Fates {
    /// Call `n` of `tool` with `args` was queued.
    pub(super) fn queued(&mut self, n: u64, tool: &str, args: &serde_json::Value) {
        debug_assert_eq!(self.fates.len() as u64 + 1, n);
        self.fates.push(Fate::Unsettled);
        self.subjects.push(subject(args));
        match self.made.get_mut(tool) {
            Some(made) => *made += 1,
            None => {
                self.made.insert(tool.to_string(), 1);
            }
        }
    }

    /// Call `n` of `tool` with `args` was answered from its run's journal: its error message
    /// and code if it failed.
    pub(super) fn replayed(
        &mut self,
        n: u64,
        tool: &str,
        args: &serde_json::Value,
        error: Option<(&str, Option<&str>)>,
    ) {
        self.queued(n, tool, args);
        self.settle(n, tool, args, fate(error));
    }

    /// Call `n` of `tool` with `args` committed with `result`.
    pub(super) fn committed(
        &mut self,
        n: u64,
        tool: &str,
        args: &serde_json::Value,
        result: &ToolExecutionResult,
    ) {
        let error = match &result.outcome {
            Outcome::Success { .. } => None,
            Outcome::Failure(f) => Some((f.message.as_str(), f.code())),
        };
        self.settle(n, tool, args, fate(error));
    }

    /// Call `n` of `tool` with `args` ended as `fate`; a failure's arguments are kept to name
    /// it (see [`Fates::failed_call`]).
    fn settle(&mut self, n: u64, tool: &str, args: &serde_json::Value, fate: Fate) {
        if let Fate::Failed(message) = &fate {
            let mut args = ptc_schema::value::to_string_unbounded(args);
            if args.chars().count() > MAX_ARGS_CHARS {
                args = args.chars().take(MAX_ARGS_CHARS).collect::<String>() + "…";
            }
            self.failed.push(Failed {
                n,
                tool: tool.to_string(),
                message: message.clone(),
                args,
            });
        }
        self.set(n, fate);
    }

    /// Which call of `tool` failed with the error `shown` (an uncaught `ToolCallError` as the
    /// run reports it), when the program called `tool` more than once (calls made in a `map`
    /// share one site, which alone cannot say): `the call that failed: read
    /// {"file_path":"src/b.ts"} (one of 3 read calls)`. Of its failed calls whose message
    /// `shown` holds, the first (the first to reject in a `Promise.all`); when others failed
    /// the same way, it says so and names them too, rather than guess.
    pub(super) fn failed_call(&self, tool: &str, shown: &str) -> Option<String> {
        let made = *self.made.get(tool)?;
        if made < 2 {
            return None;
        }
        let mut same = self
            .failed
            .iter()
            .filter(|f| f.tool == tool && shown.contains(f.message.as_str()))
            .map(|f| f.args.as_str());
        let first = same.next()?;
        let mut named =
            format!("the call that failed: {tool} {first} (one of {made} {tool} calls)");
        let others: Vec<&str> = same.filter(|args| *args != first).collect();
        if !others.is_empty() {
            let shown: Vec<&str> = others.iter().take(3).copied().collect();
            let more = match others.len() > 3 {
                true => format!(" and {} more", others.len() - 3),
                false => String::new(),
            };
            named.push_str(&format!(
                "; other {tool} calls failed the same way, so it may have been one of: {}{more}",
                shown.join(", ")
            ));
        }
        Some(named)
    }

    /// Call `n` was closed before it started.
    pub(super) fn closed(&mut self, n: u64) {
        self.set(n, Fate::NotStarted);
    }

    /// Call `n` was abandoned while it ran.
    pub(super) fn abandoned(&mut self, n: u64) {
        self.set(n, Fate::Stopped);
    }

    fn set(&mut self, n: u64, fate: Fate) {
        if let Some(slot) = n
            .checked_sub(1)
            .and_then(|i| self.fates.get_mut(i as usize))
        {
            *slot = fate;
        }
    }

    /// Turn each call the engine reports as [`Left::Pending`] into what became of it: the
    /// engine reports its unsettled calls in submission order, as the guards dropped them, so
    /// the k-th pending call of a tool is the k-th dropped call of that tool. A call with no
    /// such match stays pending. Each call that may have done something gets its subject.
    pub(super) fn explain(&self, left_behind: &mut [LeftBehind]) {
        let mut dropped = self.dropped.clone();
        dropped.sort_unstable_by_key(|(n, _)| *n);
        let mut taken = vec![false; dropped.len()];
        let mut failed_taken = vec![false; self.failed.len()];
        for call in left_behind.iter_mut() {
            if let Left::Failed(message) = &call.left {
                // An unhandled failure: its arguments were kept as it failed.
                let found = (0..self.failed.len()).find(|&i| {
                    let f = &self.failed[i];
                    !failed_taken[i] && f.tool == call.tool && message.contains(&f.message)
                });
                if let Some(i) = found {
                    failed_taken[i] = true;
                    let at = self.failed[i].n as usize - 1;
                    call.subject = self.subjects.get(at).cloned().flatten();
                }
            }
            if call.left != Left::Pending {
                continue;
            }
            let found = (0..dropped.len()).find(|&i| !taken[i] && dropped[i].1 == call.tool);
            let Some(i) = found else { continue };
            taken[i] = true;
            let n = dropped[i].0;
            let at = n as usize - 1;
            if !matches!(self.fates.get(at), Some(Fate::NotStarted)) {
                call.subject = self.subjects.get(at).cloned().flatten();
            }
            call.left = match self.fates.get(at) {
                Some(Fate::Succeeded) => Left::Completed,
                Some(Fate::Failed(message)) => Left::Failed(message.clone()),
                Some(Fate::NotStarted) => Left::NotStarted,
                Some(Fate::Stopped) => Left::Stopped,
                Some(Fate::Unsettled) | None => Left::Pending,
            };
        }
    }
}

/// The characters of a subject's value kept.
const MAX_SUBJECT_CHARS: usize = 40;

/// What a call works on, to tell calls of one tool apart in a report: its first argument
/// whose name says it is a path, URL, command, id or name, as `key "value"`.
fn subject(args: &serde_json::Value) -> Option<String> {
    let named =
        |k: &str| k.contains("path") || matches!(k, "file" | "url" | "command" | "id" | "name");
    let (key, full) = args
        .as_object()?
        .iter()
        .find_map(|(k, v)| Some((k, v.as_str()?)).filter(|(k, _)| named(k)))?;
    let mut value: String = full.chars().take(MAX_SUBJECT_CHARS).collect();
    if value.len() < full.len() {
        value.push('…');
    }
    Some(format!("{key} {}", serde_json::Value::String(value)))
}

/// Held by a call's host future: notes the call as dropped unsettled unless it settled.
pub(super) struct Unsettled {
    pub(super) fates: SharedFates,
    pub(super) n: u64,
    pub(super) tool: String,
    pub(super) settled: bool,
}

impl Drop for Unsettled {
    fn drop(&mut self) {
        if !self.settled {
            let tool = std::mem::take(&mut self.tool);
            lock(&self.fates).dropped.push((self.n, tool));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{fate, subject, Fates};
    use serde_json::json;

    #[test]
    fn a_subject_is_the_path_like_argument_cut_short() {
        let edit = json!({"old_string": "a", "new_string": "b", "file_path": "src/x.js"});
        assert_eq!(subject(&edit).as_deref(), Some("file_path \"src/x.js\""));
        let long = "é".repeat(70);
        let bash = json!({"description": "d", "command": long});
        let want = format!("command \"{}…\"", "é".repeat(40));
        assert_eq!(subject(&bash), Some(want));
        assert_eq!(subject(&json!({"message": "boom"})), None);
        assert_eq!(subject(&json!("text")), None);
    }

    #[test]
    fn a_failed_call_is_named_when_its_tool_was_called_more_than_once_and_its_twins_too() {
        let mut fates = Fates::default();
        let shown = "ToolCallError: add failed at run_code.ts:4:60: /b: expected number";
        fates.queued(1, "add", &json!({}));
        fates.settle(
            1,
            "add",
            &json!({"a": 3, "b": "4"}),
            fate(Some(("/b: expected number", None))),
        );
        assert_eq!(
            fates.failed_call("add", shown),
            None,
            "one call: its site says it"
        );
        fates.queued(2, "add", &json!({}));
        fates.settle(2, "add", &json!({"a": 1, "b": 2}), fate(None));
        assert_eq!(
            fates.failed_call("add", shown).as_deref(),
            Some("the call that failed: add {\"a\":3,\"b\":\"4\"} (one of 2 add calls)")
        );
        fates.queued(3, "add", &json!({}));
        fates.settle(
            3,
            "add",
            &json!({"a": 5, "b": "6"}),
            fate(Some(("/b: expected number", None))),
        );
        assert_eq!(
            fates.failed_call("add", shown).as_deref(),
            Some(
                "the call that failed: add {\"a\":3,\"b\":\"4\"} (one of 3 add calls); other add \
                 calls failed the same way, so it may have been one of: {\"a\":5,\"b\":\"6\"}"
            )
        );
        assert_eq!(fates.failed_call("read", shown), None);
    }
}
