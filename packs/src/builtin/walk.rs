//! What the directory walks of `glob` and `grep` share: a depth cap, the deny paths left
//! out, and the notes that say so in the result.
//!
//! ripgrep's `ignore` walker is iterative, but it keeps one ignore matcher per directory
//! level, chained to its parent's, and its paths grow with every level: a tree a program nests
//! tens of thousands of levels deep would exhaust the stack (dropping the chain) or the
//! path length. The walks stop at [`MAX_DEPTH`] levels below the searched directory and say so.
//! What the deny paths cover is pruned before it is entered (`deny.rs`), and counted without
//! being named.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ignore::{DirEntry, WalkBuilder};
use ptc_schema::ValueSpec;
use serde_json::Value;

use super::deny::DenyNow;
use super::workspace::Workspace;

/// Directory levels a search descends below its directory at most.
pub const MAX_DEPTH: usize = 256;

/// The limits of one search's walk, and what they cut.
pub(crate) struct WalkLimits {
    deny: Arc<DenyNow>,
    deep: AtomicBool,
}

impl WalkLimits {
    /// The limits for a search in `ws` now.
    pub(crate) fn new(ws: &Workspace) -> Self {
        WalkLimits {
            deny: Arc::new(ws.deny_now()),
            deep: AtomicBool::new(false),
        }
    }

    /// Make `walk` stop at [`MAX_DEPTH`] and leave out the deny paths and what `keep` refuses
    /// (the walk's one entry filter).
    pub(crate) fn apply(
        &self,
        walk: &mut WalkBuilder,
        keep: impl Fn(&DirEntry) -> bool + Send + Sync + 'static,
    ) {
        let deny = self.deny.clone();
        walk.max_depth(Some(MAX_DEPTH))
            .filter_entry(move |entry| keep(entry) && !deny.leaves_out(entry.path()));
    }

    /// Note `entry` as the walk yields it: a directory at the cap was not entered.
    pub(crate) fn visit(&self, entry: &DirEntry) {
        if entry.depth() >= MAX_DEPTH && entry.file_type().is_some_and(|t| t.is_dir()) {
            self.deep.store(true, Ordering::Relaxed);
        }
    }

    /// Entries the deny paths left out.
    pub(crate) fn denied(&self) -> u64 {
        self.deny.left_out()
    }

    /// Whether the depth cap cut the walk.
    pub(crate) fn deep(&self) -> bool {
        self.deep.load(Ordering::Relaxed)
    }
}

/// `spec` (a search's output object) with the optional `denied` and `deep` properties.
pub(crate) fn output_properties(spec: ValueSpec) -> ValueSpec {
    spec.property(
        "denied",
        ValueSpec::integer().describe("Under deny paths, left out."),
    )
    .property(
        "deep",
        ValueSpec::boolean().describe(&format!("Past {MAX_DEPTH} levels, not searched.")),
    )
}

/// The notes a search result ends with when its walk left something out.
pub(crate) fn notes(value: &Value) -> String {
    let denied = value["denied"].as_u64().unwrap_or(0);
    left_out(denied, value["deep"] == true)
        .iter()
        .map(|note| format!("[{note}]\n"))
        .collect()
}

/// What a walk left out: `denied` entries under deny paths, directories past the depth cap
/// (`deep`); for a result's text, or a program's cut-short note.
pub(crate) fn left_out(denied: u64, deep: bool) -> Vec<String> {
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
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
