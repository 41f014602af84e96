//! The only unsafe code of the crate: Landlock's system calls, what a sandboxed child
//! does between `fork` and `exec` (a terminal's included), and a terminal's window size.
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

#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::raw::{c_int, c_ulong, c_void};

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
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: path.as_raw_fd(),
    };
    // SAFETY: both fds are open; `attr` is live for the call. Rule type 1 = path beneath.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            1u32,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
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
    /// The seccomp filter (network denied).
    pub seccomp: Option<Vec<libc::sock_filter>>,
}

// SAFETY: `sock_filter` is plain data; the plan is only read.
unsafe impl Send for ChildPlan {}
// SAFETY: as above.
unsafe impl Sync for ChildPlan {}

/// Run in the child between `fork` and `exec` (`Command::pre_exec`). Returns (in the process
/// that is to exec the command) once it is restricted; the helper processes never return.
///
/// # Safety
/// Only call in a freshly forked child: it forks, exits and changes process-wide state.
pub(super) unsafe fn enter(plan: &ChildPlan) -> io::Result<()> {
    // SAFETY (whole body): raw, async-signal-safe system calls on data prepared before fork.
    unsafe {
        default_signals();
        check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL))?;
        if libc::getppid() != plan.parent_pid {
            libc::_exit(1);
        }
        if let Some(ns) = &plan.namespaces {
            if let Some((uid_map, gid_map)) = &ns.user {
                check(libc::unshare(libc::CLONE_NEWUSER))?;
                write_file(c"/proc/self/setgroups", b"deny")?;
                write_file(c"/proc/self/uid_map", uid_map)?;
                write_file(c"/proc/self/gid_map", gid_map)?;
            }
            check(libc::unshare(ns.flags))?;
            let mut pipe = [0 as c_int; 2];
            check(libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC))?;
            match libc::fork() {
                -1 => return Err(io::Error::last_os_error()),
                0 => {
                    libc::close(pipe[0]);
                    init(ns, pipe[1]);
                }
                b => monitor(b, pipe[0]),
            }
        }
        restrict(plan)
    }
}

/// `A`: wait for `B`'s report of the command's status, then end the same way. `A` ignores
/// SIGTERM, so a SIGTERM to the process group (`task_kill`) reaches the command (`B`, the
/// namespace's init, ignores it too) and `A` ends when the command does.
unsafe fn monitor(b: libc::pid_t, status_fd: c_int) -> ! {
    // SAFETY: raw system calls on our own fds and child.
    unsafe {
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        close_all_but(status_fd);
        let mut status: c_int = 0;
        let mut got = 0usize;
        while got < 4 {
            let n = libc::read(
                status_fd,
                (&mut status as *mut c_int as *mut u8).add(got) as *mut c_void,
                4 - got,
            );
            if n > 0 {
                got += n as usize;
            } else if n == 0 || *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
        while libc::waitpid(b, std::ptr::null_mut(), 0) == -1
            && *libc::__errno_location() == libc::EINTR
        {}
        if got < 4 {
            // B died without a report: it was killed (the call is being torn down).
            libc::_exit(125);
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(libc::WEXITSTATUS(status));
    }
}

/// `B`, PID 1 of the new namespace: mount, fork the command, reap, report.
unsafe fn init(ns: &Namespaces, status_fd: c_int) {
    // SAFETY: raw system calls on prepared C strings and our own fds.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            fail(b"ptc sandbox: prctl failed\n");
        }
        for m in &ns.mounts {
            let rc = libc::mount(
                opt_ptr(&m.source),
                m.target.as_ptr(),
                opt_ptr(&m.fstype),
                m.flags,
                opt_ptr(&m.data) as *const c_void,
            );
            if rc != 0 && !m.optional {
                fail(b"ptc sandbox: a mount failed\n");
            }
        }
        let c = libc::fork();
        if c == -1 {
            fail(b"ptc sandbox: fork failed\n");
        }
        if c == 0 {
            libc::close(status_fd);
            return;
        }
        close_all_but(status_fd);
        loop {
            let mut status: c_int = 0;
            let r = libc::waitpid(-1, &mut status, 0);
            if r == c {
                libc::write(status_fd, &status as *const c_int as *const c_void, 4);
                libc::_exit(0);
            }
            if r == -1 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(1);
            }
        }
    }
}

