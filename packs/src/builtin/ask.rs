//! `ask_user_question`: ask the person questions and wait for the answers.
//!
//! Who asks is the calling agent's [`QuestionService`] (`ptc serve` asks through the MCP
//! client with elicitation), else the deployment's ([`PackContext::questions`](crate::PackContext::questions):
//! the `ptc` command asks on its terminal); with neither the call fails with a tool error
//! saying no user is attached. Time spent waiting for the person does not count
//! against a `run_code` run's wall clock.

use std::collections::HashSet;
use std::sync::Arc;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};

use ptc::policy::question::{Answer, Question, QuestionService, NO_ONE_TO_ASK};
use ptc::policy::waiting;
use ptc::ToolDefinition;
use ptc::ToolError;

#[derive(Deserialize)]
struct Args {
    questions: Vec<Question>,
}

#[derive(Serialize)]
struct Output {
    answers: Vec<Answer>,
}

/// At most this many questions per call.
const MAX_QUESTIONS: usize = 20;

fn check(questions: &[Question]) -> Result<(), ToolError> {
    if questions.is_empty() {
        return Err(super::shared::invalid_args(
            "ask_user_question needs at least one question",
        ));
    }
    if questions.len() > MAX_QUESTIONS {
        return Err(super::shared::invalid_args(format!(
            "ask_user_question takes at most {MAX_QUESTIONS} questions per call"
        )));
    }
    let mut ids = HashSet::new();
    for q in questions {
        if q.id.trim().is_empty() || q.question.trim().is_empty() {
            return Err(super::shared::invalid_args(
                "every question needs a non-empty `id` and `question`",
            ));
        }
        if !ids.insert(q.id.as_str()) {
            return Err(super::shared::invalid_args(format!(
                "question id `{}` is used twice; ids must be unique",
                q.id
            )));
        }
    }
    Ok(())
}

fn option_spec() -> ValueSpec {
    ValueSpec::object(false)
        .required_property(
            "label",
            ValueSpec::string().describe("Short user-facing option label."),
        )
        .property(
            "description",
            ValueSpec::string().describe("One sentence explaining the tradeoff or impact."),
        )
}

fn question_spec() -> ValueSpec {
    ValueSpec::object(false)
        .required_property(
            "id",
            ValueSpec::string().describe("Stable id for this question; echoed in the answer."),
        )
        .required_property(
            "question",
            ValueSpec::string().describe("The specific question to ask the user."),
        )
        .property(
            "header",
            ValueSpec::string().describe(
                "Optional short heading for the question, such as \"Confirm\" or \"Choose Mode\".",
            ),
        )
        .property(
            "options",
            ValueSpec::array(option_spec()).describe(
                "Optional choices to show the user. If you recommend one, put it first and append \"(Recommended)\" to that label.",
            ),
        )
        .property(
            "multi_select",
            ValueSpec::boolean()
                .describe("Whether the user may select more than one option. Defaults to false."),
        )
}

/// The `ask_user_question` tool.
pub(crate) fn tool(fallback: Option<Arc<dyn QuestionService>>) -> ToolDefinition {
    ToolDefinition::builder("ask_user_question")
        .description(
            "Ask the user a concise question when you need confirmation, a choice, or missing \
             information before proceeding. Send one or more questions, each with a stable id \
             that will be echoed in the answer.",
        )
        .code_description("Ask the user; waits for the answers (labels chosen or text written).")
        .parameters(
            ParameterSpec::new().required(
                "questions",
                ValueSpec::array(question_spec())
                    .describe("Questions to ask the user before continuing."),
            ),
        )
        .output(
            ValueSpec::object(false).required_property(
                "answers",
                ValueSpec::array(
                    ValueSpec::object(false)
                        .required_property("id", ValueSpec::string())
                        .required_property("answer", ValueSpec::array(ValueSpec::string())),
                ),
            ),
        )
        .concurrency_safe(false)
        .execute(move |args: Args, ctx| {
            let fallback = fallback.clone();
            async move {
                check(&args.questions)?;
                let exec = ctx.execution().clone();
                let service = exec
                    .agent()
                    .and_then(|a| a.questions())
                    .or(fallback.as_ref())
                    .cloned()
                    .ok_or_else(|| ToolError::new(NO_ONE_TO_ASK))?;
                let waiting = waiting::begin();
                let answers = service.ask(&exec, args.questions).await;
                drop(waiting);
                answers
                    .map(|answers| Output { answers })
                    .map_err(ToolError::new)
            }
        })
        .build()
        .expect("the ask_user_question definition is valid")
}
