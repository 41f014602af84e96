//! Opening files under the workspace root without a check-then-open race.
//!
//! [`super::Workspace::resolve`] turns what the model wrote into a canonical path: every
//! symlink on it resolved, so the path names only real directories and (maybe) a file. The
//! tools then open that path relative to a directory descriptor of the root, following no
//! symlink at all (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`): if a program swapped
//! a component for a symlink after the check, the open fails (`ELOOP`) instead of going where
//! the link points, and nothing outside the root can be reached whatever happens meanwhile.
//! The tool then checks what it opened (its type and size by `fstat`, its real path through
//! `/proc/self/fd`) and reads or writes only through that descriptor.
//!
//! Kernels without `openat2` (before 5.6, or a seccomp profile that refuses it with `ENOSYS`
//! or `EPERM`) get the same guarantees from a walk: one `openat(O_NOFOLLOW)` per component,
//! each relative to the directory opened before it.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{mkdirat, openat, openat2, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// A directory descriptor of the workspace root, opened once.
#[derive(Debug)]
pub(crate) struct Beneath {
    root: OwnedFd,
}

/// How a tool opens a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read it (`read`, `grep`).
    Read,
    /// Read and rewrite it in place (`edit`).
    ReadWrite,
    /// Write it (and read what it held), creating it if it is missing (`write`); never
    /// truncated by the open.
    Create,
    /// Only look at it (`glob`: its type and modification time).
    Look,
}

impl Access {
    fn flags(self) -> OFlags {
        let path = OFlags::CLOEXEC | OFlags::NOFOLLOW;
        // Non-blocking, so a FIFO swapped in cannot hang the open; the opener checks the type.
        let io = path | OFlags::NOCTTY | OFlags::NONBLOCK;
        match self {
            Access::Read => io | OFlags::RDONLY,
            Access::ReadWrite => io | OFlags::RDWR,
            // Read too: `write` shows what it replaced.
            Access::Create => io | OFlags::RDWR | OFlags::CREATE,
            // openat2 takes no other flag with O_PATH.
            Access::Look => path | OFlags::PATH,
        }
    }
}

impl Beneath {
    /// Open the directory `root` (canonical) for opening below it.
    pub(crate) fn new(root: &Path) -> io::Result<Self> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(Beneath {
            root: rustix::fs::open(root, flags, Mode::empty())?,
        })
    }

    /// Open `rel` (relative to the root, no `..`, no symlinks: a canonical path's tail) for
    /// `access`, following no symlink anywhere on the way and never leaving the root.
    pub(crate) fn open(&self, rel: &Path, access: Access) -> io::Result<File> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let flags = access.flags();
        // openat2 refuses a mode without O_CREAT.
        let mode = match access {
            Access::Create => Mode::from_bits_truncate(0o666),
            _ => Mode::empty(),
        };
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        let mut tries = 0;
        loop {
            match openat2(&self.root, rel, flags, mode, resolve) {
                Ok(fd) => return Ok(File::from(fd)),
                // No openat2 here: the same guarantees, one component at a time.
                Err(Errno::NOSYS) | Err(Errno::PERM) => return self.walk(rel, flags, mode),
                // A rename raced the lookup: the kernel asks to try again.
                Err(Errno::AGAIN) if tries < 16 => tries += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// [`Beneath::open`] by hand: each directory opened with `O_NOFOLLOW` relative to the last.
    fn walk(&self, rel: &Path, flags: OFlags, mode: Mode) -> io::Result<File> {
        let names = names(rel)?;
        let Some((last, dirs)) = names.split_last() else {
            let dir = openat(&self.root, ".", flags, mode)?;
            return Ok(File::from(dir));
        };
        let mut dir: Option<OwnedFd> = None;
        for name in dirs {
            let at = dir.as_ref().map_or(self.root.as_fd(), |d| d.as_fd());
            dir = Some(openat(at, *name, dir_flags(), Mode::empty())?);
        }
        let at = dir.as_ref().map_or(self.root.as_fd(), |d| d.as_fd());
        Ok(File::from(openat(at, *last, flags, mode)?))
    }

    /// Create the directories of `rel` that are missing (as `mkdir -p`), each relative to the
    /// one before it and none through a symlink.
    pub(crate) fn make_dirs(&self, rel: &Path) -> io::Result<()> {
        let mut dir: Option<OwnedFd> = None;
        for name in names(rel)? {
            let at = dir.as_ref().map_or(self.root.as_fd(), |d| d.as_fd());
            match mkdirat(at, name, Mode::from_bits_truncate(0o777)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            dir = Some(openat(at, name, dir_flags(), Mode::empty())?);
        }
        Ok(())
    }
}

fn dir_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// The plain names of `rel`; anything else (`..`, a root) is refused.
fn names(rel: &Path) -> io::Result<Vec<&std::ffi::OsStr>> {
    rel.components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a plain path below the root",
            )),
        })
        .collect()
}

/// Whether an open failed because the path changed under it (a symlink or a non-directory
/// where a directory was, or a step out of the root): worth resolving the path again.
pub(crate) fn raced(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ELOOP) | Some(libc::ENOTDIR) | Some(libc::EXDEV)
    )
}

/// Where the open file `file` really is, as the kernel tells (`/proc/self/fd/N`); `None`
/// without `/proc`.
pub(crate) fn real_path(file: &File) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_symlink_is_followed_and_nothing_outside_is_reached() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), "inside").unwrap();
        std::fs::write(dir.path().join("secret"), "outside").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("out")).unwrap();
        std::os::unix::fs::symlink("sub/a.txt", root.join("in")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("subdir")).unwrap();
        let b = Beneath::new(&root).unwrap();
        let text = std::io::read_to_string(b.open(Path::new("sub/a.txt"), Access::Read).unwrap());
        assert_eq!(text.unwrap(), "inside");
        for rel in ["out", "in", "subdir/a.txt"] {
            let e = b.open(Path::new(rel), Access::Read).unwrap_err();
            assert!(raced(&e), "{rel}: {e}");
            let flags = Access::Read.flags();
            let e = b.walk(Path::new(rel), flags, Mode::empty()).unwrap_err();
            assert!(raced(&e), "walk {rel}: {e}");
        }
        b.make_dirs(Path::new("new/deeper")).unwrap();
        assert!(root.join("new/deeper").is_dir());
        assert!(b.make_dirs(Path::new("subdir/x")).is_err());
        assert!(!root.join("sub/x").exists());
    }
}
