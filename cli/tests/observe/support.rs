//! What the observe tests share: where the external tools are, free ports, a tiny HTTP
//! client, and the `ptc` binary.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root.
pub fn repo() -> &'static Path {
    ptc_testing::repo()
}

/// `target/observe/<name>` in the repository (screenshots, pages, the Phoenix venv).
pub fn artifact(name: &str) -> PathBuf {
    let dir = repo().join("target").join("observe");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Whether this run must not skip (CI sets `CI`).
pub fn required() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false")
}

/// `Some(path)` when `path` exists; otherwise `None` after saying why the test is
/// skipped, or a panic under CI, where `.ci/run` installs everything.
pub fn tool(path: PathBuf, what: &str, install: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let message = format!("{what} is not at {} ({install})", path.display());
    if required() {
        panic!("{message}; CI must have it");
    }
    eprintln!("SKIPPED: {message}");
    None
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `GET http://127.0.0.1:<port><path>`: `(status, body)`, or `None` when nothing answers.
pub fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    // HTTP/1.0: the body is not chunked and ends when the server closes.
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n\r\n"
    )
    .ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

/// The `ptc` binary.
pub fn ptc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptc"))
}

/// Run `ptc args…` to completion; panics with its stderr if it cannot start.
pub fn ptc_output(args: &[&str], dir: &Path) -> Output {
    ptc()
        .args(args)
        .current_dir(dir)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .stdin(Stdio::null())
        .output()
        .expect("ptc starts")
}

/// A program with parallel, failing and denied sub-calls (deny `add` of 13 in the config).
pub const PROGRAM: &str = r#"const hello = await tools.echo({ text: "hello </script><b>bold</b>" });
const [slow, sum, quick] = await Promise.all([
  tools.sleep({ ms: 60 }),
  tools.add({ a: 2, b: 3 }),
  tools.sleep({ ms: 30 }),
]);
try { await tools.fail({ message: "boom" }); } catch (e) { console.log("caught", String(e)); }
try { await tools.add({ a: 13, b: 1 }); } catch (e) { console.log("refused", String(e)); }
return { hello, sum };
"#;

/// The policy `PROGRAM` runs under.
pub const CONFIG: &str = r#"[[policy]]
tool = "add"
action = "deny"
match = { a = "^13$" }
reason = "no unlucky numbers"
"#;

/// A workspace with `program.ts` and `ptc.toml` (trusted: given with `--config`, outside
/// the root).
pub fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("program.ts"), PROGRAM).unwrap();
    std::fs::create_dir(dir.path().join("etc")).unwrap();
    std::fs::write(dir.path().join("etc").join("ptc.toml"), CONFIG).unwrap();
    std::fs::create_dir(dir.path().join("root")).unwrap();
    dir
}

/// The `ptc run` arguments that run `PROGRAM` in `workspace()`.
pub fn run_args(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--tools",
        "testkit",
        "--config",
        "etc/ptc.toml",
        "--root",
        "root",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push("program.ts".into());
    args
}

/// The call id of the first top-level call in a session log (`ptc run` names its
/// calls `run-<process tag>-<n>`).
pub fn root_call_id(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|event| event["callId"].as_str().map(str::to_owned))
        .find(|id| !id.contains(":ptc:"))
        .unwrap_or_else(|| panic!("no top-level call in {}:\n{text}", log.display()))
}
