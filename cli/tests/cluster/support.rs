//! A cluster for the tests: `deploy/local-cluster.sh 3 PORT` with this build's
//! `ptc`, ready once the script prints `ready` (it polls `/healthz` and HAProxy itself), and
//! the official Python MCP client (`tests/mcp/python/era_client.py`) pointed at HAProxy.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The instances every cluster runs.
pub const INSTANCES: [&str; 3] = ["i1", "i2", "i3"];

/// `cli/`.
fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether this run must not skip (CI sets `CI`; `.ci/run` installs what the tests need).
fn required() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false")
}

/// Say why the test is skipped (a panic under CI).
fn skip(message: &str) {
    if required() {
        panic!("{message}; CI must have it");
    }
    eprintln!("SKIPPED: {message}");
}

/// Whether `haproxy` is on PATH (else `false` after saying the test is skipped).
pub fn haproxy() -> bool {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|dir| dir.join("haproxy").is_file());
    if !found {
        skip("no haproxy on PATH (Debian: apt-get install haproxy)");
    }
    found
}

/// `haproxy` on PATH and the Python with the official MCP SDK (`PTC_MCP_PYTHON`, which
/// `.ci/run` makes from `tests/mcp/python/requirements.txt`), or `None` after saying which
/// is missing.
pub fn parts() -> Option<PathBuf> {
    if !haproxy() {
        return None;
    }
    match std::env::var_os("PTC_MCP_PYTHON") {
        Some(python) if Path::new(&python).exists() => Some(python.into()),
        _ => {
            skip(
                "PTC_MCP_PYTHON names no Python with the MCP SDK \
                 (pip install -r cli/tests/mcp/python/requirements.txt)",
            );
            None
        }
    }
}

/// Three instances behind HAProxy; stopped (SIGTERM to the script) when dropped.
pub struct Cluster {
    child: Child,
    python: Option<PathBuf>,
    /// `http://127.0.0.1:PORT/mcp`: HAProxy.
    pub url: String,
    /// The script's stderr so far.
    stderr: Arc<Mutex<Vec<String>>>,
    /// The workspace every instance serves (`--root`).
    pub root: PathBuf,
    _dir: tempfile::TempDir,
}

impl Cluster {
    /// Start it with `options` for the script (`--store URL`, `--keep-going`) and `serve`
    /// for every instance (`--config FILE`), all sharing one workspace; wait for `ready`
    /// (120 s at most, failing at once if the script exits). `python` runs the client.
    pub fn start(python: Option<PathBuf>, options: &[&str], serve: &[&str]) -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("workspace");
        std::fs::create_dir_all(&root).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let mut child = Command::new(crate_dir().join("../deploy/local-cluster.sh"))
            .args(["3", &port.to_string()])
            .args(options)
            .args(["--", "--root", root.to_str().unwrap()])
            .args(serve)
            .env("PTC_BIN", env!("CARGO_BIN_EXE_ptc"))
            // ptc serve's default run store (SQLite) in the test's directory, not the user's.
            .env("XDG_STATE_HOME", dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("deploy/local-cluster.sh runs");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = stderr.clone();
        let pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let (sender, stdout) = mpsc::channel();
        let pipe = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        let mut cluster = Cluster {
            child,
            python,
            url: format!("http://127.0.0.1:{port}/mcp"),
            stderr,
            root,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            match stdout.recv_timeout(Duration::from_millis(100)) {
                Ok(line) if line == "ready" => return cluster,
                Ok(line) => panic!("local-cluster.sh printed {line:?} before `ready`"),
                Err(_) => {}
            }
            if let Some(status) = cluster.child.try_wait().unwrap() {
                panic!("local-cluster.sh exited ({status}):\n{}", cluster.log());
            }
            assert!(
                Instant::now() < deadline,
                "no `ready` within 120 s:\n{}",
                cluster.log()
            );
        }
    }

    /// The script's stderr so far.
    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }

    /// The pid of instance `id` (or `haproxy`), from the script's `local-cluster: ID pid
    /// PID …` line.
    pub fn pid(&self, id: &str) -> u32 {
        let prefix = format!("local-cluster: {id} pid ");
        self.stderr
            .lock()
            .unwrap()
            .iter()
            .find_map(|l| l.strip_prefix(&prefix)?.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("no pid for {id} in:\n{}", self.log()))
    }

    /// Wait (30 s at most) until the script's stderr has a line containing `text`.
    pub fn wait_for_log(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.log().contains(text) {
            assert!(Instant::now() < deadline, "no {text:?} in:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Run the official Python client in `mode` (`auto`: 2026-07-28, `legacy`: a session)
    /// with `elicit` answers over `steps` (see `era_client.py`); the results, the
    /// negotiated version first.
    pub fn client(&self, mode: &str, elicit: Option<Value>, steps: Value) -> Vec<Value> {
        self.spawn_client(mode, elicit, steps)
            .join()
            .unwrap_or_else(|_| panic!("the client failed; cluster:\n{}", self.log()))
    }

    /// [`Cluster::client`] on a thread of its own.
    pub fn spawn_client(
        &self,
        mode: &str,
        elicit: Option<Value>,
        steps: Value,
    ) -> std::thread::JoinHandle<Vec<Value>> {
        let mut plan = json!({ "http": self.url, "mode": mode, "steps": steps });
        if let Some(elicit) = elicit {
            plan["elicit"] = elicit;
        }
        let python = self
            .python
            .clone()
            .expect("a cluster started with the client's Python");
        std::thread::spawn(move || {
            let output = Command::new(python)
                .arg(crate_dir().join("tests/mcp/python/era_client.py"))
                .arg(plan.to_string())
                .output()
                .expect("python runs");
            let stdout = String::from_utf8_lossy(&output.stdout);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                output.status.success(),
                "client failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
                output.status,
            );
            let last = stdout.lines().last().unwrap_or_default();
            serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
        })
    }

    /// Send `signal` to the script; its exit code once it exited (30 s at most).
    pub fn signal_and_wait(&mut self, signal: i32) -> Option<i32> {
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        self.exit_code()
    }

    /// The script's exit code once it exited (30 s at most).
    pub fn exit_code(&mut self) -> Option<i32> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "still running:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Whether process `pid` is gone (no `/proc` entry; a zombie is not gone).
pub fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let group = -(self.child.id() as i32);
        // SAFETY: kill(2) on our own child's process group.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: as above; the script did not stop its children in time.
        unsafe { libc::kill(group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// A result's text (panics, naming the result, when it has none: an error or a raise).
pub fn text(result: &Value) -> &str {
    result["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

/// The instance that served a `tools/call` (`_meta["ptc/instance"]`).
pub fn instance(result: &Value) -> &str {
    result["meta"]["ptc/instance"]
        .as_str()
        .unwrap_or_else(|| panic!("no ptc/instance in {result}"))
}

/// Assert a step succeeded; its text.
pub fn ok(result: &Value) -> &str {
    assert_eq!(result["isError"], false, "{result}");
    text(result)
}

/// How many of `results` each instance served.
pub fn served_by(results: &[Value]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for result in results {
        *counts.entry(instance(result).to_string()).or_default() += 1;
    }
    counts
}

/// The handle `task-<32 hex>@ID` in `text`.
pub fn task_handle(text: &str) -> String {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "-@._:".contains(c)))
        .find(|w| w.starts_with("task-") && w.contains('@'))
        .map(|w| w.trim_end_matches('.').to_string())
        .unwrap_or_else(|| panic!("no task handle in {text:?}"))
}
