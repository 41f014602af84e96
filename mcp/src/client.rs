//! One MCP server as ptc uses it: started over stdio within one startup timeout (or, on a
//! warm start, known from its cached tools and started on first use), restarted on next use
//! after it exits, calls cancelled upstream when ptc cancels them, and its process stopped
//! and reaped on every path (see [`super::process`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientRequest, JsonObject, ProgressNotificationParam, RequestId,
    ServerResult, Tool,
};
use rmcp::service::{Peer, PeerRequestOptions, RunningService, ServiceError};
use rmcp::RoleClient;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::process::ServerProcess;
use super::startup::start;
use super::upstream::Upstream;
use super::{McpError, McpServerSpec};
use ptc::ToolExecution;
use ptc::{Progress, ProgressSink};

/// A handle on one MCP server. Cheap to clone; all clones share the connection.
///
/// The server is started by [`McpClient::start`], or known from cached tools by
/// [`McpClient::warm`] and started by the first call (or [`McpClient::connect`]). When its
/// process exits (or the connection otherwise closes) the calls in flight fail, and the next
/// call starts a fresh process.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

struct Inner {
    spec: McpServerSpec,
    slot: Mutex<Option<Arc<Connection>>>,
    starts: AtomicU64,
    /// The tools listed during startup, or cached.
    tools: Vec<Tool>,
    /// The tools came from the cache and the server has not been started since: its first
    /// start signals a list change, so the real list replaces the cached one.
    stale: AtomicBool,
    /// The `serverInfo` of the last handshake (or the cached one), with its `instructions`.
    server: std::sync::Mutex<Option<serde_json::Value>>,
    /// Notified when the first start of a warm client fails.
    warm_failed: tokio::sync::Notify,
    /// Cancels a start in progress (ptc is shutting down).
    stop: CancellationToken,
    /// Progress routes and the list-change signal, across restarts.
    upstream: Arc<Upstream>,
    /// Fired by [`McpClient::shutdown`].
    retired: CancellationToken,
}

struct Connection {
    generation: u64,
    service: RunningService<RoleClient, ()>,
    /// Taken by [`McpClient::shutdown`], even while calls still hold the connection.
    process: Mutex<ServerProcess>,
}

impl Connection {
    fn is_open(&self) -> bool {
        !self.service.is_closed() && !self.service.peer().is_transport_closed()
    }
}

/// Why a call to an MCP tool did not produce a result.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    /// The caller cancelled; `notifications/cancelled` went upstream.
    #[error("cancelled")]
    Cancelled,
    /// The server could not be (re)started.
    #[error(transparent)]
    Start(McpError),
    /// The connection closed during the call (the process exited or crashed).
    #[error("MCP server `{server}` exited during the call; it is restarted on next use")]
    Closed {
        /// The server's name.
        server: String,
    },
    /// The server answered with a protocol error.
    #[error("MCP server `{server}`: {message}")]
    Protocol {
        /// The server's name.
        server: String,
        /// The error.
        message: String,
    },
}

impl McpClient {
    /// Start the server: spawn it, complete the MCP handshake and list its tools, all
    /// within its startup timeout ([`McpServerSpec::startup_timeout`]).
    pub async fn start(spec: McpServerSpec) -> Result<Self, McpError> {
        Self::start_until(spec, &CancellationToken::new()).await
    }

    /// [`McpClient::start`], abandoned when `stop` fires (ptc is shutting down): the
    /// process is killed and reaped before this returns [`McpError::Cancelled`]. `stop`
    /// also guards every later restart.
    pub async fn start_until(
        spec: McpServerSpec,
        stop: &CancellationToken,
    ) -> Result<Self, McpError> {
        spec.validate()?;
        let upstream = Arc::new(Upstream::default());
        let started = start(&spec, stop, true, &upstream).await?;
        let conn = Arc::new(Connection {
            generation: 1,
            service: started.service,
            process: Mutex::new(started.process),
        });
        Ok(McpClient {
            inner: Arc::new(Inner {
                spec,
                slot: Mutex::new(Some(conn)),
                starts: AtomicU64::new(1),
                tools: started.tools,
                stale: AtomicBool::new(false),
                server: std::sync::Mutex::new(started.server),
                warm_failed: Default::default(),
                stop: stop.clone(),
                upstream,
                retired: CancellationToken::new(),
            }),
        })
    }

