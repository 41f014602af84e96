//! An MCP server's tools as registry tools.
//!
//! | MCP | registry tool |
//! |---|---|
//! | `name` | `<server>__<name>` ([`SEPARATOR`]) |
//! | `description` (else `title`) | description |
//! | `inputSchema` (minus its root `$schema`) | parameters, validated when inside the enforced subset, else passed through unvalidated (typed `unknown` in the SDK, with a warning) |
//! | `outputSchema` | output schema; the value is `structuredContent` (a schema outside the subset becomes `{}` with a warning) |
//! | no `outputSchema` | output `string`: the text of the result's content blocks |
//! | `isError: true` | a tool error carrying the text |
//! | `annotations.readOnlyHint: true` | concurrency-safe (may overlap with siblings) |

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock as McpContent, JsonObject, ResourceContents, Tool};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::client::CallError;
use super::{McpClient, McpError, McpServerSpec};
use crate::definition::ToolBuilder;
use crate::error::{codes, ToolError, ToolErrorInfo};
use crate::registry::ToolRegistry;
use crate::{Disposer, ToolDefinition};

/// Between the server's name and the tool's: `everything__echo`.
pub const SEPARATOR: &str = "__";

/// A registered MCP server: its client, the registry names of its tools, and what
/// registration warned about.
#[derive(Debug)]
pub struct McpPack {
    /// The server's client (restarts the process on next use after it exits).
    pub client: McpClient,
    /// Registry names of the tools, in the server's order.
    pub tools: Vec<String>,
    /// One line per tool whose schemas lie outside the enforced subset.
    pub warnings: Vec<String>,
    disposers: Vec<Disposer>,
}

impl McpPack {
    /// Unregister the server's tools (the process stops when the last client handle drops).
    pub fn dispose(self) {
        for disposer in self.disposers {
            disposer.dispose();
        }
    }
}

/// Start the server, list its tools and register each in the registry's global layer.
pub async fn register_server(
    registry: &ToolRegistry,
    spec: McpServerSpec,
) -> Result<McpPack, McpError> {
    register_server_until(registry, spec, &CancellationToken::new()).await
}

/// [`register_server`], abandoned when `stop` fires (ptc is shutting down): see
/// [`McpClient::start_until`].
pub async fn register_server_until(
    registry: &ToolRegistry,
    spec: McpServerSpec,
    stop: &CancellationToken,
) -> Result<McpPack, McpError> {
    let client = McpClient::start_until(spec, stop).await?;
    let server = client.spec().name.clone();
    let mut pack = McpPack {
        client: client.clone(),
        tools: Vec::new(),
        warnings: Vec::new(),
        disposers: Vec::new(),
    };
    for tool in client.tools() {
        let (builder, warnings) = definition(&client, tool);
        let register = builder
            .build()
            .and_then(|def: ToolDefinition| {
                let name = def.name().to_string();
                registry.register(def).map(|d| (name, d))
            })
            .map_err(|source| McpError::Register {
                server: server.clone(),
                source,
            });
        let (name, disposer) = match register {
            Ok(ok) => ok,
            Err(e) => {
                pack.dispose();
                client.shutdown().await;
                return Err(e);
            }
        };
        for warning in &warnings {
            tracing::warn!(server = %server, "{warning}");
        }
        pack.warnings.extend(warnings);
        pack.tools.push(name);
        pack.disposers.push(disposer);
    }
    Ok(pack)
}

