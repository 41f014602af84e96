//! The tools whose parameters carry a routing header (`x-mcp-header`, SEP-2243), so that rmcp
//! checks a 2026-07-28 request's `Mcp-Param-*` headers against its body: a header that
//! disagrees with the argument, or an argument sent without its header, is refused as a
//! header mismatch (the client then lists the tools again and resends, now with the header
//! a load balancer routes on). Kept per registry change: `ServerHandler::get_tool` is asked
//! on every such request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

/// Routed tools by name.
type ByName = Arc<HashMap<String, Tool>>;

/// Routed tools by name, as of a registry change count.
#[derive(Default)]
pub(crate) struct RoutedTools {
    cached: Mutex<Option<(u64, ByName)>>,
}

impl RoutedTools {
    /// The routed tool `name` as of change `version`, listing with `list` when the cache is
    /// older.
    pub(crate) fn get(
        &self,
        name: &str,
        version: u64,
        list: impl FnOnce() -> Vec<Tool>,
    ) -> Option<Tool> {
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        let tools = match &*cached {
            Some((seen, tools)) if *seen == version => tools.clone(),
            _ => {
                let tools: ByName = Arc::new(
                    list()
                        .into_iter()
                        .filter(|t| routed(&t.input_schema))
                        .map(|t| (t.name.to_string(), t))
                        .collect(),
                );
                *cached = Some((version, tools.clone()));
                tools
            }
        };
        tools.get(name).cloned()
    }
}

/// Whether a top-level property of `schema` is marked `x-mcp-header`.
fn routed(schema: &JsonObject) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|props| props.values().any(|p| p.get("x-mcp-header").is_some()))
}
