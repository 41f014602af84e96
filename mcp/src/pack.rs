//! An MCP server's tools as registry tools.
//!
//! | MCP | registry tool |
//! |---|---|
//! | `name` | `<server>__<name>` ([`SEPARATOR`]) |
//! | `description` (else `title`) | description |
//! | `inputSchema` (minus its root `$schema`; without `type` it becomes an object schema, [`ptc_schema::foreign_input_schema`], so ptc re-serves it as one) | parameters, validated when inside the enforced subset, else passed through unvalidated (typed `unknown` in the SDK, with a warning) |
//! | `outputSchema` | output schema; the value is `structuredContent` (a schema outside the subset becomes `{}` with a warning) |
//! | no `outputSchema` | output `string`: the text of the result's content blocks |
//! | `isError: true` | a tool error carrying the text |
//! | `annotations.readOnlyHint: true` | concurrency-safe (may overlap with siblings) |
//! | `annotations.idempotentHint: true` | idempotent: a durable run repeats it, with the same `_meta["ptc/idempotencyKey"]`, when its instance died mid-call |

use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolResult, ContentBlock as McpContent, JsonObject, ResourceContents, Tool};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::cache::CacheEntry;
use super::client::CallError;
use super::{McpClient, McpError, McpServerSpec};
use ptc::discovery::ToolGroup;
use ptc::ToolBuilder;
use ptc::ToolRegistry;
use ptc::{codes, ToolError, ToolErrorInfo};
use ptc::{Disposer, ToolDefinition};

/// Between the server's name and the tool's: `everything__echo`.
pub const SEPARATOR: &str = "__";

/// A registered MCP server: its client, the registry names of its tools, and what
/// registration warned about.
///
/// When the server says its tool list changed (`notifications/tools/list_changed`), ptc
/// lists it again and updates the registry: new tools are registered, gone ones
/// unregistered, changed ones replaced (until [`McpPack::dispose`], the client's
/// [`McpClient::shutdown`], or ptc's stop signal).
#[derive(Debug)]
pub struct McpPack {
    /// The server's client (restarts the process on next use after it exits).
    pub client: McpClient,
    /// Registry names of the tools at registration, in the server's order.
    pub tools: Vec<String>,
    /// One line per tool whose schemas lie outside the enforced subset.
    pub warnings: Vec<String>,
    registered: Arc<Registered>,
    /// The server as a group of tools for discovery's overview, when it gave `instructions`.
    group: Option<Disposer>,
    watch: CancellationToken,
}

/// The tools of one server in the registry now: its MCP tool and its disposer, by name.
#[derive(Default)]
struct Registered(Mutex<Vec<(String, Tool, Disposer)>>);

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Registered {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Tool, Disposer)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn names(&self) -> Vec<String> {
        self.lock().iter().map(|(n, _, _)| n.clone()).collect()
    }

    fn dispose(&self) {
        for (_, _, disposer) in std::mem::take(&mut *self.lock()) {
            disposer.dispose();
        }
    }
}

impl McpPack {
    /// Unregister the server's tools and stop following its list changes (the process
    /// stops when the last client handle drops).
    pub fn dispose(self) {
        self.watch.cancel();
        self.registered.dispose();
        if let Some(group) = self.group {
            group.dispose();
        }
    }

    /// Registry names of the server's tools now (after any list change).
    pub fn current_tools(&self) -> Vec<String> {
        self.registered.names()
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
    register_client(registry, client, None, stop).await
}

/// Register the tools of `client` (started, or warm with cached tools) and follow its list
/// changes until `stop` fires, keeping each new list in `cache`. On a refusal the tools
/// registered so far are unregistered and the server is shut down.
pub(crate) async fn register_client(
    registry: &ToolRegistry,
    client: McpClient,
    cache: Option<CacheEntry>,
    stop: &CancellationToken,
) -> Result<McpPack, McpError> {
    let server = client.spec().name.clone();
    let registered = Arc::new(Registered::default());
    let mut tools = Vec::new();
    let mut all_warnings = Vec::new();
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
                registered.dispose();
                client.shutdown().await;
                return Err(e);
            }
        };
        for warning in &warnings {
            tracing::warn!(server = %server, "{warning}");
        }
        all_warnings.extend(warnings);
        tools.push(name.clone());
        registered.lock().push((name, tool.clone(), disposer));
    }
    // What the server is for, in its own words, heads its line in discovery's overview.
    let group = client.instructions().map(|about| {
        registry.add_tool_group(ToolGroup {
            name: server.clone(),
            about: Some(about),
            tools: Vec::new(),
        })
    });
    let watch = stop.child_token();
    tokio::spawn(follow(
        registry.clone(),
        client.clone(),
        registered.clone(),
        cache,
        watch.clone(),
    ));
    Ok(McpPack {
        client,
        tools,
        warnings: all_warnings,
        registered,
        group,
        watch,
    })
}