    /// A client of a server not started yet whose `tools` are known (cached from an earlier
    /// start): the first call, or [`McpClient::connect`], starts it, and that start signals a
    /// list change ([`McpClient::tools_changed`]) so the real list replaces `tools`. `stop`
    /// guards every start, as in [`McpClient::start_until`].
    pub fn warm(
        spec: McpServerSpec,
        tools: Vec<Tool>,
        server: Option<serde_json::Value>,
        stop: &CancellationToken,
    ) -> Result<Self, McpError> {
        spec.validate()?;
        Ok(McpClient {
            inner: Arc::new(Inner {
                spec,
                slot: Mutex::new(None),
                starts: AtomicU64::new(0),
                tools,
                stale: AtomicBool::new(true),
                server: std::sync::Mutex::new(server),
                warm_failed: Default::default(),
                stop: stop.clone(),
                upstream: Arc::new(Upstream::default()),
                retired: CancellationToken::new(),
            }),
        })
    }

    /// Start the server now unless it runs (a warm client's background start).
    pub async fn connect(&self) -> Result<(), McpError> {
        self.connection().await.map(drop)
    }

    /// The tools the server listed when it started, or the cached ones of a warm client (see
    /// [`McpClient::list_tools`] for now).
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The `serverInfo` (name, version, …) the server gave in its last handshake, with its
    /// `instructions` when it gave some; a warm client's cached one until it has started.
    pub fn server_info(&self) -> Option<serde_json::Value> {
        self.inner
            .server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The server's `instructions` from its handshake (or its cached one): what it is for,
    /// in its own words.
    pub fn instructions(&self) -> Option<String> {
        let server = self.server_info()?;
        let text = server.get("instructions")?.as_str()?.trim();
        (!text.is_empty()).then(|| text.to_string())
    }

    /// Completes when the first start of a warm client ([`McpClient::warm`]) failed (not
    /// abandoned): its cached tools are not the server's to offer.
    pub async fn warm_start_failed(&self) {
        self.inner.warm_failed.notified().await
    }

    /// Completes once [`McpClient::shutdown`] has been called.
    pub async fn retired(&self) {
        self.inner.retired.cancelled().await
    }

    /// Completes when the server has said (`notifications/tools/list_changed`) that its
    /// tool list changed since the last time this completed.
    pub async fn tools_changed(&self) {
        self.inner.upstream.tools_changed.notified().await
    }

    /// The process id of the running server, if one is running.
    pub async fn pid(&self) -> Option<u32> {
        let slot = self.inner.slot.lock().await;
        let conn = slot.as_ref()?;
        let pid = conn.process.lock().await.id();
        Some(pid)
    }

    /// The declaration this client runs.
    pub fn spec(&self) -> &McpServerSpec {
        &self.inner.spec
    }

    /// How many times the server process has been started (1 until it is restarted; 0 for a
    /// warm client not started yet).
    pub fn starts(&self) -> u64 {
        self.inner.starts.load(Ordering::Relaxed)
    }

    /// Every tool the server lists now (all pages), within the per-call timeout.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, McpError> {
        let conn = self.connection().await?;
        let timeout = self.inner.spec.timeout();
        let failed = |reason: String| McpError::List {
            server: self.inner.spec.name.clone(),
            reason,
        };
        tokio::time::timeout(timeout, conn.service.peer().list_all_tools())
            .await
            .map_err(|_| {
                failed(format!(
                    "no answer within {} ms (timeout_ms)",
                    timeout.as_millis()
                ))
            })?
            .map_err(|e| failed(e.to_string()))
    }

