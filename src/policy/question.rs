//! The question seam: who answers `ask_user_question`.
//!
//! A host attaches a [`QuestionService`] to the calling [`Agent`](crate::Agent)
//! ([`Agent::with_questions`](crate::Agent::with_questions)); `ptc serve` attaches one per
//! MCP session that asks through the client (elicitation). Without one, the tool falls back
//! to its deployment's service (the `ptc` command asks on its terminal), and with none it
//! fails with [`NO_ONE_TO_ASK`].

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use crate::execution::ToolExecution;

/// The error of a question no one can answer: no service, or no terminal to ask on.
pub const NO_ONE_TO_ASK: &str =
    "no user is attached: no terminal to ask on, and no MCP client that can be asked";

/// One question for a person.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Question {
    /// Stable id, echoed in the answer.
    pub id: String,
    /// The question.
    pub question: String,
    /// A short heading.
    #[serde(default)]
    pub header: Option<String>,
    /// Choices; none means a free-text answer.
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// Whether more than one option may be chosen.
    #[serde(default)]
    pub multi_select: bool,
}

/// One choice of a [`Question`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct QuestionOption {
    /// What the person sees and what the answer holds.
    pub label: String,
    /// The tradeoff, in a sentence.
    #[serde(default)]
    pub description: Option<String>,
}

/// The answer to one question: its id and the chosen labels (or the text written).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// The question's id.
    pub id: String,
    /// The chosen option labels, or one free-text answer.
    pub answer: Vec<String>,
}

/// Answers `ask_user_question`.
pub trait QuestionService: Send + Sync + 'static {
    /// Ask the person the questions of `call`; every answer in question order, or why
    /// there are none (declined, cancelled, timed out, nobody to ask).
    fn ask(
        &self,
        call: &ToolExecution,
        questions: Vec<Question>,
    ) -> BoxFuture<'static, Result<Vec<Answer>, String>>;
}
