//! What the directory walks of `glob` and `grep` share: a depth cap, the deny paths left
//! out, symbolic links not followed, and the notes that say so in the result.
//!
//! ripgrep's `ignore` walker is iterative, but it keeps one ignore matcher per directory
//! level, chained to its parent's, and its paths grow with every level: a tree a program nests
//! tens of thousands of levels deep would exhaust the stack (dropping the chain) or the
//! path length. The walks stop at [`MAX_DEPTH`] levels below the searched directory and say so.
//! What the deny paths cover is pruned before it is entered (`deny.rs`), and counted without
//! being named. Symbolic links are not followed (as ripgrep without `-L`: a link may lead out
//! of the workspace, round in a loop, or to what a deny path covers by another name); they are
//! counted, and the first named, since a workspace of linked packages (pnpm, `npm link`) would
//! otherwise lose them unsaid. To be seen past a glob, a link is looked through (the walk
//! "follows" it, so a link to a folder is a folder to the glob, as it would be to a shell),
//! and refused by the walk's one entry filter before anything under it is entered.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ignore::{DirEntry, WalkBuilder};
use ptc_schema::ValueSpec;
use serde::Serialize;
use serde_json::Value;

use super::deny::DenyNow;
use super::workspace::Workspace;

/// Directory levels a search descends below its directory at most.
pub const MAX_DEPTH: usize = 256;

/// The limits of one search's walk, and what they cut.
pub(crate) struct WalkLimits {
    deny: Arc<DenyNow>,
    deep: AtomicBool,
    links: Arc<Links>,
}

/// The symbolic links a walk met and did not follow.
#[derive(Default)]
struct Links {
    /// Where a link may lead to something the search wants: links elsewhere are not counted.
    scope: Option<PathBuf>,
    count: AtomicU64,
    /// The first (by path, so the same each time).
    first: Mutex<Option<PathBuf>>,
}

impl Links {
    /// Whether `entry` is a link below the walk's directory (counted if so).
    fn met(&self, entry: &DirEntry) -> bool {
        if entry.depth() == 0 || !entry.path_is_symlink() {
            return false;
        }
        let path = entry.path();
        if let Some(scope) = &self.scope {
            if !path.starts_with(scope) && !scope.starts_with(path) {
                return true;
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.as_deref().is_none_or(|f| path < f) {
            *first = Some(path.to_path_buf());
        }
        true
    }
}

/// What a walk left out, as a search's result reports it.
#[derive(Debug, Default, Serialize)]
pub(crate) struct LeftOut {
    /// Entries under deny paths.
    #[serde(skip_serializing_if = "super::shared::is_zero")]
    pub(crate) denied: u64,
    /// Whether directories past the depth cap were not entered.
    #[serde(skip_serializing_if = "is_false")]
    pub(crate) deep: bool,
    /// Symbolic links not followed.
    #[serde(skip_serializing_if = "super::shared::is_zero")]
    pub(crate) links: u64,
    /// The first of them, workspace-relative (for a program's note).
    #[serde(skip)]
    pub(crate) first_link: Option<String>,
}

impl WalkLimits {
    /// The limits for a search in `ws` now.
    pub(crate) fn new(ws: &Workspace) -> Self {
        WalkLimits {
            deny: Arc::new(ws.deny_now()),
            deep: AtomicBool::new(false),
            links: Arc::default(),
        }
    }

    /// Count only the links in or above `folder`: the walk looks for what lies there.
    pub(crate) fn within(mut self, folder: Option<PathBuf>) -> Self {
        self.links = Arc::new(Links {
            scope: folder,
            ..Links::default()
        });
        self
    }

    /// Make `walk` stop at [`MAX_DEPTH`] and leave out the deny paths, what `keep` refuses
    /// and symbolic links, counted (the walk's one entry filter).
    pub(crate) fn apply(
        &self,
        walk: &mut WalkBuilder,
        keep: impl Fn(&DirEntry) -> bool + Send + Sync + 'static,
    ) {
        let (deny, links) = (self.deny.clone(), self.links.clone());
        walk.max_depth(Some(MAX_DEPTH))
            .follow_links(true)
            .filter_entry(move |entry| {
                keep(entry) && !deny.leaves_out(entry.path()) && !links.met(entry)
            });
    }

    /// Note `entry` as the walk yields it: a directory at the cap was not entered.
    pub(crate) fn visit(&self, entry: &DirEntry) {
        if entry.depth() >= MAX_DEPTH && entry.file_type().is_some_and(|t| t.is_dir()) {
            self.deep.store(true, Ordering::Relaxed);
        }
    }

    /// What the walk left out (`ws` shows the first link's path).
    pub(crate) fn left_out(&self, ws: &Workspace) -> LeftOut {
        let first = self.links.first.lock().unwrap_or_else(|e| e.into_inner());
        LeftOut {
            denied: self.deny.left_out(),
            deep: self.deep.load(Ordering::Relaxed),
            links: self.links.count.load(Ordering::Relaxed),
            first_link: first.as_ref().map(|path| ws.display(path)),
        }
    }
}

/// `spec` (a search's output object) with [`LeftOut`]'s optional properties.
pub(crate) fn output_properties(spec: ValueSpec) -> ValueSpec {
    // Said once, on the last: the SDK shows the three on one line.
    spec.property("denied", ValueSpec::integer())
        .property("deep", ValueSpec::boolean())
        .property(
            "links",
            ValueSpec::integer().describe(&format!(
                "Left out: denied paths, levels past {MAX_DEPTH}, symlinks."
            )),
        )
}

/// The notes a search result ends with when its walk left something out.
pub(crate) fn notes(value: &Value) -> String {
    let left = LeftOut {
        denied: value["denied"].as_u64().unwrap_or(0),
        deep: value["deep"] == true,
        links: value["links"].as_u64().unwrap_or(0),
        first_link: None,
    };
    left.notes()
        .iter()
        .map(|note| format!("[{note}]\n"))
        .collect()
}

impl LeftOut {
    /// What the walk left out, for a result's text.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.links_note().into_iter().collect();
        notes.extend(self.cut_notes());
        notes
    }

    /// What the walk could not reach (denied, too deep), for a program's cut-short note.
    pub(crate) fn cut_notes(&self) -> Vec<String> {
        denied_or_deep(self.denied, self.deep)
    }

    /// The symbolic links it did not follow, for a program's note: what they lead to is not
    /// cut off but elsewhere (the search can be pointed there).
    pub(crate) fn links_note(&self) -> Option<String> {
        let links = self.links;
        if links == 0 {
            return None;
        }
        let first = match &self.first_link {
            Some(first) => format!(" (first: `{first}`)"),
            None => String::new(),
        };
        Some(format!(
            "{links} symbolic link(s) not followed{first}: to search what one leads to, pass it \
             as `path` (it must stay inside the workspace)"
        ))
    }
}

/// `denied` entries under deny paths, directories past the depth cap (`deep`).
fn denied_or_deep(denied: u64, deep: bool) -> Vec<String> {
    let mut notes = Vec::new();
    if denied > 0 {
        notes.push(format!(
            "{denied} entr{} left out: the sandbox denies them",
            if denied == 1 { "y" } else { "ies" }
        ));
    }
    if deep {
        notes.push(format!(
            "directories nested deeper than {MAX_DEPTH} levels were not searched"
        ));
    }
    notes
}

/// `false` (for `skip_serializing_if`).
fn is_false(b: &bool) -> bool {
    !*b
}
