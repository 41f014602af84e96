//! Starting a terminal: the backend spawned inside the sandbox (on the background thread, see
//! [`super::super::tasks`]), where it opens its own PTY (the sandbox's own `devpts` instance
//! with namespaces, so no other session's terminals are visible and its own is not visible to
//! them) and hands the master side back ([`OwnTerminal`]); and the driver that reads the
//! master side until every process is gone.
//!
//! The process tree is the sandbox's: with namespaces the spawned helper leads a process
//! group of its own, and the backend (in a new session, the PTY its controlling terminal) is
//! the child of the namespace's PID 1, so killing that group kills the namespace and
//! everything in it. Without namespaces (or under `danger-full-access`) the spawned process
//! is the backend itself, in a new session; closing kills its group and then every process
//! still in its session (job-control jobs lead groups of their own).

use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::Child;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;

use super::{InUse, State, TermStatus, Terminal};
use crate::builtin::background::Background;
use crate::builtin::background::Caller;
use crate::builtin::bash::signal_name;
use crate::builtin::tasks::{new_id, run_on_host, Resource, Ring};
use crate::sandbox::{self, OwnTerminal, Prepared};
use ptc::ToolError;

/// The window every terminal gets.
const ROWS: u16 = 40;
const COLS: u16 = 120;
/// How long output may still arrive after the backend exited.
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// What to run: a backend's name and its command line.
pub(super) struct Launch {
    pub(super) backend: &'static str,
    pub(super) argv: Vec<String>,
    pub(super) dir: PathBuf,
    pub(super) cwd: String,
    pub(super) name: Option<String>,
}