/// The registry definition of one MCP tool, and the warnings it raises.
fn definition(client: &McpClient, tool: &Tool) -> (ToolBuilder, Vec<String>) {
    let spec = client.spec();
    let name = format!("{}{SEPARATOR}{}", spec.name, tool.name);
    let mut warnings = Vec::new();
    let parameters = without_dialect(&tool.input_schema);
    if let Err(e) = ptc_schema::assert_object_schema(&parameters) {
        warnings.push(format!(
            "{name}: input schema outside the supported subset ({}); its arguments are typed `unknown` and passed through unvalidated",
            one_line(&e)
        ));
    }
    let (output, structured) = match &tool.output_schema {
        Some(schema) => {
            let schema = without_dialect(schema);
            match ptc_schema::assert_supported(&schema) {
                Ok(()) => (schema, true),
                Err(e) => {
                    warnings.push(format!(
                        "{name}: output schema outside the supported subset ({}); its value is typed `unknown`",
                        one_line(&e)
                    ));
                    (json!({}), true)
                }
            }
        }
        None => (json!({"type": "string"}), false),
    };
    let description = tool
        .description
        .as_deref()
        .map(str::to_string)
        .or_else(|| tool.title.clone())
        .unwrap_or_default();
    let read_only = tool
        .annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false);
    let client = client.clone();
    let upstream: Arc<str> = Arc::from(tool.name.as_ref());
    let builder = ToolDefinition::builder(name)
        .description(description)
        .parameters_passthrough(parameters)
        .output_schema(output)
        .timeout_ms(u64::try_from(spec.timeout().as_millis()).unwrap_or(u64::MAX))
        .concurrency_safe(read_only)
        .execute_raw(move |args, ctx| {
            let client = client.clone();
            let upstream = upstream.clone();
            async move {
                let arguments = arguments_object(&args)?;
                match client.call(&upstream, arguments, ctx.signal()).await {
                    Ok(result) => value_of(result, structured, client.spec(), &upstream),
                    Err(CallError::Cancelled) => Err(ToolError::new(format!(
                        "the call to `{upstream}` was cancelled (sent upstream)"
                    ))),
                    Err(e) => Err(ToolError::new(e.to_string())
                        .with_info(ToolErrorInfo::new("McpError", codes::TOOL_ERROR))),
                }
            }
        });
    (builder, warnings)
}

/// A multi-issue schema error on one line, for a warning.
fn one_line(error: &impl std::fmt::Display) -> String {
    error.to_string().lines().collect::<Vec<_>>().join("; ")
}

/// The schema without its root `$schema`: a dialect declaration (most servers' schema
/// generators add one), not a constraint, so it does not put a schema outside the subset.
fn without_dialect(schema: &JsonObject) -> Value {
    let mut schema = schema.clone();
    schema.remove("$schema");
    Value::Object(schema)
}

fn arguments_object(args: &Value) -> Result<JsonObject, ToolError> {
    match args {
        Value::Object(map) => Ok(map.clone()),
        _ => Err(ToolError::new("MCP tool arguments must be a JSON object")
            .with_info(ToolErrorInfo::new("ToolArgsError", codes::INVALID_ARGS))),
    }
}

/// The value a program receives: `structuredContent` for tools with an output schema,
/// else the text of the content blocks.
fn value_of(
    result: CallToolResult,
    structured: bool,
    spec: &McpServerSpec,
    tool: &str,
) -> Result<Value, ToolError> {
    if result.is_error == Some(true) {
        let text = content_text(&result.content);
        return Err(ToolError::new(if text.is_empty() {
            format!("MCP tool `{tool}` of `{}` reported an error", spec.name)
        } else {
            text
        }));
    }
    if structured {
        return result.structured_content.ok_or_else(|| {
            ToolError::new(format!(
                "MCP tool `{tool}` of `{}` declares an outputSchema but returned no structuredContent",
                spec.name
            ))
        });
    }
    Ok(Value::String(content_text(&result.content)))
}

/// Text blocks as they are; other blocks as a short bracketed note, one per line.
fn content_text(content: &[McpContent]) -> String {
    let parts: Vec<String> = content
        .iter()
        .map(|block| match block {
            McpContent::Text(t) => t.text.clone(),
            McpContent::Image(i) => {
                format!("[image {}, {} base64 bytes]", i.mime_type, i.data.len())
            }
            McpContent::Audio(a) => {
                format!("[audio {}, {} base64 bytes]", a.mime_type, a.data.len())
            }
            McpContent::ResourceLink(r) => format!("[resource {}]", r.uri),
            McpContent::Resource(r) => match &r.resource {
                ResourceContents::TextResourceContents { text, .. } => text.clone(),
                ResourceContents::BlobResourceContents { uri, .. } => format!("[resource {uri}]"),
                _ => "[resource]".to_string(),
            },
            _ => "[unsupported content]".to_string(),
        })
        .collect();
    parts.join("\n")
}
