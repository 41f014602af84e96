//! One MCP server as ptc uses it: started over stdio, restarted on next use after it
//! exits, calls cancelled upstream when ptc cancels them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use process_wrap::tokio::{CommandWrap, ProcessGroup};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientRequest, JsonObject, RequestId, ServerResult, Tool,
};
use rmcp::service::{Peer, PeerRequestOptions, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::{McpError, McpServerSpec};

/// A handle on one MCP server. Cheap to clone; all clones share the connection.
///
/// The server is started by [`McpClient::start`]. When its process exits (or the
/// connection otherwise closes) the calls in flight fail, and the next call starts a
/// fresh process.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

struct Inner {
    spec: McpServerSpec,
    slot: Mutex<Option<Arc<Connection>>>,
    starts: AtomicU64,
}

struct Connection {
    generation: u64,
    service: RunningService<RoleClient, ()>,
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
    /// Start the server and complete the MCP handshake.
    pub async fn start(spec: McpServerSpec) -> Result<Self, McpError> {
        spec.validate()?;
        let client = McpClient {
            inner: Arc::new(Inner {
                spec,
                slot: Mutex::new(None),
                starts: AtomicU64::new(0),
            }),
        };
        client.connection().await?;
        Ok(client)
    }

    /// The declaration this client runs.
    pub fn spec(&self) -> &McpServerSpec {
        &self.inner.spec
    }

    /// How many times the server process has been started (1 until it is restarted).
    pub fn starts(&self) -> u64 {
        self.inner.starts.load(Ordering::Relaxed)
    }

    /// Every tool the server lists (all pages).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, McpError> {
        let conn = self.connection().await?;
        conn.service
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| McpError::List {
                server: self.inner.spec.name.clone(),
                reason: e.to_string(),
            })
    }

    /// Call `tool` with `arguments`. When `signal` fires first, `notifications/cancelled`
    /// is sent upstream (awaited, so it is on the wire before the call ends) and the call
    /// ends as cancelled. Dropping the future mid-call sends it too, from a spawned task.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
        signal: &CancellationToken,
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
        let sent = peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await;
        let mut handle = match sent {
            Ok(handle) => handle,
            Err(e) => return Err(self.failed(&conn, e).await),
        };
        let mut guard = CancelOnDrop {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            biased;
            _ = signal.cancelled() => {
                guard.id = None;
                let _ = handle.cancel(Some(CANCEL_REASON.into())).await;
                return Err(CallError::Cancelled);
            }
            response = &mut handle.rx => response,
        };
        guard.id = None;
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

    /// Stop the server gracefully: close its stdin and give it [`SHUTDOWN_GRACE`] to exit
    /// before it is killed, so notifications already sent, such as cancellations, are
    /// read before it goes. A later call starts it again.
    pub async fn shutdown(&self) {
        let conn = self.inner.slot.lock().await.take();
        if let Some(conn) = conn {
            match Arc::try_unwrap(conn) {
                Ok(mut conn) => {
                    let _ = conn.service.close_with_timeout(SHUTDOWN_GRACE).await;
                }
                // A call still holds it: dropping the last handle kills the process.
                Err(shared) => drop(shared),
            }
        }
    }

    /// The open connection, starting the server when there is none.
    async fn connection(&self) -> Result<Arc<Connection>, McpError> {
        let mut slot = self.inner.slot.lock().await;
        if let Some(conn) = slot.as_ref().filter(|c| c.is_open()) {
            return Ok(conn.clone());
        }
        let generation = self.inner.starts.fetch_add(1, Ordering::Relaxed) + 1;
        let service = start(&self.inner.spec).await?;
        let conn = Arc::new(Connection {
            generation,
            service,
        });
        *slot = Some(conn.clone());
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

/// How long [`McpClient::shutdown`] waits for the process to exit on its own.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a server may take to start and answer `initialize`.
const STARTUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

const CANCEL_REASON: &str = "cancelled by ptc (the run or the call was cancelled)";

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

/// Spawn the process in its own process group (so wrappers such as `npx` take their
/// children with them when killed) and run the MCP handshake.
async fn start(spec: &McpServerSpec) -> Result<RunningService<RoleClient, ()>, McpError> {
    let failed = |reason: String| McpError::Start {
        server: spec.name.clone(),
        command: spec.command_line(),
        reason,
    };
    let mut command = tokio::process::Command::new(&spec.command);
    command.args(&spec.args).envs(&spec.env).kill_on_drop(true);
    let mut command = CommandWrap::from(command);
    command.wrap(ProcessGroup::leader());
    let transport = TokioChildProcess::new(command).map_err(|e| failed(e.to_string()))?;
    tokio::time::timeout(STARTUP_TIMEOUT, ().serve(transport))
        .await
        .map_err(|_| failed(format!("no handshake within {STARTUP_TIMEOUT:?}")))?
        .map_err(|e| failed(e.to_string()))
}
