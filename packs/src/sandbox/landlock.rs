//! The Landlock ruleset of one sandboxed command, built in the parent.
//!
//! Landlock grants rights on file hierarchies and cannot subtract: a rule on `/` covers
//! everything below it. So reads are granted on `/` when the deny paths are masked by mounts
//! (the usual case), and otherwise on every sibling of each deny path's ancestors (see
//! [`read_grants`]). Writes are granted on the writable directories (the workspace root under
//! `workspace-write`, and the command's private temp dir) and on a few device nodes.
//!
//! Handled but never granted outside the writable set: writing, creating, removing, renaming
//! (`REFER`, ABI 2), truncating (ABI 3); TCP bind and connect when the network is denied (ABI
//! 4); signals to processes outside the sandbox, and abstract unix sockets when the network is
//! denied (scopes, ABI 6). Device `ioctl`s (ABI 5) are not handled.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::sys;

const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
const REFER: u64 = 1 << 13;
const TRUNCATE: u64 = 1 << 14;
/// The rights that apply to a file (not a directory).
const FILE_RIGHTS: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE;
/// Read a file, list a directory, run a program.
pub(super) const READ: u64 = READ_FILE | READ_DIR | EXECUTE;

const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

/// Device nodes every sandboxed command may read and write. Not the host's PTYs
/// (`/dev/pts`, `/dev/ptmx`): with namespaces the sandbox has a `devpts` of its own
/// ([`own_devpts_rules`]); without, PTYs (the operator's, other sessions') stay closed.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// The filesystem rights ABI `abi` handles (device ioctls left out).
fn handled_fs(abi: u32) -> u64 {
    let mut rights = (1 << 13) - 1; // EXECUTE ..= MAKE_SYM
    if abi >= 2 {
        rights |= REFER;
    }
    if abi >= 3 {
        rights |= TRUNCATE;
    }
    rights
}

/// What one ruleset allows.
pub(super) struct Grants<'a> {
    /// Hierarchies readable (and executable).
    pub read: &'a [PathBuf],
    /// Hierarchies writable (every handled right).
    pub write: &'a [PathBuf],
    /// Whether TCP and abstract unix sockets stay allowed.
    pub network: bool,
}

/// Build the ruleset for `grants` on Landlock ABI `abi`. Paths that do not exist are skipped.
pub(super) fn ruleset(abi: u32, grants: &Grants<'_>) -> io::Result<OwnedFd> {
    let fs_rights = handled_fs(abi);
    let net = if !grants.network && abi >= 4 {
        NET_BIND_TCP | NET_CONNECT_TCP
    } else {
        0
    };
    let scoped = match (abi >= 6, grants.network) {
        (false, _) => 0,
        (true, true) => SCOPE_SIGNAL,
        (true, false) => SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET,
    };
    let ruleset = sys::create_ruleset(fs_rights, net, scoped, abi)?;
    for path in grants.read {
        allow(&ruleset, path, READ & fs_rights)?;
    }
    for path in grants.write {
        allow(&ruleset, path, fs_rights)?;
    }
    for device in DEVICES {
        allow(
            &ruleset,
            Path::new(device),
            (READ | WRITE_FILE | TRUNCATE) & fs_rights,
        )?;
    }
    Ok(ruleset)
}

/// The rules for the sandbox's own `devpts` (`/dev/pts` and the `/dev/ptmx` bound to its
/// `ptmx`), which exist only inside its mount namespace: the command's process adds them
/// after the mounts, before it enforces the ruleset (see [`sys::ChildPlan::late_rules`]).
pub(super) fn own_devpts_rules(abi: u32) -> Vec<(CString, u64)> {
    let rights = (READ | WRITE_FILE | TRUNCATE) & handled_fs(abi);
    vec![
        (c"/dev/pts".into(), rights),
        (c"/dev/ptmx".into(), rights & FILE_RIGHTS),
    ]
}

fn allow(ruleset: &OwnedFd, path: &Path, rights: u64) -> io::Result<()> {
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    };
    let rights = if file.metadata()?.is_dir() {
        rights
    } else {
        rights & FILE_RIGHTS
    };
    sys::add_path_rule(ruleset, &OwnedFd::from(file), rights)
}

/// Hierarchies to grant so that everything is readable except `deny` (canonical paths):
/// `/` itself when nothing is denied, else every entry of each ancestor of a deny path that
/// is neither a deny path nor an ancestor of one. The ancestors themselves cannot be listed
/// (a rule on a directory covers all below it), only entered.
pub(super) fn read_grants(deny: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    grant_below(Path::new("/"), deny, &mut out);
    out
}

fn grant_below(dir: &Path, deny: &[PathBuf], out: &mut Vec<PathBuf>) {
    if deny.iter().any(|d| d == dir) {
        return;
    }
    if !deny.iter().any(|d| d.starts_with(dir)) {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Symlinks are resolved at access time and checked where they lead.
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        grant_below(&path, deny, out);
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    #[test]
    fn read_grants_skip_deny_paths_and_their_ancestors() {
        let tmp = std::env::temp_dir().join(format!("ptc-ll-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("a/secret")).unwrap();
        std::fs::create_dir_all(tmp.join("a/open")).unwrap();
        std::fs::write(tmp.join("a/file"), "").unwrap();
        let tmp = std::fs::canonicalize(&tmp).unwrap();
        let grants = super::read_grants(&[tmp.join("a/secret")]);
        assert!(grants.contains(&tmp.join("a/open")));
        assert!(grants.contains(&tmp.join("a/file")));
        assert!(!grants.iter().any(|g| tmp.join("a/secret").starts_with(g)));
        assert_eq!(super::read_grants(&[]), vec![PathBuf::from("/")]);
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
