//! `ptc serve` over stdio: newline-delimited JSON-RPC, read with a bounded line reader
//! that answers what rmcp's own stdio transport drops silently.
//!
//! | input | answer |
//! |---|---|
//! | not UTF-8, or not JSON | `-32700` parse error, `id: null` |
//! | longer than `max_request_bytes` | `-32600` invalid request, `id: null`; the line is skipped as it streams past, never buffered |
//! | JSON that is not a JSON-RPC 2.0 message (an array, no `jsonrpc: "2.0"`, no `method`, a bad `id`) | `-32600`, with the `id` when it is usable |
//! | a request whose `params` do not fit its method (`initialize`, `ping`, `tools/list`, `tools/call`; rmcp answers others with `-32601`) | `-32602` invalid params, with its `id` and serde's reason |
//! | a malformed notification or response | nothing (JSON-RPC never answers those) |
//!
//! Both MCP eras share one connection: rmcp settles a connection's lifecycle on the
//! first request that is neither `initialize`, `ping` nor `server/discover`, and a 2026-07-28
//! request there (its version and capabilities in `_meta`) would make it stateless for good,
//! every later legacy request refused for missing `_meta`. So before such a request the
//! transport hands rmcp a legacy `initialize` of its own (its reply is not written): rmcp then
//! answers each 2026-07-28 request from its own `_meta`, and a client's own `initialize`,
//! whenever it comes, replaces the stand-in's (empty) client information.
//!
//! Valid messages go to rmcp unchanged. Error replies are written by a task of their own,
//! so a cancelled `receive` never leaves half a line on stdout, and the next line is read
//! only once the reply is out, so a flood of bad lines is read no faster than its replies
//! are taken.

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, ClientNotification, ClientRequest, GetMeta, InitializeRequestParams,
    JsonRpcMessage, NumberOrString, PaginatedRequestParams, ProtocolVersion,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::{McpError, PtcServer, ServeLimits, RUN_GRACE};
use tokio::task::JoinHandle;

/// JSON-RPC: the input is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the JSON is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: the method's parameters are invalid.
pub const INVALID_PARAMS: i64 = -32602;

/// A server-side stdio transport over `read` and `write`.
pub(crate) struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    /// Skipping the rest of an over-long line (kept here: `receive` may be cancelled).
    discarding: bool,
    write: Arc<Mutex<W>>,
    /// The error reply being written, if any.
    replying: Option<JoinHandle<()>>,
    /// Whether the connection's lifecycle is settled (see the module docs).
    settled: bool,
    /// The stateless request that follows the stand-in `initialize` to rmcp.
    queued: Option<Box<RxJsonRpcMessage<RoleServer>>>,
    /// rmcp's reply to the stand-in is still to come (and is not written).
    stand_in_unanswered: bool,
}

/// The id of the stand-in `initialize` (see the module docs).
const STAND_IN_ID: &str = "ptc-stdio:stand-in-initialize";

enum LineRead {
    Line,
    Oversized,
    End,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Read lines of at most `max` bytes from `read`; write to `write`.
    pub(crate) fn new(read: R, write: W, max: usize) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            max,
            discarding: false,
            write: Arc::new(Mutex::new(write)),
            replying: None,
            settled: false,
            queued: None,
            stand_in_unanswered: false,
        }
    }

    /// `message` for rmcp, or the stand-in `initialize` before it (see the module docs).
    fn steer(&mut self, message: RxJsonRpcMessage<RoleServer>) -> RxJsonRpcMessage<RoleServer> {
        if self.settled {
            return message;
        }
        let JsonRpcMessage::Request(request) = &message else {
            return message;
        };
        match &request.request {
            ClientRequest::InitializeRequest(_) => self.settled = true,
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {}
            other if stateless(other) => {
                self.settled = true;
                self.stand_in_unanswered = true;
                self.queued = Some(Box::new(message));
                return stand_in();
            }
            _ => {}
        }
        message
    }

    /// One `\n`-terminated line into `self.line`, never growing it past `self.max`.
    /// Cancel-safe: nothing is consumed across an await without being recorded.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) | Err(_) => return LineRead::End,
                Ok(available) => available,
            };
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let outcome = if self.discarding {
                self.discarding = newline.is_none();
                None
            } else if self.line.len() + take > self.max.saturating_add(1) {
                self.line.clear();
                self.discarding = newline.is_none();
                Some(LineRead::Oversized)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| LineRead::Line)
            };
            self.read.consume(take);
            if let Some(outcome) = outcome {
                return outcome;
            }
        }
    }

    /// Write `reply` from a task of its own (no await here: a cancelled `receive` never
    /// loses a reply); `receive` reads no further line until it is out.
    fn reply(&mut self, reply: Value) {
        let write = self.write.clone();
        self.replying = Some(tokio::spawn(async move {
            let _ = write_line(&write, &reply).await;
        }));
    }
}

