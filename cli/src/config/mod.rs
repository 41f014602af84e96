//! Operator configuration: `ptc.toml`.
//!
//! ```toml
//! mode = "code"                      # native | code | both
//! tools = ["testkit", "builtin"]     # tool packs
//! unknown_arguments = "reject"       # reject | allow: calls with undeclared argument keys
//!
//! [limits]                           # code-mode limits (all optional)
//! timeout_ms = 120000
//! max_heap_mb = 256
//! max_output_bytes = 8388608
//! max_parallel = 10
//! max_sub_calls = 10000
//! max_pending = 1000
//! max_result_chars = 50000          # what the model sees of a run's result
//!
//! [code]                             # the static type check (see the `code` module)
//! typecheck = "warn"                 # off | warn | error
//!
//! [[policy]]                         # first matching rule decides
//! tool = "bash"
//! action = "deny"                    # allow | deny | ask
//! match = { command = "rm\\s+-rf" }  # every listed argument matches its regex
//! reason = "no recursive deletes"
//!
//! [[policy]]
//! tool = "write"
//! action = "ask"
//! not_match = { file_path = "^src/" } # ask before writes outside src/
//!
//! [sandbox]                          # bash's kernel sandbox (see `ptc::sandbox`)
//! mode = "workspace-write"           # read-only | workspace-write | danger-full-access
//! deny_read = ["~/secrets"]          # paths no command or file tool may read (nor the file
//!                                    # tools write), added to the defaults
//! writable = ["~/.cache/pip"]        # more paths commands may write (workspace-write)
//! network = false                    # true lets commands use the network
//!
//! [[mcp]]                            # an MCP server as a tool pack: tools `everything__*`
//! name = "everything"
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-everything"]
//! env = { LOG_LEVEL = "warn" }       # optional
//! timeout_ms = 60000                 # optional, per call
//! startup_timeout_ms = 30000         # optional: spawn + initialize + tools/list
//!
//! [[lsp]]                            # a language server of `lsp` (see the `lsp` module)
//! name = "go"
//! command = "gopls"
//! extensions = ["go"]
//!
//! [mcp_start]                        # how they start: parallel = 8, strict = false
//! cache = true                       # (see the `mcp_start` module)
//!
//! [serve]                            # `ptc serve`'s caps, timeouts and HTTP token
//! max_sessions = 64                  # (see the `serve` module for every key)
//! max_concurrent_runs = 8
//! token_file = "ptc-token"
//!
//! [tasks]                            # background tasks, per owner (see `TasksConfig`)
//! max_tasks = 16
//!
//! [terminals]                        # terminals, per owner (see `TerminalsConfig`)
//! max_terminals = 8
//! idle_timeout_ms = 1800000
//! [discovery]                        # hundreds of tools (see the `discovery` module)
//! mode = "auto"                      # auto | on | off
//!
//! [skills]                           # the `skill` tool's folders (see `SkillsConfig`)
//! paths = ["/srv/team-skills"]
//! [web]                              # web_fetch's reach (see the `web` module)
//! allow_hosts = ["docs.internal"]    # hosts that may resolve to private addresses
//!
//! [log]                              # session events (see the `log` module)
//! url = "sqlite:runs.sqlite"         # PATH | sqlite:PATH | postgres://… | off
//!
//! [telemetry]                        # export call spans over OTLP (see the `telemetry` module)
//! endpoint = "http://127.0.0.1:6006/v1/traces"
//! max_attribute_chars = 4096
//! ```
//!
//! Unknown keys and bad values are errors naming the key and the line. A file inside the
//! workspace root applies in full only once the operator trusted it ([`trust`],
//! [`Config::discover_trusted`]).

mod background;
mod code;
mod discover;
mod discovery;
mod log;
mod lsp;
mod mcp_start;
mod open;
mod policy;
mod sandbox;
mod serve;
mod skills;
mod telemetry;
pub mod trust;
mod web;