/// Open a terminal for `owner`, in use by the caller until the guard is dropped.
pub(super) async fn open(
    bg: &Background,
    owner: &Caller,
    launch: Launch,
) -> Result<InUse, ToolError> {
    let store = bg.terminals.owned().clone();
    let limits = *bg.terminals.limits();
    store
        .admit(owner, limits.max_terminals)
        .map_err(ToolError::new)?;
    let (sandbox, hold) = (bg.sandbox.clone(), owner.hold());
    let id = new_id("term", &owner.owner);
    let term = run_on_host(async move {
        let confinement = sandbox
            .prepare()
            .map_err(|e| ToolError::new(format!("cannot set up the sandbox: {e}")))?;
        let isolated = confinement.as_ref().is_some_and(Prepared::isolated);
        let mut command = std::process::Command::new(&launch.argv[0]);
        command
            .args(&launch.argv[1..])
            .current_dir(&launch.dir)
            .env("TERM", "dumb")
            .env("PAGER", "cat")
            .env("GIT_PAGER", "cat")
            .env("PYTHON_BASIC_REPL", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        sandbox::detach(&mut command);
        // With namespaces the PTY is made inside, in the sandbox's own devpts; without, before
        // Landlock, which then leaves every PTY closed to the terminal's processes.
        let own = |command: &mut std::process::Command| {
            OwnTerminal::install(command, ROWS, COLS)
                .map_err(|e| ToolError::new(format!("cannot prepare the PTY: {e}")))
        };
        let own = match &confinement {
            Some(confinement) if isolated => {
                confinement.apply(&mut command);
                own(&mut command)?
            }
            Some(confinement) => {
                let own = own(&mut command)?;
                confinement.apply(&mut command);
                own
            }
            None => own(&mut command)?,
        };
        let child = tokio::process::Command::from(command)
            .spawn()
            .map_err(|e| ToolError::new(format!("cannot start `{}`: {e}", launch.argv[0])))?;
        let master = own.master().map_err(|e| {
            ToolError::new(format!("cannot take the PTY of `{}`: {e}", launch.argv[0]))
        })?;
        let master = Arc::new(File::from(master));
        let now = Instant::now();
        let term = Arc::new(Terminal {
            id,
            backend: launch.backend,
            name: launch.name,
            cwd: launch.cwd,
            started: now,
            isolated,
            master: Mutex::new(Some(master.clone())),
            target: Mutex::new(
                child
                    .id()
                    .and_then(|p| i32::try_from(p).ok())
                    .map(Pid::from_raw),
            ),
            state: Mutex::new(State {
                ring: Ring::new(limits.scrollback_bytes),
                cursor: 0,
                last_output: now,
                last_used: now,
                // terminal_open's own use, ended by the guard it gets.
                busy: 1,
                status: TermStatus::Running,
                closing: None,
                listeners: Vec::new(),
            }),
            changed: watch::channel(0).0,
            closing: CancellationToken::new(),
            finished: CancellationToken::new(),
            limits,
        });
        // A second descriptor of the master side, registered with the runtime for reading.
        let reader = master
            .try_clone()
            .and_then(|dup| pipe::Receiver::from_owned_fd_unchecked(OwnedFd::from(dup)))
            .map_err(|e| ToolError::new(format!("cannot watch the PTY: {e}")))?;
        tokio::spawn(drive(term.clone(), child, reader, confinement, hold));
        Ok::<_, ToolError>(term)
    })
    .await??;
    let term = InUse(term);
    if let Err(e) = store.insert(owner, Arc::clone(&term), limits.max_terminals) {
        term.kill_now("no room for it");
        return Err(ToolError::new(e));
    }
    Ok(term)
}

/// Read the master side until the backend exited and its output is drained (or the drain
/// grace passed), closing on request or expiry and killing what is left when the backend is
/// reaped; then record the end.
async fn drive(
    term: Arc<Terminal>,
    mut child: Child,
    mut master: pipe::Receiver,
    confinement: Option<Prepared>,
    hold: TaskTrackerToken,
) {
    let far = Duration::from_secs(365 * 24 * 3600);
    let mut buf = vec![0u8; 16 * 1024];
    let (mut eof, mut exit) = (false, None);
    let drain = tokio::time::sleep(far);
    let expiry = tokio::time::sleep_until(term.deadline().0.into());
    tokio::pin!(drain, expiry);
    let mut killed = false;
    while !(eof && exit.is_some()) {
        tokio::select! {
            read = master.read(&mut buf), if !eof => match read {
                Ok(0) => eof = true,
                Ok(n) => term.push(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // EIO: no process holds the slave side any more.
                Err(_) => eof = true,
            },
            status = child.wait(), if exit.is_none() => {
                exit = Some(status);
                // Reaped: its number may be taken by another process from now on, so it is
                // never signalled again. With namespaces nothing is left (the namespace ended
                // with the init it waited on); without, what is left of its group and session
                // is killed at once, as `bash` does (the number stays taken while any lives).
                if !term.isolated {
                    term.kill_processes();
                }
                *term.target.lock().unwrap_or_else(|e| e.into_inner()) = None;
                drain.as_mut().reset(tokio::time::Instant::now() + DRAIN_GRACE);
            }
            _ = &mut drain, if exit.is_some() && !eof => eof = true,
            _ = term.closing.cancelled(), if !killed => {
                killed = true;
                term.kill_processes();
            }
            _ = &mut expiry => {
                let (at, why) = term.deadline();
                if at <= Instant::now() {
                    term.close(&why);
                }
                let next = at.max(Instant::now() + Duration::from_secs(1));
                expiry.as_mut().reset(next.into());
            }
        }
    }
    *term.master.lock().unwrap_or_else(|e| e.into_inner()) = None;
    drop(master);
    let status = match (term.lock().closing.clone(), exit) {
        (Some(why), _) => TermStatus::Closed(why),
        (None, Some(Ok(status))) => match (status.code(), status.signal()) {
            (Some(code), _) => TermStatus::Exited(code),
            (None, Some(signal)) => TermStatus::Signaled(signal_name(signal)),
            (None, None) => TermStatus::Signaled("an unknown signal".into()),
        },
        (None, _) => TermStatus::Signaled("a failed wait".into()),
    };
    term.lock().status = status;
    term.bump();
    drop(confinement);
    drop(hold);
    term.finished.cancel();
}

/// SIGKILL every process whose session is `sid` (the backend's session without namespaces).
pub(super) fn kill_session(sid: Pid) {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // Fields after the command name: state ppid pgrp session …
        let session = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split(' ').nth(3))
            .and_then(|s| s.parse::<i32>().ok());
        if session == Some(sid.as_raw()) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}
