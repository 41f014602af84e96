//! The recorded catalog as MCP servers (`tests/mcp/catalog-server.mjs`), their
//! configuration files, and the `ptc` command run with a cache of its own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use ptc_mcp::McpServerSpec;
use serde_json::Value;

use crate::mcp_support::{node_module, ptc_bin, root};

/// The catalog's server names, sorted.
pub fn catalog_names() -> Vec<String> {
    let dir = ptc_testing::repo().join("testing/catalog/lists");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// The tool names of the catalog server `name`, in its order.
pub fn catalog_tools(name: &str) -> Vec<String> {
    let path = ptc_testing::repo().join(format!("testing/catalog/lists/{name}.json"));
    let list: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// The catalog server `name`, slow to start by `delay_ms` (`CATALOG_DELAY_MS`).
pub fn catalog(name: &str, delay_ms: u64) -> McpServerSpec {
    node_module("@modelcontextprotocol/sdk/package.json");
    let script = root().join("tests/mcp/catalog-server.mjs");
    let list = ptc_testing::repo().join(format!("testing/catalog/lists/{name}.json"));
    let mut spec = McpServerSpec::new(
        name,
        "node",
        &[script.to_str().unwrap(), list.to_str().unwrap()],
    );
    spec.env
        .insert("CATALOG_DELAY_MS".into(), delay_ms.to_string());
    spec
}

/// `spec` run through `sh`, which first runs `before` (positional `$1`… are `args`) and then
/// execs the server (so its pid is the server's).
pub fn wrapped(mut spec: McpServerSpec, before: &str, args: &[&str]) -> McpServerSpec {
    let script = format!(r#"{before}; shift {}; exec "$@""#, args.len());
    let mut words: Vec<String> = vec!["-c".into(), script, "sh".into()];
    words.extend(args.iter().map(|a| a.to_string()));
    words.push(spec.command.clone());
    words.append(&mut spec.args);
    spec.command = "sh".into();
    spec.args = words;
    spec
}

/// The delay of server `i` of `n`, spread evenly over 300–1000 ms.
pub fn spread(i: usize, n: usize) -> u64 {
    300 + (700 * i / (n - 1).max(1)) as u64
}

/// A `ptc.toml` in `dir` declaring `specs`, in order.
pub fn write_config(dir: &Path, file: &str, specs: &[McpServerSpec]) -> PathBuf {
    let quote = |s: &str| Value::String(s.to_string()).to_string();
    let mut text = String::new();
    for spec in specs {
        let args: Vec<String> = spec.args.iter().map(|a| quote(a)).collect();
        let env: Vec<String> = spec
            .env
            .iter()
            .map(|(k, v)| format!("{} = {}", quote(k), quote(v)))
            .collect();
        text.push_str(&format!(
            "[[mcp]]\nname = {}\ncommand = {}\nargs = [{}]\nenv = {{ {} }}\n",
            quote(&spec.name),
            quote(&spec.command),
            args.join(", "),
            env.join(", ")
        ));
        if let Some(ms) = spec.startup_timeout_ms {
            text.push_str(&format!("startup_timeout_ms = {ms}\n"));
        }
        text.push('\n');
    }
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

/// Scratch directories of one test: a workspace root, a cache home and a place for the
/// configuration and logs (three apart, so the cache does not lie in the workspace).
pub struct Dirs {
    pub root: tempfile::TempDir,
    pub cache: tempfile::TempDir,
    pub conf: tempfile::TempDir,
}

impl Dirs {
    pub fn new() -> Dirs {
        Dirs {
            root: tempfile::tempdir().unwrap(),
            cache: tempfile::tempdir().unwrap(),
            conf: tempfile::tempdir().unwrap(),
        }
    }

    /// `ptc ARGS --root ROOT --config CONFIG` with this cache home and `stdin`; its output and
    /// how long it took.
    pub fn ptc(&self, config: &Path, args: &[&str], stdin: &str) -> (Output, Duration) {
        let started = Instant::now();
        let mut child = Command::new(ptc_bin())
            .args(args)
            .arg("--root")
            .arg(self.root.path())
            .arg("--config")
            .arg(config)
            .env("XDG_CACHE_HOME", self.cache.path())
            .current_dir(self.root.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ptc runs");
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.as_bytes()).unwrap();
        drop(input);
        let output = child.wait_with_output().unwrap();
        (output, started.elapsed())
    }

    /// The cache file of server `name`.
    pub fn cache_file(&self, name: &str) -> PathBuf {
        let dir = self.cache.path().join("ptc/mcp-tools");
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let file = p.file_name().unwrap().to_string_lossy().into_owned();
                file.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('-') && rest.ends_with(".json"))
            })
            .unwrap_or_else(|| panic!("no cache file for `{name}` in {}", dir.display()))
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The median of `runs`.
pub fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}