    /// Call `tool` with `arguments`, `idempotency_key` in the request's `_meta`
    /// ([`IDEMPOTENCY_KEY`]: the same for a call a durable run repeats after a crash). When `signal` fires first, `notifications/cancelled`
    /// is sent upstream (awaited, so it is on the wire before the call ends) and the call
    /// ends as cancelled. Dropping the future mid-call sends it too, from a spawned task.
    /// With `progress`, the call carries a `progressToken` and every report the server
    /// sends for it before its response is handed to the sink, in order, before this
    /// returns.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
        idempotency_key: &str,
        signal: &CancellationToken,
        progress: Option<(&Arc<dyn ProgressSink>, &ToolExecution)>,
    ) -> Result<CallToolResult, CallError> {
        let server = self.inner.spec.name.clone();
        let conn = tokio::select! {
            biased;
            _ = signal.cancelled() => return Err(CallError::Cancelled),
            conn = self.connection() => conn.map_err(CallError::Start)?,
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let peer = conn.service.peer().clone();
        let mut route = progress.map(|_| self.inner.upstream.route());
        let mut options = PeerRequestOptions::no_options();
        let mut meta = route.as_ref().map(|r| r.meta()).unwrap_or_default();
        meta.insert(IDEMPOTENCY_KEY.into(), idempotency_key.into());
        options.meta = Some(meta);
        let sent = peer.send_cancellable_request(request, options).await;
        let mut handle = match sent {
            Ok(handle) => handle,
            Err(e) => return Err(self.failed(&conn, e).await),
        };
        let mut guard = CancelOnDrop {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = loop {
            let report = async {
                match route.as_mut() {
                    Some(route) => route.reports.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = signal.cancelled() => {
                    guard.id = None;
                    let _ = handle.cancel(Some(CANCEL_REASON.into())).await;
                    return Err(CallError::Cancelled);
                }
                Some(report) = report => {
                    if let Some((sink, exec)) = progress {
                        sink.report(exec, relayed(report)).await;
                    }
                }
                response = &mut handle.rx => break response,
            }
        };
        guard.id = None;
        // Reports that arrived before the response.
        if let (Some(route), Some((sink, exec))) = (route.as_mut(), progress) {
            while let Ok(report) = route.reports.try_recv() {
                sink.report(exec, relayed(report)).await;
            }
        }
        match response {
            Ok(Ok(ServerResult::CallToolResult(result))) => Ok(result),
            Ok(Ok(other)) => Err(CallError::Protocol {
                server,
                message: format!("unexpected response to tools/call: {other:?}"),
            }),
            Ok(Err(e)) => Err(self.failed(&conn, e).await),
            Err(_) => Err(self.failed(&conn, ServiceError::TransportClosed).await),
        }
    }

    /// Classify a failed request: a closed connection is retired (restart on next use).
    async fn failed(&self, conn: &Connection, error: ServiceError) -> CallError {
        let server = self.inner.spec.name.clone();
        let closed = matches!(
            error,
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
        );
        if closed || !conn.is_open() {
            self.retire(conn.generation).await;
            return CallError::Closed { server };
        }
        CallError::Protocol {
            server,
            message: error.to_string(),
        }
    }

    /// Stop the server gracefully: close its stdin and give it `SHUTDOWN_GRACE` to exit,
    /// then SIGTERM and another grace, then SIGKILL, so notifications already sent, such
    /// as cancellations, are read before it goes. Returns once the process is reaped,
    /// also when calls still hold the connection (they fail). A later call starts it again.
    pub async fn shutdown(&self) {
        self.inner.retired.cancel();
        let conn = self.inner.slot.lock().await.take();
        if let Some(conn) = conn {
            conn.service.cancellation_token().cancel();
            conn.process.lock().await.stop(SHUTDOWN_GRACE).await;
        }
    }

    /// The open connection, starting the server when there is none.
    async fn connection(&self) -> Result<Arc<Connection>, McpError> {
        let mut slot = self.inner.slot.lock().await;
        if let Some(conn) = slot.as_ref().filter(|c| c.is_open()) {
            return Ok(conn.clone());
        }
        let generation = self.inner.starts.fetch_add(1, Ordering::Relaxed) + 1;
        let started = start(
            &self.inner.spec,
            &self.inner.stop,
            false,
            &self.inner.upstream,
        )
        .await;
        let started = match started {
            Ok(started) => started,
            Err(e) => {
                let abandoned = matches!(e, McpError::Cancelled { .. });
                if !abandoned && self.inner.stale.load(Ordering::Relaxed) {
                    self.inner.warm_failed.notify_one();
                }
                return Err(e);
            }
        };
        *self.inner.server.lock().unwrap_or_else(|e| e.into_inner()) = started.server;
        let conn = Arc::new(Connection {
            generation,
            service: started.service,
            process: Mutex::new(started.process),
        });
        *slot = Some(conn.clone());
        if self.inner.stale.swap(false, Ordering::Relaxed) {
            // The registered tools are the cached ones: have them listed again.
            self.inner.upstream.tools_changed.notify_one();
        }
        Ok(conn)
    }

    /// Forget connection `generation` (if it is still the current one) so the next
    /// call starts a fresh process; dropping it kills what is left of the old one.
    async fn retire(&self, generation: u64) {
        let mut slot = self.inner.slot.lock().await;
        if slot.as_ref().is_some_and(|c| c.generation == generation) {
            *slot = None;
        }
    }
}

/// How long [`McpClient::shutdown`] waits for the process to exit on its own (and again
/// after SIGTERM).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// The `_meta` key of the idempotency key every `tools/call` carries: the ptc call's id,
/// `<runId>:ptc:<n>` for a program's sub-call, the same when a durable run repeats a call its
/// crashed instance had in flight. A server that records effects under it does each once.
pub const IDEMPOTENCY_KEY: &str = "ptc/idempotencyKey";

const CANCEL_REASON: &str = "cancelled by ptc (the run or the call was cancelled)";

/// An upstream report as ptc relays it.
fn relayed(report: ProgressNotificationParam) -> Progress {
    Progress {
        progress: report.progress,
        total: report.total,
        message: report.message,
    }
}

/// Sends `notifications/cancelled` for a request whose future is dropped mid-call.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        let params = CancelledNotificationParam::new(Some(id), Some(CANCEL_REASON.into()));
        runtime.spawn(async move {
            let _ = peer
                .send_notification(CancelledNotification::new(params).into())
                .await;
        });
    }
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.inner.spec.name)
            .field("starts", &self.starts())
            .finish()
    }
}
