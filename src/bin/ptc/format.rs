//! Model-facing schemas in the wire formats of common model APIs.

use ptc::ToolSchema;
use serde_json::{json, Value};

/// `schemas` as `format` expects them: `ptc` (name, description, parameters), `openai`
/// (function tools), `anthropic` (`input_schema`) or `mcp` (`inputSchema`).
pub fn schemas(schemas: &[ToolSchema], format: &str) -> Value {
    let one = |s: &ToolSchema| match format {
        "openai" => json!({
            "type": "function",
            "function": {"name": s.name, "description": s.description, "parameters": s.parameters},
        }),
        "anthropic" => {
            json!({"name": s.name, "description": s.description, "input_schema": s.parameters})
        }
        "mcp" => json!({"name": s.name, "description": s.description, "inputSchema": s.parameters}),
        _ => json!({"name": s.name, "description": s.description, "parameters": s.parameters}),
    };
    Value::Array(schemas.iter().map(one).collect())
}
