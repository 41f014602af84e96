//! Root confinement: every path a `builtin` tool touches goes through
//! [`Workspace::resolve`], and every file it opens through `Workspace::open`.
//!
//! A user path (relative to the root, or absolute) is joined to the root; if it is
//! outside the root as text (`..` applied lexically), it is denied without touching the
//! file system. Otherwise the deepest part of it that exists on disk is canonicalized (so `..` and every symlink
//! on the way are resolved by the OS), and the missing tail is appended as plain
//! names. The result must lie inside the canonical root, compared component-wise, and
//! outside the deny paths (`deny.rs`: the sandbox's credential locations and
//! `[sandbox] deny_read`, and `.ssh`, `.aws`, `.gnupg` anywhere under the root), or the call
//! is denied before anything is opened. Consequences:
//!
//! - `../x`, `/etc/passwd`, and `link/x` where `link` points outside are denied;
//! - a symlink inside the root that points inside the root is followed;
//! - a dangling symlink is denied (its target cannot be checked, and writing through it
//!   would create a file wherever it points);
//! - `..` after a component that does not exist is refused (the OS could not resolve it
//!   either), so a write can never climb out through a directory it is about to create;
//! - for a write, the missing tail is created below the canonical existing ancestor,
//!   which is inside the root;
//! - every denial of a path that is or leads outside reads the same, so it reveals
//!   neither whether something outside exists nor where a link points; a denial of a
//!   deny path reads the same whether or not it exists.
//!
//! The check and the open cannot race: `Workspace::open` opens the canonical path relative
//! to a descriptor of the root, following no symlink (`beneath.rs`), then checks the file it
//! opened (type, size, real path) and the tool uses only that descriptor. A program that swaps
//! a path for a symlink in between makes the open fail, and the path is resolved again.

use std::fs::{self, File, Metadata};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::beneath::{self, Access, Beneath};
use super::deny::{DenyNow, DenyPaths};
use crate::PackError;
use ptc::PathArguments;
use ptc::{codes, ToolError, ToolErrorInfo};

/// The workspace root the `builtin` tools are confined to (canonical, a directory).
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    /// A descriptor of the root, every open is relative to.
    beneath: Arc<Beneath>,
    /// The paths no tool reads or writes.
    deny: DenyPaths,
    /// Files no tool may change (the active configuration, the trust store), with their
    /// device and inode so that another link to them is refused too.
    protected: Vec<(PathBuf, Option<(u64, u64)>)>,
}

/// A user path resolved inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Absolute path with every existing component canonicalized.
    pub path: PathBuf,
    /// The path relative to the root (`.` for the root itself), for messages and values.
    pub display: String,
    /// Whether the whole path exists (false when a missing tail was appended).
    pub exists: bool,
}

