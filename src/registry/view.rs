//! What one caller sees of the registry: a scope (or the global layer) and, for one step,
//! the admitted tool set ([`ToolRegistry::view`]).

use std::sync::Arc;

use super::state::Registration;
use super::{ResolvedToolSet, ToolRegistry};
use crate::definition::{ToolDefinition, ToolSchema};
use crate::executor::{ToolBatchExecutionError, ToolModelInput, ToolPromptSection};
use crate::scope::ScopeKey;

/// The registry as `scope` sees it (the global layer when `None`), limited to one step's
/// admitted set when there is one. Cheap to copy; made by [`ToolRegistry::view`].
#[derive(Clone, Copy)]
pub struct ToolView<'a> {
    registry: &'a ToolRegistry,
    scope: Option<&'a ScopeKey>,
    tool_set: Option<&'a ResolvedToolSet>,
    owner: Option<u64>,
}

impl ToolRegistry {
    /// The registry as `scope` sees it (`None`: the global layer), for the step whose
    /// conditional tools `tool_set` admitted (`None`: inspection, or no step).
    pub fn view<'a>(
        &'a self,
        scope: Option<&'a ScopeKey>,
        tool_set: Option<&'a ResolvedToolSet>,
    ) -> ToolView<'a> {
        ToolView {
            registry: self,
            scope,
            tool_set,
            owner: None,
        }
    }
}

impl<'a> ToolView<'a> {
    /// The registry this view looks into.
    pub fn registry(&self) -> &'a ToolRegistry {
        self.registry
    }

    /// The scope this view sees from (`None`: the global layer).
    pub fn scope(&self) -> Option<&'a ScopeKey> {
        self.scope
    }

    /// This view as the owner with id `owner` (an MCP session, a run) sees it: with
    /// discovery on, the tools its searches found are offered in full.
    pub fn for_owner(mut self, owner: u64) -> Self {
        self.owner = Some(owner);
        self
    }

    /// The owner this view sees for, if any ([`ToolView::for_owner`]).
    pub fn owner(&self) -> Option<u64> {
        self.owner
    }

    /// Look a tool up (scoped shadows global; restricted-away reads as absent). Without a
    /// tool set, conditional registrations are still returned (inspection).
    pub fn get(&self, name: &str) -> Option<Arc<ToolDefinition>> {
        let state = self.registry.read();
        let reg = state.visible(name, self.scope)?;
        match self.tool_set {
            None => Some(reg.def.clone()),
            Some(set) => admitted(reg, self.scope, Some(set)).then(|| reg.def.clone()),
        }
    }

    /// The definition a call may execute: with a tool set, the set decides for conditional
    /// tools; without one, conditional tools are unavailable.
    pub fn executable(&self, name: &str) -> Option<Arc<ToolDefinition>> {
        let state = self.registry.read();
        let reg = state.visible(name, self.scope)?;
        admitted(reg, self.scope, self.tool_set).then(|| reg.def.clone())
    }

    /// Visible definitions, sorted by name; limited to the admitted set when there is one.
    pub fn definitions(&self) -> Vec<Arc<ToolDefinition>> {
        let state = self.registry.read();
        state
            .visible_all(self.scope)
            .into_iter()
            .filter(|reg| self.tool_set.is_none() || admitted(reg, self.scope, self.tool_set))
            .map(|reg| reg.def.clone())
            .collect()
    }

    /// The model-facing projection of the visible tools: name, description and parameters
    /// only, deep-copied.
    pub fn schemas(&self) -> Vec<ToolSchema> {
        self.definitions().iter().map(|d| d.schema()).collect()
    }

    /// Definitions a call could execute now: visible ones, with conditional tools only when
    /// the tool set admits them.
    pub fn executable_definitions(&self) -> Vec<Arc<ToolDefinition>> {
        let state = self.registry.read();
        state
            .visible_all(self.scope)
            .into_iter()
            .filter(|reg| admitted(reg, self.scope, self.tool_set))
            .map(|reg| reg.def.clone())
            .collect()
    }

    /// The definitions a program may call: [`executable_definitions`](Self::executable_definitions)
    /// without the discovery tools while discovery is off, as the model was told of none.
    pub fn callable_definitions(&self) -> Vec<Arc<ToolDefinition>> {
        let tools = self.executable_definitions();
        match self.registry.executor_for(self.scope) {
            Some(executor) => crate::discovery::callable(self, &executor, tools),
            None => tools,
        }
    }

    /// What the scope's executor offers the model: schemas, names and guidance sections.
    /// With discovery on ([`ToolRegistry::set_discovery`]), only the discovery tools, the
    /// pinned tools and those the view's owner found, plus an overview section
    /// (`ptc/discovery`) of all the others.
    pub fn model_input(
        &self,
    ) -> Result<(ToolModelInput, Vec<ToolPromptSection>), ToolBatchExecutionError> {
        let executor = self
            .registry
            .executor_for(self.scope)
            .ok_or(ToolBatchExecutionError::NoExecutor)?;
        let tools = self.executable_definitions();
        Ok(crate::discovery::model_input(self, &executor, tools))
    }
}

impl std::fmt::Debug for ToolView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolView")
            .field("scope", &self.scope)
            .field("tool_set", &self.tool_set)
            .finish_non_exhaustive()
    }
}

fn admitted(
    reg: &Registration,
    scope: Option<&ScopeKey>,
    tool_set: Option<&ResolvedToolSet>,
) -> bool {
    reg.when.is_none() || tool_set.is_some_and(|set| set.admits(reg.id, scope))
}
