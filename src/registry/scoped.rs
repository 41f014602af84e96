//! Operations bound to one agent scope (the seed's scoped `ctx.tools`).

use std::sync::Arc;

use super::{RegistrationOptions, ToolRegistry, ToolRestriction};
use crate::definition::IntoDefinition;
use crate::disposer::Disposer;
use crate::error::RegistryError;
use crate::executor::ToolExecutor;
use crate::hooks::dispatch_log::PtcDispatchLogHook;
use crate::hooks::execute::ExecuteHook;
use crate::hooks::guard::ToolGuard;
use crate::hooks::observer::ResultObserver;
use crate::hooks::post_execute::PostExecute;
use crate::hooks::pre_execute::PreExecute;
use crate::scope::ScopeKey;

/// The registry as seen from one agent scope: registrations shadow globals, listeners
/// see only this agent's calls, guards apply to this scope and its descendants.
pub struct Scoped<'a> {
    registry: &'a ToolRegistry,
    /// `None` only for the registry's own global view.
    scope: Option<&'a ScopeKey>,
}

impl<'a> Scoped<'a> {
    pub(super) fn new(registry: &'a ToolRegistry, scope: Option<&'a ScopeKey>) -> Self {
        Scoped { registry, scope }
    }

    fn scope_id(&self) -> Option<u64> {
        self.scope.map(ScopeKey::id)
    }

    /// Register a tool in this scope (shadows a global of the same name).
    pub fn register(&self, def: impl IntoDefinition) -> Result<Disposer, RegistryError> {
        self.registry
            .register_in(self.scope, def, RegistrationOptions::default())
    }

    /// Register a tool in this scope with options.
    pub fn register_with(
        &self,
        def: impl IntoDefinition,
        options: RegistrationOptions,
    ) -> Result<Disposer, RegistryError> {
        self.registry.register_in(self.scope, def, options)
    }

    /// Restrict the tools this scope inherits. Empty filters, unknown names, names
    /// registered in this scope and `run_code` fail. Restrictions intersect.
    pub fn restrict(&self, filter: ToolRestriction) -> Result<Disposer, RegistryError> {
        let scope = self.scope.ok_or_else(|| {
            RegistryError::InvalidRestriction("only agent scopes can be restricted".into())
        })?;
        self.registry.restrict_in(scope, filter)
    }

    /// A `tools/pre-execute` listener for this agent's calls only.
    pub fn on_pre_execute(&self, hook: impl PreExecute) -> Disposer {
        self.registry.add_hook(
            |h| &mut h.pre_execute,
            self.scope_id(),
            Arc::new(hook) as Arc<dyn PreExecute>,
        )
    }

    /// A `tools/execute` wrapper for this agent's calls only.
    pub fn on_execute(&self, hook: impl ExecuteHook) -> Disposer {
        self.registry.add_hook(
            |h| &mut h.execute,
            self.scope_id(),
            Arc::new(hook) as Arc<dyn ExecuteHook>,
        )
    }

    /// A `tools/post-execute` listener for this agent's calls only.
    pub fn on_post_execute(&self, hook: impl PostExecute) -> Disposer {
        self.registry.add_hook(
            |h| &mut h.post_execute,
            self.scope_id(),
            Arc::new(hook) as Arc<dyn PostExecute>,
        )
    }

    /// A `tools/result` observer for this agent's calls only.
    pub fn on_result(&self, observer: impl ResultObserver) -> Disposer {
        self.registry.add_hook(
            |h| &mut h.result,
            self.scope_id(),
            Arc::new(observer) as Arc<dyn ResultObserver>,
        )
    }

    /// A `tools/ptc-dispatch-log` listener for this agent's `run_code` sub-calls only.
    pub fn on_ptc_dispatch_log(&self, hook: impl PtcDispatchLogHook) -> Disposer {
        self.registry.add_hook(
            |h| &mut h.ptc_dispatch_log,
            self.scope_id(),
            Arc::new(hook) as Arc<dyn PtcDispatchLogHook>,
        )
    }

    /// A monotonic guard for calls made in this scope or its descendants.
    pub fn guard(&self, guard: impl ToolGuard) -> Disposer {
        self.registry.add_hook(
            |h| &mut h.guards,
            self.scope_id(),
            Arc::new(guard) as Arc<dyn ToolGuard>,
        )
    }

    /// Set this scope's tool mode (nearest scope wins).
    pub fn set_mode(&self, mode: crate::mode::ToolMode) -> Disposer {
        self.registry.set_mode_in(self.scope_id(), mode)
    }

    /// Select the executor for this scope (nearest scope wins).
    pub fn set_executor(&self, executor: Arc<dyn ToolExecutor>) -> Disposer {
        self.registry.set_executor_in(self.scope_id(), executor)
    }
}