pub use background::{TasksConfig, TerminalsConfig};
pub use code::CodeSection;
pub use discover::Loaded;
pub use discovery::DiscoveryConfig;
pub use log::LogConfig;
pub use mcp_start::McpStartConfig;
pub use open::{ConfigFile, MAX_CONFIG_BYTES};
pub use policy::{PolicyAction, PolicyRule, PolicySet};
pub use sandbox::SandboxSection;
pub use serve::ServeConfig;
pub use skills::SkillsConfig;
pub use telemetry::TelemetryConfig;
pub use trust::TrustStore;
pub use web::WebSection;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use ptc::CodeConfig;
use ptc::ToolMode;

/// The file name looked up in the workspace root.
pub const FILE_NAME: &str = "ptc.toml";

/// A parsed `ptc.toml`.
#[derive(Debug, Clone)]
pub struct Config {
    /// The tool mode, if set.
    pub mode: Option<ToolMode>,
    /// Tool packs to load, if set.
    pub tools: Option<Vec<String>>,
    /// What calls carrying undeclared argument keys get (default: rejected).
    pub unknown_arguments: ptc::UnknownArguments,
    /// Code-mode limits.
    pub limits: LimitsConfig,
    /// The static type check (`[code]`).
    pub code: CodeSection,
    /// Policy rules, in file order.
    pub policies: PolicySet,
    /// The kernel sandbox of `bash` (`[sandbox]`).
    pub sandbox: SandboxSection,
    /// MCP servers whose tools to register (`[[mcp]]`), in file order.
    pub mcp: Vec<ptc_mcp::McpServerSpec>,
    /// Language servers of the builtin `lsp` tool (`[[lsp]]`), before its defaults.
    pub lsp: Vec<ptc_packs::builtin::LspServerConfig>,
    /// How the MCP servers start (`[mcp_start]`).
    pub mcp_start: McpStartConfig,
    /// `ptc serve`'s caps, timeouts and token (`[serve]`).
    pub serve: ServeConfig,
    /// The caps of background tasks (`[tasks]`).
    pub tasks: TasksConfig,
    /// The caps of terminals (`[terminals]`).
    pub terminals: TerminalsConfig,
    /// Span export (`[telemetry]`).
    pub telemetry: TelemetryConfig,
    /// Where session events go (`[log]`).
    pub log: LogConfig,
    /// What the model is shown of many tools (`[discovery]`).
    pub discovery: DiscoveryConfig,
    /// Where the `skill` tool finds skills (`[skills]`).
    pub skills: SkillsConfig,
    /// What `web_fetch` may reach (`[web]`).
    pub web: WebSection,
    /// Where the configuration came from.
    pub path: Option<PathBuf>,
    /// Whether the file may widen authority: false for a workspace file the operator has not
    /// trusted, whose `[limits]` and `[sandbox]` then only narrow (the rest was dropped).
    pub trusted: bool,
}

/// Code-mode limits from `[limits]`; unset fields keep the defaults. Zero is refused (it
/// would make every run fail), with the key's line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Wall clock per run, in milliseconds.
    #[serde(default, deserialize_with = "positive")]
    pub timeout_ms: Option<u64>,
    /// Heap cap per run, in MiB.
    #[serde(default, deserialize_with = "positive")]
    pub max_heap_mb: Option<usize>,
    /// Output cap per run (console plus value), in bytes.
    #[serde(default, deserialize_with = "positive")]
    pub max_output_bytes: Option<usize>,
    /// Concurrency-safe sub-calls overlapping at once.
    #[serde(default, deserialize_with = "positive")]
    pub max_parallel: Option<usize>,
    /// Sub-calls per run.
    #[serde(default, deserialize_with = "positive")]
    pub max_sub_calls: Option<u64>,
    /// Sub-calls pending at once.
    #[serde(default, deserialize_with = "positive")]
    pub max_pending: Option<usize>,
    /// Characters of a run's result the model sees (the rest is cut to head and tail).
    #[serde(default, deserialize_with = "positive")]
    pub max_result_chars: Option<usize>,
}

