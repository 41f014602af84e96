//! Refusals that are not the sandbox's mode: a folder of the workspace owned by another user
//! (an archive unpacked with its owners kept, a mounted checkout). The sandbox keeps no power
//! to write others' files, even for root (it drops `CAP_DAC_OVERRIDE`), so a command is refused
//! inside the workspace, where the mode allows writing; a note that only named the mode would
//! send the model looking for the wrong cause.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The note for a refused command whose `stderr` names a path (quoted, as coreutils and
/// Python print them) inside the workspace `root` that another user owns: the path as it was
/// named, its owner, and what to do. `cwd` is where relative paths start.
pub(super) fn note(root: &Path, cwd: &Path, stderr: &str) -> Option<String> {
    let me = rustix::process::geteuid().as_raw();
    let refusals = stderr.lines().filter(|line| {
        let lower = line.to_lowercase();
        lower.contains("permission denied") || lower.contains("operation not permitted")
    });
    for line in refusals {
        for named in quoted(line) {
            let path = cwd.join(named);
            if !path.starts_with(root) {
                continue;
            }
            let Some((owner, at)) = owner_of(&path) else {
                continue;
            };
            if owner != me && at.starts_with(root) {
                let shown = at.strip_prefix(root).unwrap_or(&at);
                let shown = match shown.as_os_str().is_empty() {
                    true => ".".to_string(),
                    false => shown.display().to_string(),
                };
                return Some(format!(
                    "`{shown}` is owned by uid {owner}, not by this user (uid {me}), and the \
                     sandbox gives no power over others' files, even to root: work on a copy \
                     (cp -r; copies are yours), or have the operator chown it"
                ));
            }
        }
    }
    None
}

/// `denied` (the sandbox's notes, one a line) with its file refusal said as another user's
/// ownership where that is what the command ran into.
pub(super) fn explain(denied: String, root: &Path, cwd: &Path, stderr: &str) -> String {
    let Some(owned) = note(root, cwd, stderr) else {
        return denied;
    };
    let lines = denied.lines().map(|line| match line.starts_with("file") {
        true => owned.as_str(),
        false => line,
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// The owner of `path`, or of the nearest folder above it that exists, and which that is.
fn owner_of(path: &Path) -> Option<(u32, PathBuf)> {
    path.ancestors().find_map(|p| {
        std::fs::symlink_metadata(p)
            .ok()
            .map(|m| (m.uid(), p.to_path_buf()))
    })
}

/// The quoted strings of `line`: '…', "…" and ‘…’.
fn quoted(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find(['\'', '"', '‘']) {
        let quote = rest[open..].chars().next().expect("found above");
        let close = match quote {
            '‘' => '’',
            other => other,
        };
        let inner = &rest[open + quote.len_utf8()..];
        let Some(end) = inner.find(close) else {
            break;
        };
        if end > 0 {
            found.push(&inner[..end]);
        }
        rest = &inner[end + close.len_utf8()..];
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_paths_in_the_forms_tools_print() {
        assert_eq!(
            quoted("mkdir: cannot create directory ‘a/b’: Permission denied"),
            ["a/b"]
        );
        assert_eq!(
            quoted("touch: cannot touch 'x y': Permission denied"),
            ["x y"]
        );
        assert_eq!(
            quoted("PermissionError: [Errno 13] Permission denied: '/w/__pycache__/m.pyc'"),
            ["/w/__pycache__/m.pyc"]
        );
        assert!(quoted("no quotes: Permission denied").is_empty());
    }
}
