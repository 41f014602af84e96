//! One sandboxed command's setup, made in the parent: its private directory, its Landlock
//! ruleset, its mounts and seccomp filter, gathered in a [`sys::ChildPlan`].

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::sys::{self, ChildPlan, Mount, Namespaces};
use super::{landlock, seccomp, support, Sandbox, SandboxMode};

/// One command's confinement; its private directory is removed when this is dropped.
#[derive(Debug)]
pub(crate) struct Prepared {
    dir: PathBuf,
    tmp: PathBuf,
    plan: Arc<ChildPlan>,
}

impl Prepared {
    /// Make `command` start confined, with `TMPDIR` set to the private temp dir.
    pub(crate) fn apply(&self, command: &mut std::process::Command) {
        command.env("TMPDIR", &self.tmp);
        sys::install(command, self.plan.clone());
    }

    /// Whether the command runs in its own namespaces (its PID 1 dies with the process that
    /// was spawned, and takes every process of the namespace with it).
    pub(crate) fn isolated(&self) -> bool {
        self.plan.namespaces.is_some()
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        // Iterative, whatever the command nested there; mode-000 directories are opened up.
        let _ = crate::fs_tree::remove_tree(&self.dir);
    }
}

/// A fresh `<temp>/ptc-bash-<pid>-<n>` with `tmp/` (the command's), and `empty` and
/// `empty.d/` (mode 000, the masks bound over denied files and directories: a bind mount
/// costs a fraction of a fresh tmpfs).
fn private_dir() -> io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = fs::canonicalize(std::env::temp_dir())?;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("ptc-bash-{}-{n}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => {
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
                fs::create_dir(dir.join("tmp"))?;
                let empty = dir.join("empty");
                fs::write(&empty, "")?;
                fs::set_permissions(&empty, fs::Permissions::from_mode(0o000))?;
                let empty_dir = dir.join("empty.d");
                fs::create_dir(&empty_dir)?;
                fs::set_permissions(&empty_dir, fs::Permissions::from_mode(0o000))?;
                return Ok(dir);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

fn cstring(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::other(format!("{} contains a NUL byte", path.display())))
}

fn bind_read_only(source: &Path, target: &Path, mounts: &mut Vec<Mount>) -> io::Result<()> {
    let target = cstring(target)?;
    let keep = sys::mount_flags(&target)?;
    mounts.push(Mount {
        source: Some(cstring(source)?),
        target: target.clone(),
        fstype: None,
        flags: libc::MS_BIND,
        data: None,
        optional: false,
    });
    mounts.push(Mount {
        source: None,
        target,
        fstype: None,
        flags: libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | keep,
        data: None,
        optional: false,
    });
    Ok(())
}

/// The mounts PID 1 makes: private propagation, protected files read-only, deny paths and
/// block devices masked, a `/proc` of the new PID namespace.
fn mounts(
    sandbox: &Sandbox,
    deny: &[PathBuf],
    writable: &[PathBuf],
    empty: &Path,
) -> io::Result<Vec<Mount>> {
    let mut out = vec![Mount {
        source: None,
        target: c"/".into(),
        fstype: None,
        flags: libc::MS_REC | libc::MS_PRIVATE,
        data: None,
        optional: false,
    }];
    for file in &sandbox.protected {
        if writable.iter().any(|w| file.starts_with(w)) && file.is_file() {
            bind_read_only(file, file, &mut out)?;
        }
    }
    let devices = fs::read_dir("/dev")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_block_device()))
        .map(|e| e.path());
    for path in deny.iter().cloned().chain(devices) {
        let mask = if path.is_dir() {
            empty.with_extension("d")
        } else {
            empty.to_path_buf()
        };
        bind_read_only(&mask, &path, &mut out)?;
    }
    out.push(Mount {
        source: Some(c"proc".into()),
        target: c"/proc".into(),
        fstype: Some(c"proc".into()),
        flags: libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        data: None,
        optional: true,
    });
    Ok(out)
}

/// The namespaces to enter: a user namespace first unless root.
fn namespaces(network: bool, mounts: Vec<Mount>) -> Namespaces {
    let (uid, gid) = sys::ids();
    let user = (uid != 0).then(|| {
        (
            format!("{uid} {uid} 1\n").into_bytes(),
            format!("{gid} {gid} 1\n").into_bytes(),
        )
    });
    let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS;
    if !network {
        flags |= libc::CLONE_NEWNET;
    }
    Namespaces {
        user,
        flags,
        mounts,
    }
}

/// Build one command's confinement.
pub(super) fn prepare(sandbox: &Sandbox) -> io::Result<Prepared> {
    let support = support();
    let abi = support
        .landlock_abi
        .ok_or_else(|| io::Error::other(sandbox.unavailable().unwrap_or_default()))?;
    let dir = private_dir()?;
    let tmp = dir.join("tmp");
    let mut writable = vec![tmp.clone()];
    if sandbox.mode == SandboxMode::WorkspaceWrite {
        writable.push(sandbox.root.clone());
        writable.extend(sandbox.writable.iter().cloned());
    }
    let deny = sandbox.deny_now();
    let build = || -> io::Result<ChildPlan> {
        let (read, namespaces) = if support.namespaces {
            let mounts = mounts(sandbox, &deny, &writable, &dir.join("empty"))?;
            (
                vec![PathBuf::from("/")],
                Some(namespaces(sandbox.network, mounts)),
            )
        } else {
            (landlock::read_grants(&deny), None)
        };
        let grants = landlock::Grants {
            read: &read,
            write: &writable,
            network: sandbox.network,
        };
        Ok(ChildPlan {
            parent_pid: std::process::id() as libc::pid_t,
            namespaces,
            ruleset: Some(landlock::ruleset(abi, &grants)?),
            seccomp: if sandbox.network {
                None
            } else {
                seccomp::network_filter()
            },
        })
    };
    match build() {
        Ok(plan) => Ok(Prepared {
            dir,
            tmp,
            plan: Arc::new(plan),
        }),
        Err(e) => {
            let _ = fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}

/// Whether a child can enter new PID, mount and network namespaces here (one `sh -c :`).
pub(super) fn probe_namespaces() -> bool {
    let mounts = vec![Mount {
        source: None,
        target: c"/".into(),
        fstype: None,
        flags: libc::MS_REC | libc::MS_PRIVATE,
        data: None,
        optional: false,
    }];
    let plan = ChildPlan {
        parent_pid: std::process::id() as libc::pid_t,
        namespaces: Some(namespaces(false, mounts)),
        ruleset: None,
        seccomp: None,
    };
    let mut command = std::process::Command::new("sh");
    command
        .args(["-c", ":"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    sys::install(&mut command, Arc::new(plan));
    command.status().is_ok_and(|s| s.success())
}
