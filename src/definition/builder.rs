//! The validating builder for [`ToolDefinition`] (the seed's `defineTool`).

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use ptc_schema::{ParameterSpec, SupportedSchema, ValueSpec};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::*;
use crate::definition::RUN_CODE;
use crate::error::RegistryError;

/// Builds and validates a [`ToolDefinition`].
///
/// ```
/// use ptc::{ToolDefinition, ToolError};
/// use ptc::schema::{ParameterSpec, ValueSpec};
///
/// #[derive(serde::Deserialize)]
/// struct Args { text: String }
///
/// let echo = ToolDefinition::builder("echo")
///     .description("Return the text.")
///     .parameters(ParameterSpec::new().required("text", ValueSpec::string()))
///     .output(ValueSpec::string())
///     .concurrency_safe(true)
///     .execute(|args: Args, _ctx| async move { Ok::<_, ToolError>(args.text) })
///     .build()
///     .unwrap();
/// assert_eq!(echo.name(), "echo");
/// ```
#[must_use = "a builder does nothing until built or registered"]
pub struct ToolBuilder {
    name: String,
    description: String,
    code_description: Option<String>,
    parameters: Result<Value, String>,
    validate_args: bool,
    output: Option<Result<Value, String>>,
    render: Option<RenderFn>,
    presentation_meta: Option<MetaFn>,
    execute: Option<ExecuteFn>,
    project_content: Option<ContentFn>,
    finalize_content: Option<ContentFn>,
    timeout_ms: Option<u64>,
    is_concurrency_safe: Option<ConcurrencyFn>,
    idempotent: bool,
    present_call: Option<PresentCallFn>,
    present_result: Option<PresentResultFn>,
    path_arguments: Option<super::PathArguments>,
}

impl ToolBuilder {
    pub(super) fn new(name: String) -> Self {
        ToolBuilder {
            name,
            description: String::new(),
            code_description: None,
            parameters: Ok(serde_json::json!({"type": "object", "properties": {}})),
            validate_args: true,
            output: None,
            render: None,
            presentation_meta: None,
            execute: None,
            project_content: None,
            finalize_content: None,
            timeout_ms: None,
            is_concurrency_safe: None,
            idempotent: false,
            present_call: None,
            present_result: None,
            path_arguments: None,
        }
    }

