//! What a finished run shows the model (behaviours 49–50).

use ptc_engine::{RunFailure, RunReport};
use serde_json::Value;

use crate::definition::default_render;
use crate::error::{codes, ToolError, ToolErrorInfo};

/// Shown when a program neither printed nor returned anything.
pub(crate) const NO_OUTPUT: &str = "(run_code completed with no output)";

/// Console lines joined by newlines, then the returned value (a string raw, anything
/// else pretty JSON, or compact JSON where pretty-printing would take the text past
/// `max_output_bytes`: indentation grows with depth); a failure becomes
/// `code run failed (<kind>): <message>` followed by the output captured so far.
pub(crate) fn run_result(report: RunReport, max_output_bytes: usize) -> Result<Value, ToolError> {
    match report.outcome {
        Ok(value) => {
            let mut parts = report.logs;
            if let Some(value) = value {
                let logged: usize = parts.iter().map(|line| line.len() + 1).sum();
                let mut text = default_render(&value);
                if logged + text.len() > max_output_bytes {
                    text = ptc_schema::value::to_string_unbounded(&value);
                }
                parts.push(text);
            }
            let text = if parts.is_empty() {
                NO_OUTPUT.to_string()
            } else {
                parts.join("\n")
            };
            Ok(Value::String(text))
        }
        Err(failure) => Err(run_failure(&failure, &report.logs)),
    }
}

/// The structured `CODE_RUN_FAILED` error for a failed run.
pub(crate) fn run_failure(failure: &RunFailure, logs: &[String]) -> ToolError {
    let mut message = format!(
        "code run failed ({}): {}",
        failure.kind.as_str(),
        failure.message
    );
    if !logs.is_empty() {
        message.push_str("\nCaptured output:\n");
        message.push_str(&logs.join("\n"));
    }
    ToolError::new(message).with_info(ToolErrorInfo::new("CodeRunError", codes::CODE_RUN_FAILED))
}