/// A limit that must be at least 1.
fn positive<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default + PartialEq,
{
    let value = T::deserialize(deserializer)?;
    if value == T::default() {
        return Err(serde::de::Error::custom(
            "must be at least 1 (0 would make every run fail)",
        ));
    }
    Ok(Some(value))
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: None,
            tools: None,
            unknown_arguments: Default::default(),
            limits: LimitsConfig::default(),
            code: CodeSection::default(),
            policies: PolicySet::default(),
            sandbox: SandboxSection::default(),
            mcp: Vec::new(),
            lsp: Vec::new(),
            mcp_start: McpStartConfig::default(),
            serve: ServeConfig::default(),
            tasks: TasksConfig::default(),
            terminals: TerminalsConfig::default(),
            telemetry: TelemetryConfig::default(),
            log: LogConfig::default(),
            discovery: DiscoveryConfig::default(),
            skills: SkillsConfig::default(),
            web: WebSection::default(),
            path: None,
            trusted: true,
        }
    }
}

impl LimitsConfig {
    /// Apply the set fields to `config`, but only where they lower a limit (an untrusted
    /// file may narrow, never widen).
    pub fn apply_narrowing(&self, config: &mut CodeConfig) {
        let mut wider = config.clone();
        self.apply(&mut wider);
        let l = &mut config.limits;
        l.wall_clock = l.wall_clock.min(wider.limits.wall_clock);
        l.max_heap_bytes = l.max_heap_bytes.min(wider.limits.max_heap_bytes);
        l.max_output_bytes = l.max_output_bytes.min(wider.limits.max_output_bytes);
        let s = &mut config.sub_calls;
        s.max_parallel = s.max_parallel.min(wider.sub_calls.max_parallel);
        s.max_calls = s.max_calls.min(wider.sub_calls.max_calls);
        s.max_pending = s.max_pending.min(wider.sub_calls.max_pending);
        config.max_result_chars = config.max_result_chars.min(wider.max_result_chars);
    }

    /// The set fields that would raise a limit above ptc's defaults, for the notice of an
    /// untrusted file (whose limits only narrow: [`LimitsConfig::apply_narrowing`]).
    pub fn widening(&self) -> Vec<String> {
        let base = CodeConfig::default();
        let mut wide = base.clone();
        self.apply(&mut wide);
        let (l, b) = (&wide.limits, &base.limits);
        let (s, t) = (&wide.sub_calls, &base.sub_calls);
        [
            ("timeout_ms", l.wall_clock > b.wall_clock),
            ("max_heap_mb", l.max_heap_bytes > b.max_heap_bytes),
            ("max_output_bytes", l.max_output_bytes > b.max_output_bytes),
            ("max_parallel", s.max_parallel > t.max_parallel),
            ("max_sub_calls", s.max_calls > t.max_calls),
            ("max_pending", s.max_pending > t.max_pending),
            (
                "max_result_chars",
                wide.max_result_chars > base.max_result_chars,
            ),
        ]
        .into_iter()
        .filter(|(_, wider)| *wider)
        .map(|(key, _)| format!("limits.{key} (above the default)"))
        .collect()
    }

    /// Apply the set fields to `config`.
    pub fn apply(&self, config: &mut CodeConfig) {
        if let Some(ms) = self.timeout_ms {
            config.limits.wall_clock = Duration::from_millis(ms);
        }
        if let Some(mb) = self.max_heap_mb {
            config.limits.max_heap_bytes = mb.saturating_mul(1024 * 1024);
        }
        if let Some(bytes) = self.max_output_bytes {
            config.limits.max_output_bytes = bytes;
        }
        if let Some(n) = self.max_parallel {
            config.sub_calls.max_parallel = n;
        }
        if let Some(n) = self.max_sub_calls {
            config.sub_calls.max_calls = n;
        }
        if let Some(n) = self.max_pending {
            config.sub_calls.max_pending = n;
        }
        if let Some(n) = self.max_result_chars {
            config.max_result_chars = n;
        }
    }
}

