//! The outcome of one tool call.

use std::sync::Arc;

use serde_json::Value;

use crate::content::{ContentBlock, UserMessage};
use crate::error::ToolFailure;

/// Success or failure of one call, with the fields only that branch may carry.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The tool produced a value that passed its output schema.
    Success {
        /// Execution-local canonical value (never logged durably).
        value: Arc<Value>,
        /// The agent loop stops after committing this batch.
        concludes_turn: bool,
    },
    /// The call failed.
    Failure(ToolFailure),
}

/// The normalized, execution-local outcome of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExecutionResult {
    /// Success (with value) or failure (with error).
    pub outcome: Outcome,
    /// Model-facing content.
    pub content: Vec<ContentBlock>,
    /// Presentation metadata.
    pub meta: Option<Value>,
    /// Context deferred until after this result, in call order.
    pub additional_contexts: Vec<UserMessage>,
    /// What a cap left out of a success (see `ToolRunContext::cut_short`), if anything.
    pub cut_short: Option<String>,
    /// Anything else the tool said of a success (see `ToolRunContext::note`).
    pub note: Option<String>,
    /// A note on a success that stands only while a program never reads certain fields of the
    /// value (see `ToolRunContext::note_unless_read`).
    pub unless_read: Option<UnlessRead>,
}

/// A note a program makes moot by reading one of `fields` of a tool's value (a failed
/// command's `exit_code` or `stderr`): the run's result shows it only if the program never did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnlessRead {
    /// The fields of the value whose read takes the note back.
    pub fields: Vec<String>,
    /// The note.
    pub text: String,
}

impl ToolExecutionResult {
    /// A success with `value` and `content`.
    pub fn success(value: Arc<Value>, content: Vec<ContentBlock>) -> Self {
        ToolExecutionResult {
            outcome: Outcome::Success {
                value,
                concludes_turn: false,
            },
            content,
            meta: None,
            additional_contexts: Vec::new(),
            cut_short: None,
            note: None,
            unless_read: None,
        }
    }

    /// A failure whose content is the native `Error: <message>` envelope.
    pub fn failure(failure: ToolFailure) -> Self {
        let content = vec![ContentBlock::text(format!("Error: {}", failure.message))];
        ToolExecutionResult {
            outcome: Outcome::Failure(failure),
            content,
            meta: None,
            additional_contexts: Vec::new(),
            cut_short: None,
            note: None,
            unless_read: None,
        }
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        matches!(self.outcome, Outcome::Failure(_))
    }

    /// The value of a success.
    pub fn value(&self) -> Option<&Arc<Value>> {
        match &self.outcome {
            Outcome::Success { value, .. } => Some(value),
            Outcome::Failure(_) => None,
        }
    }

    /// The failure detail of an error.
    pub fn error(&self) -> Option<&ToolFailure> {
        match &self.outcome {
            Outcome::Failure(f) => Some(f),
            Outcome::Success { .. } => None,
        }
    }

    /// The structured error code of a failure.
    pub fn error_code(&self) -> Option<&str> {
        self.error().and_then(ToolFailure::code)
    }

    /// Whether a success concludes the turn.
    pub fn concludes_turn(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Success {
                concludes_turn: true,
                ..
            }
        )
    }
}
