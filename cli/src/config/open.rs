//! Reading a configuration file so that what is checked is what is read.
//!
//! A program can write inside the workspace, so a `ptc.toml` there may be a symbolic link to a
//! file it wrote anywhere (its scratch `$TMPDIR`, a sibling directory), or be swapped for one
//! between a check and the read. So a workspace configuration is opened one component at a time
//! from `/` with `O_NOFOLLOW` (`openat` relative to the directory opened before): no component of
//! its path may be a link, and no rename or swap can redirect the open. Every file, workspace or
//! not, is read through the one descriptor that was opened: its location is taken from that
//! descriptor (`/proc/self/fd`), it must be a regular file (a FIFO or a device would block or
//! never end), and it is read up to [`MAX_CONFIG_BYTES`].

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags, CWD};
use rustix::io::Errno;

/// The largest configuration file ptc reads.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A configuration file's exact content and where it really is.
#[derive(Debug)]
pub struct ConfigFile {
    /// The content read (the bytes that are hashed for trust and parsed).
    pub text: String,
    /// The file's location, read from its open descriptor.
    pub real: PathBuf,
}

/// How a path may be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Follow symbolic links (a file the operator named outside the workspace).
    Follow,
    /// Refuse a symbolic link at any component of the path (a workspace configuration).
    Refuse,
    /// Follow links on the way, refuse one as the file itself (the trust store: its directory
    /// may be a link the operator made, but a link in the file's place may have been planted).
    FinalComponent,
}

/// Open and read the configuration at `path` (absolute when links are refused). `Ok(None)`:
/// nothing is there.
pub(crate) fn read_config(path: &Path, links: Links) -> Result<Option<ConfigFile>, String> {
    let opened = match links {
        Links::Follow => rustix::fs::openat(CWD, path, read_flags(), Mode::empty()),
        Links::FinalComponent => {
            rustix::fs::openat(CWD, path, read_flags() | OFlags::NOFOLLOW, Mode::empty())
        }
        Links::Refuse => open_without_links(path),
    };
    let fd = match opened {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(Errno::LOOP) if links == Links::FinalComponent => {
            return Err(format!(
                "{} is a symbolic link: ptc reads it only as a regular file, since a link there \
                 could point at a file a program can write. Replace the link by the file",
                path.display()
            ))
        }
        Err(Errno::LOOP | Errno::NOTDIR) if links == Links::Refuse => {
            return Err(format!(
                "{} is reached through a symbolic link (or a component is not a directory): a \
                 workspace configuration must be a regular file inside the workspace root, \
                 since a program could link it to a file it wrote anywhere. Remove the link, or \
                 pass the file you mean with --config",
                path.display()
            ))
        }
        Err(e) => return Err(format!("cannot open {}: {e}", path.display())),
    };
    let stat = rustix::fs::fstat(&fd).map_err(|e| format!("{}: {e}", path.display()))?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(format!(
            "{} is not a regular file (a directory, FIFO, socket or device)",
            path.display()
        ));
    }
    let real = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd()))
        .map_err(|e| format!("cannot tell where {} is: {e}", path.display()))?;
    let mut bytes = Vec::new();
    File::from(fd)
        .take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!(
            "{} is larger than {MAX_CONFIG_BYTES} bytes, the most ptc reads as a configuration",
            path.display()
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", path.display()))?;
    Ok(Some(ConfigFile { text, real }))
}

/// How the configuration at `path` (relative to the current directory, or absolute) is
/// opened: a path inside the canonical `root` (as written, `..` applied lexically) is a
/// workspace configuration, reached through no link; any other path is the operator's own.
/// Returns the absolute path to open.
pub(crate) fn locate(path: &Path, root: &Path) -> Result<(PathBuf, Links), String> {
    let absolute =
        std::path::absolute(path).map_err(|e| format!("cannot resolve {}: {e}", path.display()))?;
    let lexical = ptc_packs::builtin::workspace::lexically_normal(&absolute);
    if lexical.starts_with(root) {
        Ok((lexical, Links::Refuse))
    } else {
        Ok((absolute, Links::Follow))
    }
}

/// `O_RDONLY`, and neither blocking on a FIFO nor taking a terminal as controlling one.
fn read_flags() -> OFlags {
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY
}

/// Open the absolute `path` walking from `/`, each component relative to the directory opened
/// before it and none followed if it is a link (`ELOOP` or `ENOTDIR` then).
fn open_without_links(path: &Path) -> rustix::io::Result<OwnedFd> {
    let names: Vec<&OsStr> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    if !path.is_absolute() || path.components().any(|c| c == Component::ParentDir) {
        return Err(Errno::INVAL);
    }
    let Some((last, dirs)) = names.split_last() else {
        return Err(Errno::ISDIR);
    };
    let walk = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut dir = rustix::fs::openat(CWD, "/", walk, Mode::empty())?;
    for name in dirs {
        dir = rustix::fs::openat(&dir, name.as_bytes(), walk, Mode::empty())?;
    }
    rustix::fs::openat(
        &dir,
        last.as_bytes(),
        read_flags() | OFlags::NOFOLLOW,
        Mode::empty(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_at_any_component_is_refused_and_a_plain_file_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir(base.join("dir")).unwrap();
        std::fs::write(base.join("dir/ptc.toml"), "mode = \"code\"\n").unwrap();
        std::os::unix::fs::symlink(base.join("dir"), base.join("link")).unwrap();
        std::os::unix::fs::symlink(base.join("dir/ptc.toml"), base.join("file-link")).unwrap();

        let read = read_config(&base.join("dir/ptc.toml"), Links::Refuse)
            .unwrap()
            .unwrap();
        assert_eq!(read.text, "mode = \"code\"\n");
        assert_eq!(read.real, base.join("dir/ptc.toml"));
        for linked in ["link/ptc.toml", "file-link"] {
            let err = read_config(&base.join(linked), Links::Refuse).unwrap_err();
            assert!(err.contains("symbolic link"), "{err}");
            let followed = read_config(&base.join(linked), Links::Follow)
                .unwrap()
                .unwrap();
            assert_eq!(followed.real, base.join("dir/ptc.toml"));
        }
        assert!(read_config(&base.join("missing.toml"), Links::Refuse)
            .unwrap()
            .is_none());
    }

    #[test]
    fn fifos_directories_and_oversized_files_are_refused_without_blocking() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let fifo = base.join("fifo.toml");
        rustix::fs::mknodat(CWD, &fifo, FileType::Fifo, Mode::RUSR | Mode::WUSR, 0).unwrap();
        let err = read_config(&fifo, Links::Refuse).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
        let err = read_config(&base, Links::Follow).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
        let big = base.join("big.toml");
        File::create(&big)
            .unwrap()
            .set_len(MAX_CONFIG_BYTES + 1)
            .unwrap();
        let err = read_config(&big, Links::Refuse).unwrap_err();
        assert!(err.contains("larger than"), "{err}");
    }
}
