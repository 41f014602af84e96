//! `ptc run --trace`: one compact stderr line per tool call as it settles.

use std::sync::Arc;

use ptc::{ToolExecution, ToolExecutionResult, ToolRegistry};

/// Print `  ↳ <id> <name> <duration> ok|error: <message>` for every call.
pub fn install(registry: &ToolRegistry) {
    registry.on_result(
        |exec: &Arc<ToolExecution>, result: &Arc<ToolExecutionResult>| {
            let took = exec.started_at().elapsed();
            let outcome = match result.error() {
                None => "ok".to_string(),
                Some(e) => format!("error: {}", e.message.lines().next().unwrap_or("")),
            };
            let indent = if exec.parent().is_some() {
                "  ↳ "
            } else {
                ""
            };
            crate::output::stderr_line(&format!(
                "{indent}{} {} {:.1?} {outcome}",
                exec.call_id(),
                exec.name(),
                took
            ));
        },
    );
}
