//! The discovery pack: `search_tools`, `describe_tools` and `call_tool`, ordinary tools in
//! the pipeline (logged, policies apply, typed outputs). Each sees only the tools the
//! caller's scope may execute, as the caller's step admits them.

use std::sync::Arc;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde_json::{json, Value};

use super::is_discovery_tool;
use super::overview::{cut, one_line};
use super::signature::signature;
use crate::code::CodeExecutor;
use crate::definition::ToolDefinition;
use crate::error::{codes, RegistryError, ToolError, ToolErrorInfo};
use crate::execution::{ToolExecutionInput, ToolRunContext};
use crate::registry::ToolRegistry;
use crate::result::Outcome;

/// Finds tools by a plain-words query.
pub const SEARCH_TOOLS: &str = "search_tools";
/// The full declarations of named tools.
pub const DESCRIBE_TOOLS: &str = "describe_tools";
/// Calls a tool by name (for clients that never re-read their tool list).
pub const CALL_TOOL: &str = "call_tool";

/// Results of a search unless `limit` says otherwise, and at most.
const DEFAULT_LIMIT: usize = 5;
const MAX_LIMIT: usize = 25;
/// Characters of a tool's description in a search result.
const DESCRIPTION_CHARS: usize = 200;
/// Names `describe_tools` takes at once.
const MAX_NAMES: usize = 50;
/// Names longer than this get no did-you-mean (the edit distance is quadratic).
const MAX_SUGGESTED_CHARS: usize = 128;

#[derive(serde::Deserialize)]
struct Search {
    query: String,
    limit: Option<f64>,
    server: Option<String>,
}

