//! The search index of one tool set, cached: built on the first search over a set of
//! definitions and reused until the set (or a tool's group) changes.

use std::sync::{Arc, Mutex};

use super::rank::{SearchIndex, ToolDoc};
use super::settings::Grouping;
use crate::definition::ToolDefinition;

/// Whether `a` and `b` are the same definitions in the same order (a registered definition
/// is immutable, so the same `Arc`s give the same text).
pub(crate) fn same_tools(a: &[Arc<ToolDefinition>], b: &[Arc<ToolDefinition>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| Arc::ptr_eq(a, b))
}

/// The tools searched, as indexed.
pub(crate) struct Indexed {
    /// The definitions, in the index's document order.
    pub(crate) tools: Vec<Arc<ToolDefinition>>,
    /// Their groups, in the same order.
    groups: Vec<String>,
    /// The index over them.
    pub(crate) index: SearchIndex,
}

/// The last index built, reused while the tool set is the same.
#[derive(Default)]
pub(crate) struct IndexCache(Mutex<Option<Arc<Indexed>>>);

impl IndexCache {
    /// The index of `tools` (grouped by `grouping`), built if the cached one is of
    /// another set.
    pub(crate) fn get(&self, tools: Vec<Arc<ToolDefinition>>, grouping: &Grouping) -> Arc<Indexed> {
        let groups: Vec<String> = tools
            .iter()
            .map(|t| grouping.group_of(t.name()).to_string())
            .collect();
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cached) = slot.as_ref() {
            if same_tools(&cached.tools, &tools) && cached.groups == groups {
                return cached.clone();
            }
        }
        let docs = tools
            .iter()
            .zip(&groups)
            .map(|(t, g)| ToolDoc::from_schema(t.name(), g, t.description(), t.parameters()))
            .collect();
        let built = Arc::new(Indexed {
            index: SearchIndex::new(docs),
            tools,
            groups,
        });
        *slot = Some(built.clone());
        built
    }
}