impl Workspace {
    /// Confine to `root`, which must be an existing directory; it is canonicalized.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, PackError> {
        let root = root.as_ref();
        let canonical = fs::canonicalize(root).map_err(|e| {
            PackError::Setup(format!(
                "the workspace root {} cannot be used: {e}",
                root.display()
            ))
        })?;
        if !canonical.is_dir() {
            return Err(PackError::Setup(format!(
                "the workspace root {} is not a directory",
                root.display()
            )));
        }
        let beneath = Beneath::new(&canonical).map_err(|e| {
            PackError::Setup(format!(
                "the workspace root {} cannot be opened: {e}",
                root.display()
            ))
        })?;
        Ok(Workspace {
            root: canonical,
            beneath: Arc::new(beneath),
            deny: DenyPaths::default(),
            protected: Vec::new(),
        })
    }

    /// The same confinement, where no tool reads or writes at or below `paths` (absolute: the
    /// sandbox's deny paths, see [`crate::sandbox::Sandbox::deny_paths`]).
    pub fn with_denied(mut self, paths: &[PathBuf]) -> Self {
        self.deny = DenyPaths::new(paths);
        self
    }

    /// The same confinement, where the files `paths` may be read but never written.
    pub fn with_protected(mut self, paths: &[PathBuf]) -> Self {
        use std::os::unix::fs::MetadataExt;
        self.protected = paths
            .iter()
            .map(|p| {
                let path = fs::canonicalize(p).unwrap_or_else(|_| p.clone());
                let id = fs::metadata(&path).ok().map(|m| (m.dev(), m.ino()));
                (path, id)
            })
            .collect();
        self
    }

    /// Deny a write to `target` when it is a protected file (by path, or as another link).
    pub fn check_writable(&self, target: &Resolved) -> Result<(), ToolError> {
        use std::os::unix::fs::MetadataExt;
        let id = fs::metadata(&target.path).ok().map(|m| (m.dev(), m.ino()));
        let hit = self
            .protected
            .iter()
            .any(|(path, pid)| *path == target.path || (id.is_some() && *pid == id));
        if !hit {
            return Ok(());
        }
        Err(protected(&target.display))
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Declare `names` (each with the path a call without it means) as path arguments that
    /// policies see resolved by this workspace, root-relative (see [`PathArguments`]).
    pub fn path_arguments(self: &Arc<Self>, names: &[(&str, Option<&str>)]) -> PathArguments {
        let ws = self.clone();
        names.iter().fold(
            PathArguments::new(move |raw| ws.resolve(raw, "path").ok().map(|r| r.display)),
            |paths, (name, default)| paths.argument(name, *default),
        )
    }

    /// `path` relative to the root (`.` for the root), lossily converted to UTF-8.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }

    /// Resolve `raw` (relative to the root, or absolute) to a path inside the root.
    ///
    /// `what` names the argument in error messages (e.g. `file_path`). Errors: an empty
    /// path, a path outside the root (including through symlinks), a dangling symlink,
    /// `..` after a missing component. A path that does not exist is *not* an error:
    /// [`Resolved::exists`] says so, and each tool decides.
    pub fn resolve(&self, raw: &str, what: &str) -> Result<Resolved, ToolError> {
        if raw.is_empty() {
            return Err(bad_path(format!(
                "`{what}` is empty; pass a path relative to the workspace root {}",
                self.root.display()
            )));
        }
        if raw.contains('\0') {
            return Err(bad_path(format!("`{what}` contains a NUL byte: {raw:?}")));
        }
        let given = Path::new(raw);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        // Outside the root on its face: refused before the file system is asked anything.
        if !lexically_normal(&joined).starts_with(&self.root) {
            return Err(escape(raw, &self.root));
        }
        // The deepest ancestor that exists as a directory entry (symlinks included).
        let mut existing = joined.as_path();
        loop {
            match fs::symlink_metadata(existing) {
                Ok(_) => break,
                Err(e) if is_missing(&e) => match existing.parent() {
                    Some(parent) => existing = parent,
                    None => break,
                },
                // Through a link that leads out, the error would tell about the outside.
                Err(e) => {
                    return Err(match fs::canonicalize(existing) {
                        Ok(inside) if self.deny_now().covers(&inside) => denied(raw),
                        Ok(inside) if inside.starts_with(&self.root) => {
                            ToolError::new(format!("cannot access `{raw}`: {e}"))
                        }
                        _ => escape(raw, &self.root),
                    })
                }
            }
        }
        // A link whose target is missing cannot be checked; it is refused like an escape,
        // with the same words, so the answer never tells whether something outside exists.
        let base = fs::canonicalize(existing).map_err(|_| escape(raw, &self.root))?;
        if !base.starts_with(&self.root) {
            return Err(escape(raw, &self.root));
        }
        let tail = tail_of(&joined, existing);
        let mut path = base;
        for component in tail.components() {
            match component {
                Component::Normal(name) => path.push(name),
                Component::CurDir => {}
                _ => {
                    return Err(bad_path(format!(
                        "`{raw}` goes up with `..` after a directory that does not exist \
                         ({}); name an existing directory instead",
                        path.display()
                    )))
                }
            }
        }
        if self.deny_now().covers(&path) {
            return Err(denied(raw));
        }
        let exists = tail.as_os_str().is_empty();
        Ok(Resolved {
            display: self.display(&path),
            path,
            exists,
        })
    }

    /// The deny list as the file system is now (for a search to consult per entry).
    pub(crate) fn deny_now(&self) -> DenyNow {
        self.deny.now(&self.root)
    }

    /// Open `target` (what [`Workspace::resolve`] made of `raw`, the argument `what`) for
    /// `access`, race-free: relative to the root's descriptor, following no symlink; when the
    /// path changed since it was resolved, it is resolved again (a few times). The opened file
    /// is checked where it really is (inside the root, outside the deny paths) and, for a
    /// write, against the protected files. `Create` makes the missing parent directories.
    pub(crate) fn open(
        &self,
        mut target: Resolved,
        raw: &str,
        what: &str,
        access: Access,
    ) -> Result<Opened, ToolError> {
        let mut tries = 0;
        loop {
            match self.open_resolved(&target, access) {
                Ok((file, meta)) => {
                    if let Some(real) = beneath::real_path(&file) {
                        if !real.starts_with(&self.root) {
                            return Err(escape(raw, &self.root));
                        }
                        if self.deny_now().covers(&real) {
                            return Err(denied(raw));
                        }
                    }
                    if access != Access::Read && access != Access::Look {
                        self.check_not_protected(&target, &meta)?;
                    }
                    return Ok(Opened { file, meta, target });
                }
                Err(e) if beneath::raced(&e) && tries < 8 => {
                    tries += 1;
                    let again = self.resolve(raw, what)?;
                    // Resolved the same: not a race (a file where a directory must be).
                    if again == target {
                        return Err(cannot_open(&target, &e));
                    }
                    target = again;
                }
                Err(e) if beneath::raced(&e) => {
                    return Err(ToolError::new(format!(
                        "`{raw}` kept changing while it was opened (a symbolic link or directory \
                         swapped in); try again once nothing else changes it"
                    )))
                }
                Err(e) => return Err(cannot_open(&target, &e)),
            }
        }
    }

    /// Open the canonical path `target` below the root (no retry, no check of where it is).
    fn open_resolved(&self, target: &Resolved, access: Access) -> io::Result<(File, Metadata)> {
        let rel = target.path.strip_prefix(&self.root).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidInput, "outside the workspace root")
        })?;
        if access == Access::Create && !target.exists {
            if let Some(parent) = rel.parent() {
                self.beneath.make_dirs(parent)?;
            }
        }
        let file = self.beneath.open(rel, access)?;
        let meta = file.metadata()?;
        Ok((file, meta))
    }

    /// Open the file `path` a search walk found (under the root, symlinks not followed by the
    /// walk) for `access`, race-free; `None` when it is gone, changed into something else, or
    /// is not a regular file. The walk has already left the deny paths out.
    pub(crate) fn open_found(&self, path: &Path, access: Access) -> Option<(File, Metadata)> {
        let rel = path.strip_prefix(&self.root).ok()?;
        let file = self.beneath.open(rel, access).ok()?;
        let meta = file.metadata().ok()?;
        meta.is_file().then_some((file, meta))
    }

    /// Deny a write through the opened file `meta` (of `target`) when it is a protected file.
    fn check_not_protected(&self, target: &Resolved, meta: &Metadata) -> Result<(), ToolError> {
        use std::os::unix::fs::MetadataExt;
        let id = Some((meta.dev(), meta.ino()));
        match self.protected.iter().any(|(_, pid)| *pid == id) {
            true => Err(protected(&target.display)),
            false => Ok(()),
        }
    }
}

