//! The kernel sandbox for the processes ptc starts for a program (the `builtin` pack's
//! `bash`, its background tasks and its terminals), on Linux.
//!
//! | mode | reads | writes | network |
//! |---|---|---|---|
//! | `read-only` | everything but the deny paths | the command's private temp dir | denied |
//! | `workspace-write` (default) | everything but the deny paths | the workspace root, extra `writable` paths, the private temp dir | denied |
//! | `danger-full-access` | no sandbox: whatever ptc's user may do | | |
//!
//! `network = true` allows the network in the first two modes. The active configuration file
//! and ptc's trust store are read-only to the command even when they lie inside the root, and
//! none of their ancestors there can be renamed or removed.
//!
//! Mechanisms (see `SECURITY.md`): Landlock for files, TCP and signals (`landlock.rs`); a
//! seccomp filter refusing terminal input injection (`TIOCSTI`, `TIOCLINUX`) and, when the
//! network is denied, socket families (`seccomp.rs`); new PID, mount and network namespaces
//! (inside a user namespace when ptc is not root), where PID 1 is ptc's own small init, so
//! every process the command starts dies with the call, `setsid` included; mounts that mask
//! the deny paths and block devices, bind the protected files read-only and pin their
//! ancestors, and give the sandbox a `devpts` of its own; a session of its own (no controlling
//! terminal, `detach`), a terminal's PTY opened inside the sandbox (`OwnTerminal`); no
//! capabilities and no new privileges. A fresh private temp dir per call is `TMPDIR` and is
//! removed after (`bash` passes its owner's scratch directory instead, kept across calls).
//!
//! Where the kernel lacks Landlock, [`Sandbox::unavailable`] says why and sandboxed modes
//! refuse to run commands; where it gives no namespaces, Landlock and seccomp still apply and
//! [`Sandbox::notice`] says what is lost (descendants that leave the process group survive).

mod landlock;
mod note;
mod plan;
mod seccomp;
mod sys;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;

pub(crate) use plan::Prepared;
pub(crate) use sys::signal_foreground;

/// Make the process `command` spawns leave ptc's session: no controlling terminal (so no
/// `TIOCSTI` into the operator's), a process group of its own (its pid), and no descriptor of
/// ptc's above 2 across `exec`. Call before [`Prepared::apply`].
pub(crate) fn detach(command: &mut std::process::Command) {
    sys::detach(command);
}

/// The PTY a terminal backend opens for itself, inside its sandbox, as its standard streams
/// and controlling terminal; ptc gets the master side from it over a unix socket.
#[derive(Debug)]
pub(crate) struct OwnTerminal {
    ours: std::os::unix::net::UnixStream,
    theirs: Option<std::os::unix::net::UnixStream>,
}

impl OwnTerminal {
    /// Make the process `command` execs open a PTY of `rows`×`cols` for itself. Call after
    /// [`detach`]; after [`Prepared::apply`] when the confinement is
    /// [isolated](Prepared::isolated) (the PTY is made inside, in the sandbox's own `devpts`),
    /// before it otherwise (made before Landlock, which grants no PTY). Then
    /// [`OwnTerminal::master`] once it was spawned.
    pub(crate) fn install(
        command: &mut std::process::Command,
        rows: u16,
        cols: u16,
    ) -> std::io::Result<OwnTerminal> {
        use std::os::fd::AsRawFd;
        let (ours, theirs) = std::os::unix::net::UnixStream::pair()?;
        sys::open_terminal(command, theirs.as_raw_fd(), rows, cols);
        Ok(OwnTerminal {
            ours,
            theirs: Some(theirs),
        })
    }

    /// The master side of the PTY, once `spawn` returned (it waits for the `exec`, and the
    /// PTY was sent before).
    pub(crate) fn master(mut self) -> std::io::Result<std::os::fd::OwnedFd> {
        drop(self.theirs.take());
        sys::receive_fd(&self.ours)
    }
}

/// Credential locations no sandboxed command may read (`~` is the user's home).
pub const DEFAULT_DENY_READ: &[&str] = &[
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.kube",
    "~/.docker",
    "~/.netrc",
    "~/.git-credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
];

/// How much a sandboxed command may do (`[sandbox] mode`, `--sandbox MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Read everything but the deny paths; write only the private temp dir.
    ReadOnly,
    /// As `ReadOnly`, and write inside the workspace root (the default).
    #[default]
    WorkspaceWrite,
    /// No sandbox: the command may do whatever ptc's user may.
    DangerFullAccess,
}

impl SandboxMode {
    /// The name used in configuration, flags and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::DangerFullAccess => "danger-full-access",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SandboxMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "read-only" => Ok(SandboxMode::ReadOnly),
            "workspace-write" => Ok(SandboxMode::WorkspaceWrite),
            "danger-full-access" => Ok(SandboxMode::DangerFullAccess),
            other => Err(format!(
                "unknown sandbox mode `{other}` (expected read-only, workspace-write or \
                 danger-full-access)"
            )),
        }
    }
}

/// What the operator asked for: `[sandbox]` in `ptc.toml` and `--sandbox`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxConfig {
    /// The mode.
    pub mode: SandboxMode,
    /// Paths no command may read, in addition to [`DEFAULT_DENY_READ`].
    pub deny_read: Vec<PathBuf>,
    /// Paths commands may also write under `workspace-write`.
    pub writable: Vec<PathBuf>,
    /// Whether commands may use the network.
    pub network: bool,
    /// Files no tool may change (the active configuration, the trust store).
    pub protected: Vec<PathBuf>,
}

