//! One HTTP connection of `ptc serve --http`: hyper's HTTP/1.1 with a header-read
//! timeout, closed when no byte moves for `idle_timeout`, and each request checked (path,
//! token) and its body read within bounds before rmcp sees it. `GET /healthz` answers a
//! load balancer's health check without the token: the instance and nothing else, 503
//! once the server is stopping.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE, WWW_AUTHENTICATE};
use hyper::service::service_fn;
use hyper::{Request, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::StreamableHttpService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower_service::Service as _;

use super::guard::BearerToken;
use super::sessions::{admit, CappedSessions};
use crate::{PtcServer, ServeLimits};

/// The response type of rmcp's HTTP service.
pub(super) type Response = hyper::Response<BoxBody<Bytes, Infallible>>;

/// What every connection shares.
pub(super) struct Shared {
    pub(super) mcp: StreamableHttpService<PtcServer, CappedSessions>,
    pub(super) limits: ServeLimits,
    pub(super) token: Option<BearerToken>,
    /// This instance's id, as `GET /healthz` names it.
    pub(super) instance: String,
    /// Fires when the server stops: connections finish their responses and close.
    pub(super) stop: CancellationToken,
}

/// Serve one accepted connection until it closes, idles out or the server stops.
pub(super) async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let service = {
        let shared = shared.clone();
        service_fn(move |request| handle(request, shared.clone()))
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(shared.limits.header_timeout);
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    tokio::select! {
        served = connection.as_mut() => {
            if let Err(e) = served {
                tracing::debug!("MCP HTTP connection: {e}");
            }
        }
        _ = activity.idle_for(shared.limits.idle_timeout) => {
            tracing::debug!("MCP HTTP connection idle for {:?}: closed", shared.limits.idle_timeout);
        }
        _ = shared.stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(STOP_GRACE, connection).await;
        }
    }
}

/// How long a stopping server lets a connection finish its response.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// One request: the MCP path only, the token when one is set, a body within
/// `max_request_bytes` read within `header_timeout`; then rmcp (which checks `Host` and
/// `Origin`), with a refused session turned into 503.
async fn handle(request: Request<Incoming>, shared: Arc<Shared>) -> Result<Response, Infallible> {
    if request.uri().path() == HEALTH_PATH {
        let stopping = shared.stop.is_cancelled();
        return Ok(health(request.method(), &shared.instance, stopping));
    }
    if request.uri().path() != super::PATH {
        return Ok(plain(
            StatusCode::NOT_FOUND,
            "not found: MCP is served at /mcp\n",
        ));
    }
    if let Some(token) = &shared.token {
        if !token.admits(request.headers()) {
            let mut response = plain(
                StatusCode::UNAUTHORIZED,
                "unauthorized: send Authorization: Bearer <token>\n",
            );
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Ok(response);
        }
    }
    let (parts, body) = request.into_parts();
    let limit = shared.limits.max_request_bytes;
    let read = tokio::time::timeout(
        shared.limits.header_timeout,
        Limited::new(body, limit).collect(),
    );
    let body = match read.await {
        Ok(Ok(body)) => body.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            let message =
                format!("the request body is larger than {limit} bytes (max_request_bytes)");
            return Ok(json_rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32600,
                &message,
            ));
        }
        Ok(Err(e)) => {
            return Ok(plain(
                StatusCode::BAD_REQUEST,
                &format!("bad request body: {e}\n"),
            ))
        }
        Err(_) => {
            return Ok(plain(
                StatusCode::REQUEST_TIMEOUT,
                "the request body did not arrive in time (header_timeout_ms)\n",
            ))
        }
    };
    let request = Request::from_parts(parts, Full::new(body));
    let mut mcp = shared.mcp.clone();
    let (response, refused) = admit(mcp.call(request)).await;
    let response = response.unwrap_or_else(|never| match never {});
    if refused {
        let message = format!(
            "ptc is busy: {} MCP sessions are open (max_sessions); end one (DELETE) or retry later",
            shared.limits.max_sessions
        );
        return Ok(json_rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            &message,
        ));
    }
    Ok(response)
}

/// The path of the health check.
const HEALTH_PATH: &str = "/healthz";

/// `GET /healthz`: 200 `{"status":"ok","instance":ID}` while serving, 503
/// `{"status":"stopping",…}` once the server stops (a request that reaches it while the
/// connections wind down; then the port refuses connections); open to all (it names the
/// instance and nothing else), so a load balancer needs no token.
fn health(method: &hyper::Method, instance: &str, stopping: bool) -> Response {
    if method != hyper::Method::GET && method != hyper::Method::HEAD {
        let mut response = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: GET /healthz\n",
        );
        response
            .headers_mut()
            .insert(hyper::header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let (status, word) = if stopping {
        (StatusCode::SERVICE_UNAVAILABLE, "stopping")
    } else {
        (StatusCode::OK, "ok")
    };
    let body = serde_json::json!({ "status": word, "instance": instance });
    let mut response = plain(status, &body.to_string());
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn plain(status: StatusCode, text: &str) -> Response {
    let body = Full::new(Bytes::from(text.to_string()))
        .map_err(|never| match never {})
        .boxed();
    let mut response = hyper::Response::new(body);
    *response.status_mut() = status;
    response
}

/// An HTTP error whose body is a JSON-RPC error response (`id: null`: the request was
/// not read as a message).
fn json_rpc_error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": message },
    });
    let mut response = plain(status, &body.to_string());
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// When a byte last moved on a connection, in milliseconds since it opened.
struct Activity {
    opened: Instant,
    last_ms: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Activity {
            opened: Instant::now(),
            last_ms: AtomicU64::new(0),
        }
    }

    fn touch(&self) {
        let now = self.opened.elapsed().as_millis() as u64;
        self.last_ms.store(now, Ordering::Relaxed);
    }

    /// Completes once no byte has moved for `limit`.
    async fn idle_for(&self, limit: Duration) {
        loop {
            let last = self.opened + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let deadline = last + limit;
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// A stream that records in [`Activity`] every read or write that moves bytes.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Status, `Content-Type` and body of `GET /healthz` (or `method`).
    async fn check(method: hyper::Method, stopping: bool) -> (StatusCode, String, String) {
        let response = health(&method, "i1", stopping);
        let status = response.status();
        let kind = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, kind, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn healthz_is_ok_with_the_instance_while_serving_and_503_once_stopping() {
        let (status, kind, body) = check(hyper::Method::GET, false).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(kind, "application/json");
        assert_eq!(body, r#"{"status":"ok","instance":"i1"}"#);
        let (status, _, body) = check(hyper::Method::GET, true).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body, r#"{"status":"stopping","instance":"i1"}"#);
        let (status, _, body) = check(hyper::Method::POST, false).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{body}");
    }
}