/// A file a tool opened through `Workspace::open`.
#[derive(Debug)]
pub(crate) struct Opened {
    /// The open file; the tool reads and writes only through it.
    pub file: File,
    /// Its metadata when it was opened (`fstat`).
    pub meta: Metadata,
    /// The path it was opened by.
    pub target: Resolved,
}

/// The part of `joined` below `existing` (empty when they are equal).
fn tail_of<'a>(joined: &'a Path, existing: &Path) -> &'a Path {
    joined.strip_prefix(existing).unwrap_or(Path::new(""))
}

fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// A path the tool refuses to resolve (not an escape).
pub(crate) fn bad_path(message: String) -> ToolError {
    ToolError::new(message).with_info(ToolErrorInfo::new("InvalidPathError", codes::TOOL_ERROR))
}

/// `path` with `.` and `..` applied as text (a `..` at the top stays at the top), without
/// asking the file system.
pub fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The denial for a path that is, or leads, outside the root. The same words whatever the
/// reason, so a denial reveals nothing about what exists outside or where links point.
fn escape(raw: &str, root: &Path) -> ToolError {
    ToolError::new(format!(
        "Access denied: `{raw}` is not inside the workspace root {} (a path may not leave it \
         through `..`, an absolute path or a symbolic link). The builtin tools only read and \
         write inside the workspace root; use a path relative to it.",
        root.display()
    ))
    .with_info(ToolErrorInfo::new(
        "WorkspaceEscapeError",
        codes::TOOL_DENIED,
    ))
}

/// A failed open of `target`, for a reason other than where it is.
fn cannot_open(target: &Resolved, e: &io::Error) -> ToolError {
    ToolError::new(format!("cannot open `{}`: {e}", target.display))
}

/// The denial of a write to a protected file.
fn protected(shown: &str) -> ToolError {
    ToolError::new(format!(
        "Access denied: `{shown}` is ptc's active configuration (or its trust store); no tool may \
         change it. The operator edits it outside ptc."
    ))
    .with_info(ToolErrorInfo::new("ProtectedFileError", codes::TOOL_DENIED))
}

/// The denial for a path at or under a deny path. The same words whether or not it exists.
fn denied(raw: &str) -> ToolError {
    ToolError::new(format!(
        "Access denied: `{raw}` is under a path the sandbox denies (a credential location such \
         as .ssh, .aws or .gnupg, or `[sandbox] deny_read`). The builtin file tools neither read \
         nor write there."
    ))
    .with_info(ToolErrorInfo::new("DeniedPathError", codes::TOOL_DENIED))
}
