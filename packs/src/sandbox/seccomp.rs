//! The seccomp filter that denies the network to a sandboxed command: `socket(2)` for any
//! family but `AF_UNIX` fails with `EAFNOSUPPORT` (distinct from a file refusal, so the model's
//! note can say "network"), and `io_uring` with `EPERM` (whose requests could open
//! sockets without the `socket` system call). Everything else is allowed: this filter narrows
//! one door; Landlock and the namespaces do the rest.
//!
//! System calls of a foreign ABI (32-bit x86 `int 0x80`, x32) all fail with `EPERM`: their
//! `socketcall` multiplexer would need its own rules, and 32-bit programs are rare enough to
//! give up under a network-denied sandbox.

use libc::sock_filter;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0_LOW: u32 = 16;

/// `AUDIT_ARCH_X86_64`.
#[cfg(target_arch = "x86_64")]
const NATIVE_ARCH: Option<u32> = Some(0xC000_003E);
/// `AUDIT_ARCH_AARCH64`.
#[cfg(target_arch = "aarch64")]
const NATIVE_ARCH: Option<u32> = Some(0xC000_00B7);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const NATIVE_ARCH: Option<u32> = None;

fn stmt(code: u32, k: u32) -> sock_filter {
    sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u32, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

/// The filter for this architecture, or `None` where ptc does not know its ABI.
pub(super) fn network_filter() -> Option<Vec<sock_filter>> {
    use libc::{BPF_ABS, BPF_JEQ, BPF_JMP, BPF_JSET, BPF_K, BPF_LD, BPF_RET, BPF_W};
    let arch = NATIVE_ARCH?;
    let allow = libc::SECCOMP_RET_ALLOW;
    let deny = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let no_family = libc::SECCOMP_RET_ERRNO | libc::EAFNOSUPPORT as u32;
    let ld = BPF_LD | BPF_W | BPF_ABS;
    let jeq = BPF_JMP | BPF_JEQ | BPF_K;
    let nr = |n: libc::c_long| n as u32;
    // Layout (jump offsets count from the next instruction):
    //  0 ld arch          1 jeq arch ?: DENY(12)   2 ld nr
    //  3 jset x32 ? DENY  4 jeq socket ? SOCK(9)   5-7 jeq io_uring_* ? DENY
    //  8 ret allow        9 ld arg0                10 jeq AF_UNIX ? ALLOW(13)
    // 11 ret no family   12 DENY: ret deny         13 ALLOW: ret allow
    let x32_bit = if cfg!(target_arch = "x86_64") {
        X32_SYSCALL_BIT
    } else {
        0
    };
    Some(vec![
        stmt(ld, ARCH),
        jump(jeq, arch, 0, 10),
        stmt(ld, NR),
        jump(BPF_JMP | BPF_JSET | BPF_K, x32_bit, 8, 0),
        jump(jeq, nr(libc::SYS_socket), 4, 0),
        jump(jeq, nr(libc::SYS_io_uring_setup), 6, 0),
        jump(jeq, nr(libc::SYS_io_uring_enter), 5, 0),
        jump(jeq, nr(libc::SYS_io_uring_register), 4, 0),
        stmt(BPF_RET | BPF_K, allow),
        stmt(ld, ARG0_LOW),
        jump(jeq, libc::AF_UNIX as u32, 2, 0),
        stmt(BPF_RET | BPF_K, no_family),
        stmt(BPF_RET | BPF_K, deny),
        stmt(BPF_RET | BPF_K, allow),
    ])
}

#[cfg(test)]
mod tests {
    /// Every jump lands inside the program and on a `ret` or the next step.
    #[test]
    fn jumps_stay_inside_the_program() {
        let Some(prog) = super::network_filter() else {
            return;
        };
        for (i, ins) in prog.iter().enumerate() {
            if ins.code & 0x07 == libc::BPF_JMP as u16 {
                assert!(i + 1 + (ins.jt as usize) < prog.len());
                assert!(i + 1 + (ins.jf as usize) < prog.len());
            }
        }
        assert_eq!(
            prog.last().unwrap().code,
            (libc::BPF_RET | libc::BPF_K) as u16
        );
    }
}
