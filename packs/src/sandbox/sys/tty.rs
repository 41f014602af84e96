//! The session of the process that execs: no controlling terminal and no inherited descriptor
//! of ptc's (so no terminal of the operator's), or, for a terminal backend, a PTY of its own
//! as controlling terminal, allocated inside the sandbox (in its own `devpts` instance when
//! there are namespaces) and its master side handed back to ptc over a unix socket.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::raw::{c_int, c_void};

use super::child::check;

/// Make the process `command` spawns leave ptc's session (`setsid`: no controlling terminal,
/// a process group of its own) and mark every descriptor above 2 close-on-exec, between `fork`
/// and `exec`. Install it before the sandbox's [`super::install`], so it runs in the spawned
/// process and every process of the sandbox inherits the new session.
pub(in crate::sandbox) fn detach(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid, close_range and fcntl are async-signal-safe system calls on no memory
    // of ours.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            let all = libc::syscall(
                libc::SYS_close_range,
                3u32,
                u32::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
            if all != 0 {
                // Kernels before 5.11: one descriptor at a time.
                for fd in 3..4096 {
                    let flags = libc::fcntl(fd, libc::F_GETFD);
                    if flags != -1 {
                        libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
                    }
                }
            }
            Ok(())
        });
    }
}

/// Give the process that execs `command` a new PTY of `rows`×`cols` as its standard streams
/// and controlling terminal, and send the PTY's master side (non-blocking) over the unix socket `socket`
/// (`SCM_RIGHTS`) before `exec`. Install it after the sandbox's [`super::install`], so that it
/// runs in the sandboxed process that execs (which sees the sandbox's own `/dev/pts`).
pub(in crate::sandbox) fn open_terminal(
    command: &mut std::process::Command,
    socket: c_int,
    rows: u16,
    cols: u16,
) {
    use std::os::unix::process::CommandExt;
    // SAFETY: open, ioctl, sendmsg, setsid, dup2 and close are async-signal-safe system calls
    // on stack memory; nothing is allocated.
    unsafe {
        command.pre_exec(move || {
            let master = libc::open(
                c"/dev/ptmx".as_ptr(),
                libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC | libc::O_NONBLOCK,
            );
            check(master)?;
            let unlock: c_int = 0;
            check(libc::ioctl(master, libc::TIOCSPTLCK, &unlock))?;
            let slave = peer(master)?;
            let size = libc::winsize {
                ws_row: rows,
                ws_col: cols,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            check(libc::ioctl(slave, libc::TIOCSWINSZ, &size))?;
            send_fd(socket, master)?;
            libc::close(master);
            libc::close(socket);
            // A session leader already (no namespaces: `detach` ran in this process) keeps it.
            if libc::getsid(0) != libc::getpid() && libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            check(libc::ioctl(slave, libc::TIOCSCTTY, 0))?;
            for fd in 0..3 {
                check(libc::dup2(slave, fd))?;
            }
            if slave > 2 {
                libc::close(slave);
            }
            Ok(())
        });
    }
}

/// Send `signal` to the foreground process group of the terminal whose master side is
/// `master`, as the kernel tracks it (`TIOCSIG`): the tty holds a reference to the group, not
/// its number, so a group that has ended (whose number another process may have taken since)
/// gets nothing. The kernel accepts `SIGINT`, `SIGQUIT` and `SIGTSTP` only (`EINVAL` else).
pub(crate) fn signal_foreground(master: BorrowedFd<'_>, signal: c_int) -> io::Result<()> {
    // SAFETY: TIOCSIG takes its argument by value, on a descriptor live for the call.
    check(unsafe { libc::ioctl(master.as_raw_fd(), libc::TIOCSIG, signal as libc::c_ulong) })
}

/// The slave side of `master` (`TIOCGPTPEER`, or by its number on kernels before 4.13).
unsafe fn peer(master: c_int) -> io::Result<c_int> {
    // SAFETY: ioctls on our own fd into stack memory; the path is NUL-terminated.
    unsafe {
        let flags = libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC;
        let slave = libc::ioctl(master, libc::TIOCGPTPEER, flags);
        if slave >= 0 {
            return Ok(slave);
        }
        let mut n: libc::c_uint = 0;
        check(libc::ioctl(master, libc::TIOCGPTN, &mut n))?;
        let mut path = *b"/dev/pts/\0\0\0\0\0\0\0\0\0\0\0";
        let mut digits = [0u8; 10];
        let mut len = 0;
        loop {
            digits[len] = b'0' + (n % 10) as u8;
            len += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for i in 0..len {
            path[9 + i] = digits[len - 1 - i];
        }
        let slave = libc::open(path.as_ptr() as *const libc::c_char, flags);
        check(slave)?;
        Ok(slave)
    }
}

/// Send `fd` over the unix socket `socket` (one byte of data, the fd as `SCM_RIGHTS`).
unsafe fn send_fd(socket: c_int, fd: c_int) -> io::Result<()> {
    // SAFETY: every pointer is to stack memory live for the call; the control buffer is
    // aligned for `cmsghdr` and large enough for one fd.
    unsafe {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr() as *mut c_void,
            iov_len: 1,
        };
        let mut control = [0u64; 4];
        let space = libc::CMSG_SPACE(std::mem::size_of::<c_int>() as u32) as usize;
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut c_void;
        msg.msg_controllen = space;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<c_int>() as u32) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg) as *mut c_int, fd);
        if libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL) != 1 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Receive the descriptor [`open_terminal`] sent over `socket`, if it is there now (the
/// sender ran before `exec`, which `spawn` waits for). It is close-on-exec.
pub(in crate::sandbox) fn receive_fd(socket: &impl AsRawFd) -> io::Result<OwnedFd> {
    // SAFETY: every pointer is to stack memory live for the call; the control buffer is
    // aligned for `cmsghdr`; the received fd is new to this process and owned by nothing else.
    unsafe {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr() as *mut c_void,
            iov_len: 1,
        };
        let mut control = [0u64; 8];
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut c_void;
        msg.msg_controllen = std::mem::size_of_val(&control);
        let n = libc::recvmsg(
            socket.as_raw_fd(),
            &mut msg,
            libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
        );
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if n == 0
            || cmsg.is_null()
            || (*cmsg).cmsg_level != libc::SOL_SOCKET
            || (*cmsg).cmsg_type != libc::SCM_RIGHTS
        {
            return Err(io::Error::other("no terminal was handed over"));
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const c_int);
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::{AsFd, AsRawFd};
    use std::os::unix::net::UnixStream;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Command;

    use super::{open_terminal, receive_fd, signal_foreground};

    #[test]
    fn signal_foreground_reaches_the_job_of_the_terminal_and_takes_only_what_a_tty_sends() {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let mut command = Command::new("sleep");
        command.arg("1000");
        open_terminal(&mut command, theirs.as_raw_fd(), 24, 80);
        let mut child = command.spawn().unwrap();
        drop(theirs);
        let master = receive_fd(&ours).unwrap();
        let refused = signal_foreground(master.as_fd(), libc::SIGKILL).unwrap_err();
        assert_eq!(refused.raw_os_error(), Some(libc::EINVAL));
        signal_foreground(master.as_fd(), libc::SIGINT).unwrap();
        assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGINT));
        // The group has ended: the kernel sends to nothing, whatever took its number.
        signal_foreground(master.as_fd(), libc::SIGINT).unwrap();
    }
}
