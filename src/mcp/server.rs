//! `ptc serve`: the registry offered to any MCP client.
//!
//! `tools/list` presents the tools as the registry's mode does for a model: `native`
//! lists the native tools, `code` only `run_code`, `both` the native tools plus
//! `run_code`. Wherever `run_code` is listed its description carries the generated SDK
//! section, since an MCP client passes tool descriptions, not system prompts, to its
//! model. `tools/call` runs one batch of one call through the registry's executor (the
//! full guarded pipeline), logged like any other batch; `notifications/cancelled`
//! fires the batch's signal. rmcp runs each request in its own task, so calls from one
//! client overlap.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as McpContent,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use super::McpError;
use crate::content::ContentBlock;
use crate::executor::{LogStep, ToolBatchExecutionError, ToolBatchInput, ToolCallBlock};
use crate::registry::ToolRegistry;
use crate::result::ToolExecutionResult;
use crate::scope::Agent;
use crate::RUN_CODE;

/// An MCP server over a registry. Cheap to clone: clones share the registry, the agent
/// and the call counter (the HTTP transport makes one per session).
#[derive(Clone)]
pub struct PtcServer {
    registry: ToolRegistry,
    agent: Agent,
    calls: Arc<AtomicU64>,
}

impl PtcServer {
    /// Serve `registry` as `agent` (its scope picks the executor and mode; its session,
    /// if any, logs every call as a batch `turn = n, step = 1` for the n-th call).
    pub fn new(registry: ToolRegistry, agent: Agent) -> Self {
        PtcServer {
            registry,
            agent,
            calls: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The tools as an MCP client sees them.
    pub fn tools(&self) -> Result<Vec<Tool>, ToolBatchExecutionError> {
        let scope = Some(self.agent.scope());
        let (input, sections) = self.registry.model_input(scope, None)?;
        let sdk: String = sections.iter().map(|s| s.text.as_str()).collect();
        let tools = input
            .schemas
            .into_iter()
            .map(|schema| {
                let mut description = schema.description;
                if schema.name == RUN_CODE && !sdk.is_empty() {
                    description = format!("{description}\n\n{sdk}");
                }
                let output = self
                    .registry
                    .get(&schema.name, scope, None)
                    .map(|d| d.output().schema().clone())
                    .filter(is_object_schema);
                let mut tool = serde_json::json!({
                    "name": schema.name,
                    "description": description,
                    "inputSchema": schema.parameters,
                });
                if let Some(output) = output {
                    tool["outputSchema"] = output;
                }
                serde_json::from_value::<Tool>(tool)
            })
            .filter_map(|tool| match tool {
                Ok(tool) => Some(tool),
                Err(e) => {
                    tracing::warn!("a tool cannot be listed over MCP: {e}");
                    None
                }
            })
            .collect();
        Ok(tools)
    }

    /// Run one call through the registry as its own batch.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        signal: tokio_util::sync::CancellationToken,
    ) -> Result<CallToolResult, ToolBatchExecutionError> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let arguments = Value::Object(arguments.unwrap_or_default());
        let mut batch = ToolBatchInput::new(vec![ToolCallBlock::new(
            format!("mcp-{n}"),
            name,
            arguments,
        )]);
        batch.signal = signal;
        batch.agent = Some(self.agent.clone());
        batch.log = Some(LogStep { turn: n, step: 1 });
        let result = match self.registry.execute(batch).await {
            Ok(mut batch) => batch.results.remove(0).result,
            // The call ran; only writing its events failed. Report the result anyway.
            Err(ToolBatchExecutionError::Log { error, mut result }) => {
                tracing::error!("session log: {error}");
                result.results.remove(0).result
            }
            Err(e) => return Err(e),
        };
        let structured = self
            .registry
            .get(name, Some(self.agent.scope()), None)
            .is_some_and(|d| is_object_schema(d.output().schema()));
        Ok(to_mcp(&result, structured))
    }
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

fn to_mcp(result: &ToolExecutionResult, structured: bool) -> CallToolResult {
    let content = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => McpContent::text(text.clone()),
            ContentBlock::Image { data, mime_type } => {
                McpContent::image(data.clone(), mime_type.clone())
            }
        })
        .collect();
    if result.is_error() {
        return CallToolResult::error(content);
    }
    let mut out = CallToolResult::success(content);
    if structured {
        out.structured_content = result.value().map(|v| (**v).clone());
    }
    out
}

impl ServerHandler for PtcServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ptc", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .tools()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(&request.name, request.arguments, context.ct.clone())
            .await
            .map(CallToolResponse::from)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}

/// Serve over this process's stdin and stdout until the client disconnects.
pub async fn serve_stdio(server: PtcServer) -> Result<(), McpError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Stdio(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| McpError::Stdio(e.to_string()))?;
    Ok(())
}
