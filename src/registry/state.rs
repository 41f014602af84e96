//! Registry state: the global layer, scope layers, restrictions, and the visibility
//! rules that combine them.
//!
//! **Invariant:** visibility is computed from this state at the moment of the lookup,
//! so a replacement or a new restriction is seen by every call that has not started.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::activation::When;
use crate::definition::ToolDefinition;
use crate::scope::ScopeKey;

/// One registered definition and its optional activation condition.
#[derive(Clone)]
pub(crate) struct Registration {
    pub(crate) id: u64,
    pub(crate) def: Arc<ToolDefinition>,
    pub(crate) when: Option<When>,
}

/// A scope's live filter over what it inherits (the seed's `ToolRestriction`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolRestriction {
    /// Inherited names that stay visible; everything else inherited is removed.
    pub allow: Option<Vec<String>>,
    /// Inherited names removed from visibility.
    pub deny: Vec<String>,
}

impl ToolRestriction {
    /// Keep only these inherited tools.
    pub fn allow<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        ToolRestriction {
            allow: Some(names.into_iter().map(Into::into).collect()),
            deny: Vec::new(),
        }
    }

    /// Remove these inherited tools.
    pub fn deny<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        ToolRestriction {
            allow: None,
            deny: names.into_iter().map(Into::into).collect(),
        }
    }
}

/// A restriction compiled into sets.
pub(crate) struct Filter {
    pub(crate) id: u64,
    allow: Option<HashSet<String>>,
    deny: HashSet<String>,
}

impl Filter {
    pub(crate) fn new(id: u64, r: &ToolRestriction) -> Self {
        Filter {
            id,
            allow: r.allow.as_ref().map(|a| a.iter().cloned().collect()),
            deny: r.deny.iter().cloned().collect(),
        }
    }

    fn admits(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|a| a.contains(name)) && !self.deny.contains(name)
    }
}

#[derive(Default)]
pub(crate) struct ScopeLayer {
    pub(crate) own: HashMap<String, Registration>,
    pub(crate) filters: Vec<Filter>,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) global: HashMap<String, Registration>,
    pub(crate) scopes: HashMap<u64, ScopeLayer>,
}

impl State {
    pub(crate) fn layer_mut(
        &mut self,
        scope: Option<&ScopeKey>,
    ) -> &mut HashMap<String, Registration> {
        match scope {
            None => &mut self.global,
            Some(s) => &mut self.scopes.entry(s.id()).or_default().own,
        }
    }

    /// The registration `scope` sees under `name`: the nearest own registration along
    /// the chain, or the global one, provided every restriction between it and `scope`
    /// admits the name.
    pub(crate) fn visible(&self, name: &str, scope: Option<&ScopeKey>) -> Option<&Registration> {
        if let Some(scope) = scope {
            for s in scope.chain() {
                let Some(layer) = self.scopes.get(&s.id()) else {
                    continue;
                };
                if let Some(reg) = layer.own.get(name) {
                    return Some(reg);
                }
                if !layer.filters.iter().all(|f| f.admits(name)) {
                    return None;
                }
            }
        }
        self.global.get(name)
    }

    /// Every name registered in the global layer or along the chain.
    pub(crate) fn candidate_names(&self, scope: Option<&ScopeKey>) -> HashSet<&str> {
        let mut names: HashSet<&str> = self.global.keys().map(String::as_str).collect();
        if let Some(scope) = scope {
            for s in scope.chain() {
                if let Some(layer) = self.scopes.get(&s.id()) {
                    names.extend(layer.own.keys().map(String::as_str));
                }
            }
        }
        names
    }

    /// All registrations `scope` sees, sorted by name.
    pub(crate) fn visible_all(&self, scope: Option<&ScopeKey>) -> Vec<&Registration> {
        let mut names: Vec<&str> = self.candidate_names(scope).into_iter().collect();
        names.sort_unstable();
        names
            .into_iter()
            .filter_map(|n| self.visible(n, scope))
            .collect()
    }

    /// Names `scope` inherits: the global layer plus its ancestors' own registrations.
    pub(crate) fn inherited_names(&self, scope: &ScopeKey) -> HashSet<&str> {
        let mut names: HashSet<&str> = self.global.keys().map(String::as_str).collect();
        for s in scope.chain().skip(1) {
            if let Some(layer) = self.scopes.get(&s.id()) {
                names.extend(layer.own.keys().map(String::as_str));
            }
        }
        names
    }
}
