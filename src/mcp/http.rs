//! `ptc serve --http ADDR`: MCP's streamable HTTP transport at `/mcp`, on hyper.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service as _;

use super::{McpError, PtcServer};

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

/// Bind `binding`, report the bound address (useful with port 0) through `bound`, and
/// serve until the process ends. Hosts other than loopback are accepted in the `Host`
/// header only when bound to a non-loopback address.
pub async fn serve_http(
    server: PtcServer,
    binding: HttpBinding,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), McpError> {
    let failed = |reason: String| McpError::Http {
        addr: binding.0.to_string(),
        reason,
    };
    let listener = tokio::net::TcpListener::bind(binding.0)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let local = listener.local_addr().map_err(|e| failed(e.to_string()))?;
    let mut config = StreamableHttpServerConfig::default();
    if !local.ip().is_loopback() {
        let mut hosts = config.allowed_hosts.clone();
        hosts.push(local.ip().to_string());
        config = config.with_allowed_hosts(hosts);
    }
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    bound(local);
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| failed(e.to_string()))?;
        let mcp = mcp.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: hyper::Request<Incoming>| {
                let mut mcp = mcp.clone();
                async move {
                    if request.uri().path() != PATH {
                        return Ok(not_found());
                    }
                    mcp.call(request).await
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = connection.await {
                tracing::debug!("MCP HTTP connection: {e}");
            }
        });
    }
}

/// The response type of rmcp's HTTP service.
type Response = hyper::Response<BoxBody<Bytes, Infallible>>;

fn not_found() -> Response {
    let body = http_body_util::Full::new(Bytes::from_static(b"not found: MCP is served at /mcp\n"))
        .map_err(|never| match never {})
        .boxed();
    let mut response = hyper::Response::new(body);
    *response.status_mut() = hyper::StatusCode::NOT_FOUND;
    response
}
