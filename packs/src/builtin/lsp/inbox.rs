//! What a server tells the client unasked: work-done progress (its indexing) and published
//! diagnostics, kept for the calls that wait on them, and the answers to its own requests.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use lsp_types::notification::{Notification, Progress, PublishDiagnostics};
use lsp_types::{
    Diagnostic, NumberOrString, ProgressParams, ProgressParamsValue, PublishDiagnosticsParams, Url,
    WorkDoneProgress, WorkDoneProgressCreateParams,
};
use serde_json::{json, Value};
use tokio::sync::watch;

use super::projects;

/// The diagnostics last published for one document.
#[derive(Debug, Clone)]
pub(crate) struct Published {
    /// The document version they are for, when the server says.
    pub(crate) version: Option<i32>,
    /// When they arrived (see [`Inbox::seq`]).
    pub(crate) seq: u64,
    /// The diagnostics.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

#[derive(Default)]
struct State {
    /// Progress tokens created or begun and not yet ended.
    active: HashSet<String>,
    /// Whether the server ever created or began a progress token.
    reports_progress: bool,
    diagnostics: HashMap<Url, Published>,
    /// Bumped by every message that changed the state.
    seq: u64,
}

/// The state a server's notifications build; waiters see every change.
pub(crate) struct Inbox {
    state: Mutex<State>,
    changed: watch::Sender<u64>,
}

impl Default for Inbox {
    fn default() -> Self {
        Inbox {
            state: Mutex::default(),
            changed: watch::channel(0).0,
        }
    }
}

impl Inbox {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The count of changes so far (a later publication has a larger `seq`).
    pub(crate) fn seq(&self) -> u64 {
        self.lock().seq
    }

    /// Take one notification from the server.
    pub(crate) fn notification(&self, method: &str, params: Value) {
        let mut state = self.lock();
        match method {
            Progress::METHOD => {
                let Ok(p) = serde_json::from_value::<ProgressParams>(params) else {
                    return;
                };
                let token = token_key(p.token);
                match p.value {
                    ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(_)) => {
                        state.reports_progress = true;
                        state.active.insert(token);
                    }
                    ProgressParamsValue::WorkDone(WorkDoneProgress::End(_)) => {
                        state.active.remove(&token);
                    }
                    _ => return,
                }
            }
            PublishDiagnostics::METHOD => {
                let Ok(p) = serde_json::from_value::<PublishDiagnosticsParams>(params) else {
                    return;
                };
                let seq = state.seq + 1;
                state.diagnostics.insert(
                    p.uri,
                    Published {
                        version: p.version,
                        seq,
                        diagnostics: p.diagnostics,
                    },
                );
            }
            _ => return,
        }
        state.seq += 1;
        let seq = state.seq;
        self.changed.send_replace(seq);
    }

    /// Take the server's request `window/workDoneProgress/create`: the token counts as
    /// under way until its progress ends (servers create it before they begin).
    pub(crate) fn created(&self, params: &Value) {
        let Ok(p) = serde_json::from_value::<WorkDoneProgressCreateParams>(params.clone()) else {
            return;
        };
        let mut state = self.lock();
        state.reports_progress = true;
        state.active.insert(token_key(p.token));
        state.seq += 1;
        self.changed.send_replace(state.seq);
    }

    /// Wait up to `limit` for the server to show it reports progress; whether it did.
    pub(crate) async fn wait_reports_progress(&self, limit: Duration) -> bool {
        self.wait(limit, |state| state.reports_progress).await
    }

    /// The diagnostics last published for `uri`.
    pub(crate) fn diagnostics(&self, uri: &Url) -> Option<Published> {
        self.lock().diagnostics.get(uri).cloned()
    }

    /// Wait up to `limit` until `done` holds of the diagnostics of `uri`; whether it did.
    pub(crate) async fn wait_diagnostics(
        &self,
        uri: &Url,
        limit: Duration,
        done: impl Fn(&Published) -> bool,
    ) -> bool {
        self.wait(limit, |state| state.diagnostics.get(uri).is_some_and(&done))
            .await
    }

    /// Wait up to `limit` until no progress is under way (the server finished indexing);
    /// whether it did. Progress still open then is forgotten (a server that never ends one
    /// does not hold up every later call).
    pub(crate) async fn wait_idle(&self, limit: Duration) -> bool {
        let idle = self.wait(limit, |state| state.active.is_empty()).await;
        if !idle {
            self.lock().active.clear();
        }
        idle
    }

    async fn wait(&self, limit: Duration, done: impl Fn(&State) -> bool) -> bool {
        let mut changes = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if done(&self.lock()) {
                return true;
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => return done(&self.lock()),
            }
        }
    }
}

fn token_key(token: NumberOrString) -> String {
    match token {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s,
    }
}

/// The result for a request the server sent (pyright asks `workspace/configuration` for
/// `python` and `python.analysis`: it is told where the workspace's Python projects keep
/// their packages, [`projects::import_roots`]) (`Err`: method not found).
pub(crate) fn answer(method: &str, params: &Value, root: &Url) -> Result<Value, ()> {
    match method {
        // Progress tokens, capability registrations, refresh requests: accepted.
        "window/workDoneProgress/create"
        | "client/registerCapability"
        | "client/unregisterCapability"
        | "workspace/diagnostic/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh" => Ok(Value::Null),
        // The server's defaults for each item asked, but where Python's imports are found.
        "workspace/configuration" => {
            let items = params["items"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            // The workspace is walked once a request, and only when a Python section is asked.
            let roots = std::cell::OnceCell::new();
            let paths = || {
                roots
                    .get_or_init(|| root.to_file_path().map(|r| projects::import_roots(&r)))
                    .clone()
            };
            let python = |section: &str| -> Value {
                match section {
                    "python.analysis" | "python" => match paths() {
                        Ok(paths) if section == "python" => {
                            json!({ "analysis": { "extraPaths": paths } })
                        }
                        Ok(paths) => json!({ "extraPaths": paths }),
                        Err(()) => Value::Null,
                    },
                    _ => Value::Null,
                }
            };
            Ok(items
                .iter()
                .map(|item| python(item["section"].as_str().unwrap_or_default()))
                .collect())
        }
        "workspace/workspaceFolders" => Ok(json!([{"uri": root, "name": "root"}])),
        "window/showMessageRequest" => Ok(Value::Null),
        _ => Err(()),
    }
}
