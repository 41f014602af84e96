//! The tool list for clients that show their model tool descriptions and nothing else
//! (MCP clients, `ptc tools`): the guidance sections ride in `run_code`'s description.

use serde_json::Value;

use super::ToolView;
use crate::definition::ToolSchema;
use crate::definition::RUN_CODE;
use crate::discovery::SEARCH_TOOLS;
use crate::executor::ToolBatchExecutionError;

/// One tool as [`ToolView::listed_tools`] lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    /// Name, description and parameters, as the model sees them.
    pub schema: ToolSchema,
    /// The output schema, when it is an object schema (MCP's `outputSchema`: the tool's
    /// structured result).
    pub output_schema: Option<Value>,
}

impl ToolView<'_> {
    /// What the scope's executor offers, as one self-contained list: wherever `run_code` is
    /// offered, its description is the executor's guidance sections (the runtime contract
    /// and the SDK declarations, and with discovery on the overview) in place of its
    /// one-line description, so the list never points at declarations that are not in it.
    /// Without `run_code`, the discovery overview follows `search_tools`' description. `ptc serve` lists exactly this and `ptc
    /// tools` prints it; [`ToolView::model_input`] keeps the two apart for hosts that
    /// put sections in the system prompt.
    pub fn listed_tools(&self) -> Result<Vec<ListedTool>, ToolBatchExecutionError> {
        let (input, sections) = self.model_input()?;
        let guidance: String = sections.iter().map(|s| s.text.as_str()).collect();
        let overview = sections
            .iter()
            .find(|s| s.id == crate::discovery::SECTION_ID)
            .filter(|_| !input.known_names.iter().any(|n| n == RUN_CODE));
        Ok(input
            .schemas
            .into_iter()
            .map(|mut schema| {
                if schema.name == RUN_CODE && !guidance.is_empty() {
                    schema.description = guidance.clone();
                }
                if let Some(overview) = overview.filter(|_| schema.name == SEARCH_TOOLS) {
                    schema.description = format!("{}\n\n{}", schema.description, overview.text);
                }
                let output_schema = self
                    .get(&schema.name)
                    .map(|d| d.output().schema().clone())
                    .filter(|s| s.get("type").and_then(Value::as_str) == Some("object"));
                ListedTool {
                    schema,
                    output_schema,
                }
            })
            .collect())
    }
}
