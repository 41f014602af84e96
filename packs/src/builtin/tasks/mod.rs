//! Background tasks: `bash` with `run_in_background: true` and `terminal_send` with it,
//! read, listed and stopped with `task_output`, `task_list` and `task_kill`.
//!
//! A task belongs to the [`Owner`] of the call that started it (the MCP session, the
//! `ptc run` process; calls without one belong to the pack's own owner), which alone sees
//! it; at most [`TaskLimits::max_tasks`] per owner. Its output (stdout and stderr
//! interleaved as they arrive) is kept in a ring buffer of [`TaskLimits::max_output_bytes`];
//! each `task_output` returns what arrived since the previous one and says how many bytes
//! the ring dropped before they were read. A background command runs in the same kernel
//! sandbox as `bash` and has no timeout; it is killed (its whole process group, and with
//! namespaces every process it started) when `task_kill` asks (SIGTERM, then SIGKILL after
//! [`KILL_GRACE`]), when its owner ends, and when ptc exits.

mod host;
mod owned;
mod ring;
pub(crate) mod spawn;
pub(crate) mod tools;

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub(crate) use host::{run as run_on_host, spawn as spawn_on_host};
pub(crate) use owned::{new_id, Owned, Resource};
pub(crate) use ring::{complete_len, text, Ring};

use ptc::Owner;

/// How long a task has to stop after `task_kill`'s SIGTERM before it gets SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// The caps of background tasks (`[tasks]` in `ptc.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks one owner may hold (running or finished; the oldest finished one is forgotten to
    /// make room).
    pub max_tasks: usize,
    /// Output kept per task (the newest bytes).
    pub max_output_bytes: usize,
    /// The longest `task_output` or `terminal_read` wait, also the default wait, and how long
    /// `terminal_send` waits at most.
    pub max_wait: Duration,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            max_tasks: 16,
            max_output_bytes: 8 * 1024 * 1024,
            max_wait: Duration::from_secs(30),
        }
    }
}

/// What started a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskKind {
    /// `bash` with `run_in_background`.
    Bash,
    /// `terminal_send` with `run_in_background`.
    Terminal,
}

impl TaskKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            TaskKind::Bash => "bash",
            TaskKind::Terminal => "terminal",
        }
    }
}

/// Where a task stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    Running,
    /// The command exited with this code.
    Exited(i32),
    /// A signal ended the command.
    Signaled(String),
    /// A terminal send settled (the terminal waits for input, or exited).
    Settled(String),
}

/// How a task is stopped.
pub(crate) enum Control {
    /// A process group (the background command's).
    Group(Mutex<Option<Pid>>),
    /// A terminal's foreground job, interrupted (SIGINT).
    Interrupt(Box<dyn Fn() + Send + Sync>),
}

