//! The tool registry (the seed's `ToolsService`): a global layer plus agent scopes,
//! restrictions, conditional activation, hooks, guards, approval and executor selection.
//!
//! Everything registered returns a [`Disposer`] that undoes exactly that registration.
//! Scope-bound operations go through [`ToolRegistry::scoped`].

mod activation;
mod discovery;
mod listing;
mod scoped;
mod setting;
mod state;
mod view;

pub use activation::{
    ActivationContext, ModelSelection, RegistrationOptions, ResolvedToolSet, When,
};
pub use listing::ListedTool;
pub use scoped::Scoped;
pub use state::ToolRestriction;
pub use view::ToolView;

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::contain::{contain, contain_async};
use crate::definition::IntoDefinition;
use crate::definition::RUN_CODE;
use crate::discovery::{Discovery, DiscoveryState};
use crate::disposer::Disposer;
use crate::error::RegistryError;
use crate::executor::{ToolBatchExecutionError, ToolBatchInput, ToolBatchResult, ToolExecutor};
use crate::hooks::dispatch_log::PtcDispatchLogHook;
use crate::hooks::execute::{Body, ExecuteHook};
use crate::hooks::guard::ToolGuard;
use crate::hooks::observer::ResultObserver;
use crate::hooks::post_execute::PostExecute;
use crate::hooks::pre_execute::PreExecute;
use crate::hooks::{HookList, Hooks, ListOf};
use crate::mode::ToolMode;
use crate::policy::approval::ApprovalService;
use crate::scope::ScopeKey;
use setting::ScopedSetting;
use state::{Filter, Registration, State};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

type ChangeListener = dyn Fn() + Send + Sync;

pub(crate) struct Inner {
    state: RwLock<State>,
    pub(crate) hooks: Hooks,
    change: HookList<ChangeListener>,
    pub(crate) approval: RwLock<Option<Arc<dyn ApprovalService>>>,
    executors: ScopedSetting<Arc<dyn ToolExecutor>>,
    modes: ScopedSetting<ToolMode>,
    discovery: ScopedSetting<Discovery>,
    discovery_state: DiscoveryState,
    pub(crate) allow_unknown_arguments: std::sync::atomic::AtomicBool,
    /// The end of the `tools/execute` chain, which the pipeline makes once per registry.
    pub(crate) execute_body: std::sync::OnceLock<Body>,
}

/// The tool registry and guarded pipeline. Cheap to clone (a shared handle).
///
/// ```
/// # tokio_test_block_on(async {
/// use ptc::{ToolRegistry, ToolDefinition, ToolError, ToolExecutionInput};
/// use ptc::schema::{ParameterSpec, ValueSpec};
///
/// let registry = ToolRegistry::new();
/// registry.register(
///     ToolDefinition::builder("add")
///         .parameters(ParameterSpec::new().required("a", ValueSpec::number()).required("b", ValueSpec::number()))
///         .output(ValueSpec::number())
///         .execute_raw(|args, _ctx| async move {
///             Ok::<_, ToolError>(serde_json::json!(args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap()))
///         }),
/// ).unwrap();
/// let result = registry.dispatch(ToolExecutionInput::new("c1", "add", r#"{"a":1,"b":2}"#)).await;
/// assert_eq!(result.value().unwrap().as_f64(), Some(3.0));
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone)]
pub struct ToolRegistry {
    pub(crate) inner: Arc<Inner>,
}

impl ToolRegistry {
    /// A registry with no executor and no policies installed.
    pub fn bare() -> Self {
        ToolRegistry {
            inner: Arc::new(Inner {
                state: RwLock::new(State::default()),
                hooks: Hooks::default(),
                change: HookList::default(),
                approval: RwLock::new(None),
                executors: ScopedSetting::default(),
                modes: ScopedSetting::default(),
                discovery: ScopedSetting::default(),
                discovery_state: DiscoveryState::default(),
                allow_unknown_arguments: Default::default(),
                execute_body: Default::default(),
            }),
        }
    }

    /// Operations bound to one agent scope.
    pub fn scoped<'a>(&'a self, scope: &'a ScopeKey) -> Scoped<'a> {
        Scoped::new(self, Some(scope))
    }