/// `raw` with a leading `~` expanded to the home directory and a relative path joined to `base`.
pub fn expand_path(raw: &str, base: &Path) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (raw.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => base.join(raw),
    }
}

fn canonical(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect()
}

/// `path` with its deepest existing ancestor canonical and the rest kept as written (`None`
/// for a relative path or a `..` past what exists): a protected file that does not exist yet
/// still has a place.
fn canonical_or_planned(path: &Path) -> Option<PathBuf> {
    if let Ok(path) = std::fs::canonicalize(path) {
        return Some(path);
    }
    let (parent, name) = (path.parent()?, path.file_name()?);
    Some(canonical_or_planned(parent)?.join(name))
}

/// What this kernel offers, probed once per process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version, or `None` without Landlock.
    pub landlock_abi: Option<u32>,
    /// Whether new PID, mount and network namespaces can be made (in a user namespace when
    /// not root), with a `devpts` of their own.
    pub namespaces: bool,
}

/// What this kernel offers (probed on first use: one short-lived child process).
pub fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(|| Support {
        landlock_abi: sys::landlock_abi(),
        namespaces: plan::probe_namespaces(),
    })
}

/// The sandbox of one workspace: the operator's policy, resolved against the root.
#[derive(Debug, Clone)]
pub struct Sandbox {
    mode: SandboxMode,
    root: PathBuf,
    deny: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    protected: Vec<PathBuf>,
    network: bool,
}

impl Sandbox {
    /// The sandbox for the canonical workspace `root`. Deny paths are resolved for each
    /// command (one that does not exist then has nothing to hide); one that holds the root is
    /// an error.
    pub fn new(config: &SandboxConfig, root: &Path) -> Result<Sandbox, String> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut deny: Vec<PathBuf> = DEFAULT_DENY_READ
            .iter()
            .filter(|_| home.is_some())
            .map(|raw| expand_path(raw, root))
            .collect();
        deny.extend(config.deny_read.iter().cloned());
        let sandbox = Sandbox {
            mode: config.mode,
            root: root.to_path_buf(),
            deny,
            writable: canonical(&config.writable),
            protected: config
                .protected
                .iter()
                .filter_map(|p| canonical_or_planned(p))
                .collect(),
            network: config.network,
        };
        if let Some(holder) = sandbox
            .deny
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .find(|p| root.starts_with(p))
        {
            return Err(format!(
                "sandbox.deny_read: {} holds the workspace root {}",
                holder.display(),
                root.display()
            ));
        }
        Ok(sandbox)
    }

    /// The deny paths that exist now, canonical, minus any that holds the root.
    fn deny_now(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for path in self
            .deny
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
        {
            if !self.root.starts_with(&path) && !out.contains(&path) {
                out.push(path);
            }
        }
        out
    }

    /// The deny paths as configured (the defaults, then `deny_read`); the file tools deny them too.
    pub fn deny_paths(&self) -> &[PathBuf] {
        &self.deny
    }

    /// The mode.
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// Whether commands may use the network.
    pub fn network(&self) -> bool {
        self.network
    }

    /// The files no tool may change (canonical, or where they would be made).
    pub fn protected(&self) -> &[PathBuf] {
        &self.protected
    }

    /// Why commands cannot run under this mode here (the kernel lacks Landlock), if so.
    pub fn unavailable(&self) -> Option<String> {
        if self.mode == SandboxMode::DangerFullAccess || support().landlock_abi.is_some() {
            return None;
        }
        Some(format!(
            "bash is disabled: this kernel has no Landlock, so the `{}` sandbox cannot be \
             enforced. To run commands unsandboxed, the operator must choose it explicitly \
             (`--sandbox danger-full-access`).",
            self.mode
        ))
    }

    /// What this kernel cannot enforce of the mode, said once by the host, if anything.
    pub fn notice(&self) -> Option<String> {
        if self.mode == SandboxMode::DangerFullAccess {
            return None;
        }
        if let Some(why) = self.unavailable() {
            return Some(why);
        }
        (!support().namespaces).then(|| {
            "the sandbox has no namespaces here (user namespaces are disabled): bash still runs \
             under Landlock and seccomp, but processes that leave its process group (`setsid`) \
             can outlive a call, the active config is protected only by trust, a trust store \
             in a writable directory is not protected, commands cannot open PTYs, and the \
             ancestors of deny paths cannot be listed"
                .to_string()
        })
    }

    /// Set up one command's confinement (its private temp dir, ruleset and mounts), or
    /// `None` under `danger-full-access`.
    pub(crate) fn prepare(&self) -> std::io::Result<Option<Prepared>> {
        self.prepare_with_tmp(None)
    }

    /// As [`Sandbox::prepare`], with `tmp` (writable in the sandbox) as the command's
    /// `TMPDIR` instead of a fresh one (`bash`'s per-owner scratch directory).
    pub(crate) fn prepare_with_tmp(&self, tmp: Option<&Path>) -> std::io::Result<Option<Prepared>> {
        if self.mode == SandboxMode::DangerFullAccess {
            return Ok(None);
        }
        plan::prepare(self, tmp).map(Some)
    }

    /// The note for the model when a sandboxed command failed on what the sandbox forbids,
    /// or went on past a refused file access (`cmd > /tmp/x; echo saved`). A failed
    /// connection may show on `stdout` too (a test runner's report of its failures).
    pub(crate) fn denial_note(&self, failed: bool, stderr: &str, stdout: &str) -> Option<String> {
        if self.mode == SandboxMode::DangerFullAccess {
            return None;
        }
        // A command that went on past a failed connection chose to: only files are said.
        let network = self.network || !failed;
        note::denial(self.mode, network, (stderr, stdout))
    }
}
