//! One journaled run: what it replays and what it records (see the [module docs](super)).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use ptc_engine::{nondeterminism, Deliveries, Delivery, FailureKind, RunFailure};
use serde_json::Value;

use super::{deferred, Batch, Entry, JournalStore, Journaling, Mark, Record, ResultEntry, Start};
use crate::digest::sha256_hex;

/// A recorded reading of the clock or delivery, still to replay.
#[derive(Debug)]
enum Moment {
    Clock { ms: f64, left: u64 },
    Delivery(u64),
}

/// A recorded result: what the program got, the failure's code, and whether it settled
/// only after the program ended.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) result: Result<ptc_engine::Reply, String>,
    pub(crate) code: Option<String>,
    pub(crate) late: bool,
}

/// What the journal says of a sub-call the program makes.
#[derive(Debug)]
pub(crate) enum Recorded {
    /// Its recorded answer: the program gets it without the call being dispatched (never,
    /// when it settled only after the program ended).
    Reply(Answer),
    /// Recorded as started, never as settled, and not safe to repeat.
    InDoubt,
    /// Not recorded (or in doubt and safe to repeat): dispatch it.
    Live,
}

/// What repeating a call would do: how a journal treats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// Nothing: it changes nothing (concurrency-safe). It is journaled lazily, and run
    /// again when a crash left it in doubt.
    Harmless,
    /// Nothing more: the tool does its effect once per idempotency key, which a replay gives
    /// it again. Journaled as it settles (and before it runs when the run's lease may have
    /// lapsed); run again when in doubt.
    Idempotent,
    /// Its effect again. Journaled before it runs and as it settles; in doubt, never run
    /// again.
    Unsafe,
}

/// The journal of one `run_code` run.
pub(crate) struct RunJournal {
    store: Arc<dyn JournalStore>,
    /// The journal's key: the `run_code` call's id.
    run: String,
    live: bool,
    /// The program is not the recorded one: it replays while it makes the recorded calls.
    changed: bool,
    seed: [u8; 32],
    /// How long a result may wait for the next write.
    wait: std::time::Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Entries in the store.
    written: u64,
    /// Entries to write at the next flush.
    pending: Batch,
    /// How far `pending` is written ahead of the store ([`JournalStore::write_ahead`]).
    ahead: Mark,
    /// A result among them waits to be written: by when (see [`deferred`]).
    due: Option<Instant>,
    /// The run is in [`deferred`]'s queue (once at most).
    queued: bool,
    /// The clock readings being recorded: the last one and how many times in a row.
    reading: Option<(f64, u64)>,
    /// Readings and deliveries still to replay, in order.
    timeline: VecDeque<Moment>,
    /// Deliveries the recording holds.
    delivered: HashSet<u64>,
    /// Recorded calls: tool and argument digest.
    calls: HashMap<u64, (String, String)>,
    /// Recorded results.
    results: HashMap<u64, Answer>,
    /// Live calls not yet on record (waiting to be admitted): number, tool, argument digest
    /// and what repeating them would do. A few at a time: a list.
    unadmitted: Vec<(u64, String, String, Repeat)>,
    /// Whether the program's return is recorded (or, live, was).
    returned: bool,
    /// The recorded end: the output and whether it was an error.
    end: Option<(String, bool)>,
}

