//! Starting one MCP server: spawn its process, run the handshake and list its tools, all
//! before one startup deadline (or until ptc stops); on any failure the process is killed and
//! reaped before the error is returned.

use std::sync::Arc;

use rmcp::model::Tool;
use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, ServiceExt};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::process::ServerProcess;
use super::upstream::{Tap, Upstream};
use super::{McpError, McpServerSpec};

/// A started server: its connection, its process, the tools it listed, and the `serverInfo`
/// it gave in the handshake.
pub(super) struct Started {
    pub(super) service: RunningService<RoleClient, ()>,
    pub(super) process: ServerProcess,
    pub(super) tools: Vec<Tool>,
    pub(super) server: Option<serde_json::Value>,
}

/// Why a startup phase did not complete.
enum Interrupted {
    TimedOut,
    Cancelled,
}

/// Spawn the process in its own process group, run the MCP handshake and (when `list`)
/// list its tools, all before one deadline. On any failure the process is killed and
/// reaped before the error is returned.
pub(super) async fn start(
    spec: &McpServerSpec,
    stop: &CancellationToken,
    list: bool,
    upstream: &Arc<Upstream>,
) -> Result<Started, McpError> {
    let failed = |reason: String| McpError::Start {
        server: spec.name.clone(),
        command: spec.command_line(),
        reason,
    };
    let interrupted = |phase: &str, why: Interrupted| match why {
        Interrupted::TimedOut => McpError::StartupTimeout {
            server: spec.name.clone(),
            phase: phase.to_string(),
            timeout_ms: spec.startup_timeout().as_millis() as u64,
        },
        Interrupted::Cancelled => McpError::Cancelled {
            server: spec.name.clone(),
        },
    };
    let deadline = Instant::now() + spec.startup_timeout();
    let (mut process, stdout, stdin) =
        ServerProcess::spawn(spec).map_err(|e| failed(e.to_string()))?;
    let transport = Tap::new(
        AsyncRwTransport::new_client(stdout, stdin),
        upstream.clone(),
    );
    let service = match within(deadline, stop, ().serve(transport)).await {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => {
            process.kill().await;
            return Err(failed(e.to_string()));
        }
        Err(why) => {
            process.kill().await;
            return Err(interrupted("initialize", why));
        }
    };
    let listed = if list {
        within(deadline, stop, service.peer().list_all_tools()).await
    } else {
        Ok(Ok(Vec::new()))
    };
    let tools = match listed {
        Ok(Ok(tools)) => tools,
        Ok(Err(e)) => {
            service.cancellation_token().cancel();
            process.kill().await;
            return Err(McpError::List {
                server: spec.name.clone(),
                reason: e.to_string(),
            });
        }
        Err(why) => {
            service.cancellation_token().cancel();
            process.kill().await;
            return Err(interrupted("tools/list", why));
        }
    };
    let server = service.peer_info().and_then(|info| {
        let mut said = serde_json::to_value(&info.server_info).ok()?;
        if let (Some(map), Some(instructions)) = (said.as_object_mut(), &info.instructions) {
            map.insert("instructions".into(), instructions.clone().into());
        }
        Some(said)
    });
    Ok(Started {
        service,
        process,
        tools,
        server,
    })
}

/// Run `work` until `deadline`, or until `stop` fires.
async fn within<T>(
    deadline: Instant,
    stop: &CancellationToken,
    work: impl std::future::Future<Output = T>,
) -> Result<T, Interrupted> {
    tokio::select! {
        biased;
        _ = stop.cancelled() => Err(Interrupted::Cancelled),
        outcome = tokio::time::timeout_at(deadline, work) => outcome.map_err(|_| Interrupted::TimedOut),
    }
}
