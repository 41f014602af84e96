//! The only unsafe code of the crate: Landlock's system calls, what a sandboxed child
//! does between `fork` and `exec` (a terminal's included), a terminal's window size and the
//! signal to its foreground job.
//!
//! Everything a child needs is prepared in the parent ([`ChildPlan`]: C strings, the Landlock
//! ruleset fd, the seccomp program); after `fork` the child (`ptc` is multi-threaded) only
//! makes raw system calls: no allocation, no locks, nothing that is not async-signal-safe.
//!
//! With namespaces the spawned process `A` (the one the caller waits on) unshares the PID,
//! mount and network namespaces (and, when not root, a user namespace first), then forks `B`,
//! PID 1 of the new PID namespace. `B` mounts the masks, forks `C`, which restricts itself
//! (no new privileges, no capabilities, Landlock, seccomp) and returns to `exec` the command.
//! `B` reaps every orphan of the namespace and reports `C`'s wait status to `A` through a pipe;
//! `A` ends the same way (exit code or signal). When `B` exits, or is killed with `A`'s process
//! group, the kernel kills every process left in the namespace, `setsid` ones included.
//!
//! Parts: this module holds Landlock's calls and the plan; `child.rs` what `A`, `B` and `C`
//! do; `tty.rs` the session and terminal of the process that execs (no controlling terminal
//! but its own PTY, allocated inside the sandbox).

#![allow(unsafe_code)]

mod child;
mod tty;

pub(super) use child::install;
pub(crate) use tty::signal_foreground;
pub(super) use tty::{detach, open_terminal, receive_fd};

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::raw::{c_int, c_ulong, c_void};

use child::check;

/// Landlock: the ABI version the kernel offers, or `None` without Landlock.
pub(super) fn landlock_abi() -> Option<u32> {
    // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with a null attribute and size 0 only queries.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<c_void>(),
            0usize,
            1u32,
        )
    };
    u32::try_from(abi).ok().filter(|&v| v >= 1)
}

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// Create a ruleset handling these rights; `size` is the attribute size the ABI knows.
pub(super) fn create_ruleset(fs: u64, net: u64, scoped: u64, abi: u32) -> io::Result<OwnedFd> {
    let attr = RulesetAttr {
        handled_access_fs: fs,
        handled_access_net: net,
        scoped,
    };
    let size: usize = match abi {
        1..=3 => 8,
        4 | 5 => 16,
        _ => 24,
    };
    // SAFETY: `attr` is a live, initialized struct of at least `size` bytes.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            size,
            0u32,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = c_int::try_from(fd).map_err(|_| io::Error::other("bad ruleset fd"))?;
    // SAFETY: the kernel just returned this fd, and nothing else owns it.
    Ok(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) })
}

/// Allow `access` beneath the file or directory open as `path` (an `O_PATH` fd).
pub(super) fn add_path_rule(ruleset: &OwnedFd, path: &OwnedFd, access: u64) -> io::Result<()> {
    check(add_rule(ruleset.as_raw_fd(), path.as_raw_fd(), access))
}

/// `landlock_add_rule` for a path beneath `path_fd` (async-signal-safe: the child uses it too).
fn add_rule(ruleset: c_int, path_fd: c_int, access: u64) -> c_int {
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: path_fd,
    };
    // SAFETY: `attr` is live for the call; bad fds are the kernel's to refuse. Rule type 1 =
    // path beneath.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            1u32,
            &attr as *const PathBeneathAttr,
            0u32,
        ) as c_int
    }
}

/// One `mount(2)` a sandbox's PID 1 makes, its strings prepared in the parent.
#[derive(Debug)]
pub(super) struct Mount {
    pub source: Option<CString>,
    pub target: CString,
    pub fstype: Option<CString>,
    pub flags: c_ulong,
    pub data: Option<CString>,
    /// A failure is ignored (e.g. a fresh `/proc` that a user namespace may not mount).
    pub optional: bool,
}

/// The namespaces a sandboxed command runs in.
#[derive(Debug)]
pub(super) struct Namespaces {
    /// `uid_map` and `gid_map` contents when a user namespace is needed (not root).
    pub user: Option<(Vec<u8>, Vec<u8>)>,
    /// `CLONE_NEWPID | CLONE_NEWNS`, plus `CLONE_NEWNET` when the network is denied.
    pub flags: c_int,
    /// Made by PID 1, in order, before the command's process is forked.
    pub mounts: Vec<Mount>,
}

/// Everything a sandboxed child needs, prepared before `fork`.
#[derive(Debug)]
pub(super) struct ChildPlan {
    /// ptc's pid: the child exits at once if ptc is already gone.
    pub parent_pid: libc::pid_t,
    /// `None` when the kernel gives no namespaces: the restrictions still apply.
    pub namespaces: Option<Namespaces>,
    /// The Landlock ruleset to enforce.
    pub ruleset: Option<OwnedFd>,
    /// Rules the command's process adds to the ruleset before enforcing it, for paths that
    /// exist only inside its namespace (its own `devpts`): path and rights.
    pub late_rules: Vec<(CString, u64)>,
    /// The seccomp filter (terminal injection refused; sockets too when the network is denied).
    pub seccomp: Option<Vec<libc::sock_filter>>,
}

// SAFETY: `sock_filter` is plain data; the plan is only read.
unsafe impl Send for ChildPlan {}
// SAFETY: as above.
unsafe impl Sync for ChildPlan {}

/// The mount flags of the mount holding `path` that a bind remount must keep (a user
/// namespace may not drop `nosuid`, `nodev`, `noexec` or the atime flags of a mount it did
/// not make).
pub(super) fn mount_flags(path: &std::ffi::CStr) -> io::Result<c_ulong> {
    // SAFETY: `st` is written by statvfs before it is read; `path` is NUL-terminated.
    let st = unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(path.as_ptr(), &mut st) != 0 {
            return Err(io::Error::last_os_error());
        }
        st
    };
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Ok(pairs
        .iter()
        .filter(|(st_flag, _)| st.f_flag & st_flag != 0)
        .fold(0, |acc, (_, ms)| acc | ms))
}

/// The effective user and group ids of this process.
pub(super) fn ids() -> (u32, u32) {
    // SAFETY: geteuid and getegid cannot fail and touch no memory of ours.
    unsafe { (libc::geteuid(), libc::getegid()) }
}
