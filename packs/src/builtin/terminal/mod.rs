//! Terminals: persistent PTY sessions running a shell or a REPL, kept across calls and
//! `run_code` runs (`terminal_open`, `terminal_send`, `terminal_read`, `terminal_list`,
//! `terminal_signal`, `terminal_close`).
//!
//! A terminal is a PTY whose slave side is the controlling terminal of the backend's
//! process (`setsid`, `TIOCSCTTY`), started in the same kernel sandbox as `bash` (`pty.rs`).
//! Its output goes to a scrollback ring of [`TerminalLimits::scrollback_bytes`]; each
//! terminal keeps one read cursor, so `terminal_send` and `terminal_read` return only what
//! was not read yet. It belongs to the calling [`Owner`], at most
//! [`TerminalLimits::max_terminals`] each, and is closed (every process in it killed) by
//! `terminal_close`, after [`TerminalLimits::idle_timeout`] without a terminal call on it,
//! after [`TerminalLimits::max_lifetime`], when its owner ends, and when ptc exits.

mod answer;
mod io;
mod manage;
mod open;
mod pty;
mod settle;
mod text;

use std::fs::File;
use std::io::Write;
use std::os::fd::AsFd;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub(crate) use io::{read_tool, send_tool};
pub(crate) use manage::{close_tool, list_tool, signal_tool};
pub use open::backend_command;
pub(crate) use open::open_tool;
pub(crate) use text::clean as clean_text;

use super::tasks::{complete_len, Owned, Resource, Ring, Task};
use super::workspace::Workspace;
use ptc::Owner;
use ptc::ToolError;

/// The caps of terminals (`[terminals]` in `ptc.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalLimits {
    /// Terminals one owner may hold (exited ones are forgotten first to make room).
    pub max_terminals: usize,
    /// Output kept per terminal (the newest bytes).
    pub scrollback_bytes: usize,
    /// A terminal no terminal call touched for this long is closed.
    pub idle_timeout: Duration,
    /// A terminal open for this long is closed.
    pub max_lifetime: Duration,
}

impl Default for TerminalLimits {
    fn default() -> Self {
        TerminalLimits {
            max_terminals: 8,
            scrollback_bytes: 8 * 1024 * 1024,
            idle_timeout: Duration::from_secs(30 * 60),
            max_lifetime: Duration::from_secs(4 * 3600),
        }
    }
}

/// Where a terminal stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TermStatus {
    Running,
    Exited(i32),
    Signaled(String),
    /// Closed by ptc (the reason).
    Closed(String),
}

struct State {
    ring: Ring,
    cursor: u64,
    last_output: Instant,
    last_used: Instant,
    /// Terminal calls using it right now (it is not idle meanwhile).
    busy: usize,
    status: TermStatus,
    /// Why ptc is closing it, once it is.
    closing: Option<String>,
    /// Background sends reading along, from the position they started at.
    listeners: Vec<Weak<Task>>,
}

/// One terminal.
pub(crate) struct Terminal {
    id: String,
    backend: &'static str,
    name: Option<String>,
    cwd: String,
    started: Instant,
    /// Whether it runs in namespaces of its own (else its session is hunted down on close).
    isolated: bool,
    master: Mutex<Option<Arc<File>>>,
    /// The spawned process: its process group (and, without namespaces, its session).
    target: Mutex<Option<Pid>>,
    state: Mutex<State>,
    changed: watch::Sender<u64>,
    /// Asks the driver to kill everything.
    closing: CancellationToken,
    /// The driver is done: every process is gone.
    finished: CancellationToken,
    limits: TerminalLimits,
}

