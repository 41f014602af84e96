//! What `ptc serve` tells its clients without being asked: progress of the call a client
//! waits for ([`Relay`]), and that the tools it would list now differ from what it listed
//! ([`follow_tool_list`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use futures::future::{BoxFuture, FutureExt};
use rmcp::model::{ProgressNotificationParam, ProgressToken, Tool};
use rmcp::service::Peer;
use rmcp::RoleServer;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use ptc::ScopeKey;
use ptc::ToolExecution;
use ptc::{ListedTool, ToolRegistry};
use ptc::{Progress, ProgressSink};

/// Relays progress to the client that sent `progressToken` with its `tools/call`.
///
/// Reports of the called tool itself (a native call) pass unchanged. Reports of a
/// sub-call (a `run_code` program calling a tool that reports progress) are counted, so
/// the progress a client sees for its one token keeps increasing however many sub-calls
/// report: `progress` is the running count, and `message` names the tool (`fx__build:
/// 2/5 compiling`).
pub(super) struct Relay {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    count: AtomicU64,
}

impl Relay {
    /// A relay to `peer` for `token`.
    pub(super) fn new(peer: Peer<RoleServer>, token: ProgressToken) -> Arc<Self> {
        Arc::new(Relay {
            peer,
            token,
            count: AtomicU64::new(0),
        })
    }
}

impl ProgressSink for Relay {
    fn report(&self, call: &ToolExecution, progress: Progress) -> BoxFuture<'static, ()> {
        let mut params = ProgressNotificationParam::new(self.token.clone(), progress.progress);
        if call.parent().is_none() {
            params.total = progress.total;
            params.message = progress.message;
        } else {
            let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
            let amount = match progress.total {
                Some(total) => format!("{}/{}", progress.progress, total),
                None => progress.progress.to_string(),
            };
            let note = progress
                .message
                .map(|m| format!(" {m}"))
                .unwrap_or_default();
            params.progress = n as f64;
            params.message = Some(format!("{}: {amount}{note}", call.name()));
        }
        let peer = self.peer.clone();
        async move {
            // A client that went away misses its progress; the call goes on.
            let _ = peer.notify_progress(params).await;
        }
        .boxed()
    }
}

/// Counts the registry's changes, for every session to follow. Dropped with the last
/// server clone; the registry's listener then does nothing.
pub(super) fn changes(registry: &ToolRegistry) -> Arc<watch::Sender<u64>> {
    let (send, _) = watch::channel(0u64);
    let send = Arc::new(send);
    let weak: Weak<watch::Sender<u64>> = Arc::downgrade(&send);
    let listener = registry.on_change(move || {
        if let Some(send) = weak.upgrade() {
            send.send_modify(|n| *n = n.wrapping_add(1));
        }
    });
    // The listener lives as long as the registry; it holds only a weak handle.
    std::mem::forget(listener);
    send
}

/// What a session follows to tell its client about tool-list changes.
pub(super) struct ListFollower {
    pub(super) registry: ToolRegistry,
    pub(super) scope: ScopeKey,
    /// The session's owner (the tools its searches found join its list).
    pub(super) owner: Option<u64>,
    pub(super) changes: watch::Receiver<u64>,
    /// Fires when the session (its owner) or the server ends.
    pub(super) ended: CancellationToken,
    pub(super) shutdown: CancellationToken,
}

/// Send `notifications/tools/list_changed` to `peer` whenever the tools the session
/// would list differ from the last ones it listed or announced, until the session ends.
pub(super) async fn follow_tool_list(mut follow: ListFollower, peer: Peer<RoleServer>) {
    let mut last = listed(&follow.registry, &follow.scope, follow.owner);
    loop {
        tokio::select! {
            biased;
            _ = follow.ended.cancelled() => return,
            _ = follow.shutdown.cancelled() => return,
            changed = follow.changes.changed() => if changed.is_err() { return },
        }
        let now = listed(&follow.registry, &follow.scope, follow.owner);
        if now == last {
            continue;
        }
        last = now;
        if peer.is_transport_closed() || peer.notify_tool_list_changed().await.is_err() {
            return;
        }
    }
}

/// The tools as an MCP client of `scope` (and `owner`) sees them, if they can be listed.
fn listed(registry: &ToolRegistry, scope: &ScopeKey, owner: Option<u64>) -> Option<Vec<Tool>> {
    let view = registry.view(Some(scope), None);
    owner
        .map_or(view, |owner| view.for_owner(owner))
        .listed_tools()
        .ok()
        .map(mcp_tools)
}

/// Listed tools as MCP `Tool`s (one that cannot be is left out, with a warning).
pub(super) fn mcp_tools(listed: Vec<ListedTool>) -> Vec<Tool> {
    listed
        .into_iter()
        .map(|tool| serde_json::from_value::<Tool>(super::mcp_tool(&tool)))
        .filter_map(|tool| match tool {
            Ok(tool) => Some(tool),
            Err(e) => {
                tracing::warn!("a tool cannot be listed over MCP: {e}");
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ptc::{Agent, ScopeKey, ToolDefinition, ToolError, ToolRegistry};

    #[test]
    fn a_server_does_not_keep_its_registry_alive() {
        let registry = ToolRegistry::new();
        // The registry owns this tool's body, and the body owns `alive`: the registry is
        // gone when `alive` is.
        let alive = Arc::new(());
        let weak = Arc::downgrade(&alive);
        let tool = ToolDefinition::builder("probe")
            .output(ptc_schema::ValueSpec::string())
            .execute(move |_: serde_json::Value, _ctx| {
                let _alive = alive.clone();
                async move { Ok::<_, ToolError>("ok") }
            })
            .build()
            .unwrap();
        registry.register(tool).unwrap();
        let server = super::super::PtcServer::new(registry, Agent::new(ScopeKey::root("t")));
        drop(server);
        assert!(
            weak.upgrade().is_none(),
            "the change listener's disposer (forgotten) must not hold the registry"
        );
    }
}