    /// The model-facing description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = text.into();
        self
    }

    /// The description the code-mode SDK shows instead of [`ToolBuilder::description`],
    /// for a tool whose native description speaks of its rendered text ("returns
    /// line-numbered content", "`[exit code: N]`") while a program gets its typed value.
    /// Native schemas keep the native description.
    pub fn code_description(mut self, text: impl Into<String>) -> Self {
        self.code_description = Some(text.into());
        self
    }

    /// Parameters from the author DSL (an implicit open object).
    pub fn parameters(mut self, spec: ParameterSpec) -> Self {
        self.parameters = spec.compile().map_err(|e| e.to_string());
        self
    }

    /// Parameters as a raw JSON Schema; must be an object schema in the enforced subset.
    pub fn parameters_schema(mut self, schema: Value) -> Self {
        self.parameters = Ok(schema);
        self
    }

    /// Parameters as a raw schema that may lie outside the subset: arguments are then
    /// passed through unvalidated (for foreign tools such as MCP servers).
    pub fn parameters_passthrough(mut self, schema: Value) -> Self {
        self.validate_args = ptc_schema::assert_object_schema(&schema).is_ok();
        self.parameters = Ok(schema);
        self
    }

    /// The mandatory output schema, from the author DSL.
    pub fn output(mut self, spec: ValueSpec) -> Self {
        self.output = Some(spec.compile().map_err(|e| e.to_string()));
        self
    }

    /// The mandatory output schema, raw.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output = Some(Ok(schema));
        self
    }

    /// Render a successful value to model content (default: strings as-is, else pretty JSON).
    pub fn render(
        mut self,
        f: impl Fn(&Value, &Value) -> Vec<ContentBlock> + Send + Sync + 'static,
    ) -> Self {
        self.render = Some(Arc::new(f));
        self
    }

    /// Compute presentation metadata for a successful value.
    pub fn presentation_meta(
        mut self,
        f: impl Fn(&Value, &Value) -> Option<Value> + Send + Sync + 'static,
    ) -> Self {
        self.presentation_meta = Some(Arc::new(f));
        self
    }

    /// Typed body: arguments are validated, then deserialized into `A` (a failure is
    /// `INVALID_ARGS`); the returned `O` is serialized and validated against the output schema.
    pub fn execute<A, O, F, Fut>(mut self, f: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        O: Serialize + 'static,
        F: Fn(A, ToolRunContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        let name = self.name.clone();
        self.execute = Some(Arc::new(move |args: Arc<Value>, ctx| {
            let typed = match A::deserialize(args.as_ref()) {
                Ok(typed) => typed,
                Err(e) => {
                    let err = ToolError::invalid_args(&name, e);
                    return futures::future::ready(Err(err)).boxed();
                }
            };
            let fut = f(typed, ctx);
            let name = name.clone();
            async move {
                let out = fut.await?;
                let mut value =
                    serde_json::to_value(out).map_err(|e| ToolError::invalid_output(&name, e))?;
                crate::json::normalize_numbers(&mut value);
                Ok(value)
            }
            .boxed()
        }));
        self
    }

    /// Raw body: gets the frozen JSON arguments, returns a JSON value.
    pub fn execute_raw<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Arc<Value>, ToolRunContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        self.execute = Some(Arc::new(move |args, ctx| f(args, ctx).boxed()));
        self
    }

    /// Replace content before post-execute policies (runs once per normalized outcome).
    pub fn project_content(
        mut self,
        f: impl Fn(&ToolExecution, &ToolExecutionResult) -> Option<Vec<ContentBlock>>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        self.project_content = Some(Arc::new(f));
        self
    }

    /// Last-mile content transform, run exactly once for every outcome.
    pub fn finalize_content(
        mut self,
        f: impl Fn(&ToolExecution, &ToolExecutionResult) -> Option<Vec<ContentBlock>>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        self.finalize_content = Some(Arc::new(f));
        self
    }

    /// Cooperative timeout budget in milliseconds (positive), enforced by the timeout policy.
    pub fn timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Every call of this tool may (or may not) overlap with siblings.
    pub fn concurrency_safe(mut self, safe: bool) -> Self {
        self.is_concurrency_safe = Some(Arc::new(move |_| safe));
        self
    }

    /// A call repeated with the same idempotency key ([`crate::ToolRunContext::idempotency_key`])
    /// has its effect once (MCP's `idempotentHint`): a durable run whose call was cut off
    /// mid-flight may run it again instead of reporting it in doubt.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// Declare which arguments name workspace paths, so policies match them as the workspace
    /// resolves them (see [`super::PathArguments`]).
    pub fn path_arguments(mut self, paths: super::PathArguments) -> Self {
        self.path_arguments = Some(paths);
        self
    }

    /// Decide per call whether it may overlap with siblings (only `true` opts in).
    pub fn is_concurrency_safe(
        mut self,
        f: impl Fn(&Value) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.is_concurrency_safe = Some(Arc::new(f));
        self
    }

    /// Presenter for the pending state.
    pub fn present_call(
        mut self,
        f: impl Fn(&Value) -> Option<ToolCallView> + Send + Sync + 'static,
    ) -> Self {
        self.present_call = Some(Arc::new(f));
        self
    }

    /// Presenter for the completed state.
    pub fn present_result(
        mut self,
        f: impl Fn(&Value, &ToolResult) -> Option<ToolResultView> + Send + Sync + 'static,
    ) -> Self {
        self.present_result = Some(Arc::new(f));
        self
    }

    /// Validate and build: a non-empty name other than `run_code`, a supported object
    /// parameter schema, a present and supported output schema, a body, a positive timeout.
    pub fn build(self) -> Result<ToolDefinition, RegistryError> {
        if self.name == RUN_CODE {
            return Err(RegistryError::Reserved);
        }
        self.build_unreserved()
    }

    /// [`ToolBuilder::build`] without the reserved-name check, for the `run_code` transport.
    pub(crate) fn build_unreserved(self) -> Result<ToolDefinition, RegistryError> {
        let name = self.name;
        let invalid = |reason: String| RegistryError::InvalidDefinition {
            name: name.clone(),
            reason,
        };
        if name.is_empty() {
            return Err(invalid("the name is empty".into()));
        }
        let parameters = self
            .parameters
            .map_err(|e| invalid(format!("parameters: {e}")))?;
        let args_schema = match self.validate_args {
            true => Some(
                SupportedSchema::object(parameters.clone())
                    .map_err(|e| invalid(format!("parameters: {e}")))?,
            ),
            false => None,
        };
        let schema = self
            .output
            .ok_or_else(|| invalid("the output schema is missing".into()))?
            .map_err(|e| invalid(format!("output: {e}")))?;
        let schema = SupportedSchema::new(schema).map_err(|e| invalid(format!("output: {e}")))?;
        let execute = self
            .execute
            .ok_or_else(|| invalid("execute is missing".into()))?;
        if self.timeout_ms == Some(0) {
            return Err(invalid("timeout_ms must be positive".into()));
        }
        let declared = parameters
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        // `additionalProperties: true` or a schema for the other keys leaves them open.
        let closed = args_schema.is_some()
            && !matches!(
                parameters.get("additionalProperties"),
                Some(Value::Bool(true) | Value::Object(_))
            );
        Ok(ToolDefinition {
            name,
            description: self.description,
            code_description: self.code_description,
            parameters,
            args_schema,
            declared,
            closed,
            output: ToolOutput {
                schema,
                render: self.render,
                presentation_meta: self.presentation_meta,
            },
            execute,
            project_content: self.project_content,
            finalize_content: self.finalize_content,
            timeout_ms: self.timeout_ms,
            is_concurrency_safe: self.is_concurrency_safe,
            idempotent: self.idempotent,
            present_call: self.present_call,
            present_result: self.present_result,
            path_arguments: self.path_arguments,
        })
    }
}

/// Anything the registry can register: a built definition or a builder (built, and so
/// validated, at registration).
pub trait IntoDefinition {
    /// Produce the validated definition.
    fn into_definition(self) -> Result<ToolDefinition, RegistryError>;
}

impl IntoDefinition for ToolDefinition {
    fn into_definition(self) -> Result<ToolDefinition, RegistryError> {
        Ok(self)
    }
}

impl IntoDefinition for ToolBuilder {
    fn into_definition(self) -> Result<ToolDefinition, RegistryError> {
        self.build()
    }
}
