//! Removing a directory tree a program may have made hostile: iteratively, however deep.
//!
//! `std::fs::remove_dir_all` recurses once per level, so a tree nested tens of thousands of
//! levels deep (which a sandboxed command can make in its `$TMPDIR`, each level relative to
//! the last, past `PATH_MAX`) overflows the stack and aborts the process. [`remove_tree`] holds
//! one directory descriptor at a time and a heap stack of names: it goes down relative to the
//! open directory, and back up through `..`, checking that `..` is the directory it came
//! from (device and inode), so a tree moved meanwhile is left alone rather than followed.
//! Directories left without permissions (mode 000) are given `0700` first. Symlinks are
//! removed, never followed.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{chmodat, fstat, openat, unlinkat, AtFlags, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Remove `path` and everything below it; a missing `path` is not an error. Symlinks are
/// removed, not followed; a `path` that is not a directory is unlinked.
pub fn remove_tree(path: &Path) -> io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = match path.file_name() {
        Some(name) => CString::new(name.as_bytes())?,
        None => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no name to remove",
            ))
        }
    };
    let top = open_dir(rustix::fs::CWD, parent)?;
    let mut dir = match open_dir(&top, &name) {
        Ok(dir) => dir,
        Err(Errno::NOENT) => return Ok(()),
        Err(Errno::NOTDIR) | Err(Errno::LOOP) => {
            return Ok(unlinkat(&top, &name, AtFlags::empty())?)
        }
        Err(e) => return Err(e.into()),
    };
    // The names from `top` down to `dir`, with the identity of the directory each is in.
    let mut down: Vec<(CString, (u64, u64))> = vec![(name, identity(&top)?)];
    loop {
        match empty_but_one(&dir)? {
            Some(child) => {
                let next = open_dir(&dir, &child)?;
                down.push((child, identity(&dir)?));
                dir = next;
            }
            None => {
                let (name, above) = down.pop().expect("the stack holds the current directory");
                let parent = match down.is_empty() {
                    true => return Ok(unlinkat(&top, &name, AtFlags::REMOVEDIR)?),
                    false => open_dir(&dir, c"..")?,
                };
                if identity(&parent)? != above {
                    return Err(io::Error::other(
                        "the tree moved while it was being removed",
                    ));
                }
                unlinkat(&parent, &name, AtFlags::REMOVEDIR)?;
                dir = parent;
            }
        }
    }
}

/// Unlink everything in `dir` but directories; return one subdirectory, if any is left.
fn empty_but_one(dir: &OwnedFd) -> io::Result<Option<CString>> {
    let mut subdir = None;
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        let is_dir = match entry.file_type() {
            FileType::Unknown => rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory),
            t => t == FileType::Directory,
        };
        if is_dir {
            subdir.get_or_insert_with(|| name.to_owned());
        } else {
            match unlinkat(dir, name, AtFlags::empty()) {
                Ok(()) | Err(Errno::NOENT) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(subdir)
}

/// Open the directory `name` under `at` without following a symlink, granting ourselves
/// `0700` on it first if it has no permissions for us.
fn open_dir<P: rustix::path::Arg + Copy>(at: impl AsFd, name: P) -> Result<OwnedFd, Errno> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match openat(&at, name, flags, Mode::empty()) {
        Err(Errno::ACCESS) => {
            chmodat(&at, name, Mode::RWXU, AtFlags::empty())?;
            openat(&at, name, flags, Mode::empty())
        }
        other => other,
    }
}

fn identity(dir: &OwnedFd) -> io::Result<(u64, u64)> {
    let st = fstat(dir)?;
    Ok((st.st_dev, st.st_ino))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `levels` directories `d/d/…` under `top`, each made relative to the last
    /// (the path is far longer than `PATH_MAX`), with a file and a mode-000 directory at the
    /// bottom.
    fn deep_tree(top: &Path, levels: usize) {
        let mut dir = open_dir(rustix::fs::CWD, top).unwrap();
        for _ in 0..levels {
            rustix::fs::mkdirat(&dir, c"d", Mode::RWXU).unwrap();
            dir = open_dir(&dir, c"d").unwrap();
        }
        let file = openat(&dir, c"f", OFlags::CREATE | OFlags::WRONLY, Mode::RUSR).unwrap();
        drop(file);
        rustix::fs::mkdirat(&dir, c"locked", Mode::empty()).unwrap();
    }

    #[test]
    fn a_tree_deeper_than_the_stack_allows_is_removed_on_a_small_stack() {
        // In memory where there is a tmpfs: 20,000 levels on a busy disk take a minute.
        let shm = Path::new("/dev/shm");
        let scratch = match shm.is_dir() {
            true => tempfile::tempdir_in(shm).unwrap(),
            false => tempfile::tempdir().unwrap(),
        };
        let top = scratch.path().join("tree");
        std::fs::create_dir(&top).unwrap();
        deep_tree(&top, 20_000);
        std::os::unix::fs::symlink(scratch.path(), top.join("link-out")).unwrap();
        std::fs::write(scratch.path().join("kept"), "outside").unwrap();
        let removed = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || remove_tree(&top).map(|()| top))
            .unwrap()
            .join()
            .expect("no stack overflow");
        let top = removed.unwrap();
        assert!(!top.exists());
        // The link was removed, not followed.
        assert!(scratch.path().join("kept").exists());
        remove_tree(&scratch.path().join("missing")).unwrap();
    }
}
