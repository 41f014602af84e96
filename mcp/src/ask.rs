//! `ask_user_question` through the MCP client: a [`QuestionService`] that puts the
//! questions to one MCP session's (or one run's, without a session) person as one
//! elicitation form ([`Asker`]).
//!
//! | question | form property (named by the question's id) |
//! |---|---|
//! | no options | a string (free text) |
//! | options | a string, one of the option labels (`oneOf` with titles) |
//! | options, `multi_select` | an array of option labels (`items.anyOf`) |
//!
//! The header (else the id) is the property's title, the question its description; every
//! question is required. Decline, cancel, a timeout (`approval_timeout_ms`) or a client
//! without the elicitation capability fail the call, saying which.

use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};
use rmcp::model::ElicitationAction;
use serde_json::{json, Map, Value};

use crate::elicit::{Asker, Unanswered};
use ptc::policy::question::{Answer, Question, QuestionService};
use ptc::ToolExecution;

/// Asks one MCP session's (or run's) person.
pub(super) struct ElicitationQuestions {
    pub(super) asker: Asker,
    pub(super) timeout: Duration,
}

fn choice(o: &ptc::policy::question::QuestionOption) -> Value {
    let title = match &o.description {
        Some(d) => format!("{} — {d}", o.label),
        None => o.label.clone(),
    };
    json!({ "const": o.label, "title": title })
}

/// The form: one property per question.
fn form(questions: &[Question]) -> Value {
    let mut properties = Map::new();
    for q in questions {
        let title = q.header.clone().unwrap_or_else(|| q.id.clone());
        let choices: Vec<Value> = q.options.iter().map(choice).collect();
        let property = match (choices.is_empty(), q.multi_select) {
            (true, _) => json!({ "type": "string" }),
            (false, false) => json!({ "type": "string", "oneOf": choices }),
            (false, true) => json!({ "type": "array", "items": { "anyOf": choices } }),
        };
        let mut property = property;
        property["title"] = title.into();
        property["description"] = q.question.clone().into();
        properties.insert(q.id.clone(), property);
    }
    let required: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    json!({ "type": "object", "properties": properties, "required": required })
}

fn message(questions: &[Question]) -> String {
    let mut text = String::from("The agent asks:");
    for q in questions {
        text.push_str("\n- ");
        text.push_str(&q.question);
    }
    text
}

/// The answers in `content`, in question order.
fn answers(questions: &[Question], content: Option<&Value>) -> Result<Vec<Answer>, String> {
    questions
        .iter()
        .map(|q| {
            let value = content.and_then(|c| c.get(&q.id));
            let answer = match value {
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect(),
                Some(Value::Null) | None => {
                    return Err(format!("the user gave no answer to `{}`", q.id))
                }
                Some(other) => vec![other.to_string()],
            };
            Ok(Answer {
                id: q.id.clone(),
                answer,
            })
        })
        .collect()
}

impl QuestionService for ElicitationQuestions {
    fn ask(
        &self,
        call: &ToolExecution,
        questions: Vec<Question>,
    ) -> BoxFuture<'static, Result<Vec<Answer>, String>> {
        let (signal, call_id) = (call.signal().clone(), call.call_id().to_string());
        let (asker, timeout) = (self.asker.clone(), self.timeout);
        async move {
            let result = asker
                .ask(
                    &call_id,
                    message(&questions),
                    form(&questions),
                    timeout,
                    &signal,
                )
                .await
                .map_err(|e| match e {
                    Unanswered::NoCapability => "no user is attached: the MCP client did not \
                        declare the elicitation capability"
                        .to_string(),
                    Unanswered::Not(why) => format!("the question was not answered ({why})"),
                })?;
            match result.action {
                ElicitationAction::Accept => answers(&questions, result.content.as_ref()),
                ElicitationAction::Decline => Err("the user declined to answer".into()),
                ElicitationAction::Cancel => Err("the user cancelled the question".into()),
                other => Err(format!("the question was not answered ({other:?})")),
            }
        }
        .boxed()
    }
}