async fn write_line<W: AsyncWrite + Unpin>(
    write: &Mutex<W>,
    message: &impl serde::Serialize,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&bytes).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        let id = match &item {
            JsonRpcMessage::Response(response) => Some(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        let stand_in_reply = self.stand_in_unanswered
            && matches!(id, Some(NumberOrString::String(id)) if &**id == STAND_IN_ID);
        if stand_in_reply {
            self.stand_in_unanswered = false;
        }
        async move {
            match stand_in_reply {
                true => Ok(()),
                false => write_line(&write, &item).await,
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        if let Some(request) = self.queued.take() {
            return Some(*request);
        }
        loop {
            // Backpressure for a flood of bad lines; cancel-safe (nothing read yet).
            if let Some(replying) = self.replying.as_mut() {
                let _ = replying.await;
                self.replying = None;
            }
            match self.read_line().await {
                LineRead::End => return None,
                LineRead::Oversized => {
                    let message = format!(
                        "Invalid Request: the message is longer than {} bytes (max_request_bytes)",
                        self.max
                    );
                    self.reply(error(INVALID_REQUEST, Value::Null, message));
                    continue;
                }
                LineRead::Line => {}
            }
            let line = std::mem::take(&mut self.line);
            let inbound = classify(trim(&line));
            // Keep the buffer's capacity for the next line.
            self.line = line;
            self.line.clear();
            match inbound {
                Inbound::Message(message) => return Some(self.steer(*message)),
                Inbound::Reply(reply) => self.reply(reply),
                Inbound::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(previous) = self.replying.take() {
            let _ = previous.await;
        }
        self.write.lock().await.flush().await
    }
}

/// Whether `request` carries a 2026-07-28 request's `_meta` (a version and the client's
/// capabilities): the test rmcp applies before a lifecycle is settled.
fn stateless(request: &ClientRequest) -> bool {
    let meta = request.get_meta();
    meta.protocol_version().is_some()
        && meta
            .missing_required_keys(&ProtocolVersion::V_2026_07_28)
            .is_empty()
}

/// The legacy `initialize` the transport hands rmcp before the first stateless request.
fn stand_in() -> RxJsonRpcMessage<RoleServer> {
    let request = json!({
        "jsonrpc": "2.0", "id": STAND_IN_ID, "method": "initialize",
        "params": {
            "protocolVersion": ProtocolVersion::LATEST_WITH_INITIALIZE,
            "capabilities": {},
            "clientInfo": { "name": "ptc-stdio-stand-in", "version": "0" },
        },
    });
    RxJsonRpcMessage::<RoleServer>::deserialize(&request).expect("a valid initialize request")
}

/// `line` without its `\n` (or `\r\n`).
fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// What to do with one line.
enum Inbound {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    Reply(Value),
    Ignore,
}

/// Methods whose parameters ptc checks itself: rmcp would take a request of one of them
/// with unfitting `params` for an unknown method and answer "method not found".
const CHECKED: [&str; 4] = ["initialize", "ping", "tools/list", "tools/call"];

/// Parse one line: a message for rmcp, an error reply, or nothing.
fn classify(line: &[u8]) -> Inbound {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Inbound::Ignore;
    }
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(e) => {
            let message = format!("Parse error: invalid UTF-8 at byte {}", e.valid_up_to());
            return Inbound::Reply(error(PARSE_ERROR, Value::Null, message));
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return Inbound::Reply(error(PARSE_ERROR, Value::Null, format!("Parse error: {e}")))
        }
    };
    let Value::Object(object) = &value else {
        let message = if value.is_array() {
            "Invalid Request: batches are not supported; send one message per line"
        } else {
            "Invalid Request: a JSON-RPC message is an object"
        };
        return Inbound::Reply(error(INVALID_REQUEST, Value::Null, message.into()));
    };
    if let Some(reply) = check_envelope(object) {
        return reply;
    }
    let method = object.get("method").and_then(Value::as_str);
    match RxJsonRpcMessage::<RoleServer>::deserialize(&value) {
        Ok(message) if !misrouted(&message, method) => Inbound::Message(Box::new(message)),
        Ok(_) => invalid_params(object, None),
        Err(e) => invalid_params(object, Some(e)),
    }
}

/// `jsonrpc`, `id` and `method` as JSON-RPC 2.0 wants them; else the reply (or silence).
fn check_envelope(object: &Map<String, Value>) -> Option<Inbound> {
    let id = usable_id(object);
    let invalid = |message: &str| {
        let id = id.clone().unwrap_or(Value::Null);
        Some(Inbound::Reply(error(INVALID_REQUEST, id, message.into())))
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("Invalid Request: `jsonrpc` must be \"2.0\"");
    }
    match object.get("method") {
        Some(Value::String(_)) if object.contains_key("id") && id.is_none() => {
            invalid("Invalid Request: `id` must be a string or an integer")
        }
        Some(Value::String(_)) => None,
        Some(_) => invalid("Invalid Request: `method` must be a string"),
        // A response from the client: rmcp checks it; a malformed one is dropped there.
        None if object.contains_key("result") || object.contains_key("error") => None,
        None => invalid("Invalid Request: no `method`"),
    }
}

/// The `id`, when it is one JSON-RPC allows (MCP forbids `null`).
fn usable_id(object: &Map<String, Value>) -> Option<Value> {
    match object.get("id") {
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n.clone())),
        _ => None,
    }
}

