//! What the processes of a sandboxed command do between `fork` and `exec`: `A` monitors,
//! `B` (PID 1 of the namespace) mounts, forks `C` and reaps, `C` restricts itself and execs.

use std::ffi::CString;
use std::io;
use std::os::fd::AsRawFd;
use std::os::raw::{c_int, c_void};

use super::{ChildPlan, Namespaces};

/// Run in the child between `fork` and `exec` (`Command::pre_exec`). Returns (in the process
/// that is to exec the command) once it is restricted; the helper processes never return.
///
/// # Safety
/// Only call in a freshly forked child: it forks, exits and changes process-wide state.
unsafe fn enter(plan: &ChildPlan) -> io::Result<()> {
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
            for (path, access) in &plan.late_rules {
                let target = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                check(target)?;
                let rc = super::add_rule(fd, target, *access);
                libc::close(target);
                check(rc)?;
            }
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
pub(super) unsafe fn close_all_but(keep: c_int) {
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
pub(super) unsafe fn fail(message: &[u8]) -> ! {
    // SAFETY: write and _exit are async-signal-safe.
    unsafe {
        libc::write(2, message.as_ptr() as *const c_void, message.len());
        libc::_exit(126);
    }
}

fn opt_ptr(s: &Option<CString>) -> *const libc::c_char {
    s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

pub(super) fn check(rc: c_int) -> io::Result<()> {
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Run [`enter`] in the child of `command` (between `fork` and `exec`).
pub(in crate::sandbox) fn install(
    command: &mut std::process::Command,
    plan: std::sync::Arc<ChildPlan>,
) {
    use std::os::unix::process::CommandExt;
    // SAFETY: `enter` only makes async-signal-safe system calls on the plan, which was fully
    // built before fork and is only read.
    unsafe {
        command.pre_exec(move || enter(&plan));
    }
}