/// A configuration error, with the line it concerns when known.
#[derive(Debug, thiserror::Error)]
#[error("{}{message}", location(path.as_deref(), *line))]
pub struct ConfigError {
    /// The file.
    pub path: Option<PathBuf>,
    /// 1-based line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

fn location(path: Option<&Path>, line: Option<usize>) -> String {
    match (path, line) {
        (Some(p), Some(l)) => format!("{}:{l}: ", p.display()),
        (Some(p), None) => format!("{}: ", p.display()),
        (None, Some(l)) => format!("line {l}: "),
        (None, None) => String::new(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    mode: Option<toml::Spanned<String>>,
    tools: Option<Vec<String>>,
    #[serde(default)]
    unknown_arguments: ptc::UnknownArguments,
    #[serde(default)]
    limits: LimitsConfig,
    #[serde(default)]
    code: code::RawCode,
    #[serde(default)]
    policy: Vec<policy::RawRule>,
    #[serde(default)]
    sandbox: SandboxSection,
    #[serde(default)]
    mcp: Vec<toml::Spanned<ptc_mcp::McpServerSpec>>,
    #[serde(default)]
    lsp: Vec<toml::Spanned<ptc_packs::builtin::LspServerConfig>>,
    #[serde(default)]
    mcp_start: McpStartConfig,
    #[serde(default)]
    serve: serve::RawServe,
    #[serde(default)]
    tasks: background::RawTasks,
    #[serde(default)]
    terminals: background::RawTerminals,
    #[serde(default)]
    telemetry: telemetry::RawTelemetry,
    #[serde(default)]
    log: log::RawLog,
    #[serde(default)]
    discovery: discovery::RawDiscovery,
    #[serde(default)]
    skills: SkillsConfig,
    #[serde(default)]
    web: web::RawWeb,
}

impl Config {
    /// Parse configuration text; `path` is only used in error messages.
    pub fn parse(text: &str, path: Option<&Path>) -> Result<Config, ConfigError> {
        let error = |line: Option<usize>, message: String| ConfigError {
            path: path.map(Path::to_path_buf),
            line,
            message,
        };
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            let key = e.span().and_then(|s| key_before(text, s.start));
            match key {
                Some(key) if !e.message().contains(key) => {
                    error(line, format!("{key}: {}", e.message()))
                }
                _ => error(line, e.message().to_string()),
            }
        })?;
        let mode =
            match raw.mode {
                None => None,
                Some(m) => Some(m.get_ref().parse::<ToolMode>().map_err(|e| {
                    error(Some(line_of(text, m.span().start)), format!("mode: {e}"))
                })?),
            };
        let policies = PolicySet::compile(raw.policy, text)
            .map_err(|(line, message)| error(Some(line), message))?;
        let dir = path
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty());
        let mcp = mcp_servers(raw.mcp, text, dir)
            .map_err(|(line, message)| error(Some(line), message))?;
        let serve = raw
            .serve
            .resolve(text, path.and_then(Path::parent))
            .map_err(|(line, message)| error(Some(line), message))?;
        let tasks = raw
            .tasks
            .resolve(text)
            .map_err(|(line, message)| error(Some(line), message))?;
        let terminals = raw
            .terminals
            .resolve(text)
            .map_err(|(line, message)| error(Some(line), message))?;
        let telemetry = raw
            .telemetry
            .resolve(text)
            .map_err(|(line, message)| error(Some(line), message))?;
        let log = raw
            .log
            .resolve(text, dir)
            .map_err(|(line, message)| error(Some(line), message))?;
        let discovery = raw
            .discovery
            .resolve(text)
            .map_err(|(line, message)| error(Some(line), message))?;
        let code = raw
            .code
            .resolve(text, dir)
            .map_err(|(line, message)| error(Some(line), message))?;
        let web = raw
            .web
            .resolve(text)
            .map_err(|(line, message)| error(Some(line), message))?;
        Ok(Config {
            mode,
            tools: raw.tools,
            unknown_arguments: raw.unknown_arguments,
            limits: raw.limits,
            code,
            policies,
            sandbox: raw.sandbox,
            mcp,
            lsp: lsp::servers(raw.lsp, text, dir).map_err(|(line, m)| error(Some(line), m))?,
            mcp_start: raw.mcp_start,
            serve,
            tasks,
            terminals,
            telemetry,
            log,
            discovery,
            skills: raw.skills.resolved(dir),
            web,
            path: path.map(Path::to_path_buf),
            trusted: true,
        })
    }