impl RunJournal {
    /// Open the journal of run `run` (a `run_code` call's id) for a run of `start`'s program,
    /// engine and tools (its `seed` and `at_ms` are used for a new journal only).
    pub(crate) fn open(
        journaling: &Journaling,
        run: &str,
        start: Start,
    ) -> Result<Arc<RunJournal>, RunFailure> {
        let mut entries = journaling.store.load(run).map_err(unwritable)?;
        let ended = entries.iter().any(|e| matches!(e, Entry::End { .. }));
        if journaling.live && !entries.is_empty() && !ended {
            // Continued here: once claimed no other owner writes on, and what the last one
            // wrote before it lost the run is read again.
            journaling.store.claim(run).map_err(unwritable)?;
            entries = journaling.store.load(run).map_err(unwritable)?;
        }
        let mut state = State {
            written: entries.len() as u64,
            ..State::default()
        };
        let mut entries = entries.into_iter();
        let mut changed = false;
        let seed = match entries.next() {
            None if !journaling.live => {
                return Err(nondeterminism(format!("run {run} has no journal")));
            }
            None => {
                // On record before the program runs: any instance can answer for the run, and
                // take it over if this one dies.
                let seed = start.seed.clone();
                journaling
                    .store
                    .append(run, 0, &Batch::of(&[Entry::Start(start)]))
                    .map_err(unwritable)?;
                state.written = 1;
                seed
            }
            Some(Entry::Start(recorded)) => {
                same_run(run, &recorded, &start)?;
                changed = recorded.program != start.program;
                for entry in entries {
                    state.take(entry);
                }
                recorded.seed
            }
            Some(other) => {
                return Err(nondeterminism(format!(
                    "run {run}'s journal does not begin with its start: {other:?}"
                )));
            }
        };
        let seed = hex_seed(&seed)
            .ok_or_else(|| nondeterminism(format!("run {run}'s journal has no usable seed")))?;
        Ok(Arc::new(RunJournal {
            store: journaling.store.clone(),
            run: run.to_string(),
            // A run that ended is only ever replayed.
            live: journaling.live && state.end.is_none(),
            changed,
            seed,
            wait: journaling.wait,
            state: Mutex::new(state),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The run's seed (recorded, or new).
    pub(crate) fn seed(&self) -> [u8; 32] {
        self.seed
    }

    /// A reading of the clock: the recorded one while replaying, else the system clock's (in
    /// whole milliseconds), recorded.
    pub(crate) fn clock(&self) -> Result<f64, RunFailure> {
        let mut state = self.lock();
        match state.timeline.front_mut() {
            Some(Moment::Clock { ms, left }) => {
                let ms = *ms;
                *left -= 1;
                if *left == 0 {
                    state.timeline.pop_front();
                }
                return Ok(ms);
            }
            Some(Moment::Delivery(id)) => {
                return Err(self.diverged(format!(
                    "{}: the program read the clock where its recording hands it call {id}",
                    self.run
                )));
            }
            None => {}
        }
        if !self.live {
            return Err(self.past_recording("read the clock"));
        }
        let ms = crate::session::now_ms() as f64;
        state.reading = match state.reading.take() {
            Some((last, count)) if last == ms => Some((ms, count + 1)),
            Some((last, count)) => {
                state.pending.push(&Entry::Clock { ms: last, count });
                Some((ms, 1))
            }
            None => Some((ms, 1)),
        };
        Ok(ms)
    }

    /// The program makes sub-call `n` of `name` with `args` (`repeat`: what repeating it
    /// would do). A call the journal holds must be the same call.
    pub(crate) fn call(
        &self,
        n: u64,
        name: &str,
        args: &Value,
        repeat: Repeat,
    ) -> Result<Recorded, RunFailure> {
        let digest = args_key(args);
        let mut state = self.lock();
        if let Some((tool, recorded)) = state.calls.get(&n) {
            if tool != name || *recorded != digest {
                let what = if tool != name {
                    format!("calls {tool} there, the program {name}")
                } else {
                    format!("calls {name} there with other arguments")
                };
                return Err(self.diverged(format!("{}:ptc:{n}: the recording {what}", self.run)));
            }
            return Ok(match state.results.get(&n) {
                Some(result) => Recorded::Reply(result.clone()),
                None if !self.live => {
                    return Err(self.past_recording(&format!("call {name} (call {n})")))
                }
                None if repeat != Repeat::Unsafe => Recorded::Live,
                None => Recorded::InDoubt,
            });
        }
        if !self.live {
            return Err(self.past_recording(&format!("call {name} (call {n})")));
        }
        // On record once admitted: a call that waits for a person is not in doubt.
        state.unadmitted.push((n, name.to_string(), digest, repeat));
        Ok(Recorded::Live)
    }

    /// Live sub-call `n` was admitted and is about to run: on record, before it runs when it
    /// may change something. While the run's lease surely holds, that is a write ahead of the
    /// store, appended with the run's next write or soon; else an append, which is also where
    /// an owner that lost the run stops. An idempotent call needs neither while the lease
    /// surely holds: after a crash it runs again under the same idempotency key, on record or
    /// not.
    pub(crate) fn admitted(self: &Arc<Self>, n: u64) -> Result<(), RunFailure> {
        let mut state = self.lock();
        let Some((name, args, repeat)) = state.unadmit(n) else {
            return Ok(());
        };
        state.push(&Entry::Call { n, name, args });
        match repeat {
            Repeat::Harmless => Ok(()),
            Repeat::Idempotent if self.store.holds(&self.run) => Ok(()),
            Repeat::Idempotent => self.flush(&mut state),
            Repeat::Unsafe => {
                let ahead = state.pending.since(state.ahead);
                let from = state.written + state.ahead.len;
                if !self
                    .store
                    .write_ahead(&self.run, from, &ahead)
                    .map_err(unwritable)?
                {
                    return self.flush(&mut state);
                }
                state.ahead = state.pending.mark();
                self.write_soon(state);
                Ok(())
            }
        }
    }

    /// The program ended: what settles from now on settles as the run winds down.
    pub(crate) fn returned(&self) {
        let mut state = self.lock();
        if !state.returned {
            state.returned = true;
            state.push(&Entry::Returned);
        }
    }

    /// Live sub-call `n` settled with `result` and failure `code` (`repeat` as for
    /// [`RunJournal::call`]). A call that may change something has its result written with
    /// the run's next write, or soon ([`deferred`]).
    pub(crate) fn settled(
        self: &Arc<Self>,
        n: u64,
        result: &Result<ptc_engine::Reply, String>,
        code: Option<&str>,
        repeat: Repeat,
    ) -> Result<(), RunFailure> {
        let mut state = self.lock();
        if state.results.contains_key(&n) {
            return Ok(());
        }
        if let Some((name, args, _)) = state.unadmit(n) {
            // Refused or closed before it ran: on record with how it ended.
            state.push(&Entry::Call { n, name, args });
        }
        state.push(&ResultEntry::of(n, result, code));
        if repeat != Repeat::Harmless {
            self.write_soon(state);
        }
        Ok(())
    }

    /// What is pending goes to the store with the run's next write, or once the wait is over.
    fn write_soon(self: &Arc<Self>, mut state: MutexGuard<'_, State>) {
        if state.due.is_some() {
            return;
        }
        let due = Instant::now() + self.wait;
        state.due = Some(due);
        if !std::mem::replace(&mut state.queued, true) {
            drop(state);
            deferred::write_by(self, due);
        }
    }

    /// Taken off [`deferred`]'s queue: write what waits now, or (`Some(now)`) if its wait is
    /// over by `now`; else say until when it waits, to be queued again. A failed write is left
    /// to the run's next one, which reports it.
    pub(super) fn write_waiting(&self, now: Option<Instant>) -> Option<Instant> {
        let mut state = self.lock();
        state.queued = false;
        match (state.due, now) {
            (None, _) => None,
            (Some(due), Some(now)) if now < due => {
                state.queued = true;
                Some(due)
            }
            _ => {
                let _ = self.flush(&mut state);
                None
            }
        }
    }

    /// The run ended with `output`: recorded, or while re-running, compared with the
    /// recorded end.
    pub(crate) fn end(&self, output: &str, is_error: bool) -> Result<(), RunFailure> {
        let mut state = self.lock();
        if let Some((recorded, was_error)) = &state.end {
            if recorded != output || *was_error != is_error {
                return Err(self.diverged(format!(
                    "{}: the run ended with another output than its recording's",
                    self.run
                )));
            }
            return Ok(());
        }
        if !self.live {
            return Err(self.past_recording("end"));
        }
        state.push(&Entry::End {
            output: output.to_string(),
            is_error,
        });
        self.flush(&mut state)
    }

    fn flush(&self, state: &mut State) -> Result<(), RunFailure> {
        // A failed write leaves what waited to the next (a new result starts a new wait).
        state.due = None;
        state.close_reading();
        if state.pending.is_empty() {
            return Ok(());
        }
        self.store
            .append(&self.run, state.written, &state.pending)
            .map_err(unwritable)?;
        state.written += state.pending.len();
        state.pending.clear();
        state.ahead = Mark::default();
        Ok(())
    }

    /// A re-run that goes on past its recording.
    fn past_recording(&self, what: &str) -> RunFailure {
        self.diverged(format!(
            "{}: the program goes on past its recording (it would {what})",
            self.run
        ))
    }

    /// The failure of a replay that went another way than its recording: `message`, and
    /// when the program is not the recorded one, that.
    fn diverged(&self, message: String) -> RunFailure {
        match self.changed {
            true => nondeterminism(format!("{message}; the program is not the recorded one")),
            false => nondeterminism(message),
        }
    }
}

impl Deliveries for RunJournal {
    fn recorded(&self, id: u64) -> bool {
        self.lock().delivered.contains(&id)
    }

    fn next(&self) -> Result<Option<u64>, RunFailure> {
        let state = self.lock();
        match state.timeline.front() {
            Some(Moment::Delivery(id)) => Ok(Some(*id)),
            Some(Moment::Clock { left, .. }) => Err(self.diverged(format!(
                "{}: the program waits where its recording reads the clock {left} more time(s)",
                self.run
            ))),
            // Live, or a recording whose program still waited when its run ended.
            None if self.live || state.returned => Ok(None),
            None => Err(self.past_recording("wait for another call or timer")),
        }
    }

    fn delivered(&self, id: u64, what: Delivery) -> Result<(), RunFailure> {
        let mut state = self.lock();
        if let Some(Moment::Delivery(next)) = state.timeline.front() {
            if *next == id {
                state.timeline.pop_front();
            }
            return Ok(());
        }
        state.push(&Entry::Delivery {
            id,
            timer: what == Delivery::Timer,
        });
        Ok(())
    }
}

impl State {
    /// Take in one recorded entry (after the start).
    fn take(&mut self, entry: Entry) {
        match entry {
            Entry::Start(_) => {}
            Entry::Clock { ms, count } => {
                if count > 0 {
                    self.timeline.push_back(Moment::Clock { ms, left: count });
                }
            }
            Entry::Delivery { id, .. } => {
                self.delivered.insert(id);
                self.timeline.push_back(Moment::Delivery(id));
            }
            Entry::Call { n, name, args } => {
                self.calls.insert(n, (name, args));
            }
            Entry::Result {
                n,
                value,
                note,
                remark,
                unless_read,
                error,
                code,
            } => {
                let result = match error {
                    Some(message) => Err(message),
                    None => Ok(ptc_engine::Reply {
                        value: value.unwrap_or(Value::Null),
                        note,
                        remark,
                        unless_read: unless_read
                            .map(|(fields, text)| ptc_engine::UnlessRead { fields, text }),
                    }),
                };
                let late = self.returned;
                self.results.insert(n, Answer { result, code, late });
            }
            Entry::Returned => self.returned = true,
            Entry::End { output, is_error } => self.end = Some((output, is_error)),
        }
    }

    /// Queue `entry` after the clock readings before it.
    fn push(&mut self, entry: &impl Record) {
        self.close_reading();
        self.pending.push_record(entry);
    }

    /// Queue the clock readings being recorded.
    fn close_reading(&mut self) {
        if let Some((ms, count)) = self.reading.take() {
            self.pending.push(&Entry::Clock { ms, count });
        }
    }

    /// Take live call `n` off the unadmitted: its tool, argument digest and repeat.
    fn unadmit(&mut self, n: u64) -> Option<(String, String, Repeat)> {
        let i = self.unadmitted.iter().position(|(m, ..)| *m == n)?;
        let (_, name, args, repeat) = self.unadmitted.swap_remove(i);
        Some((name, args, repeat))
    }
}

/// What a call's entry keeps of its arguments to tell a replay's from them: their JSON text
/// while it is shorter than a digest (most calls; nothing to hash), else its sha256. Neither
/// form can be taken for the other: a digest is 64 characters long.
fn args_key(args: &Value) -> String {
    let text = ptc_schema::value::to_string_unbounded(args);
    if text.len() < 64 {
        return text;
    }
    sha256_hex(text.as_bytes())
}

/// A recording replays only on the same engine and tools (a changed program replays for as
/// long as it makes the recorded calls).
fn same_run(run: &str, recorded: &Start, now: &Start) -> Result<(), RunFailure> {
    let differs = |what: &str| {
        Err(nondeterminism(format!(
            "{run}: the recording ran on another {what}"
        )))
    };
    if recorded.engine != now.engine {
        return differs(&format!("engine ({})", recorded.engine));
    }
    if recorded.tools != now.tools {
        return differs("set of tools");
    }
    Ok(())
}

/// A journal that cannot be read or written ends the run: it could not be replayed.
fn unwritable(error: super::JournalError) -> RunFailure {
    RunFailure::new(FailureKind::Aborted, error.to_string())
}

/// A seed from its 64 hex digits.
fn hex_seed(hex: &str) -> Option<[u8; 32]> {
    let mut seed = [0; 32];
    if hex.len() != 64 {
        return None;
    }
    for (i, byte) in seed.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(seed)
}

/// A new seed as 64 hex digits.
pub(crate) fn new_seed() -> String {
    crate::digest::hex(&ptc_engine::os_seed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_keeps_short_arguments_as_their_text_and_long_ones_as_its_digest() {
        let short = serde_json::json!({"file_path": "notes.txt"});
        assert_eq!(args_key(&short), r#"{"file_path":"notes.txt"}"#);
        let long = serde_json::json!({"file_path": "a/".repeat(40)});
        let text = ptc_schema::value::to_string_unbounded(&long);
        assert_eq!(args_key(&long), sha256_hex(text.as_bytes()));
        assert_eq!(args_key(&long).len(), 64);
    }
}
