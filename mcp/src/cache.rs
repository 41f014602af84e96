//! The tools/list cache: each server's last `tools/list`, so that a warm start registers its
//! tools at once and starts the server only when it is needed.
//!
//! One file per server under `$XDG_CACHE_HOME/ptc/mcp-tools/` (else `~/.cache/ptc/…`), named
//! after the server and the digest of its key. The key is what decides which process answers:
//! the command, its arguments, the extra environment, the directory it starts in, and the
//! identity (canonical path, size, modification time) of the resolved executable and of every
//! argument that names an existing file (`node server.js`), so a changed server misses. The
//! file holds the key in full (compared exactly on reading), the `serverInfo` the server gave,
//! and its tools.
//!
//! Written atomically (a temporary file of mode 0600 in the same directory, renamed over the
//! old one; the directory is made 0700). Read defensively: through no symbolic link, a regular
//! file owned by this user and writable by no one else, at most [`MAX_CACHE_BYTES`]; anything
//! else (bad JSON included) is ignored with the reason, never a panic. The cache only ever
//! describes tools: the command that runs is always the declaration's, and the server's real
//! list replaces the cached one as soon as it answers.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rmcp::model::Tool;
use serde_json::{json, Value};

use super::McpServerSpec;

/// The largest cache file read (the largest recorded list is about 330 KB).
pub const MAX_CACHE_BYTES: u64 = 8 * 1024 * 1024;

/// Where the servers' tool lists are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolsCache {
    dir: PathBuf,
}

impl ToolsCache {
    /// A cache in `dir` (made on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ToolsCache { dir: dir.into() }
    }

    /// `$XDG_CACHE_HOME/ptc/mcp-tools`, else `~/.cache/ptc/mcp-tools`; `None` without either.
    pub fn default_location() -> Option<ToolsCache> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(ToolsCache::new(base.join("ptc").join("mcp-tools")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The entry of `spec`: its file and its key.
    pub(crate) fn entry(&self, spec: &McpServerSpec) -> CacheEntry {
        let key = key(spec);
        let digest = ptc::session::sha256_hex(key.to_string().as_bytes());
        CacheEntry {
            path: self
                .dir
                .join(format!("{}-{}.json", spec.name, &digest[..16])),
            key,
        }
    }
}

/// One server's place in the cache.
#[derive(Debug, Clone)]
pub(crate) struct CacheEntry {
    path: PathBuf,
    key: Value,
}

/// What the cache holds for one server.
pub(crate) struct Cached {
    pub(crate) tools: Vec<Tool>,
    /// What the server said about itself ([`McpClient::server_info`](crate::McpClient::server_info)).
    pub(crate) server: Option<Value>,
}

impl CacheEntry {
    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The cached tools: `Ok(None)` when there are none for this key, `Err` with the reason
    /// when the file is there but cannot be believed.
    pub(crate) fn read(&self) -> Result<Option<Cached>, String> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
            .open(&self.path);
        let file = match file {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot open it: {e}")),
        };
        let meta = file.metadata().map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err("it is not a regular file".into());
        }
        if meta.uid() != nix::unistd::geteuid().as_raw() || meta.mode() & 0o022 != 0 {
            return Err("it is not owned by this user alone".into());
        }
        if meta.len() > MAX_CACHE_BYTES {
            return Err(format!("it is larger than {MAX_CACHE_BYTES} bytes"));
        }
        let mut bytes = Vec::new();
        file.take(MAX_CACHE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read it: {e}"))?;
        let value: Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("it is not valid JSON: {e}"))?;
        if value.get("key") != Some(&self.key) {
            return Ok(None);
        }
        let tools = value
            .get("tools")
            .cloned()
            .ok_or_else(|| "it has no `tools`".to_string())?;
        let tools: Vec<Tool> =
            serde_json::from_value(tools).map_err(|e| format!("its `tools` are malformed: {e}"))?;
        let server = value.get("server").filter(|s| s.is_object()).cloned();
        Ok(Some(Cached { tools, server }))
    }

    /// Forget the server's list (it could not be started: its cached tools do not hold).
    pub(crate) fn forget(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// Keep `tools` (and the server's `serverInfo`) as the server's list, atomically.
    pub(crate) fn write(&self, tools: &[Tool], server: Option<&Value>) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let text = serde_json::to_vec(&json!({
            "key": self.key,
            "server": server,
            "tools": tools,
        }))?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        file.write_all(&text)?;
        file.as_file().sync_data()?;
        file.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// What decides which process answers for `spec`.
fn key(spec: &McpServerSpec) -> Value {
    let base = spec
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let path_var = spec
        .env
        .get("PATH")
        .cloned()
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_default();
    let files: Vec<Value> = spec
        .args
        .iter()
        .filter_map(|arg| identity(&base.join(arg)).map(|id| json!([arg, id])))
        .collect();
    json!({
        "command": spec.command,
        "args": spec.args,
        "env": spec.env,
        "cwd": spec.cwd,
        "executable": executable(&spec.command, &base, &path_var).as_deref().and_then(identity),
        "files": files,
    })
}

/// The program `command` runs: a path as given (relative to `base`), else the first match on
/// `path_var`.
fn executable(command: &str, base: &Path, path_var: &str) -> Option<PathBuf> {
    if command.contains('/') {
        return Some(base.join(command));
    }
    path_var
        .split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| base.join(dir).join(command))
        .find(|candidate| candidate.is_file())
}

/// A file's canonical path, size and modification time (`None` unless it is a regular file).
fn identity(path: &Path) -> Option<Value> {
    let canonical = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&canonical).ok()?;
    meta.is_file().then(|| {
        json!({
            "path": canonical,
            "size": meta.len(),
            "mtime": [meta.mtime(), meta.mtime_nsec()],
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dir: &Path) -> McpServerSpec {
        let script = dir.join("server.js");
        std::fs::write(&script, "// v1").unwrap();
        McpServerSpec::new("fx", "node", &[script.to_str().unwrap()])
    }

    fn tool(name: &str) -> Tool {
        serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}})).unwrap()
    }

    #[test]
    fn cache_round_trips_and_a_changed_server_script_misses() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ToolsCache::new(dir.path().join("cache"));
        let spec = spec(dir.path());
        let entry = cache.entry(&spec);
        assert!(entry.read().unwrap().is_none());
        entry.write(&[tool("a")], None).unwrap();
        let mode = std::fs::metadata(entry.path()).unwrap().mode();
        assert_eq!(mode & 0o777, 0o600);
        let cached = entry.read().unwrap().unwrap();
        assert_eq!(cached.tools[0].name, "a");
        std::fs::write(&spec.args[0], "// version two").unwrap();
        assert!(cache.entry(&spec).read().unwrap().is_none());
    }

    #[test]
    fn cache_bad_files_are_ignored_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ToolsCache::new(dir.path().join("cache"));
        let entry = cache.entry(&spec(dir.path()));
        entry.write(&[], None).unwrap();
        std::fs::write(entry.path(), "{not json").unwrap();
        let err = entry.read().err().unwrap();
        assert!(err.contains("not valid JSON"), "{err}");
        std::fs::remove_file(entry.path()).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), entry.path()).unwrap();
        let err = entry.read().err().unwrap();
        assert!(err.contains("cannot open"), "{err}");
    }
}
