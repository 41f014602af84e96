//! The files an ignore file left out of a search: how many, and in a program the folders they
//! are in (a `.gitignore` line such as `dist/` also hides every `vendor/*/dist`, which a model
//! looking for a name across vendored packages would not guess). A `.gitignore` counts outside
//! a git repository too (see `search_walk`), which the note then says.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use ignore::{DirEntry, WalkState};
use tokio_util::sync::CancellationToken;

use super::super::data_caps::thousands;
use super::super::shared::PolicyFilter;
use super::super::walk::WalkLimits;
use super::super::workspace::Workspace;
use super::{search_walk, MAX_IGNORED_COUNTED};
use ptc::ToolError;

/// Folders named in a note at most.
const NAMED: usize = 3;

/// The folders a search walked into.
#[derive(Default)]
pub(super) struct Entered(Mutex<HashSet<PathBuf>>);

impl Entered {
    /// The search's walk yields `entry`.
    pub(super) fn saw(&self, entry: &DirEntry) {
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            let mut entered = self.0.lock().unwrap_or_else(|e| e.into_inner());
            entered.insert(entry.path().to_path_buf());
        }
    }

    fn has(&self, dir: &Path) -> bool {
        let entered = self.0.lock().unwrap_or_else(|e| e.into_inner());
        entered.contains(dir)
    }
}

/// What an ignore file left out of a search of `dir`.
#[derive(Debug, Default)]
pub(crate) struct Ignored {
    /// Files (at most [`MAX_IGNORED_COUNTED`]).
    pub(crate) files: u64,
    /// The topmost folders left out whole, workspace-relative, in order.
    pub(crate) folders: Vec<String>,
}

/// What an ignore file left out of the search of `dir` that searched `searched` files and
/// walked into the folders `entered`: the files a walk that honours none finds (`include` and
/// the policy applied, counted up to `searched` + [`MAX_IGNORED_COUNTED`]) less those.
pub(super) fn left_out(
    ws: &Workspace,
    dir: &Path,
    include: Option<&str>,
    filter: &PolicyFilter,
    signal: &CancellationToken,
    (searched, entered): (u64, &Entered),
) -> Result<Ignored, ToolError> {
    let stop_at = searched.saturating_add(MAX_IGNORED_COUNTED);
    let count = AtomicU64::new(0);
    let folders = Mutex::new(Vec::new());
    let limits = WalkLimits::new(ws);
    search_walk(dir, include, &limits, false)?
        .build_parallel()
        .run(|| {
            let (count, folders) = (&count, &folders);
            Box::new(move |entry| {
                if signal.is_cancelled() || count.load(Ordering::Relaxed) >= stop_at {
                    return WalkState::Quit;
                }
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                let path = entry.path();
                if entry.file_type().is_some_and(|t| t.is_dir()) {
                    // Left out whole, below a folder the search entered: a topmost one.
                    let below_entered = path.parent().is_some_and(|p| entered.has(p));
                    if entry.depth() > 0 && below_entered && !entered.has(path) {
                        let mut folders = folders.lock().unwrap_or_else(|e| e.into_inner());
                        folders.push(format!("{}/", ws.display(path)));
                    }
                } else if entry.file_type().is_some_and(|t| t.is_file())
                    && !filter.denies(&ws.display(path))
                {
                    count.fetch_add(1, Ordering::Relaxed);
                }
                WalkState::Continue
            })
        });
    let mut folders = folders.into_inner().unwrap_or_else(|e| e.into_inner());
    folders.sort();
    let files = count.into_inner().saturating_sub(searched);
    Ok(Ignored {
        files: files.min(MAX_IGNORED_COUNTED),
        folders,
    })
}

/// The note for `n` files under `path` an ignore file left out, in `folders` (the topmost left
/// out whole; none known natively), the workspace `root` being in a git repository or not.
pub(super) fn note(n: u64, path: &str, folders: &[String], root: &Path) -> String {
    let n = match n >= MAX_IGNORED_COUNTED {
        true => format!("{}+", thousands(MAX_IGNORED_COUNTED)),
        false => thousands(n),
    };
    let within = match folders.len() {
        0 => String::new(),
        len => {
            let named: Vec<String> = folders
                .iter()
                .take(NAMED)
                .map(|f| format!("`{f}`"))
                .collect();
            let more = match len.saturating_sub(NAMED) {
                0 => String::new(),
                more => format!(" and {more} more folder(s)"),
            };
            format!(" (in {}{more})", named.join(", "))
        }
    };
    let repository = root.ancestors().any(|d| d.join(".git").exists());
    let outside = match repository {
        true => "",
        false => " (a .gitignore counts here though this is no git repository)",
    };
    format!(
        "{n} .gitignored file(s) under `{path}` not searched{within}{outside}; pass an ignored \
         folder or file as path to search it (glob lists them)"
    )
}
