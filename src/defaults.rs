//! The deployment defaults a registry starts with: the native executor and the timeout policy.
//!
//! They are installed here, above the registry, executors and policies, so that the catalogue
//! chooses no policy: [`ToolRegistry::bare`] starts without them.

use std::sync::Arc;

use crate::executor::NativeExecutor;
use crate::policy::timeout::TimeoutPolicy;
use crate::registry::ToolRegistry;

impl ToolRegistry {
    /// A registry with the deployment defaults: the native executor and the timeout policy.
    pub fn new() -> Self {
        let registry = Self::bare();
        registry.set_executor(Arc::new(NativeExecutor::default()));
        registry.on_execute(TimeoutPolicy::default());
        registry
    }
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}
