//! 2026-07-28 requests on a durable deployment (`ptc serve --durable`): a `run_code` run that
//! asks is not held in this instance's memory. Its questions wait in the run store (as a
//! task's do, `crate::task_questions`); the input-required result's `requestState` names the
//! run, sealed with a key every instance on the store shares (`d1.<sealed>@<instance>`: the
//! instance only routes). A retry on any instance opens it, keeps the answers in the store
//! and attends the run wherever it goes on: still waiting here, on another instance, or
//! resumed by replay after its instance died or parked it. A broken response stream does not
//! stop the run: its end stays in the store.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InputRequiredResult,
    RequestStateCodec, RequestStateError, SealOptions,
};
use rmcp::ErrorData;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::task_questions::input_requests;
use crate::tasks::{blocking, TaskState, TaskStore};
use crate::PtcServer;

/// What a durable `requestState` names: the run and the questions it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Ticket {
    run: String,
    keys: Vec<String>,
}

/// The mark of a state sealed with the store's key.
const PREFIX: &str = "d1.";

/// How often a request attending a run looks at it in the store.
const POLL: Duration = Duration::from_millis(100);

/// Whether `state` is a durable run's.
pub(crate) fn is_durable(state: &str) -> bool {
    state.starts_with(PREFIX)
}

/// The codec of the key the instances on `store` share.
fn codec(store: &dyn TaskStore) -> Result<RequestStateCodec, String> {
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(|e| format!("no randomness for a state key: {e}"))?;
    let key = store.shared_key(&fresh)?;
    RequestStateCodec::try_new(key).map_err(|e| format!("the store's state key: {e}"))
}

impl PtcServer {
    /// A `tools/call` of `run_code` without a session on a durable deployment: a new run, or
    /// (with a durable `requestState`) the answers to a run's questions; attended until it
    /// ends or asks again, or until `cancelled` (the run goes on).
    pub(crate) async fn call_durable(
        &self,
        store: Arc<dyn TaskStore>,
        request: CallToolRequestParams,
        cancelled: CancellationToken,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let (run, mut local) = match &request.request_state {
            Some(state) => {
                let (state, tool) = (state.clone(), name.clone());
                let responses = request.input_responses.clone().unwrap_or_default();
                let run = blocking(&store, move |s| answer(s, &state, &tool, responses)).await?;
                (
                    run.map_err(|why| ErrorData::invalid_params(why, None))?,
                    None,
                )
            }
            None => {
                let id = self.next_call_id();
                let run = id.0.clone();
                let server = PtcServer {
                    agent: self.task_agent(&run),
                    ..self.clone()
                };
                // The run outlives this request: a broken stream leaves it going.
                let caller = CancellationToken::new();
                store.watch(&run, caller.clone());
                let (tool, arguments) = (name.clone(), request.arguments.clone());
                let task = tokio::spawn(async move {
                    server
                        .call_with_id(id, &tool, arguments, caller, None)
                        .await
                });
                (run, Some(task))
            }
        };
        let mut finished = None;
        loop {
            tokio::select! {
                biased;
                _ = cancelled.cancelled() => {
                    return Err(ErrorData::internal_error(
                        format!("the request was cancelled; run {run} goes on (durable)"),
                        None,
                    ));
                }
                // The run ended here; or it was parked or handed over, and goes on elsewhere.
                done = async { local.as_mut().expect("guarded").await }, if local.is_some() => {
                    local = None;
                    finished = done.ok().and_then(Result::ok);
                    continue;
                }
                _ = tokio::time::sleep(POLL) => {}
            }
            let id = run.clone();
            match blocking(&store, move |s| s.state(&id)).await? {
                Some(TaskState::Ended {
                    output, is_error, ..
                }) => {
                    let result = finished.take().unwrap_or_else(|| match is_error {
                        true => CallToolResult::error(vec![ContentBlock::text(output)]),
                        false => CallToolResult::success(vec![ContentBlock::text(output)]),
                    });
                    return Ok(CallToolResponse::from(result));
                }
                Some(TaskState::InputRequired { open }) => {
                    let keys = open.iter().map(|(key, _)| key.clone()).collect();
                    let ticket = Ticket {
                        run: run.clone(),
                        keys,
                    };
                    let ttl = self.approval_timeout + Duration::from_secs(30);
                    let sealed = blocking(&store, {
                        let name = name.clone();
                        move |s| {
                            let options =
                                SealOptions::new().associated_data(name.as_bytes()).ttl(ttl);
                            codec(s)?
                                .seal_json_with(&ticket, &options)
                                .map_err(|e| e.to_string())
                        }
                    })
                    .await?;
                    let state = format!("{PREFIX}{sealed}@{}", self.instance);
                    let result = InputRequiredResult::new(Some(input_requests(open)), Some(state));
                    return Ok(CallToolResponse::InputRequired(result));
                }
                Some(TaskState::Working { .. }) | None => {}
            }
        }
    }
}

/// Open `state` for a retry of `tool` and keep `responses` as the answers to the questions
/// it names: the run's id, or why the retry is refused.
fn answer(
    store: &dyn TaskStore,
    state: &str,
    tool: &str,
    responses: BTreeMap<String, Value>,
) -> Result<Result<String, String>, String> {
    let sealed = state.strip_prefix(PREFIX).unwrap_or(state);
    let sealed = sealed.rsplit_once('@').map_or(sealed, |(sealed, _)| sealed);
    let opened = codec(store)?.open_json_with::<Ticket>(sealed, tool.as_bytes());
    let ticket = match opened {
        Ok(ticket) => ticket,
        Err(RequestStateError::Expired) => {
            return Ok(Err("requestState refused: it has expired".into()))
        }
        Err(_) => {
            return Ok(Err(format!(
                "requestState refused: it was not issued by this deployment for a call of \
                 `{tool}` (forged or altered)"
            )))
        }
    };
    if let Some(key) = responses.keys().find(|k| !ticket.keys.contains(k)) {
        return Ok(Err(format!(
            "requestState refused: the retry answers {key:?}, which that result did not ask"
        )));
    }
    for (key, answer) in &responses {
        // Answered already (a repeated retry): the first answer stands.
        store.answer(&ticket.run, key, answer)?;
    }
    Ok(Ok(ticket.run))
}