impl Terminal {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Its foreground process's directory now (where `cd` left the shell), shown relative
    /// to `ws`'s root; the directory it started in when that cannot be told or lies outside.
    fn cwd_now(&self, ws: &Workspace) -> String {
        let master = self
            .master
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let now = master
            .and_then(|master| nix::unistd::tcgetpgrp(&*master).ok())
            .and_then(|pgrp| std::fs::read_link(format!("/proc/{pgrp}/cwd")).ok());
        match now {
            Some(dir) if dir.starts_with(ws.root()) => ws.display(&dir),
            _ => self.cwd.clone(),
        }
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Output arrived.
    fn push(&self, bytes: &[u8]) {
        let mut state = self.lock();
        state.ring.push(bytes);
        state.last_output = Instant::now();
        state.listeners.retain(|task| match task.upgrade() {
            Some(task) if task.is_running() => {
                task.push(bytes);
                true
            }
            _ => false,
        });
        drop(state);
        self.bump();
    }

    /// Count a terminal call as using it until the guard is dropped (for the idle timeout).
    fn in_use(self: &Arc<Self>) -> InUse {
        let mut state = self.lock();
        state.busy += 1;
        state.last_used = Instant::now();
        drop(state);
        InUse(self.clone())
    }

    fn status(&self) -> TermStatus {
        self.lock().status.clone()
    }

    fn is_running(&self) -> bool {
        self.lock().status == TermStatus::Running
    }

    /// What `[status: …]` says.
    fn status_line(&self) -> String {
        match self.status() {
            TermStatus::Running => "running".into(),
            TermStatus::Exited(code) => format!("exited with code {code}"),
            TermStatus::Signaled(signal) => format!("killed by {signal}"),
            TermStatus::Closed(why) => format!("closed: {why}"),
        }
    }

    /// `running`, `exited`, `killed` or `closed`.
    fn state_name(&self) -> &'static str {
        match self.status() {
            TermStatus::Running => "running",
            TermStatus::Exited(_) => "exited",
            TermStatus::Signaled(_) => "killed",
            TermStatus::Closed(_) => "closed",
        }
    }

    /// The position after the newest output.
    fn end(&self) -> u64 {
        self.lock().ring.end()
    }

    /// Output not read yet (a character cut at the end included).
    fn unread(&self) -> u64 {
        let state = self.lock();
        state.ring.end() - state.cursor
    }

    /// The unread output (cleaned) and the bytes the scrollback dropped before it; the
    /// cursor moves to the end.
    fn take_unread(&self) -> (String, u64) {
        let mut state = self.lock();
        let chunk = state.ring.read(state.cursor, u64::MAX);
        // While it runs, a character cut at the end waits for its rest.
        let keep = match state.status {
            TermStatus::Running => complete_len(&chunk.bytes),
            _ => chunk.bytes.len(),
        };
        state.cursor += chunk.dropped + keep as u64;
        (text::clean(&chunk.bytes[..keep]), chunk.dropped)
    }

    /// All the retained output, cleaned.
    fn retained(&self) -> String {
        let state = self.lock();
        text::clean(&state.ring.read(state.ring.start(), u64::MAX).bytes)
    }

    /// The cleaned text of the last bytes written after `since`.
    fn tail_since(&self, since: u64) -> String {
        let state = self.lock();
        let from = since.max(state.ring.end().saturating_sub(512));
        text::clean(&state.ring.read(from, u64::MAX).bytes)
    }

    /// Whether a newline was written after position `from`.
    fn has_newline(&self, from: u64) -> bool {
        let state = self.lock();
        state.ring.read(from, u64::MAX).bytes.contains(&b'\n')
    }

    /// Make `task` receive every byte written from now on, while it runs.
    fn listen(&self, task: &Arc<Task>) {
        self.lock().listeners.push(Arc::downgrade(task));
    }