struct State {
    ring: Ring,
    cursor: u64,
    status: Status,
    /// The signal a kill sent and the reason given.
    kill: Option<(&'static str, Option<String>)>,
    /// A note on how the sandbox refused the command.
    note: Option<String>,
    ended: Option<Instant>,
}

/// One background task.
pub(crate) struct Task {
    id: String,
    kind: TaskKind,
    description: String,
    started: Instant,
    state: Mutex<State>,
    changed: watch::Sender<u64>,
    /// A kill was asked for (the driver escalates to SIGKILL after [`KILL_GRACE`]).
    pub(crate) stop: CancellationToken,
    /// The task must end now (its owner ended).
    pub(crate) force: CancellationToken,
    control: Control,
}

/// What one `task_output` read.
pub(crate) struct Read {
    pub(crate) output: String,
    pub(crate) dropped: u64,
}

impl Task {
    /// A running task named `id` (see [`new_id`]) keeping `cap` bytes of output.
    pub(crate) fn new(
        id: String,
        kind: TaskKind,
        description: String,
        cap: usize,
        control: Control,
    ) -> Self {
        Task {
            id,
            kind,
            description,
            started: Instant::now(),
            state: Mutex::new(State {
                ring: Ring::new(cap),
                cursor: 0,
                status: Status::Running,
                kill: None,
                note: None,
                ended: None,
            }),
            changed: watch::channel(0).0,
            stop: CancellationToken::new(),
            force: CancellationToken::new(),
            control,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    pub(crate) fn kind(&self) -> TaskKind {
        self.kind
    }

    pub(crate) fn description(&self) -> &str {
        &self.description
    }

    /// Milliseconds from start to now, or to the end.
    pub(crate) fn runtime_ms(&self) -> u64 {
        let end = self.lock().ended.unwrap_or_else(Instant::now);
        end.duration_since(self.started).as_millis() as u64
    }

    /// Append output.
    pub(crate) fn push(&self, bytes: &[u8]) {
        self.lock().ring.push(bytes);
        self.bump();
    }

    /// Record the end (once).
    pub(crate) fn settle(&self, status: Status, note: Option<String>) {
        let mut state = self.lock();
        if state.status == Status::Running {
            state.status = status;
            state.note = note;
            state.ended = Some(Instant::now());
        }
        drop(state);
        self.bump();
    }

    pub(crate) fn status(&self) -> Status {
        self.lock().status.clone()
    }

    pub(crate) fn is_running(&self) -> bool {
        self.lock().status == Status::Running
    }

    /// Bytes written since the last read.
    pub(crate) fn unread(&self) -> u64 {
        let state = self.lock();
        state.ring.end() - state.cursor
    }

    /// The sandbox's refusal note, once ended.
    pub(crate) fn note(&self) -> Option<String> {
        self.lock().note.clone()
    }

    /// What `[status: …]` says.
    pub(crate) fn status_line(&self) -> String {
        let state = self.lock();
        let reason = state
            .kill
            .as_ref()
            .and_then(|(_, r)| r.as_deref())
            .map(|r| format!(" (reason: {r})"))
            .unwrap_or_default();
        let line = match (&state.status, &state.kill) {
            (Status::Running, None) => "running".to_string(),
            (Status::Running, Some((signal, _))) => format!("running; sent {signal} to stop it"),
            (Status::Exited(code), Some((signal, _))) => {
                format!("killed: exited with code {code} after {signal}")
            }
            (Status::Exited(code), None) => format!("exited with code {code}"),
            (Status::Signaled(signal), _) => format!("killed by {signal}"),
            (Status::Settled(_), Some((signal, _))) => format!("killed by {signal}"),
            (Status::Settled(why), None) => format!("done: {why}"),
        };
        format!("{line}{reason}")
    }

    /// The output since the last read; while running, a character cut at the end waits for
    /// its rest.
    pub(crate) fn read(&self) -> Read {
        let mut state = self.lock();
        let chunk = state.ring.read(state.cursor, u64::MAX);
        let keep = if state.status == Status::Running {
            complete_len(&chunk.bytes)
        } else {
            chunk.bytes.len()
        };
        state.cursor += chunk.dropped + keep as u64;
        let output = match self.kind {
            TaskKind::Bash => text(&chunk.bytes[..keep], chunk.dropped > 0),
            // A terminal's bytes: escape sequences and carriage returns, cleaned as its reads are.
            TaskKind::Terminal => crate::builtin::terminal::clean_text(&chunk.bytes[..keep]),
        };
        Read {
            output,
            dropped: chunk.dropped,
        }
    }

    /// Wait until the task is no longer running, or `signal` fires.
    pub(crate) async fn ended(&self, signal: &CancellationToken) {
        let mut changed = self.changed.subscribe();
        while self.is_running() {
            tokio::select! {
                _ = changed.changed() => {}
                _ = signal.cancelled() => return,
            }
        }
    }

    /// The process group, once spawned.
    pub(crate) fn set_group(&self, pgid: Option<u32>) {
        if let Control::Group(group) = &self.control {
            *group.lock().unwrap_or_else(|e| e.into_inner()) =
                pgid.and_then(|p| i32::try_from(p).ok()).map(Pid::from_raw);
        }
    }

    /// Signal the process group while it may still exist; `None` forgets it (reaped).
    pub(crate) fn signal_group(&self, signal: Option<Signal>) {
        if let Control::Group(group) = &self.control {
            let mut group = group.lock().unwrap_or_else(|e| e.into_inner());
            match signal {
                // ESRCH (the group is gone already) is fine.
                Some(signal) => drop(group.map(|pgid| killpg(pgid, signal))),
                None => *group = None,
            }
        }
    }

    /// Ask the task to stop (`task_kill`); false when it was no longer running.
    /// Whether `task_kill` asked it to stop (it may still be running).
    pub(crate) fn kill_requested(&self) -> bool {
        self.lock().kill.is_some()
    }

    pub(crate) fn request_kill(&self, reason: Option<String>) -> bool {
        let signal = match self.control {
            Control::Group(_) => Signal::SIGTERM,
            Control::Interrupt(_) => Signal::SIGINT,
        };
        {
            let mut state = self.lock();
            if state.status != Status::Running {
                return false;
            }
            state.kill = Some((signal.as_str(), reason));
        }
        match &self.control {
            Control::Group(_) => self.signal_group(Some(signal)),
            Control::Interrupt(interrupt) => interrupt(),
        }
        self.stop.cancel();
        self.bump();
        true
    }
}

impl Resource for Task {
    fn id(&self) -> &str {
        &self.id
    }

    fn finished(&self) -> bool {
        !self.is_running()
    }

    fn label(&self) -> String {
        format!("background task {} ({})", self.id, self.description)
    }

    fn kill_now(&self, why: &str) {
        {
            let mut state = self.lock();
            if state.status != Status::Running {
                return;
            }
            if state.kill.is_none() {
                state.kill = Some(("SIGKILL", Some(why.to_string())));
            }
        }
        self.signal_group(Some(Signal::SIGKILL));
        self.stop.cancel();
        self.force.cancel();
    }
}

/// A task as the host sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    /// The id `task_output` takes.
    pub id: String,
    /// `bash` or `terminal`.
    pub kind: &'static str,
    /// What the model said it does.
    pub description: String,
    /// What `[status: …]` says, e.g. `running` or `exited with code 0`.
    pub status: String,
}

/// Every owner's background tasks. Cloning shares the store; dropping the last clone kills
/// every task in it.
#[derive(Clone)]
pub struct TaskStore {
    tasks: Owned<Task>,
    limits: TaskLimits,
}

impl std::fmt::Debug for TaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskStore")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl TaskStore {
    /// An empty store with these caps.
    pub fn new(limits: TaskLimits) -> Self {
        TaskStore {
            tasks: Owned::new(("background task", "background tasks")),
            limits,
        }
    }

    /// The caps.
    pub fn limits(&self) -> &TaskLimits {
        &self.limits
    }

    /// `owner`'s tasks, oldest first.
    pub fn list(&self, owner: &Owner) -> Vec<TaskInfo> {
        self.tasks
            .all_of(&owner.handle())
            .iter()
            .map(|t| TaskInfo {
                id: t.id().to_string(),
                kind: t.kind.as_str(),
                description: t.description.clone(),
                status: t.status_line(),
            })
            .collect()
    }

    pub(crate) fn owned(&self) -> &Owned<Task> {
        &self.tasks
    }
}
