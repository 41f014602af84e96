//! Driving `ptc serve` as a process: over HTTP ([`HttpServer`], [`http`]) and over raw
//! stdio ([`StdioPeer`]), plus what `/proc` says about it (RSS, peak RSS, open fds).
//! Readiness comes from the process itself (the "serving MCP at" line, replies), never
//! from fixed sleeps.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::ptc_bin;

/// `ptc serve ARGS --http ADDR` (`127.0.0.1:0` unless ARGS has `--http`), killed when
/// dropped (also when a test fails).
pub struct HttpServer {
    pub child: Child,
    /// `http://127.0.0.1:PORT/mcp`, as announced on stderr.
    pub url: String,
    /// Every stderr line before the announcement.
    pub before: Vec<String>,
    lines: mpsc::Receiver<String>,
}

/// The workspace root the servers of these helpers get: `dir/workspace`, so that a
/// configuration written to `dir` is the operator's (outside the root), not a file a
/// program could have written.
pub fn workspace(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("workspace");
    std::fs::create_dir_all(&root).unwrap();
    root
}

impl HttpServer {
    /// Start it with `env` added and wait (up to 60 s) for the `serving MCP at …` line.
    pub fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        Self::start_with_fd_limit(dir, args, env, None)
    }

    /// [`HttpServer::start`] with `ulimit -n fds` for the server process.
    pub fn start_with_fd_limit(
        dir: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        fds: Option<u32>,
    ) -> HttpServer {
        let root = workspace(dir);
        let mut argv = vec!["serve", "--root", root.to_str().unwrap()];
        argv.extend_from_slice(args);
        if !args.contains(&"--http") {
            argv.extend_from_slice(&["--http", "127.0.0.1:0"]);
        }
        let mut command = match fds {
            None => Command::new(ptc_bin()),
            Some(n) => {
                let mut sh = Command::new("sh");
                sh.args([
                    "-c",
                    &format!("ulimit -n {n} && exec \"$0\" \"$@\""),
                    ptc_bin(),
                ]);
                sh
            }
        };
        let mut child = command
            .args(&argv)
            // The default run store goes to the test's directory, not the user's.
            .env("XDG_STATE_HOME", dir.join("state"))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ptc runs");
        let (lines, received) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match received.recv_timeout(left) {
                Ok(line) => match line.split_once("ptc: serving MCP at ") {
                    Some((_, url)) => {
                        return HttpServer {
                            child,
                            url: url.trim().to_string(),
                            before,
                            lines: received,
                        }
                    }
                    None => before.push(line),
                },
                Err(e) => panic!("ptc serve --http announced no address ({e}); stderr: {before:?}"),
            }
        }
    }

    /// `127.0.0.1:PORT`.
    pub fn authority(&self) -> &str {
        let rest = self.url.strip_prefix("http://").expect("an http:// URL");
        rest.strip_suffix("/mcp").expect("served at /mcp")
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn is_up(&mut self) -> bool {
        self.child
            .try_wait()
            .expect("the child can be polled")
            .is_none()
    }

    /// Stop it with SIGTERM; its exit code and the rest of its stderr.
    pub fn terminate(mut self) -> (Option<i32>, Vec<String>) {
        signal(self.pid(), "TERM");
        let status = self.child.wait().expect("ptc exits");
        let rest = self.lines.try_iter().collect();
        (status.code(), rest)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Send signal `name` (`TERM`, `INT`) to process `pid`.
pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} {pid}");
}

/// An HTTP/1.1 response: status code, headers (lower-case names), body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `method /mcp` with `headers` and `body` on a fresh connection (`Connection: close`),
/// read to the end; SSE bodies end because the connection closes after the response.
pub fn http(authority: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    http_at(authority, method, "/mcp", headers, body)
}

/// [`http`] at `path`.
pub fn http_at(
    authority: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut stream = TcpStream::connect(authority).expect("the server accepts connections");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {raw:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}

/// An `initialize` request body.
pub fn initialize(id: u64) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "ptc-test", "version": "1" },
        },
    })
    .to_string()
}

/// A field of `/proc/<pid>/status` in kB (`VmRSS`, `VmHWM`).
pub fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process runs");
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// How many file descriptors process `pid` has open.
pub fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("the process runs")
        .count()
}

/// `ptc serve ARGS` over stdio, spoken to line by line.
pub struct StdioPeer {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl StdioPeer {
    /// Start `ptc serve --root DIR ARGS` and complete the MCP handshake.
    pub fn start(dir: &Path, args: &[&str]) -> StdioPeer {
        Self::start_with_env(dir, args, &[])
    }

    /// [`StdioPeer::start`] with `env` added.
    pub fn start_with_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> StdioPeer {
        let mut child = Command::new(ptc_bin())
            .args(["serve", "--root", workspace(dir).to_str().unwrap()])
            .args(args)
            // The default run store goes to the test's directory, not the user's.
            .env("XDG_STATE_HOME", dir.join("state"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ptc runs");
        let (lines, received) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let mut peer = StdioPeer {
            stdin: child.stdin.take(),
            child,
            lines: received,
        };
        peer.send_line(initialize(0).as_bytes());
        assert_eq!(peer.reply()["id"], 0, "initialize is answered");
        peer.send_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        peer
    }

    /// Write `bytes` and a newline.
    pub fn send_line(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message ptc writes (panics after 60 s of silence).
    pub fn reply(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("ptc answers");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Call `tool` with `arguments` as request `id`; the result.
    pub fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let request = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments },
        });
        self.send_line(request.to_string().as_bytes());
        let reply = self.reply();
        assert_eq!(reply["id"], id, "{reply}");
        reply["result"].clone()
    }

    /// Close stdin and wait for ptc to exit; its exit code.
    pub fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().expect("ptc exits").code()
    }
}

impl Drop for StdioPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
