//! A run's inbox: the questions it waits on, for requests that cannot ask their client.
//!
//! A 2026-07-28 request has no session, so the server cannot send it `elicitation/create`.
//! Instead the run puts its question here and waits; the request that is attending the run
//! sees it ([`Inbox::asking`]), answers its client with an input-required result carrying
//! every waiting question, and the client's retry brings the answers back
//! ([`Inbox::answer`]), which wakes the waiting run.

use std::collections::BTreeMap;
use std::sync::Mutex;

use rmcp::model::{ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest};
use rmcp::model::{InputRequests, InputResponses};
use tokio::sync::{oneshot, watch};

/// One question waiting for its answer.
struct Pending {
    params: ElicitRequestParams,
    answer: oneshot::Sender<Result<ElicitResult, String>>,
}

/// The questions of one run (see the module docs).
pub(crate) struct Inbox {
    can_elicit: bool,
    pending: Mutex<(u64, BTreeMap<String, Pending>)>,
    /// Bumped whenever a question arrives.
    asked: watch::Sender<u64>,
}

impl Inbox {
    /// An empty inbox for a client that did (or did not) declare the elicitation capability.
    pub(crate) fn new(can_elicit: bool) -> Self {
        Inbox {
            can_elicit,
            pending: Mutex::new((0, BTreeMap::new())),
            asked: watch::channel(0).0,
        }
    }

    /// Whether the client can answer forms at all.
    pub(crate) fn can_elicit(&self) -> bool {
        self.can_elicit
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, BTreeMap<String, Pending>)> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Put a question; its key and the answer to wait for.
    pub(crate) fn ask(
        &self,
        params: ElicitRequestParams,
    ) -> (
        String,
        impl std::future::Future<Output = Result<ElicitResult, String>>,
    ) {
        let (tx, rx) = oneshot::channel();
        let key = {
            let mut pending = self.lock();
            pending.0 += 1;
            let key = format!("ptc-{}", pending.0);
            pending
                .1
                .insert(key.clone(), Pending { params, answer: tx });
            key
        };
        self.asked.send_modify(|n| *n += 1);
        let reply = async move {
            rx.await
                .unwrap_or_else(|_| Err("not given: the question was withdrawn".into()))
        };
        (key, reply)
    }

    /// Take back question `key` (its asker stopped waiting).
    pub(crate) fn withdraw(&self, key: &str) {
        self.lock().1.remove(key);
    }

    /// Wait until at least one question waits; then every waiting question, as the input
    /// requests of an input-required result.
    pub(crate) async fn asking(&self) -> InputRequests {
        let mut asked = self.asked.subscribe();
        loop {
            let requests: InputRequests = self
                .lock()
                .1
                .iter()
                .map(|(key, p)| {
                    let request = ElicitRequest::new(p.params.clone());
                    (key.clone(), InputRequest::Elicitation(request))
                })
                .collect();
            if !requests.is_empty() {
                return requests;
            }
            if asked.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
    }

    /// Deliver the client's answers to the questions they name (others keep waiting;
    /// answers to no waiting question are ignored).
    pub(crate) fn answer(&self, responses: InputResponses) {
        for (key, value) in responses {
            let Some(pending) = self.lock().1.remove(&key) else {
                continue;
            };
            let answer = serde_json::from_value::<ElicitResult>(value).map_err(|e| {
                format!("failed: the answer to `{key}` is not an elicitation result ({e})")
            });
            let _ = pending.answer.send(answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ElicitationAction, ElicitationSchema};
    use serde_json::json;

    fn params(message: &str) -> ElicitRequestParams {
        let schema: ElicitationSchema =
            serde_json::from_value(json!({ "type": "object", "properties": {} })).unwrap();
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.into(),
            requested_schema: schema,
        }
    }

    #[tokio::test]
    async fn answers_reach_their_questions_and_nothing_else_does() {
        let inbox = Inbox::new(true);
        let (first, reply_one) = inbox.ask(params("one"));
        let (second, reply_two) = inbox.ask(params("two"));
        let asked = inbox.asking().await;
        assert_eq!(asked.keys().collect::<Vec<_>>(), vec![&first, &second]);
        inbox.answer(
            [
                (first.clone(), json!({ "action": "accept", "content": {} })),
                (second.clone(), json!({ "not": "an elicitation result" })),
                ("ptc-99".to_string(), json!({ "action": "accept" })),
            ]
            .into_iter()
            .collect(),
        );
        assert_eq!(reply_one.await.unwrap().action, ElicitationAction::Accept);
        let refused = reply_two.await.unwrap_err();
        assert!(
            refused.contains("is not an elicitation result"),
            "{refused}"
        );
        // Answered questions are gone; a withdrawn one too.
        let (third, _reply) = inbox.ask(params("three"));
        inbox.withdraw(&third);
        use futures::FutureExt;
        assert!(
            inbox.asking().now_or_never().is_none(),
            "nothing waits any more"
        );
    }
}