#[derive(serde::Deserialize)]
struct Describe {
    names: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Call {
    name: String,
    arguments: Option<Value>,
}

/// The three discovery tools.
pub fn tools() -> Vec<ToolDefinition> {
    let found = ValueSpec::object(false)
        .required_property("name", ValueSpec::string())
        .required_property("server", ValueSpec::string())
        .required_property("description", ValueSpec::string())
        .required_property("signature", ValueSpec::string());
    let defs = [
        ToolDefinition::builder(SEARCH_TOOLS)
            .description("Find tools by what they do: the best matches first, each with its server and TypeScript call signature. Found tools can then be called (and join a native tool list).")
            .parameters(
                ParameterSpec::new()
                    .required("query", ValueSpec::string().describe("What you need, in plain words (e.g. \"create a GitHub issue\")."))
                    .optional("limit", ValueSpec::integer().describe("How many results (default 5, at most 25)."))
                    .optional("server", ValueSpec::string().describe("Only tools of this server or pack.")),
            )
            .output(
                ValueSpec::object(false)
                    .required_property("tools", ValueSpec::array(found))
                    .required_property("total", ValueSpec::integer().describe("How many tools matched.")),
            )
            .concurrency_safe(true)
            .execute(|args: Search, ctx| async move { search(args, &ctx) }),
        ToolDefinition::builder(DESCRIBE_TOOLS)
            .description("The full TypeScript declarations (arguments, result, documentation) of the named tools.")
            .parameters(ParameterSpec::new().required(
                "names",
                ValueSpec::array(ValueSpec::string()).describe("Tool names, as search_tools returned them."),
            ))
            .output(ValueSpec::string())
            .concurrency_safe(true)
            .execute(|args: Describe, ctx| async move { describe(args, &ctx) }),
        ToolDefinition::builder(CALL_TOOL)
            .description("Call any tool by name with its arguments (the tool runs as if called directly).")
            .parameters(
                ParameterSpec::new()
                    .required("name", ValueSpec::string().describe("The tool's name."))
                    .optional("arguments", ValueSpec::object(true).describe("The tool's arguments.")),
            )
            .output(ValueSpec::json())
            .execute(|args: Call, ctx| async move { call(args, ctx).await }),
    ];
    defs.into_iter()
        .map(|b| b.build().expect("the discovery tools are valid"))
        .collect()
}

/// Register the discovery tools globally. They are offered to the model only while
/// discovery is on ([`ToolRegistry::set_discovery`]).
pub fn register(registry: &ToolRegistry) -> Result<(), RegistryError> {
    for def in tools() {
        registry.register(def)?;
    }
    Ok(())
}

/// What the caller may execute, but the discovery tools.
fn callable(ctx: &ToolRunContext) -> Vec<Arc<ToolDefinition>> {
    let exec = ctx.execution();
    ctx.registry()
        .view(exec.agent().map(|a| a.scope()), exec.tool_set())
        .executable_definitions()
        .into_iter()
        .filter(|d| !is_discovery_tool(d.name()))
        .collect()
}

fn search(args: Search, ctx: &ToolRunContext) -> Result<Value, ToolError> {
    let limit = match args.limit {
        None => DEFAULT_LIMIT,
        Some(n) if n >= 1.0 => (n as usize).min(MAX_LIMIT),
        Some(n) => {
            return Err(ToolError::invalid_args(
                SEARCH_TOOLS,
                format!("/limit: must be at least 1, got {n}"),
            ))
        }
    };
    let registry = ctx.registry();
    let state = registry.discovery_state();
    let indexed = state.index.get(callable(ctx), &state.grouping());
    let hits = indexed.index.search(&args.query, args.server.as_deref());
    let docs = indexed.index.docs();
    let shown = &hits[..hits.len().min(limit)];
    let tools: Vec<Value> = shown
        .iter()
        .map(|hit| {
            let doc = &docs[hit.index];
            json!({
                "name": doc.name,
                "server": doc.server,
                "description": cut(&one_line(&doc.description), DESCRIPTION_CHARS),
                "signature": signature(&indexed.tools[hit.index]),
            })
        })
        .collect();
    let names: Vec<String> = shown.iter().map(|h| docs[h.index].name.clone()).collect();
    if let Some(owner) = ctx.execution().agent().and_then(|a| a.owner()) {
        if state.reveal(owner.handle(), &names) {
            registry.emit_change();
        }
    }
    Ok(json!({ "tools": tools, "total": hits.len() }))
}

fn describe(args: Describe, ctx: &ToolRunContext) -> Result<Value, ToolError> {
    if args.names.len() > MAX_NAMES {
        return Err(ToolError::invalid_args(
            DESCRIBE_TOOLS,
            format!(
                "/names: at most {MAX_NAMES} names at once, got {}",
                args.names.len()
            ),
        ));
    }
    let all = callable(ctx);
    let mut found = Vec::new();
    let mut notes = String::new();
    for name in &args.names {
        match all.iter().find(|d| d.name() == name) {
            Some(def) => found.push(def.clone()),
            None => notes.push_str(&format!("// {}\n", unknown(name, &all))),
        }
    }
    if found.is_empty() {
        return Err(
            ToolError::new(notes.replace("// ", "").trim_end().to_string())
                .with_info(ToolErrorInfo::new("ToolNotFoundError", codes::UNKNOWN_TOOL)),
        );
    }
    Ok(Value::String(format!(
        "{notes}{}",
        CodeExecutor::declarations(&found)
    )))
}

/// `Unknown tool: x. Did you mean y?`
fn unknown(name: &str, all: &[Arc<ToolDefinition>]) -> String {
    let near = (name.len() <= MAX_SUGGESTED_CHARS)
        .then(|| crate::suggest::closest(name, all.iter().map(|d| d.name())))
        .flatten();
    let shown = cut(&one_line(name), MAX_SUGGESTED_CHARS);
    match near {
        Some(near) => format!("Unknown tool: {shown}. Did you mean {near}?"),
        None => format!("Unknown tool: {shown}. Find tools with {SEARCH_TOOLS}."),
    }
}

async fn call(args: Call, ctx: ToolRunContext) -> Result<Value, ToolError> {
    if is_discovery_tool(&args.name) {
        return Err(ToolError::invalid_args(
            CALL_TOOL,
            format!(
                "/name: `{}` is called directly, not through {CALL_TOOL}",
                args.name
            ),
        ));
    }
    let exec = ctx.execution();
    let all = callable(&ctx);
    if !all.iter().any(|d| d.name() == args.name) {
        return Err(ToolError::new(unknown(&args.name, &all))
            .with_info(ToolErrorInfo::new("ToolNotFoundError", codes::UNKNOWN_TOOL)));
    }
    let input = ToolExecutionInput {
        call_id: format!("{}:{CALL_TOOL}", exec.call_id()),
        root_call_id: Some(exec.root_call_id().to_string()),
        name: args.name,
        arguments: args.arguments.unwrap_or_else(|| json!({})).into(),
        agent: exec.agent().cloned(),
        tool_set: exec.tool_set().cloned(),
        parent: Some(exec.token()),
        signal: ctx.signal().child_token(),
    };
    let result = ctx.registry().dispatch(input).await;
    match result.outcome {
        Outcome::Success { value, .. } => Ok((*value).clone()),
        Outcome::Failure(failure) => Err(ToolError {
            message: failure.message,
            info: failure.info,
        }),
    }
}
