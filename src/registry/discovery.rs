//! The registry's discovery settings and groups of tools (see [`crate::discovery`]).

use super::{next_id, ToolRegistry};
use crate::discovery::{Discovery, DiscoveryState, ToolGroup};
use crate::disposer::Disposer;
use crate::scope::ScopeKey;

impl ToolRegistry {
    /// Set the deployment's discovery (the latest set wins): when the model is shown a
    /// compact overview and the discovery tools instead of every tool (see
    /// [`ptc::discovery`](crate::discovery)).
    pub fn set_discovery(&self, discovery: Discovery) -> Disposer {
        let id = next_id();
        self.inner.discovery.provide(id, None, discovery);
        self.emit_change();
        self.disposer(move |registry| {
            registry.inner.discovery.withdraw(id);
            registry.emit_change();
        })
    }

    /// The discovery for `scope`: the nearest scope's, else the deployment's, else the
    /// default (`auto`, the `builtin` pack pinned).
    pub fn discovery_for(&self, scope: Option<&ScopeKey>) -> Discovery {
        self.inner.discovery.resolve(scope).unwrap_or_default()
    }

    /// Name a group of tools (a pack, an MCP server) and say what it is for; discovery's
    /// overview gives one line per group, and `pinned` may name it.
    pub fn add_tool_group(&self, group: ToolGroup) -> Disposer {
        let id = next_id();
        self.inner.discovery_state.add_group(id, group);
        self.emit_change();
        self.disposer(move |registry| {
            registry.inner.discovery_state.remove_group(id);
            registry.emit_change();
        })
    }

    pub(crate) fn discovery_state(&self) -> &DiscoveryState {
        &self.inner.discovery_state
    }
}
