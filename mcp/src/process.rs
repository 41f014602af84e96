//! An MCP server's process: spawned as the leader of its own session (so with no controlling
//! terminal: it cannot push input into the operator's with `TIOCSTI`), and stopped and reaped
//! on every path — a graceful stop, a kill after a failed start, and a drop. Its standard error
//! is relayed line by line to ptc's, never handed the operator's terminal itself; on a terminal,
//! its control characters are shown as visible stand-ins ([`ptc::visible`]).
//!
//! The group matters because wrappers such as `npx` start the real server as their own
//! child: signalling the group reaches both. Reaping matters because a child that exits
//! while ptc lives on stays a zombie until it is waited for, and one that ptc leaves
//! running when it exits is an orphan.

use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessSession};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

use super::McpServerSpec;

/// A running server process (the leader of its group) until it has been reaped.
pub(crate) struct ServerProcess {
    child: Option<Box<dyn ChildWrapper>>,
    pgid: Pid,
}

impl ServerProcess {
    /// Start `spec`'s command with piped stdin and stdout (stderr relayed) as the leader
    /// of a new session and process group.
    pub(crate) fn spawn(
        spec: &McpServerSpec,
    ) -> std::io::Result<(ServerProcess, ChildStdout, ChildStdin)> {
        let mut command = tokio::process::Command::new(&spec.command);
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        command
            .args(&spec.args)
            .envs(&spec.env)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            // The last resort when the runtime is already gone at drop time.
            .kill_on_drop(true);
        let mut command = CommandWrap::from(command);
        command.wrap(ProcessSession);
        let mut child = command.spawn()?;
        if let Some(stderr) = child.stderr().take() {
            tokio::spawn(relay_stderr(stderr));
        }
        let pid = child
            .id()
            .ok_or_else(|| std::io::Error::other("the process has no id"))?;
        let stdout = child.stdout().take();
        let stdin = child.stdin().take();
        let process = ServerProcess {
            child: Some(child),
            pgid: Pid::from_raw(pid as i32),
        };
        match (stdout, stdin) {
            (Some(stdout), Some(stdin)) => Ok((process, stdout, stdin)),
            _ => Err(std::io::Error::other("the process has no stdio pipes")),
        }
    }

    /// The leader's process id.
    pub(crate) fn id(&self) -> u32 {
        self.pgid.as_raw() as u32
    }

    /// Stop gracefully, as the MCP specification describes for stdio: the caller has
    /// closed the process's stdin; wait `grace` for it to exit, then send the group
    /// SIGTERM and wait `grace` again, then SIGKILL. Returns once the process is reaped.
    pub(crate) async fn stop(&mut self, grace: Duration) {
        let Some(child) = self.child.as_mut() else {
            return;
        };
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                let _ = Box::into_pin(child.kill()).await;
            }
        }
        self.child = None;
    }

    /// Kill the group at once (SIGKILL) and reap the leader.
    pub(crate) async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Box::into_pin(child.kill()).await;
        }
    }
}

impl Drop for ServerProcess {
    /// Not stopped explicitly (a connection retired after its process died, a future
    /// dropped mid-start): kill the group now — the leader is not reaped yet, so its pid
    /// and group id cannot have been reused — and reap it on the runtime when there is
    /// one (tokio's own orphan reaping otherwise).
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = killpg(self.pgid, Signal::SIGKILL);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = child.wait().await;
            });
        }
    }
}

/// The longest piece of a server's standard error relayed as one write.
const MAX_STDERR_LINE: u64 = 8 * 1024;

/// Copy a server's standard error to ptc's, a line (at most [`MAX_STDERR_LINE`] bytes) at a
/// time, until the server closes it.
async fn relay_stderr(stderr: impl AsyncRead + Unpin) {
    use std::io::Write;
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_STDERR_LINE)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                let out = std::io::stderr();
                let _ = out
                    .lock()
                    .write_all(ptc::visible::for_stream(&text, &out).as_bytes());
            }
        }
    }
}
