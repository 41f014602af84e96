//! Running the `ptc` binary on hostile input: exit status, output and peak memory.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// What one `ptc` process did.
#[derive(Debug)]
pub struct Ran {
    /// Its exit status (a signal, such as an abort, shows here).
    pub status: ExitStatus,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Its peak resident memory, in KiB (the kernel's `ru_maxrss`).
    pub peak_kb: u64,
}

impl Ran {
    /// The exit code; panics (showing stderr) if the process died of a signal, which is
    /// exactly what the hostile suite exists to rule out.
    pub fn code(&self) -> i32 {
        match self.status.code() {
            Some(code) => code,
            None => panic!(
                "ptc died of signal {:?}; stderr:\n{}",
                self.status.signal(),
                tail(&self.stderr)
            ),
        }
    }

    /// Standard output and error together, for assertions about messages.
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// The last 2,000 characters of `text`.
pub fn tail(text: &str) -> &str {
    let mut start = text.len().saturating_sub(2000);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// Run `ptc ARGS` in `dir` with `stdin` as its input.
pub fn ptc(dir: &Path, args: &[&str], stdin: &str) -> Ran {
    ptc_with_env(dir, args, stdin, &[])
}

/// As [`ptc`], with `env` added to its environment.
// The child is reaped by `wait4` (for its peak memory), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
pub fn ptc_with_env(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptc starts");
    let input = stdin.to_string();
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = out.read_to_end(&mut text);
        text
    });
    let mut stderr = Vec::new();
    let _ = err.read_to_end(&mut stderr);
    let stdout = reader.join().expect("the reader thread");
    let _ = writer.join();
    let (status, peak_kb) = wait(child.id());
    Ran {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        peak_kb,
    }
}

/// Reap `pid`, returning its status and peak resident memory (`wait4`).
fn wait(pid: u32) -> (ExitStatus, u64) {
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills in; `pid` is our own child, reaped
    // exactly once here (the `Child` handle is never waited on).
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let reaped = libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage);
        assert_eq!(reaped, pid as libc::pid_t, "wait4 failed");
        usage
    };
    (ExitStatus::from_raw(status), usage.ru_maxrss as u64)
}
