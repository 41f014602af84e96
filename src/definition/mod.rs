//! Tool definitions: what a registered tool is (the seed's `ToolDefinition`) and the
//! builder that validates one (the seed's `defineTool`).
//!
//! A definition is immutable once built and shared as `Arc<ToolDefinition>`.

mod builder;
mod paths;

pub use builder::{IntoDefinition, ToolBuilder};
pub use paths::PathArguments;

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use ptc_schema::SupportedSchema;
use serde::Serialize;
use serde_json::Value;

use crate::contain::contain;
use crate::content::ContentBlock;
use crate::error::ToolError;
use crate::execution::{ToolExecution, ToolRunContext};
use crate::presentation::{ToolCallView, ToolResult, ToolResultView};
use crate::result::ToolExecutionResult;

/// The reserved name of the code-mode transport tool: no definition may take it.
pub const RUN_CODE: &str = "run_code";

/// Runs one accepted call: frozen arguments in, canonical JSON value out.
pub type ExecuteFn = Arc<
    dyn Fn(Arc<Value>, ToolRunContext) -> BoxFuture<'static, Result<Value, ToolError>>
        + Send
        + Sync,
>;
/// Pure projection from arguments and value to model content.
pub type RenderFn = Arc<dyn Fn(&Value, &Value) -> Vec<ContentBlock> + Send + Sync>;
/// Pure projection from arguments and value to presentation metadata.
pub type MetaFn = Arc<dyn Fn(&Value, &Value) -> Option<Value> + Send + Sync>;
/// `project_content` / `finalize_content`: replacement content or `None` to keep it.
pub type ContentFn =
    Arc<dyn Fn(&ToolExecution, &ToolExecutionResult) -> Option<Vec<ContentBlock>> + Send + Sync>;
/// Classifier for overlap with sibling calls; only `true` opts in.
pub type ConcurrencyFn = Arc<dyn Fn(&Value) -> bool + Send + Sync>;
/// Presenter for a pending call.
pub type PresentCallFn = Arc<dyn Fn(&Value) -> Option<ToolCallView> + Send + Sync>;
/// Presenter for a completed call.
pub type PresentResultFn = Arc<dyn Fn(&Value, &ToolResult) -> Option<ToolResultView> + Send + Sync>;

/// The tool's canonical output contract, applied after the body returns.
#[derive(Clone)]
pub struct ToolOutput {
    pub(crate) schema: SupportedSchema,
    pub(crate) render: Option<RenderFn>,
    pub(crate) presentation_meta: Option<MetaFn>,
}

impl ToolOutput {
    /// The raw output schema every successful value is validated against.
    pub fn schema(&self) -> &Value {
        self.schema.as_value()
    }

    /// Render `value` to model content: the tool's renderer, or by default a string
    /// value as-is and any other value as pretty JSON.
    pub fn render(&self, args: &Value, value: &Value) -> Vec<ContentBlock> {
        match &self.render {
            Some(render) => render(args, value),
            None => vec![ContentBlock::text(default_render(value))],
        }
    }

    /// Presentation metadata for a successful value, if the tool computes any.
    pub fn presentation_meta(&self, args: &Value, value: &Value) -> Option<Value> {
        self.presentation_meta.as_ref().and_then(|f| f(args, value))
    }
}

/// A string as-is; anything else pretty-printed JSON.
pub fn default_render(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => pretty_json(other),
    }
}

/// Pretty-print JSON with two-space indentation.
pub fn pretty_json(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("<unserializable: {e}>"))
}

/// A registered tool: its model-facing schema, mandatory output contract, body, and
/// host-only metadata. Build one with [`ToolDefinition::builder`].
#[derive(Clone)]
pub struct ToolDefinition {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) code_description: Option<String>,
    pub(crate) parameters: Value,
    /// The checked parameter schema; `None` for pass-through tools.
    pub(crate) args_schema: Option<SupportedSchema>,
    /// The declared parameter names, in order, and whether others are refused (see
    /// [`ToolDefinition::closes_arguments`]): read on every call, so worked out once.
    pub(crate) declared: Box<[String]>,
    pub(crate) closed: bool,
    pub(crate) output: ToolOutput,
    pub(crate) execute: ExecuteFn,
    pub(crate) project_content: Option<ContentFn>,
    pub(crate) finalize_content: Option<ContentFn>,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) is_concurrency_safe: Option<ConcurrencyFn>,
    pub(crate) idempotent: bool,
    pub(crate) present_call: Option<PresentCallFn>,
    pub(crate) present_result: Option<PresentResultFn>,
    pub(crate) path_arguments: Option<PathArguments>,
}

impl ToolDefinition {
    /// Start building a tool named `name`.
    pub fn builder(name: impl Into<String>) -> ToolBuilder {
        ToolBuilder::new(name.into())
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model-facing description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The description a code-mode SDK shows beside the tool's typed result: the
    /// [code-mode description](ToolBuilder::code_description) if the tool has one, else
    /// [`ToolDefinition::description`].
    pub fn code_description(&self) -> &str {
        self.code_description
            .as_deref()
            .unwrap_or(&self.description)
    }

    /// The raw parameter schema (an object schema).
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// Whether arguments are validated against `parameters` before the body runs
    /// (false only for pass-through tools whose schema is outside the subset).
    pub fn validates_args(&self) -> bool {
        self.args_schema.is_some()
    }

    /// Whether the pipeline refuses argument keys the parameters do not declare (unless
    /// the registry allows unknown arguments): true for every validated tool whose
    /// parameters do not say `additionalProperties: true` (or give a schema for the other
    /// keys) explicitly. See
    /// [`crate::pipeline::UnknownArguments`].
    pub fn closes_arguments(&self) -> bool {
        self.closed
    }

    /// The output contract.
    pub fn output(&self) -> &ToolOutput {
        &self.output
    }

    /// Cooperative timeout budget, never sent to the model.
    pub fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }

    /// True only when the classifier exists and returns exactly `true` without panicking.
    pub fn is_concurrency_safe(&self, args: &Value) -> bool {
        match &self.is_concurrency_safe {
            None => false,
            Some(f) => contain(|| f(args)).unwrap_or(false),
        }
    }

    /// Whether a call repeated with the same idempotency key has its effect once (see
    /// [`ToolBuilder::idempotent`]).
    pub fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    /// The pending-call view, if the tool presents one (a panicking presenter yields `None`).
    pub fn present_call(&self, args: &Value) -> Option<ToolCallView> {
        let f = self.present_call.as_ref()?;
        contain(|| f(args)).ok().flatten()
    }

    /// The completed-call view, if the tool presents one (a panicking presenter yields `None`).
    pub fn present_result(&self, args: &Value, result: &ToolResult) -> Option<ToolResultView> {
        let f = self.present_result.as_ref()?;
        contain(|| f(args, result)).ok().flatten()
    }

    /// The arguments that name workspace paths, if the tool declares them.
    pub fn path_arguments(&self) -> Option<&PathArguments> {
        self.path_arguments.as_ref()
    }

    /// The model-facing projection: name, description, parameters, deep-copied.
    pub fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.parameters.clone(),
        }
    }
}

impl fmt::Debug for ToolDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDefinition")
            .field("name", &self.name)
            .field("timeout_ms", &self.timeout_ms)
            .finish_non_exhaustive()
    }
}

/// The model-facing fields of a tool, and nothing else.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct ToolSchema {
    /// Tool name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Raw JSON Schema of the arguments.
    pub parameters: Value,
}
