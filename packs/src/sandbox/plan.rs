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
        flags: libc::MS_BIND | libc::MS_REC,
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

/// The mounts that keep each protected file (the active configuration, the trust store) that
/// lies in a writable tree `W` as it is: every directory between `W` and the file becomes a
/// mount point (a self bind mount: a mount point can be neither renamed nor removed, `EBUSY`),
/// so no ancestor can be moved aside and replaced; then the file is bound read-only, or, when
/// it does not exist, its directory is (made if need be and) bound read-only, so that it
/// cannot be created (unless that directory holds the workspace root, which stays writable).
/// Parents before children, so no mount hides another.
fn protect(sandbox: &Sandbox, writable: &[PathBuf], mounts: &mut Vec<Mount>) -> io::Result<()> {
    // (path, read-only): the pins and the frozen, parents first.
    let mut keep: Vec<(PathBuf, bool)> = Vec::new();
    for path in &sandbox.protected {
        // The outermost writable tree that holds it: every ancestor below it could be moved.
        let tree = writable
            .iter()
            .filter(|w| path.starts_with(w))
            .min_by_key(|w| w.components().count());
        let (Some(tree), Some(dir)) = (tree, path.parent()) else {
            continue;
        };
        if path.is_file() {
            keep.push((path.clone(), true));
        } else if !path.exists() && !sandbox.root.starts_with(dir) {
            fs::create_dir_all(dir)?;
            keep.push((dir.to_path_buf(), true));
        }
        keep.extend(
            dir.ancestors()
                .take_while(|a| *a != tree.as_path() && a.starts_with(tree))
                .map(|a| (a.to_path_buf(), false)),
        );
    }
    // Read-only first among equals, so dedup keeps it.
    keep.sort_by_key(|(p, ro)| (p.components().count(), p.clone(), !ro));
    keep.dedup_by(|b, a| a.0 == b.0);
    for (path, read_only) in &keep {
        if *read_only {
            bind_read_only(path, path, mounts)?;
        } else {
            let dir = cstring(path)?;
            mounts.push(Mount {
                source: Some(dir.clone()),
                target: dir,
                fstype: None,
                flags: libc::MS_BIND | libc::MS_REC,
                data: None,
                optional: false,
            });
        }
    }
    Ok(())
}

/// A `devpts` instance of the sandbox's own on `/dev/pts`, and `/dev/ptmx` its `ptmx`: the
/// PTYs of other sandboxes and of the operator are not there, and those made inside are not
/// seen outside.
fn own_devpts(mounts: &mut Vec<Mount>) {
    if !Path::new("/dev/pts").is_dir() {
        return;
    }
    mounts.push(Mount {
        source: Some(c"devpts".into()),
        target: c"/dev/pts".into(),
        fstype: Some(c"devpts".into()),
        flags: libc::MS_NOSUID | libc::MS_NOEXEC,
        data: Some(c"newinstance,ptmxmode=0666,mode=0620".into()),
        optional: false,
    });
    if Path::new("/dev/ptmx").exists() {
        mounts.push(Mount {
            source: Some(c"/dev/pts/ptmx".into()),
            target: c"/dev/ptmx".into(),
            fstype: None,
            flags: libc::MS_BIND,
            data: None,
            optional: false,
        });
    }
}

/// The mounts PID 1 makes: private propagation, protected files kept (see [`protect`]), deny
/// paths and block devices masked, its own `devpts`, a `/proc` of the new PID namespace.
fn mounts(
    sandbox: &Sandbox,
    deny: &[PathBuf],
    writable: &[PathBuf],
    empty: &Path,
) -> io::Result<Vec<Mount>> {
    let mut out = vec![private_root()];
    protect(sandbox, writable, &mut out)?;
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
    own_devpts(&mut out);
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

/// Mount events stay inside the namespace (`MS_PRIVATE`, recursively from `/`).
fn private_root() -> Mount {
    Mount {
        source: None,
        target: c"/".into(),
        fstype: None,
        flags: libc::MS_REC | libc::MS_PRIVATE,
        data: None,
        optional: false,
    }
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
pub(super) fn prepare(sandbox: &Sandbox, tmp: Option<&Path>) -> io::Result<Prepared> {
    let support = support();
    let abi = support
        .landlock_abi
        .ok_or_else(|| io::Error::other(sandbox.unavailable().unwrap_or_default()))?;
    let dir = private_dir()?;
    let tmp = tmp.map_or_else(|| dir.join("tmp"), Path::to_path_buf);
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
        let late_rules = if namespaces.is_some() && Path::new("/dev/pts").is_dir() {
            landlock::own_devpts_rules(abi)
        } else {
            Vec::new()
        };
        Ok(ChildPlan {
            parent_pid: std::process::id() as libc::pid_t,
            namespaces,
            ruleset: Some(landlock::ruleset(abi, &grants)?),
            late_rules,
            seccomp: seccomp::filter(sandbox.network),
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

/// Whether a child can enter new PID, mount and network namespaces here, and mount a `devpts`
/// of its own there (one `sh -c :`).
pub(super) fn probe_namespaces() -> bool {
    let mut mounts = vec![private_root()];
    own_devpts(&mut mounts);
    let plan = ChildPlan {
        parent_pid: std::process::id() as libc::pid_t,
        namespaces: Some(namespaces(false, mounts)),
        ruleset: None,
        late_rules: Vec::new(),
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
