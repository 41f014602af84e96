//! `ptc serve --http ADDR`: MCP's streamable HTTP transport at `/mcp`, on hyper.
//!
//! A server that stays up: an accept error (file descriptors exhausted, say) is logged
//! and retried with a short backoff, never fatal; a connection's error ends only that
//! connection. What clients can hold is capped by [`ServeLimits`]: connections (further
//! ones wait in the listen backlog), sessions ([`sessions`]), running programs (the
//! server's run gate), request sizes, header and idle timeouts ([`connection`]). Who may
//! talk to it is decided by [`guard`]: the bearer token, `Host` and `Origin`.

mod connection;
mod guard;
mod sessions;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use guard::allowed_origins;
pub use guard::{check_exposure, BearerToken, UNAUTHENTICATED_FLAG};

use super::{McpError, PtcServer, ServeLimits, RUN_GRACE};

/// The path MCP clients connect to.
pub const PATH: &str = "/mcp";

/// Where to listen: `PORT` (on loopback) or `HOST:PORT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpBinding(pub SocketAddr);

impl FromStr for HttpBinding {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if let Ok(port) = text.parse::<u16>() {
            return Ok(HttpBinding(SocketAddr::new(
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                port,
            )));
        }
        text.parse::<SocketAddr>().map(HttpBinding).map_err(|_| {
            format!("`{text}` is neither PORT nor HOST:PORT (e.g. 8808 or 127.0.0.1:8808)")
        })
    }
}

/// How `serve_http` guards and bounds what it serves.
#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    /// Caps and timeouts.
    pub limits: ServeLimits,
    /// The bearer token every request must carry, if any.
    pub token: Option<BearerToken>,
    /// Serve a non-loopback address without a token (the operator said so).
    pub unauthenticated: bool,
    /// This instance's id (default: the bound `HOST:PORT`), see [`PtcServer::with_instance`].
    pub instance: Option<String>,
}

/// Bind `binding`, report the bound address (useful with port 0) through `bound`, and
/// serve until `stop` fires; then stop accepting, let connections finish (briefly),
/// cancel every run and wait for the runs to wind down.
///
/// A non-loopback address without a token is refused unless `options.unauthenticated`
/// ([`check_exposure`]). `Host` must be loopback, or the bound address when that is a
/// specific non-loopback one (any host when bound to all interfaces: a token or the
/// operator's explicit flag guards it then); a browser `Origin` must be a page on
/// loopback or on the bound address.
pub async fn serve_http(
    server: PtcServer,
    binding: HttpBinding,
    options: HttpOptions,
    stop: CancellationToken,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), McpError> {
    let failed = |reason: String| McpError::Http {
        addr: binding.0.to_string(),
        reason,
    };
    check_exposure(binding.0, options.token.as_ref(), options.unauthenticated)?;
    let listener = tokio::net::TcpListener::bind(binding.0)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let local = listener.local_addr().map_err(|e| failed(e.to_string()))?;
    let limits = options.limits;
    let instance = options.instance.unwrap_or_else(|| local.to_string());
    crate::check_instance(&instance).map_err(failed)?;
    let server = server.with_instance(&instance);
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(allowed_origins(local))
        .with_max_request_body_bytes(limits.max_request_bytes)
        .with_sse_keep_alive(Some(KEEP_ALIVE.min(limits.idle_timeout / 2)))
        .with_cancellation_token(stop.child_token());
    if local.ip().is_unspecified() {
        config = config.disable_allowed_hosts();
    } else if !local.ip().is_loopback() {
        let mut hosts = config.allowed_hosts.clone();
        hosts.push(local.ip().to_string());
        config = config.with_allowed_hosts(hosts);
    }
    // Each session its own owner of background work.
    let factory = {
        let server = server.clone();
        move || Ok(server.for_session())
    };
    let sessions = Arc::new(sessions::CappedSessions::new(&limits));
    let shared = Arc::new(connection::Shared {
        mcp: StreamableHttpService::new(factory, sessions, config),
        limits: limits.clone(),
        token: options.token,
        stop: stop.clone(),
    });
    bound(local);

    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let connections = TaskTracker::new();
    let mut backoff = ACCEPT_BACKOFF_MIN;
    loop {
        // At the cap, stop accepting: new connections wait in the kernel's backlog.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            _ = stop.cancelled() => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.cancelled() => break,
        };
        match accepted {
            Ok((stream, _)) => {
                backoff = ACCEPT_BACKOFF_MIN;
                // SSE responses go out in small writes: without this, Nagle's algorithm
                // meets the client's delayed ACK and each response waits ~40 ms.
                let _ = stream.set_nodelay(true);
                let shared = shared.clone();
                connections.spawn(async move {
                    connection::serve(stream, shared).await;
                    drop(slot);
                });
            }
            // EMFILE, ENFILE, ENOBUFS, ECONNABORTED…: this connection is lost, the
            // server is not. Back off so a persistent error does not spin.
            Err(e) => {
                tracing::warn!("MCP HTTP accept failed ({e}); retrying in {backoff:?}");
                drop(slot);
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = stop.cancelled() => break,
                }
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
            }
        }
    }
    drop(listener);
    server.shutdown(RUN_GRACE).await;
    connections.close();
    let _ = tokio::time::timeout(RUN_GRACE, connections.wait()).await;
    Ok(())
}

/// The SSE keep-alive interval (lowered to half the idle timeout when that is shorter,
/// so a stream that waits on a long run is never idle).
const KEEP_ALIVE: Duration = Duration::from_secs(15);
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);