    /// Operations on the global layer (hooks see every call).
    fn global(&self) -> Scoped<'_> {
        Scoped::new(self, None)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.inner.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.inner.state.write().unwrap_or_else(|e| e.into_inner())
    }

    /// A disposer that runs `undo` on this registry if it still exists. It holds the
    /// registry weakly: a disposer kept (or forgotten) by something the registry owns does
    /// not keep the registry alive.
    fn disposer(&self, undo: impl FnOnce(&ToolRegistry) + Send + Sync + 'static) -> Disposer {
        let inner = Arc::downgrade(&self.inner);
        Disposer::new(move || {
            if let Some(inner) = inner.upgrade() {
                undo(&ToolRegistry { inner });
            }
        })
    }

    pub(crate) fn emit_change(&self) {
        for listener in self.inner.change.snapshot().iter() {
            let hook = listener.hook.clone();
            let _ = contain(|| hook());
        }
    }

    /// Register a tool in the global layer.
    pub fn register(&self, def: impl IntoDefinition) -> Result<Disposer, RegistryError> {
        self.register_in(None, def, RegistrationOptions::default())
    }

    /// Register a tool in the global layer with options (e.g. a `when` condition).
    pub fn register_with(
        &self,
        def: impl IntoDefinition,
        options: RegistrationOptions,
    ) -> Result<Disposer, RegistryError> {
        self.register_in(None, def, options)
    }

    pub(crate) fn register_in(
        &self,
        scope: Option<&ScopeKey>,
        def: impl IntoDefinition,
        options: RegistrationOptions,
    ) -> Result<Disposer, RegistryError> {
        let def = def.into_definition()?;
        if def.name() == RUN_CODE {
            return Err(RegistryError::Reserved);
        }
        let name = def.name().to_string();
        let id = next_id();
        {
            let mut state = self.write();
            let layer = state.layer_mut(scope);
            if layer.contains_key(&name) {
                return Err(RegistryError::Duplicate(name));
            }
            layer.insert(
                name.clone(),
                Registration {
                    id,
                    def: Arc::new(def),
                    when: options.when,
                },
            );
        }
        self.emit_change();
        let scope = scope.cloned();
        Ok(self.disposer(move |registry| {
            let removed = {
                let mut state = registry.write();
                let layer = state.layer_mut(scope.as_ref());
                match layer.get(&name) {
                    Some(reg) if reg.id == id => layer.remove(&name).is_some(),
                    _ => false,
                }
            };
            if removed {
                registry.emit_change();
            }
        }))
    }

    pub(crate) fn restrict_in(
        &self,
        scope: &ScopeKey,
        filter: ToolRestriction,
    ) -> Result<Disposer, RegistryError> {
        let names: Vec<&String> = filter
            .allow
            .iter()
            .flatten()
            .chain(filter.deny.iter())
            .collect();
        if names.is_empty() {
            return Err(RegistryError::InvalidRestriction(
                "the filter names no tools".into(),
            ));
        }
        let id = next_id();
        {
            let mut state = self.write();
            {
                let inherited = state.inherited_names(scope);
                let own = state.scopes.get(&scope.id());
                for name in names {
                    if name == RUN_CODE {
                        return Err(RegistryError::Reserved);
                    }
                    if own.is_some_and(|l| l.own.contains_key(name.as_str())) {
                        return Err(RegistryError::InvalidRestriction(format!(
                            "`{name}` is registered in this scope; restrictions apply only to inherited tools"
                        )));
                    }
                    if !inherited.contains(name.as_str()) {
                        return Err(RegistryError::InvalidRestriction(format!(
                            "unknown tool `{name}`"
                        )));
                    }
                }
            }
            state
                .scopes
                .entry(scope.id())
                .or_default()
                .filters
                .push(Filter::new(id, &filter));
        }
        self.emit_change();
        let scope_id = scope.id();
        Ok(self.disposer(move |registry| {
            {
                let mut state = registry.write();
                if let Some(layer) = state.scopes.get_mut(&scope_id) {
                    layer.filters.retain(|f| f.id != id);
                }
            }
            registry.emit_change();
        }))
    }

    /// Evaluate every visible `when` condition once for this step. A rejected (or
    /// panicking) condition or cancellation fails the whole resolution.
    pub async fn resolve(&self, ctx: ActivationContext) -> Result<ResolvedToolSet, RegistryError> {
        let scope = ctx.agent.as_ref().map(|a| a.scope().clone());
        let conditional: Vec<(u64, When)> = {
            let state = self.read();
            state
                .visible_all(scope.as_ref())
                .into_iter()
                .filter_map(|r| r.when.clone().map(|w| (r.id, w)))
                .collect()
        };
        let checks = conditional.into_iter().map(|(id, when)| {
            let started = contain(|| when(&ctx));
            async move {
                let settled = match started {
                    Ok(fut) => contain_async(fut).await,
                    Err(p) => Err(p),
                };
                match settled {
                    Ok(Ok(admit)) => Ok((id, admit)),
                    Ok(Err(e)) => Err(RegistryError::Activation(e)),
                    Err(p) => Err(RegistryError::Activation(format!(
                        "condition panicked: {p}"
                    ))),
                }
            }
        });
        let all = futures::future::try_join_all(checks);
        let results = tokio::select! {
            biased;
            _ = ctx.signal.cancelled() => return Err(RegistryError::Activation("resolution was cancelled".into())),
            r = all => r?,
        };
        let admitted_ids: HashSet<u64> = results
            .into_iter()
            .filter(|(_, a)| *a)
            .map(|(id, _)| id)
            .collect();
        Ok(ResolvedToolSet::new(scope, admitted_ids))
    }

    /// Listen to `tools/change` (register, unregister, restriction change).
    pub fn on_change(&self, listener: impl Fn() + Send + Sync + 'static) -> Disposer {
        let id = self.inner.change.add(None, Arc::new(listener));
        self.disposer(move |registry| registry.inner.change.remove(id))
    }

    /// Add a global `tools/pre-execute` listener.
    pub fn on_pre_execute(&self, hook: impl PreExecute) -> Disposer {
        self.global().on_pre_execute(hook)
    }

    /// Add a global `tools/execute` wrapper.
    pub fn on_execute(&self, hook: impl ExecuteHook) -> Disposer {
        self.global().on_execute(hook)
    }

    /// Add a global `tools/post-execute` listener.
    pub fn on_post_execute(&self, hook: impl PostExecute) -> Disposer {
        self.global().on_post_execute(hook)
    }

    /// Add a global `tools/result` observer.
    pub fn on_result(&self, observer: impl ResultObserver) -> Disposer {
        self.global().on_result(observer)
    }

    /// Add a global `tools/ptc-dispatch-log` listener.
    pub fn on_ptc_dispatch_log(&self, hook: impl PtcDispatchLogHook) -> Disposer {
        self.global().on_ptc_dispatch_log(hook)
    }

    /// Add a global monotonic guard.
    pub fn guard(&self, guard: impl ToolGuard) -> Disposer {
        self.global().guard(guard)
    }

    pub(crate) fn add_hook<T: ?Sized + 'static>(
        &self,
        list: ListOf<T>,
        scope: Option<u64>,
        hook: Arc<T>,
    ) -> Disposer {
        let id = self.inner.hooks.add(list, scope, hook);
        self.disposer(move |registry| registry.inner.hooks.remove(list, id))
    }

    /// Install the approval service that answers `ask` decisions.
    pub fn set_approval(&self, service: Arc<dyn ApprovalService>) -> Disposer {
        *self
            .inner
            .approval
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(service.clone());
        self.disposer(move |registry| {
            let mut slot = registry
                .inner
                .approval
                .write()
                .unwrap_or_else(|e| e.into_inner());
            if slot.as_ref().is_some_and(|s| Arc::ptr_eq(s, &service)) {
                *slot = None;
            }
        })
    }

    /// Provide the deployment-default executor (the latest provided wins).
    pub fn set_executor(&self, executor: Arc<dyn ToolExecutor>) -> Disposer {
        self.set_executor_in(None, executor)
    }

    pub(crate) fn set_executor_in(
        &self,
        scope: Option<u64>,
        executor: Arc<dyn ToolExecutor>,
    ) -> Disposer {
        let id = next_id();
        self.inner.executors.provide(id, scope, executor);
        self.disposer(move |registry| registry.inner.executors.withdraw(id))
    }

    /// The executor for `scope`: the nearest scope's latest, else the deployment default.
    pub fn executor_for(&self, scope: Option<&ScopeKey>) -> Option<Arc<dyn ToolExecutor>> {
        self.inner.executors.resolve(scope)
    }

    /// Set the deployment's tool mode (the latest set wins).
    pub fn set_mode(&self, mode: ToolMode) -> Disposer {
        self.set_mode_in(None, mode)
    }

    pub(crate) fn set_mode_in(&self, scope: Option<u64>, mode: ToolMode) -> Disposer {
        let id = next_id();
        self.inner.modes.provide(id, scope, mode);
        self.emit_change();
        self.disposer(move |registry| {
            registry.inner.modes.withdraw(id);
            registry.emit_change();
        })
    }

    /// The mode for `scope`: the nearest scope's, else the deployment's, else `None`
    /// (the executor decides).
    pub fn mode_for(&self, scope: Option<&ScopeKey>) -> Option<ToolMode> {
        self.inner.modes.resolve(scope)
    }

    /// Delegate a raw call batch to the agent's executor (or the deployment default).
    pub async fn execute(
        &self,
        input: ToolBatchInput,
    ) -> Result<ToolBatchResult, ToolBatchExecutionError> {
        let scope = input.agent.as_ref().map(|a| a.scope().clone());
        let executor = self
            .executor_for(scope.as_ref())
            .ok_or(ToolBatchExecutionError::NoExecutor)?;
        executor.execute(self, input).await
    }
}