/// No new privileges, no capabilities, then Landlock and seccomp.
unsafe fn restrict(plan: &ChildPlan) -> io::Result<()> {
    // SAFETY: raw system calls; the fd and the filter were prepared before fork.
    unsafe {
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
        for cap in 0..64 {
            // EINVAL past the kernel's last capability.
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let header = [0x2008_0522u32, 0]; // _LINUX_CAPABILITY_VERSION_3, this process
        let data = [0u32; 6];
        check(libc::syscall(libc::SYS_capset, header.as_ptr(), data.as_ptr()) as c_int)?;
        if let Some(ruleset) = &plan.ruleset {
            let fd = ruleset.as_raw_fd();
            check(libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) as c_int)?;
            libc::close(fd);
        }
        if let Some(filter) = &plan.seccomp {
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            check(libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &prog as *const libc::sock_fprog,
            ))?;
        }
        Ok(())
    }
}

/// Every catchable signal back to its default action, none blocked (inherited handlers are
/// ptc's, and would run in the helpers).
unsafe fn default_signals() {
    // SAFETY: sigaction and sigprocmask are async-signal-safe; SIGKILL/SIGSTOP fail harmlessly.
    unsafe {
        for sig in 1..32 {
            libc::signal(sig, libc::SIG_DFL);
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// Close every fd but `keep` (`close_range`, or a bounded loop on kernels before 5.9).
unsafe fn close_all_but(keep: c_int) {
    // SAFETY: closing fds this process owns; nothing in it uses them after this.
    unsafe {
        let keep = keep as u32;
        let low = if keep > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, keep - 1, 0u32)
        } else {
            0
        };
        let high = libc::syscall(libc::SYS_close_range, keep + 1, u32::MAX, 0u32);
        if low != 0 || high != 0 {
            for fd in (0..4096).filter(|&fd| fd != keep as c_int) {
                libc::close(fd);
            }
        }
    }
}

unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, bytes.as_ptr() as *const c_void, bytes.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if n != bytes.len() as isize {
            return Err(err);
        }
        Ok(())
    }
}

/// Say why on the command's stderr and end (the caller sees exit code 126).
unsafe fn fail(message: &[u8]) -> ! {
    // SAFETY: write and _exit are async-signal-safe.
    unsafe {
        libc::write(2, message.as_ptr() as *const c_void, message.len());
        libc::_exit(126);
    }
}

fn opt_ptr(s: &Option<CString>) -> *const libc::c_char {
    s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

fn check(rc: c_int) -> io::Result<()> {
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

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

/// Run [`enter`] in the child of `command` (between `fork` and `exec`).
pub(super) fn install(command: &mut std::process::Command, plan: std::sync::Arc<ChildPlan>) {
    use std::os::unix::process::CommandExt;
    // SAFETY: `enter` only makes async-signal-safe system calls on the plan, which was fully
    // built before fork and is only read.
    unsafe {
        command.pre_exec(move || enter(&plan));
    }
}

/// Make the process that execs `command` a session leader whose controlling terminal is its
/// standard input (`setsid`, `TIOCSCTTY`), between `fork` and `exec`. Installed after the
/// sandbox's [`install`], it runs in the process that execs (the helpers never return).
pub(super) fn controlling_terminal(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid and ioctl are async-signal-safe system calls on no memory of ours.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            check(libc::ioctl(0, libc::TIOCSCTTY, 0))
        });
    }
}

/// Set the window size of the terminal open as `fd` (`TIOCSWINSZ`).
pub(super) fn set_window_size(fd: &impl AsRawFd, rows: u16, cols: u16) -> io::Result<()> {
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: `size` is a live winsize for the call; the fd is open.
    check(unsafe {
        libc::ioctl(
            fd.as_raw_fd(),
            libc::TIOCSWINSZ,
            &size as *const libc::winsize,
        )
    })
}
