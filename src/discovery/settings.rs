//! The discovery setting ([`Discovery`]), groups of tools ([`ToolGroup`]), and what the
//! registry keeps for discovery: its groups, the tools each owner has found, and caches.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, RwLock};

use super::index::IndexCache;
use crate::owner::OwnerHandle;

/// About 10k tokens' worth of text: above this, `auto` switches discovery on.
pub const DEFAULT_THRESHOLD_BYTES: usize = 40_000;

/// When discovery is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DiscoveryMode {
    /// On when the whole model input of the visible tools passes the threshold.
    #[default]
    Auto,
    /// Always on.
    On,
    /// Never: every visible tool in full.
    Off,
}

impl DiscoveryMode {
    /// `"auto"`, `"on"` or `"off"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DiscoveryMode::Auto => "auto",
            DiscoveryMode::On => "on",
            DiscoveryMode::Off => "off",
        }
    }
}

impl fmt::Display for DiscoveryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DiscoveryMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(DiscoveryMode::Auto),
            "on" => Ok(DiscoveryMode::On),
            "off" => Ok(DiscoveryMode::Off),
            other => Err(format!(
                "unknown discovery mode `{other}`: expected auto, on or off"
            )),
        }
    }
}

/// How a deployment (or scope) offers many tools: the mode, the threshold of `auto`, and
/// the tools that always stay in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// When discovery is on.
    pub mode: DiscoveryMode,
    /// `auto` switches on when the whole model input (the SDK section and the schemas) of
    /// the visible tools would be longer than this many bytes.
    pub threshold_bytes: usize,
    /// Tool names, or group names (a pack such as `builtin`, an MCP server), whose tools
    /// are always shown in full.
    pub pinned: Vec<String>,
}

impl Default for Discovery {
    /// `auto`, [`DEFAULT_THRESHOLD_BYTES`], the `builtin` pack pinned.
    fn default() -> Self {
        Discovery {
            mode: DiscoveryMode::Auto,
            threshold_bytes: DEFAULT_THRESHOLD_BYTES,
            pinned: vec!["builtin".into()],
        }
    }
}

impl Discovery {
    /// Discovery in `mode`, with the default threshold and pins.
    pub fn with_mode(mode: DiscoveryMode) -> Self {
        Discovery {
            mode,
            ..Discovery::default()
        }
    }

    /// Whether `tool`, of `group`, is pinned.
    pub(crate) fn pins(&self, tool: &str, group: &str) -> bool {
        self.pinned.iter().any(|p| p == tool || p == group)
    }
}

/// A named group of tools (a pack, an MCP server) and what it is for.
///
/// A tool belongs to the first group that lists it; else to the group named by its
/// `<server>__` prefix (every MCP tool is named so); else to no group (`other`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGroup {
    /// The pack's or server's name.
    pub name: String,
    /// What it is for, in a line (an MCP server's `instructions`, a pack's summary); when
    /// `None`, the overview names a few of its tools instead.
    pub about: Option<String>,
    /// Its tools by name; empty: the tools named `<name>__…`.
    pub tools: Vec<String>,
}

/// Found tools an owner's native list keeps (the most recently found).
pub(crate) const MAX_FOUND: usize = 64;

/// The group of a tool with no group and no `__` prefix.
pub(crate) const OTHER: &str = "other";

/// What the registry keeps for discovery.
#[derive(Default)]
pub(crate) struct DiscoveryState {
    groups: RwLock<Vec<(u64, ToolGroup)>>,
    /// Per owner, the tools its searches returned, the most recent last.
    found: Mutex<BTreeMap<u64, (OwnerHandle, Vec<String>)>>,
    pub(crate) index: IndexCache,
    pub(crate) measured: super::compact::MeasureCache,
}

impl DiscoveryState {
    pub(crate) fn add_group(&self, id: u64, group: ToolGroup) {
        self.groups
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, group));
    }

    pub(crate) fn remove_group(&self, id: u64) {
        self.groups
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(i, _)| *i != id);
    }

    /// The groups, each with its tools among `names` (in `names`' order), and the group of
    /// every name.
    pub(crate) fn grouping(&self) -> Grouping {
        Grouping {
            groups: self
                .groups
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|(_, g)| g.clone())
                .collect(),
        }
    }

    /// Remember that `owner` was shown `names` by a search (at most [`MAX_FOUND`] per
    /// owner, the oldest forgotten first); whether its set of found tools changed.
    pub(crate) fn reveal(&self, owner: OwnerHandle, names: &[String]) -> bool {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.retain(|_, (handle, _)| !handle.is_ended());
        if owner.is_ended() {
            return false;
        }
        let (_, list) = found
            .entry(owner.id())
            .or_insert_with(|| (owner, Vec::new()));
        let before: BTreeSet<String> = list.iter().cloned().collect();
        for name in names {
            list.retain(|n| n != name);
            list.push(name.clone());
        }
        let excess = list.len().saturating_sub(MAX_FOUND);
        list.drain(..excess);
        list.len() != before.len() || list.iter().any(|n| !before.contains(n))
    }

    /// The tools `owner` was shown by its searches.
    pub(crate) fn revealed(&self, owner: u64) -> BTreeSet<String> {
        let found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found
            .get(&owner)
            .map(|(_, list)| list.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// A snapshot of the registry's groups.
pub(crate) struct Grouping {
    groups: Vec<ToolGroup>,
}

impl Grouping {
    /// The group `tool` belongs to.
    pub(crate) fn group_of<'a>(&'a self, tool: &'a str) -> &'a str {
        if let Some(g) = self
            .groups
            .iter()
            .find(|g| g.tools.iter().any(|t| t == tool))
        {
            return &g.name;
        }
        match tool.split_once("__") {
            Some((prefix, rest)) if !prefix.is_empty() && !rest.is_empty() => prefix,
            _ => OTHER,
        }
    }

    /// What the group `name` is for, if someone said.
    pub(crate) fn about(&self, name: &str) -> Option<&str> {
        self.groups
            .iter()
            .find(|g| g.name == name)
            .and_then(|g| g.about.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owner::Owner;

    #[test]
    fn an_owners_found_tools_keep_the_most_recent_and_end_with_it() {
        let state = DiscoveryState::default();
        let owner = Owner::new("session");
        let names = |range: std::ops::Range<usize>| -> Vec<String> {
            range.map(|i| format!("t{i:03}")).collect()
        };
        assert!(state.reveal(owner.handle(), &names(0..60)));
        assert!(!state.reveal(owner.handle(), &names(10..20)), "nothing new");
        assert!(state.reveal(owner.handle(), &names(60..70)));
        let kept = state.revealed(owner.id());
        assert_eq!(kept.len(), MAX_FOUND);
        assert!(
            kept.contains("t069") && kept.contains("t015"),
            "recent and refreshed"
        );
        assert!(
            !kept.contains("t005") && kept.contains("t006"),
            "the oldest went first"
        );

        let id = owner.id();
        drop(owner);
        let other = Owner::new("other");
        assert!(state.reveal(other.handle(), &names(0..1)));
        assert!(
            state.revealed(id).is_empty(),
            "an ended owner's tools are forgotten"
        );
    }
}
