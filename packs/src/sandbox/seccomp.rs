//! The seccomp filter of every sandboxed process.
//!
//! Always: `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)` fail with `EPERM`, so no process can push
//! input into a terminal (its own or, should it ever hold one, the operator's), whatever
//! `dev.tty.legacy_tiocsti` says.
//!
//! When the network is denied: `socket(2)` for any family but `AF_UNIX` fails with
//! `EAFNOSUPPORT` (distinct from a file refusal, so the model's note can say "network"), and
//! `io_uring` with `EPERM` (whose requests could open sockets without the `socket` system
//! call). Everything else is allowed: this filter narrows a few doors; Landlock and the
//! namespaces do the rest.
//!
//! System calls of the x32 ABI always fail with `EPERM`. Those of the 32-bit compat ABI
//! (`int 0x80` on x86-64, AArch32 on arm64) have their `ioctl` checked as above when the
//! network is allowed, and all fail with `EPERM` when it is denied: their `socketcall`
//! multiplexer would need its own rules, and 32-bit programs are rare enough to give up then.

use libc::sock_filter;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;
/// `ioctl` in the 32-bit compat ABIs (i386 and AArch32 alike).
const COMPAT_IOCTL: u32 = 54;

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0_LOW: u32 = 16;
const ARG1_LOW: u32 = 24;

/// `AUDIT_ARCH_X86_64`.
#[cfg(target_arch = "x86_64")]
const NATIVE_ARCH: Option<u32> = Some(0xC000_003E);
/// `AUDIT_ARCH_AARCH64`.
#[cfg(target_arch = "aarch64")]
const NATIVE_ARCH: Option<u32> = Some(0xC000_00B7);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const NATIVE_ARCH: Option<u32> = None;

/// Where a jump goes: the next instruction or a labelled one.
#[derive(Clone, Copy, PartialEq)]
enum To {
    Next,
    Label(&'static str),
}

/// One instruction, its jumps by label until [`assemble`] resolves them.
enum Op {
    Label(&'static str),
    Stmt(u32, u32),
    Jump(u32, u32, To, To),
}

/// Resolve labels into the forward offsets BPF wants.
fn assemble(ops: &[Op]) -> Vec<sock_filter> {
    let mut at = std::collections::HashMap::new();
    let mut n = 0usize;
    for op in ops {
        match op {
            Op::Label(name) => {
                at.insert(*name, n);
            }
            _ => n += 1,
        }
    }
    let offset = |to: To, i: usize| match to {
        To::Next => 0,
        To::Label(name) => u8::try_from(at[name] - i - 1).expect("a short filter"),
    };
    let mut out = Vec::with_capacity(n);
    for op in ops {
        let i = out.len();
        match *op {
            Op::Label(_) => {}
            Op::Stmt(code, k) => out.push(sock_filter {
                code: code as u16,
                jt: 0,
                jf: 0,
                k,
            }),
            Op::Jump(code, k, jt, jf) => out.push(sock_filter {
                code: code as u16,
                jt: offset(jt, i),
                jf: offset(jf, i),
                k,
            }),
        }
    }
    out
}

/// The filter for this architecture (`network`: whether sockets stay allowed), or `None`
/// where ptc does not know its ABI.
pub(super) fn filter(network: bool) -> Option<Vec<sock_filter>> {
    use libc::{BPF_ABS, BPF_JEQ, BPF_JMP, BPF_JSET, BPF_K, BPF_LD, BPF_RET, BPF_W};
    use To::{Label as L, Next};
    let arch = NATIVE_ARCH?;
    let ld = BPF_LD | BPF_W | BPF_ABS;
    let jeq = BPF_JMP | BPF_JEQ | BPF_K;
    let ret = BPF_RET | BPF_K;
    let nr = |n: libc::c_long| n as u32;
    let x32_bit = if cfg!(target_arch = "x86_64") {
        X32_SYSCALL_BIT
    } else {
        0
    };
    let mut ops = vec![
        Op::Stmt(ld, ARCH),
        Op::Jump(jeq, arch, Next, L("compat")),
        Op::Stmt(ld, NR),
        Op::Jump(BPF_JMP | BPF_JSET | BPF_K, x32_bit, L("deny"), Next),
        Op::Jump(jeq, nr(libc::SYS_ioctl), L("ioctl"), Next),
    ];
    if !network {
        ops.extend([
            Op::Jump(jeq, nr(libc::SYS_socket), L("socket"), Next),
            Op::Jump(jeq, nr(libc::SYS_io_uring_setup), L("deny"), Next),
            Op::Jump(jeq, nr(libc::SYS_io_uring_enter), L("deny"), Next),
            Op::Jump(jeq, nr(libc::SYS_io_uring_register), L("deny"), Next),
        ]);
    }
    ops.push(Op::Stmt(ret, libc::SECCOMP_RET_ALLOW));
    ops.push(Op::Label("compat"));
    if network {
        ops.extend([
            Op::Stmt(ld, NR),
            Op::Jump(jeq, COMPAT_IOCTL, L("ioctl"), Next),
            Op::Stmt(ret, libc::SECCOMP_RET_ALLOW),
        ]);
    } else {
        ops.push(Op::Stmt(ret, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32));
        ops.extend([
            Op::Label("socket"),
            Op::Stmt(ld, ARG0_LOW),
            Op::Jump(jeq, libc::AF_UNIX as u32, L("allow"), Next),
            Op::Stmt(ret, libc::SECCOMP_RET_ERRNO | libc::EAFNOSUPPORT as u32),
        ]);
    }
    ops.extend([
        // The request is an `unsigned int` to the kernel: its low 32 bits decide.
        Op::Label("ioctl"),
        Op::Stmt(ld, ARG1_LOW),
        Op::Jump(jeq, libc::TIOCSTI as u32, L("deny"), Next),
        Op::Jump(jeq, libc::TIOCLINUX as u32, L("deny"), L("allow")),
        Op::Label("deny"),
        Op::Stmt(ret, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        Op::Label("allow"),
        Op::Stmt(ret, libc::SECCOMP_RET_ALLOW),
    ]);
    Some(assemble(&ops))
}

#[cfg(test)]
mod tests {
    /// Every jump lands inside the program, and the program ends in a `ret`.
    #[test]
    fn jumps_stay_inside_the_program() {
        for network in [false, true] {
            let Some(prog) = super::filter(network) else {
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
}