/// A request or notification of a [`CHECKED`] method that rmcp took for an unknown one.
fn misrouted(message: &RxJsonRpcMessage<RoleServer>, method: Option<&str>) -> bool {
    let custom = match message {
        JsonRpcMessage::Request(request) => {
            matches!(request.request, ClientRequest::CustomRequest(_))
        }
        JsonRpcMessage::Notification(notification) => {
            matches!(
                notification.notification,
                ClientNotification::CustomNotification(_)
            )
        }
        _ => false,
    };
    custom && method.is_some_and(|m| CHECKED.contains(&m))
}

/// A well-formed envelope whose content rmcp refused: `-32602` for a request, nothing
/// for a notification or a response.
fn invalid_params(object: &Map<String, Value>, typed: Option<serde_json::Error>) -> Inbound {
    let (Some(method), Some(id)) = (
        object.get("method").and_then(Value::as_str),
        usable_id(object),
    ) else {
        return Inbound::Ignore;
    };
    let params = object.get("params").unwrap_or(&Value::Null);
    let why = params_problem(method, params)
        .or(typed.map(|e| e.to_string()))
        .unwrap_or_else(|| "they do not fit the method".into());
    let message = format!("Invalid params for `{method}`: {why}");
    Inbound::Reply(error(INVALID_PARAMS, id, message))
}

/// What serde says is wrong with `params` for a [`CHECKED`] method.
fn params_problem(method: &str, params: &Value) -> Option<String> {
    let problem = match method {
        "tools/call" => CallToolRequestParams::deserialize(params).err(),
        "initialize" => InitializeRequestParams::deserialize(params).err(),
        "tools/list" => Option::<PaginatedRequestParams>::deserialize(params).err(),
        _ => None,
    };
    problem.map(|e| e.to_string())
}

/// A JSON-RPC error response.
fn error(code: i64, id: Value, message: String) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// Serve over this process's stdin and stdout until the client closes stdin or `stop`
/// fires; lines longer than `limits.max_request_bytes` are refused (see `stdio.rs`).
/// Either way every run is then cancelled and wound down ([`PtcServer::shutdown`]).
pub async fn serve_stdio(
    server: PtcServer,
    limits: &ServeLimits,
    stop: CancellationToken,
) -> Result<(), McpError> {
    serve_lines(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        limits,
        stop,
    )
    .await
}

/// [`serve_stdio`] over any byte streams: newline-delimited JSON-RPC read from `read`,
/// replies written to `write` (a socket, a pipe, or bytes in memory).
pub async fn serve_lines<R, W>(
    server: PtcServer,
    read: R,
    write: W,
    limits: &ServeLimits,
    stop: CancellationToken,
) -> Result<(), McpError>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let transport = LineTransport::new(read, write, limits.max_request_bytes);
    let served = match server
        .clone()
        .serve_with_ct(transport, stop.child_token())
        .await
    {
        Ok(running) => running
            .waiting()
            .await
            .map(drop)
            .map_err(|e| McpError::Stdio(e.to_string())),
        // Stopped, or stdin closed, before the handshake: nothing was served.
        Err(_) if stop.is_cancelled() => Ok(()),
        Err(e) => Err(McpError::Stdio(e.to_string())),
    };
    server.shutdown(RUN_GRACE).await;
    served
}
