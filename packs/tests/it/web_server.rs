//! A tiny HTTP/1.1 server on 127.0.0.1 for the `web_fetch` tests: each request's path is
//! answered by a route function. Ready once [`Server::start`] returns (the listener is
//! bound); it ends with the test's runtime.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// One answer.
pub enum Reply {
    /// A whole response: status line text (`200 OK`), headers, body.
    Full(&'static str, Vec<(&'static str, String)>, Vec<u8>),
    /// `200 OK` of `content_type` whose body goes on for `bytes` bytes (no length: it
    /// ends with the connection), counted in [`Server::sent`] as written.
    Endless(&'static str, u64),
    /// Never answers (the connection stays open).
    Hang,
}

impl Reply {
    /// `200 OK` of `content_type` with `body`.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full(
            "200 OK",
            vec![("Content-Type", content_type.to_string())],
            body.into(),
        )
    }

    /// `302 Found` to `location`.
    pub fn redirect(location: &str) -> Reply {
        Reply::Full(
            "302 Found",
            vec![("Location", location.to_string())],
            Vec::new(),
        )
    }
}

/// The running server.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    sent: Arc<AtomicU64>,
    ended: tokio::sync::Mutex<mpsc::UnboundedReceiver<()>>,
    requested: tokio::sync::Mutex<mpsc::UnboundedReceiver<()>>,
}

type Route = dyn Fn(&str) -> Reply + Send + Sync;

impl Server {
    /// Listen on 127.0.0.1 (a free port) and answer with `route`.
    pub async fn start(route: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let sent = Arc::new(AtomicU64::new(0));
        let (ended_tx, ended) = mpsc::unbounded_channel();
        let (requested_tx, requested) = mpsc::unbounded_channel();
        let route: Arc<Route> = Arc::new(route);
        let counter = sent.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (route, counter, ended) = (route.clone(), counter.clone(), ended_tx.clone());
                let requested = requested_tx.clone();
                tokio::spawn(async move {
                    serve(stream, &*route, &counter, &requested).await;
                    let _ = ended.send(());
                });
            }
        });
        Server {
            addr,
            sent,
            ended: tokio::sync::Mutex::new(ended),
            requested: tokio::sync::Mutex::new(requested),
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Body bytes written by [`Reply::Endless`] answers so far.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// Wait until one more request has been read (before it is answered).
    pub async fn requested(&self) {
        self.requested.lock().await.recv().await;
    }

    /// Wait until one more connection has been served to its end.
    pub async fn connection_ended(&self) {
        self.ended.lock().await.recv().await;
    }
}

async fn serve(
    mut stream: TcpStream,
    route: &Route,
    sent: &AtomicU64,
    requested: &mpsc::UnboundedSender<()>,
) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    let _ = requested.send(());
    match route(&path) {
        Reply::Full(status, headers, body) => {
            let mut out = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n", body.len());
            for (name, value) in headers {
                out.push_str(&format!("{name}: {value}\r\n"));
            }
            out.push_str("Connection: close\r\n\r\n");
            let mut bytes = out.into_bytes();
            bytes.extend_from_slice(&body);
            let _ = stream.write_all(&bytes).await;
        }
        Reply::Endless(content_type, total) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = "all work and no play\n".repeat(3121).into_bytes(); // 65,541 bytes
            let mut left = total;
            while left > 0 {
                let n = chunk.len().min(left as usize);
                if stream.write_all(&chunk[..n]).await.is_err() {
                    return;
                }
                sent.fetch_add(n as u64, Ordering::SeqCst);
                left -= n as u64;
            }
        }
        Reply::Hang => std::future::pending().await,
    }
}