    /// Write `bytes` to the terminal's input, waiting while its buffer is full.
    async fn write(&self, mut bytes: &[u8], signal: &CancellationToken) -> Result<(), ToolError> {
        let master = self
            .master
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| ToolError::new("the terminal is closed"))?;
        while !bytes.is_empty() {
            match (&*master).write(bytes) {
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(2)) => {}
                    _ = signal.cancelled() => return Err(ToolError::new("cancelled while writing")),
                },
                Err(e) => return Err(ToolError::new(format!("cannot write to the terminal: {e}"))),
            }
        }
        Ok(())
    }

    /// Whether the terminal's foreground process group is the backend's own (its session's:
    /// the backend leads it), that is no job runs in the foreground; `None` when the terminal
    /// has no foreground group or is gone. Numbers are only compared here, never signalled.
    fn shell_in_foreground(&self) -> Option<bool> {
        let (fg, sid) = self.foreground_and_session()?;
        Some(fg == sid)
    }

    /// The terminal's foreground process group and its session (the backend's), by number, as
    /// the master reports them: only compared or used to read `/proc`, never signalled (the
    /// group may have ended and its number been taken by another process since).
    pub(super) fn foreground_and_session(&self) -> Option<(Pid, Pid)> {
        let master = self.master()?;
        let fg = nix::unistd::tcgetpgrp(&*master).ok()?;
        let sid = nix::sys::termios::tcgetsid(&*master).ok()?;
        Some((fg, sid))
    }

    /// Send `signal` (`SIGINT`, `SIGQUIT` or `SIGTSTP`) to the terminal's foreground process
    /// group as the kernel tracks it ([`crate::sandbox::signal_foreground`]), never to a group
    /// by number: a foreground job that has ended gets nothing, whichever process took its
    /// number since.
    fn signal_foreground(&self, signal: Signal) -> Result<(), String> {
        let master = self.master().ok_or("the terminal is no longer running")?;
        crate::sandbox::signal_foreground(master.as_fd(), signal as i32)
            .map_err(|e| format!("cannot signal the terminal's job: {e}"))
    }

    /// The master side of the PTY, while the terminal runs.
    fn master(&self) -> Option<Arc<File>> {
        self.master
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Start closing (once): every process in the terminal is killed.
    fn close(&self, why: &str) {
        let mut state = self.lock();
        if state.closing.is_none() && state.status == TermStatus::Running {
            state.closing = Some(why.to_string());
        }
        drop(state);
        self.closing.cancel();
    }

    /// Kill every process of the terminal (the driver calls this).
    fn kill_processes(&self) {
        if let Some(pid) = *self.target.lock().unwrap_or_else(|e| e.into_inner()) {
            // `pid` is the backend ptc spawned, the leader of its own process group and
            // session (`setsid`), and the driver clears `target` as soon as it has reaped it:
            // until then an unreaped child's number, and so its group's and session's, cannot
            // be reused, so this kills only the terminal's processes. ESRCH (gone) is fine.
            let _ = killpg(pid, Signal::SIGKILL);
            if !self.isolated {
                pty::kill_session(pid);
            }
        }
    }

    /// When it must close, and why then.
    fn deadline(&self) -> (Instant, String) {
        let state = self.lock();
        let used = match state.busy {
            0 => state.last_used,
            _ => Instant::now(),
        };
        let idle = used + self.limits.idle_timeout;
        let life = self.started + self.limits.max_lifetime;
        if idle <= life {
            let ms = self.limits.idle_timeout.as_millis();
            (idle, format!("idle for {ms} ms (idle_timeout_ms)"))
        } else {
            let ms = self.limits.max_lifetime.as_millis();
            (life, format!("open for {ms} ms (max_lifetime_ms)"))
        }
    }

    /// Wait until every process of the terminal is gone, at most `grace`.
    async fn gone(&self, grace: Duration) -> bool {
        tokio::time::timeout(grace, self.finished.cancelled())
            .await
            .is_ok()
    }

    /// Bytes allocated for the scrollback.
    fn allocated(&self) -> usize {
        self.lock().ring.allocated()
    }
}

/// A terminal used by a call in progress (see [`Terminal::in_use`]).
pub(crate) struct InUse(Arc<Terminal>);

impl std::ops::Deref for InUse {
    type Target = Arc<Terminal>;

    fn deref(&self) -> &Arc<Terminal> {
        &self.0
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.busy = state.busy.saturating_sub(1);
        state.last_used = Instant::now();
    }
}

impl Resource for Terminal {
    fn id(&self) -> &str {
        &self.id
    }

    fn finished(&self) -> bool {
        !self.is_running()
    }

    fn kill_now(&self, why: &str) {
        self.close(why);
    }

    fn label(&self) -> String {
        format!("terminal {} ({})", self.id, self.backend)
    }
}

/// A terminal as the host sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalInfo {
    /// The id the terminal tools take (`sessionId`).
    pub id: String,
    /// The backend (`shell`, `python`, …).
    pub backend: &'static str,
    /// The display name given at open, if any.
    pub name: Option<String>,
    /// What `[status: …]` says, e.g. `running`.
    pub status: String,
    /// Bytes allocated for its scrollback.
    pub scrollback_allocated: usize,
}

/// Every owner's terminals. Cloning shares the store; dropping the last clone closes every
/// terminal in it.
#[derive(Clone)]
pub struct TerminalStore {
    terms: Owned<Terminal>,
    limits: TerminalLimits,
}

impl std::fmt::Debug for TerminalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalStore")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl TerminalStore {
    /// An empty store with these caps.
    pub fn new(limits: TerminalLimits) -> Self {
        TerminalStore {
            terms: Owned::new(("terminal", "terminals")),
            limits,
        }
    }

    /// The caps.
    pub fn limits(&self) -> &TerminalLimits {
        &self.limits
    }

    /// `owner`'s terminals, oldest first.
    pub fn list(&self, owner: &Owner) -> Vec<TerminalInfo> {
        self.terms
            .all_of(&owner.handle())
            .iter()
            .map(|t| TerminalInfo {
                id: t.id.clone(),
                backend: t.backend,
                name: t.name.clone(),
                status: t.status_line(),
                scrollback_allocated: t.allocated(),
            })
            .collect()
    }

    fn owned(&self) -> &Owned<Terminal> {
        &self.terms
    }
}