    /// Read and parse `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let error = |message: String| ConfigError {
            path: Some(path.to_path_buf()),
            line: None,
            message,
        };
        let file = open::read_config(path, open::Links::Follow)
            .map_err(error)?
            .ok_or_else(|| error("no such file".to_string()))?;
        Config::parse(&file.text, Some(path))
    }

    /// Read the configuration file `path` for the workspace `root` (canonical) as
    /// [`Config::discover_trusted`] does: a path written inside the root is reached through no
    /// symbolic link; the content and the real location come from one open descriptor.
    /// `Ok(None)`: there is no such file.
    pub fn read_file(path: &Path, root: &Path) -> Result<Option<ConfigFile>, ConfigError> {
        let error = |message: String| ConfigError {
            path: Some(path.to_path_buf()),
            line: None,
            message,
        };
        let (absolute, links) = open::locate(path, root).map_err(error)?;
        open::read_config(&absolute, links).map_err(error)
    }

    /// `explicit` if given, else `<root>/ptc.toml` if it exists, else the defaults; applied
    /// as written, whoever wrote it (hosts that run programs want
    /// [`Config::discover_trusted`]).
    pub fn discover(explicit: Option<&Path>, root: &Path) -> Result<Config, ConfigError> {
        match explicit {
            Some(path) => Config::load(path),
            None => {
                let candidate = root.join(FILE_NAME);
                if candidate.is_file() {
                    Config::load(&candidate)
                } else {
                    Ok(Config::default())
                }
            }
        }
    }
}

/// Validate `[[mcp]]` entries: well-formed and uniquely named. Each starts in its `cwd`, taken
/// relative to the file's folder `dir`, or in that folder itself.
fn mcp_servers(
    raw: Vec<toml::Spanned<ptc_mcp::McpServerSpec>>,
    text: &str,
    dir: Option<&Path>,
) -> Result<Vec<ptc_mcp::McpServerSpec>, (usize, String)> {
    let mut servers: Vec<ptc_mcp::McpServerSpec> = Vec::with_capacity(raw.len());
    for entry in raw {
        let line = line_of(text, entry.span().start);
        let mut spec = entry.into_inner();
        spec.cwd = match (spec.cwd.take(), dir) {
            (Some(cwd), Some(dir)) => Some(dir.join(cwd)),
            (cwd, None) => cwd,
            (None, Some(dir)) => Some(dir.to_path_buf()),
        };
        spec.validate().map_err(|e| (line, format!("mcp: {e}")))?;
        if servers.iter().any(|s| s.name == spec.name) {
            return Err((line, format!("mcp: two servers are named `{}`", spec.name)));
        }
        servers.push(spec);
    }
    Ok(servers)
}

/// The key of the `key = value` line whose value starts at byte offset `at`, if any.
fn key_before(text: &str, at: usize) -> Option<&str> {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let (key, _) = text[line_start..at].split_once('=')?;
    Some(key.trim()).filter(|k| !k.is_empty())
}

/// The 1-based line of byte offset `at` in `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}
