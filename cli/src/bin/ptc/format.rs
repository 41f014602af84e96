//! Model-facing tool lists in the wire formats of common model APIs.

use ptc::ListedTool;
use serde_json::{json, Value};

/// `tools` as `format` expects them: `ptc` (name, description, parameters), `openai`
/// (function tools), `anthropic` (`input_schema`) or `mcp` (exactly `ptc serve`'s
/// `tools/list` entries, `outputSchema` included).
pub fn schemas(tools: &[ListedTool], format: &str) -> Value {
    let one = |t: &ListedTool| {
        let s = &t.schema;
        match format {
            "openai" => json!({
                "type": "function",
                "function": {"name": s.name, "description": s.description, "parameters": s.parameters},
            }),
            "anthropic" => {
                json!({"name": s.name, "description": s.description, "input_schema": s.parameters})
            }
            "mcp" => ptc_mcp::mcp_tool(t),
            _ => json!({"name": s.name, "description": s.description, "parameters": s.parameters}),
        }
    };
    Value::Array(tools.iter().map(one).collect())
}