/// List the server again whenever it says its tools changed (or, warm, when it first
/// starts), update the registry, and keep the list in `cache`; when a warm server's first
/// start fails, unregister its cached tools and forget them.
async fn follow(
    registry: ToolRegistry,
    client: McpClient,
    registered: Arc<Registered>,
    cache: Option<CacheEntry>,
    watch: CancellationToken,
) {
    loop {
        tokio::select! {
            biased;
            _ = watch.cancelled() => return,
            _ = client.retired() => return,
            _ = client.warm_start_failed() => {
                // The cached tools are not the server's to offer: withdraw them, forget them.
                registered.dispose();
                if let Some(entry) = &cache {
                    entry.forget();
                }
                return;
            }
            _ = client.tools_changed() => {}
        }
        match client.list_tools().await {
            Ok(tools) => {
                resync(&registry, &client, &registered, &tools);
                if let Some(entry) = &cache {
                    if let Err(e) = entry.write(&tools, client.server_info().as_ref()) {
                        tracing::warn!(server = %client.spec().name, "tools cache {} not written: {e}", entry.path().display());
                    }
                }
            }
            Err(e) => tracing::warn!("{e}; its registered tools are kept as they were"),
        }
    }
}

/// Make the server's registered tools `tools`: unchanged ones stay, changed ones are
/// replaced, new ones registered, gone ones unregistered.
fn resync(registry: &ToolRegistry, client: &McpClient, registered: &Registered, tools: &[Tool]) {
    let server = &client.spec().name;
    let mut current = registered.lock();
    let mut old: Vec<(String, Tool, Disposer)> = std::mem::take(&mut *current);
    for tool in tools {
        let name = format!("{server}{SEPARATOR}{}", tool.name);
        let previous = old
            .iter()
            .position(|(n, _, _)| *n == name)
            .map(|i| old.swap_remove(i));
        if let Some((name, same, disposer)) = previous {
            if same == *tool {
                current.push((name, same, disposer));
                continue;
            }
            disposer.dispose();
        }
        let (builder, warnings) = definition(client, tool);
        for warning in &warnings {
            tracing::warn!(server = %server, "{warning}");
        }
        match builder.build().and_then(|def| registry.register(def)) {
            Ok(disposer) => current.push((name, tool.clone(), disposer)),
            Err(e) => tracing::warn!(server = %server, "{name} not registered: {e}"),
        }
    }
    for (_, _, disposer) in old {
        disposer.dispose();
    }
}

/// The registry definition of one MCP tool, and the warnings it raises.
fn definition(client: &McpClient, tool: &Tool) -> (ToolBuilder, Vec<String>) {
    let spec = client.spec();
    let name = format!("{}{SEPARATOR}{}", spec.name, tool.name);
    let mut warnings = Vec::new();
    let parameters = ptc_schema::foreign_input_schema(&tool.input_schema);
    if let Err(e) = ptc_schema::assert_object_schema(&parameters) {
        warnings.push(format!(
            "{name}: input schema outside the supported subset ({}); its arguments are typed `unknown` and passed through unvalidated",
            one_line(&e)
        ));
    }
    let (output, structured) = match &tool.output_schema {
        Some(schema) => {
            let schema = ptc_schema::foreign_output_schema(schema);
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
    let hint = |hint: fn(&rmcp::model::ToolAnnotations) -> Option<bool>| {
        tool.annotations.as_ref().and_then(hint).unwrap_or(false)
    };
    let (read_only, idempotent) = (hint(|a| a.read_only_hint), hint(|a| a.idempotent_hint));
    let client = client.clone();
    let upstream: Arc<str> = Arc::from(tool.name.as_ref());
    let builder = ToolDefinition::builder(name)
        .description(description)
        .parameters_passthrough(parameters)
        .output_schema(output)
        .timeout_ms(u64::try_from(spec.timeout().as_millis()).unwrap_or(u64::MAX))
        .concurrency_safe(read_only)
        .idempotent(idempotent)
        .execute_raw(move |args, ctx| {
            let client = client.clone();
            let upstream = upstream.clone();
            async move {
                let arguments = arguments_object(&args)?;
                let execution = ctx.execution().clone();
                let sink = execution.agent().and_then(|a| a.progress()).cloned();
                let progress = sink.as_ref().map(|s| (s, &*execution));
                match client
                    .call(
                        &upstream,
                        arguments,
                        ctx.idempotency_key(),
                        ctx.signal(),
                        progress,
                    )
                    .await
                {
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
