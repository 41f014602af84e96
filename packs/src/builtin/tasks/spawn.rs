//! `bash` with `run_in_background: true`: the command `bash` would run, in the same sandbox,
//! started on the background thread and driven there until it ends.
//!
//! The driver reads both streams into the task's ring, waits for the shell, and then, as
//! `bash` does, kills what is left of the process group (with namespaces, the shell's end
//! already took every process with it). `task_kill` sends SIGTERM to the group (the
//! sandbox's helper ignores it, so it reaches the command) and SIGKILL after
//! [`KILL_GRACE`]; an ending owner sends SIGKILL at once.

use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio_util::task::task_tracker::TaskTrackerToken;

use super::{new_id, run_on_host, Control, Resource, Status, Task, TaskKind, KILL_GRACE};
use crate::builtin::background::Background;
use crate::builtin::background::Caller;
use crate::builtin::bash::{command, signal_name};
use crate::sandbox::{Prepared, Sandbox};
use ptc::ToolError;

/// How long the pipes may stay open after the group was killed.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// A deadline that never comes.
const FAR: Duration = Duration::from_secs(365 * 24 * 3600);
/// The stderr kept to decide whether the sandbox refused something.
const NOTE_BYTES: usize = 16 * 1024;

/// Start `cmd` in `dir` as `owner`'s background task.
pub(crate) async fn start(
    bg: &Background,
    owner: &Caller,
    dir: PathBuf,
    cmd: String,
    description: String,
) -> Result<Arc<Task>, ToolError> {
    let limits = *bg.tasks.limits();
    let store = bg.tasks.owned();
    store
        .admit(owner, limits.max_tasks)
        .map_err(ToolError::new)?;
    let task = Arc::new(Task::new(
        new_id("task", &owner.owner),
        TaskKind::Bash,
        description,
        limits.max_output_bytes,
        Control::Group(Mutex::new(None)),
    ));
    let (sandbox, hold, driven) = (bg.sandbox.clone(), owner.hold(), task.clone());
    run_on_host(async move {
        // Kept until the task ends: dropping it removes the command's private temp dir.
        let confinement = sandbox
            .prepare()
            .map_err(|e| ToolError::new(format!("cannot set up the sandbox for bash: {e}")))?;
        let mut child = tokio::process::Command::from(command(&dir, &cmd, confinement.as_ref()))
            .spawn()
            .map_err(|e| ToolError::new(format!("cannot start bash: {e}")))?;
        driven.set_group(child.id());
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        tokio::spawn(drive(
            driven,
            child,
            (stdout, stderr),
            confinement,
            sandbox,
            hold,
        ));
        Ok::<_, ToolError>(())
    })
    .await??;
    if let Err(e) = store.insert(owner, task.clone(), limits.max_tasks) {
        task.kill_now("no room for it");
        return Err(ToolError::new(e));
    }
    Ok(task)
}

type Pipes = (
    Option<tokio::process::ChildStdout>,
    Option<tokio::process::ChildStderr>,
);

async fn drive(
    task: Arc<Task>,
    mut child: Child,
    (stdout, stderr): Pipes,
    confinement: Option<Prepared>,
    sandbox: Arc<Sandbox>,
    hold: TaskTrackerToken,
) {
    let (outs, errors) = (Mutex::new(Vec::new()), Mutex::new(Vec::new()));
    let pumps = futures::future::join(pump(stdout, &task, &outs), pump(stderr, &task, &errors));
    tokio::pin!(pumps);
    let mut pumps_done = false;
    let escalate = tokio::time::sleep(FAR);
    tokio::pin!(escalate);
    let mut stopping = false;
    let status = loop {
        tokio::select! {
            status = child.wait() => break status,
            _ = &mut pumps, if !pumps_done => pumps_done = true,
            _ = task.stop.cancelled(), if !stopping => {
                stopping = true;
                escalate.as_mut().reset(tokio::time::Instant::now() + KILL_GRACE);
            }
            _ = &mut escalate, if stopping => {
                task.signal_group(Some(Signal::SIGKILL));
                escalate.as_mut().reset(tokio::time::Instant::now() + FAR);
            }
        }
    };
    // As with `bash`: nothing of the group outlives the shell.
    task.signal_group(Some(Signal::SIGKILL));
    if !pumps_done {
        let _ = tokio::time::timeout(DRAIN_GRACE, &mut pumps).await;
    }
    // The shell is reaped: never signal that pgid again.
    task.signal_group(None);
    let errors = std::mem::take(&mut *errors.lock().unwrap_or_else(|e| e.into_inner()));
    let errors = String::from_utf8_lossy(&errors).into_owned();
    let outs = std::mem::take(&mut *outs.lock().unwrap_or_else(|e| e.into_inner()));
    let outs = String::from_utf8_lossy(&outs).into_owned();
    let (status, note) = match status {
        Ok(status) => (
            match (status.code(), status.signal()) {
                (Some(code), _) => Status::Exited(code),
                (None, Some(signal)) => Status::Signaled(signal_name(signal)),
                (None, None) => Status::Signaled("an unknown signal".into()),
            },
            sandbox.denial_note(!status.success(), &errors, &outs),
        ),
        Err(e) => (Status::Signaled(format!("a failed wait ({e})")), None),
    };
    task.settle(status, note);
    drop(confinement);
    drop(hold);
}

/// Copy `stream` into the task's output, keeping its last [`NOTE_BYTES`] in `tail` too (for
/// the sandbox's note).
async fn pump(stream: Option<impl AsyncRead + Unpin>, task: &Task, tail: &Mutex<Vec<u8>>) {
    let Some(mut stream) = stream else { return };
    let mut chunk = vec![0u8; 16 * 1024];
    while let Ok(n) = stream.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        task.push(&chunk[..n]);
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.extend_from_slice(&chunk[..n]);
        let over = tail.len().saturating_sub(NOTE_BYTES);
        tail.drain(..over);
    }
}
