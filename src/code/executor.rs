//! The code-mode executor: native, code or both, per scope.

use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use ptc_sdk_gen::ToolDecl;

use super::{run_code, CodeConfig};
use crate::definition::ToolDefinition;
use crate::definition::RUN_CODE;
use crate::error::ToolFailure;
use crate::executor::{
    run_batch, ToolBatchExecutionError, ToolBatchInput, ToolBatchResult, ToolExecutor,
    ToolModelInput, ToolPromptSection,
};
use crate::mode::ToolMode;
use crate::pipeline::PreparedCall;
use crate::registry::ToolRegistry;
use crate::scope::ScopeKey;

/// Offers tools natively, as `run_code` programs, or both, by the scope's
/// [`ToolMode`] (nearest scope wins, then the deployment, then the config default).
///
/// - `native`: every visible schema, no `run_code`, no SDK; the engine is never touched.
/// - `code`: only `run_code`, with code-only guidance and the SDK; a direct call to any
///   other tool fails as `UNKNOWN_TOOL` with a hint, before any policy runs.
/// - `both`: the native schemas plus `run_code` (last), and the SDK.
pub struct CodeExecutor {
    config: Arc<CodeConfig>,
    run_code: Arc<ToolDefinition>,
}

impl CodeExecutor {
    /// An executor running programs with `config`.
    pub fn new(config: CodeConfig) -> Self {
        let config = Arc::new(config);
        CodeExecutor {
            run_code: Arc::new(run_code::definition(config.clone())),
            config,
        }
    }

    /// Install as the registry's deployment executor.
    pub fn install(self, registry: &ToolRegistry) -> crate::Disposer {
        registry.set_executor(Arc::new(self))
    }

    /// The `run_code` definition this executor dispatches.
    pub fn run_code_definition(&self) -> &Arc<ToolDefinition> {
        &self.run_code
    }

    /// The mode in force for `scope`.
    pub fn mode(&self, registry: &ToolRegistry, scope: Option<&ScopeKey>) -> ToolMode {
        registry.mode_for(scope).unwrap_or(self.config.default_mode)
    }

    /// The TypeScript declarations of `tools` (never `run_code`), for a registry that
    /// rejects unknown argument keys (the default).
    pub fn declarations(tools: &[Arc<ToolDefinition>]) -> String {
        ptc_sdk_gen::declarations(&decls(tools, |t| t.closes_arguments()))
    }

    /// The limits the guidance states: the ones programs run under.
    pub fn runtime_limits(&self) -> ptc_sdk_gen::RuntimeLimits {
        let c = &self.config;
        ptc_sdk_gen::RuntimeLimits {
            wall_clock_ms: u64::try_from(c.limits.wall_clock.as_millis()).unwrap_or(u64::MAX),
            max_heap_bytes: c.limits.max_heap_bytes as u64,
            max_calls: c.sub_calls.max_calls,
            max_parallel: c.sub_calls.max_parallel as u64,
            max_result_chars: c.max_result_chars as u64,
        }
    }

    fn prepare(
        &self,
        registry: &ToolRegistry,
        mode: ToolMode,
        input: crate::ToolExecutionInput,
    ) -> PreparedCall {
        if input.name == RUN_CODE && mode.offers_run_code() {
            return registry.prepare_with(input, Some(self.run_code.clone()));
        }
        let mut call = registry.prepare(input);
        if mode == ToolMode::Code && call.exec.parent().is_none() {
            let name = call.exec.name().to_string();
            let mut failure = ToolFailure::unknown_tool(&name);
            failure.message = format!(
                "Unknown tool: {name}. In code mode, call tools from a run_code program: `await tools[{}](args)`",
                serde_json::to_string(&name).unwrap_or_default()
            );
            call.early = Some(failure);
        }
        call
    }
}

/// Declared in place of parameters that are passed through unvalidated: renders `unknown`.
static UNCHECKED: serde_json::Value = serde_json::Value::Null;

/// The SDK's view of `tools`; `closed` says whether a tool refuses undeclared keys.
pub(super) fn decls(
    tools: &[Arc<ToolDefinition>],
    closed: impl Fn(&ToolDefinition) -> bool,
) -> Vec<ToolDecl<'_>> {
    tools
        .iter()
        .map(|t| ToolDecl {
            name: t.name(),
            description: t.code_description(),
            parameters: match t.validates_args() {
                true => t.parameters(),
                false => &UNCHECKED,
            },
            output: t.output().schema(),
            closed: closed(t),
        })
        .collect()
}

impl ToolExecutor for CodeExecutor {
    fn describe(
        &self,
        registry: &ToolRegistry,
        scope: Option<&ScopeKey>,
        tools: &[Arc<ToolDefinition>],
    ) -> ToolModelInput {
        match self.mode(registry, scope) {
            ToolMode::Native => ToolModelInput::native(tools),
            ToolMode::Code => ToolModelInput::native(std::slice::from_ref(&self.run_code)),
            ToolMode::Both => {
                let mut all = tools.to_vec();
                all.push(self.run_code.clone());
                ToolModelInput::native(&all)
            }
        }
    }

    fn sections(
        &self,
        registry: &ToolRegistry,
        scope: Option<&ScopeKey>,
        tools: &[Arc<ToolDefinition>],
    ) -> Vec<ToolPromptSection> {
        let decls = decls(tools, |t| registry.rejects_unknown_arguments(t));
        let limits = self.runtime_limits();
        match self.mode(registry, scope) {
            ToolMode::Native => Vec::new(),
            ToolMode::Code => vec![ToolPromptSection {
                id: "ptc/code-mode".into(),
                text: ptc_sdk_gen::code_section(&decls, &limits),
            }],
            ToolMode::Both => vec![ToolPromptSection {
                id: "ptc/sdk".into(),
                text: ptc_sdk_gen::sdk_section(&decls, &limits),
            }],
        }
    }

    fn execute<'a>(
        &'a self,
        registry: &'a ToolRegistry,
        input: ToolBatchInput,
    ) -> BoxFuture<'a, Result<ToolBatchResult, ToolBatchExecutionError>> {
        let mode = self.mode(registry, input.agent.as_ref().map(|a| a.scope()));
        run_batch(
            registry,
            input,
            self.config.max_parallel_tool_calls,
            move |call| self.prepare(registry, mode, call),
        )
        .boxed()
    }
}
