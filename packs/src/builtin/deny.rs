//! The paths no file tool reads or writes: the sandbox's deny paths (the user's credential
//! locations, [`crate::sandbox::DEFAULT_DENY_READ`], plus `[sandbox] deny_read`), and any
//! directory under the root named like one ([`SECRET_DIRS`]).
//!
//! `bash` cannot read the deny paths (the sandbox masks them); `read`, `grep`, `glob`, `edit`
//! and `write` apply the same list through [`super::Workspace::resolve`], and the searches leave
//! what it covers out of their walks. A deny path is compared as it is on disk now: its
//! deepest existing ancestor canonicalized, the missing rest appended, so a path that does not
//! exist yet cannot be created through a tool either.

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Directory names denied anywhere under the root (a project's copy of a home directory, a
/// root at `$HOME`): they hold keys.
pub const SECRET_DIRS: &[&str] = &[".ssh", ".aws", ".gnupg"];

/// The deny paths as configured (absolute).
#[derive(Debug, Clone, Default)]
pub(crate) struct DenyPaths {
    configured: Vec<PathBuf>,
}

impl DenyPaths {
    /// The deny list of `paths` (absolute, `~` already expanded).
    pub(crate) fn new(paths: &[PathBuf]) -> Self {
        DenyPaths {
            configured: paths.to_vec(),
        }
    }

    /// The list as the file system is now, for the canonical `root`. A deny path that holds
    /// the root is left out (the sandbox refuses such a configuration).
    pub(crate) fn now(&self, root: &Path) -> DenyNow {
        let mut paths: Vec<PathBuf> = Vec::new();
        for path in self.configured.iter().filter_map(|p| on_disk(p)) {
            if !root.starts_with(&path) && !paths.contains(&path) {
                paths.push(path);
            }
        }
        DenyNow {
            root: root.to_path_buf(),
            paths,
            left_out: AtomicU64::new(0),
        }
    }
}

/// The deny list at one moment, for one call (a search consults it for every entry).
#[derive(Debug)]
pub(crate) struct DenyNow {
    root: PathBuf,
    paths: Vec<PathBuf>,
    left_out: AtomicU64,
}

impl DenyNow {
    /// Whether `path` (absolute, its existing part canonical) is or lies under a deny path.
    pub(crate) fn covers(&self, path: &Path) -> bool {
        if self.paths.iter().any(|p| path.starts_with(p)) {
            return true;
        }
        path.strip_prefix(&self.root).is_ok_and(|rel| {
            rel.components().any(|c| match c {
                Component::Normal(name) => SECRET_DIRS.iter().any(|s| name == *s),
                _ => false,
            })
        })
    }

    /// Like [`DenyNow::covers`], counting a covered entry as left out of a search.
    pub(crate) fn leaves_out(&self, path: &Path) -> bool {
        let covered = self.covers(path);
        if covered {
            self.left_out.fetch_add(1, Ordering::Relaxed);
        }
        covered
    }

    /// How many entries a search left out (each at the top of what it skipped).
    pub(crate) fn left_out(&self) -> u64 {
        self.left_out.load(Ordering::Relaxed)
    }
}

/// `path` with its deepest existing ancestor canonicalized and the rest appended; `None`
/// when no part of it can be resolved (or it goes up with `..` past a missing component).
fn on_disk(path: &Path) -> Option<PathBuf> {
    let mut existing = path;
    loop {
        if let Ok(canonical) = std::fs::canonicalize(existing) {
            let tail = path.strip_prefix(existing).ok()?;
            let mut out = canonical;
            for c in tail.components() {
                match c {
                    Component::Normal(name) => out.push(name),
                    Component::CurDir => {}
                    _ => return None,
                }
            }
            return Some(out);
        }
        existing = existing.parent()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_paths_cover_what_is_below_them_and_secret_names_anywhere_under_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("private")).unwrap();
        let deny = DenyPaths::new(&[root.join("private"), root.join("not-yet/there")]).now(&root);
        assert!(deny.covers(&root.join("private")));
        assert!(deny.covers(&root.join("private/a/b")));
        assert!(deny.covers(&root.join("not-yet/there/x")));
        assert!(!deny.covers(&root.join("not-yet/elsewhere")));
        assert!(!deny.covers(&root.join("privateer")));
        assert!(deny.covers(&root.join("home/.ssh/id_rsa")));
        assert!(deny.covers(&root.join(".aws")));
        assert!(!deny.covers(&root.join(".sshx/a")));
        assert!(!deny.covers(&root));
        // A deny path that holds the root is left out rather than deny everything.
        let holder = DenyPaths::new(std::slice::from_ref(&root)).now(&root);
        assert!(!holder.covers(&root.join("a")));
    }
}
