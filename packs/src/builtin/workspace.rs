//! Root confinement: every path a `builtin` tool touches goes through
//! [`Workspace::resolve`].
//!
//! A user path (relative to the root, or absolute) is joined to the root; if it is
//! outside the root as text (`..` applied lexically), it is denied without touching the
//! file system. Otherwise the deepest part of it that exists on disk is canonicalized (so `..` and every symlink
//! on the way are resolved by the OS), and the missing tail is appended as plain
//! names. The result must lie inside the canonical root, compared component-wise, or
//! the call is denied before anything is opened. Consequences:
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
//!   neither whether something outside exists nor where a link points.
//!
//! The check and the later open are separate system calls, so a process that swaps a
//! directory for a symlink in between could still redirect one call: the confinement
//! protects against model-supplied paths and links already in the tree, not against
//! a concurrent local adversary.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::PackError;
use ptc::PathArguments;
use ptc::{codes, ToolError, ToolErrorInfo};

/// The workspace root the `builtin` tools are confined to (canonical, a directory).
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
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
        Ok(Workspace {
            root: canonical,
            protected: Vec::new(),
        })
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
        Err(ToolError::new(format!(
            "Access denied: `{}` is ptc's active configuration (or its trust store); no tool may \
             change it. The operator edits it outside ptc.",
            target.display
        ))
        .with_info(ToolErrorInfo::new("ProtectedFileError", codes::TOOL_DENIED)))
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
        let exists = tail.as_os_str().is_empty();
        Ok(Resolved {
            display: self.display(&path),
            path,
            exists,
        })
    }
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

/// `path` with `.` and `..` applied as text (a `..` at the top stays at the top).
fn lexically_normal(path: &Path) -> PathBuf {
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
