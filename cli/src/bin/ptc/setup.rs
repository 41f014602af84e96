//! Building a registry from command-line options, and the `sdk` and `tools` commands.

use std::process::ExitCode;

use clap::Args;
use ptc::discovery::DiscoveryMode;
use ptc::{CodeConfig, CodeExecutor, ToolMode, ToolRegistry};
use ptc_cli::config::{Config, TrustStore};
use ptc_cli::terminal::{TerminalApproval, TerminalQuestions};
use ptc_mcp::{start_servers, start_warm, McpClient, McpServerSpec, StartOptions, ToolsCache};
use ptc_packs::sandbox::{Sandbox, SandboxMode};
use tokio_util::sync::CancellationToken;

/// Options shared by every command that builds a registry.
#[derive(Args, Debug, Clone)]
pub struct PackArgs {
    /// Tool packs to load, comma-separated (default: `tools` in ptc.toml, else none).
    #[arg(long = "tools", value_name = "PACKS")]
    pub packs: Option<String>,
    /// Workspace root that file and shell tools are confined to (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<std::path::PathBuf>,
    /// Operator configuration (default: ptc.toml in the workspace root, if present).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// An MCP server whose tools to add, as `NAME=COMMAND ARGS…` (repeatable); its tools
    /// are named `NAME__tool`. Replaces a `[[mcp]]` server of the same name.
    #[arg(long = "mcp", value_name = "NAME=COMMAND ARGS…")]
    pub mcp: Vec<McpServerSpec>,
    /// All or nothing: one MCP server that fails to start stops ptc (the started ones are
    /// stopped), and every server starts now (default: `[mcp_start] strict` in ptc.toml,
    /// else a failed server is named on stderr and left out).
    #[arg(long)]
    pub strict_mcp: bool,
    /// Start every MCP server now, neither reading nor writing the tools/list cache
    /// (default: `[mcp_start] cache` in ptc.toml, else servers with a cached list start
    /// when a call needs them).
    #[arg(long)]
    pub no_mcp_cache: bool,
    /// The kernel sandbox of bash: read-only, workspace-write or danger-full-access (no
    /// sandbox) (default: `[sandbox] mode` in ptc.toml, else workspace-write).
    #[arg(long, value_name = "MODE", value_parser = parse_sandbox)]
    pub sandbox: Option<SandboxMode>,
    /// Discovery: auto (on when the full SDK or tool list would pass `[discovery]
    /// threshold_bytes`), on (search_tools, describe_tools, call_tool and an overview instead
    /// of every tool) or off (default: `[discovery] mode` in ptc.toml, else auto).
    #[arg(long, value_name = "MODE", value_parser = parse_discovery)]
    pub discovery: Option<DiscoveryMode>,
    /// The static type check of programs (`--typecheck` of `run` and `serve`, which set it;
    /// default: `[code] typecheck` in ptc.toml, else off).
    #[arg(skip)]
    pub typecheck: Option<ptc::typecheck::TypecheckMode>,
}

/// `--typecheck`'s value: off, warn or error.
pub fn parse_typecheck(s: &str) -> Result<ptc::typecheck::TypecheckMode, String> {
    s.parse()
}

fn parse_discovery(s: &str) -> Result<DiscoveryMode, String> {
    s.parse()
}

fn parse_sandbox(s: &str) -> Result<SandboxMode, String> {
    s.parse()
}

/// A registry built from the command line and `ptc.toml`.
pub struct Setup {
    /// The registry, with packs, MCP servers, policies and code mode installed.
    pub registry: ToolRegistry,
    /// The configuration that was applied.
    pub config: Config,
    /// The MCP servers whose tools are registered.
    pub mcp: Vec<McpClient>,
    /// How they started (the bound for [`Setup::start_warm`]).
    pub mcp_options: StartOptions,
    /// The background start of the warm servers, if any ([`Setup::start_warm`]).
    warming: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Abandons the servers' starts in progress (a child of the caller's stop signal).
    mcp_stop: CancellationToken,
}

impl Setup {
    /// Start the servers registered from the cache now, in the background (`ptc serve`):
    /// their real lists replace the cached ones as they answer; one that fails is named on
    /// stderr and its cached tools are withdrawn (`tools/list_changed` follows).
    pub fn start_warm(&self) {
        let task = start_warm(&self.mcp, self.mcp_options.parallel, |e| {
            crate::output::stderr_line(&format!(
                "ptc: warning: {e}; its cached tools are withdrawn"
            ))
        });
        *self.warming.lock().unwrap_or_else(|e| e.into_inner()) = Some(task);
    }

    /// Stop the MCP servers gracefully (they read what was sent to them, e.g. cancellations),
    /// abandoning the starts in progress (those processes are killed and reaped first).
    pub async fn shutdown(&self) {
        self.mcp_stop.cancel();
        let warming = self
            .warming
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(task) = warming {
            let _ = task.await;
        }
        for client in &self.mcp {
            client.shutdown().await;
        }
    }
}

/// `ptc sdk` options.
#[derive(Args, Debug)]
pub struct SdkArgs {
    #[command(flatten)]
    packs: PackArgs,
    /// `code` prints the code-only guidance and declarations; `both` the SDK section
    /// (default: the mode in ptc.toml if it has an SDK, else both).
    #[arg(long, value_name = "MODE", value_parser = parse_code_mode)]
    mode: Option<ToolMode>,
}

/// `ptc tools` options.
#[derive(Args, Debug)]
pub struct ToolsArgs {
    #[command(flatten)]
    packs: PackArgs,
    /// How tools are offered to the model (default: the mode in ptc.toml, else both).
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    mode: Option<ToolMode>,
    /// Wire format of the JSON schemas: ptc (name, description, parameters), openai, anthropic
    /// or mcp (any but ptc implies --json).
    #[arg(long, value_name = "FORMAT", default_value = "ptc", value_parser = ["ptc", "openai", "anthropic", "mcp"])]
    format: String,
    /// Print the model-facing schemas as JSON instead of names.
    #[arg(long)]
    json: bool,
}

/// `ptc replay` options.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    packs: PackArgs,
    /// Print one self-contained HTML page with each run as a waterfall (damaged lines are
    /// skipped and counted) instead of the text tree.
    #[arg(long)]
    html: bool,
    /// Print the runs (run id, instance, process, started, tool, status; tab-separated)
    /// instead of their calls.
    #[arg(long, conflicts_with = "html")]
    list: bool,
    /// Only the run (root call) with this id.
    #[arg(long, value_name = "ID")]
    run: Option<String>,
    /// Only runs of this instance (a database store).
    #[arg(long, value_name = "ID")]
    instance: Option<String>,
    /// Only runs that started at or after TIME (RFC 3339, or ms since the epoch).
    #[arg(long, value_name = "TIME", value_parser = ptc_cli::store::parse_time)]
    since: Option<i64>,
    /// Only runs that started at or before TIME (RFC 3339, or ms since the epoch).
    #[arg(long, value_name = "TIME", value_parser = ptc_cli::store::parse_time)]
    until: Option<i64>,
    /// Re-run the store's durable runs (or --run's) against their journals with every tool
    /// disabled: one line per run, `same` or how it diverged; exit 1 on any divergence.
    #[arg(long, conflicts_with_all = ["html", "list"])]
    rerun: bool,
    /// The session log: a file (JSON lines), sqlite:PATH or postgres://….
    #[arg(value_name = "URL")]
    file: ptc_cli::store::LogTarget,
}

fn parse_mode(s: &str) -> Result<ToolMode, String> {
    s.parse()
}

fn parse_code_mode(s: &str) -> Result<ToolMode, String> {
    match s.parse()? {
        ToolMode::Native => Err("`sdk` needs a mode that has an SDK: code or both".into()),
        mode => Ok(mode),
    }
}

/// Build the registry: configuration (explicit or discovered), packs (flag or config),
/// MCP servers (config, then flags), policies, terminal approval for `ask`, and code
/// mode with `limits` applied last.
pub async fn registry(
    args: &PackArgs,
    adjust: impl FnOnce(&mut CodeConfig),
) -> Result<Setup, String> {
    registry_until(args, adjust, &CancellationToken::new()).await
}

/// [`registry`], abandoned when `stop` fires: MCP servers being started are killed and
/// reaped, those already started are shut down, and the error says so.
pub async fn registry_until(
    args: &PackArgs,
    adjust: impl FnOnce(&mut CodeConfig),
    stop: &CancellationToken,
) -> Result<Setup, String> {
    let root = match &args.root {
        Some(root) => root.clone(),
        None => std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?,
    };
    let store = TrustStore::default_location();
    let loaded = Config::discover_trusted(args.config.as_deref(), &root, store.as_ref())
        .map_err(|e| e.to_string())?;
    for notice in &loaded.notices {
        crate::output::stderr_line(&format!("ptc: {notice}"));
    }
    let config = loaded.config;
    let typecheck = config
        .code
        .typecheck(args.typecheck, crate::output::stderr_line);
    // The active configuration, the trust store and the compiler the type check runs outside
    // the sandbox: no tool may change them.
    let protected = config
        .path
        .iter()
        .cloned()
        .chain(store.as_ref().map(|s| s.path().to_path_buf()))
        .chain(typecheck.as_ref().map(|t| t.tsc.path().to_path_buf()))
        .collect();
    let sandbox = config
        .sandbox
        .resolve(&root, args.sandbox, config.trusted, protected);
    let packs = match (&args.packs, &config.tools) {
        (Some(list), _) => list.clone(),
        (None, Some(tools)) => tools.join(","),
        (None, None) => String::new(),
    };
    let builtin = packs.split(',').any(|p| p.trim() == "builtin");
    let registry = ToolRegistry::new();
    let exposed: Vec<_> = std::iter::once(root.clone())
        .chain(sandbox.writable.iter().cloned())
        .collect();
    let (skills, notices) = match builtin {
        true => config.skills.catalog(&root, &exposed, store.as_ref()),
        false => Default::default(),
    };
    for notice in notices {
        crate::output::stderr_line(&format!("ptc: {notice}"));
    }
    let ctx = ptc_packs::PackContext {
        root,
        sandbox,
        tasks: config.tasks.limits(),
        terminals: config.terminals.limits(),
        questions: Some(std::sync::Arc::new(TerminalQuestions)),
        skills,
        web: config.web.config(),
        lsp: config.lsp.clone(),
    };
    ptc_packs::register_list(&registry, &packs, &ctx).map_err(|e| e.to_string())?;
    if builtin {
        sandbox_notice(&ctx)?;
    }
    let mcp_options = config
        .mcp_start
        .options(args.strict_mcp, args.no_mcp_cache, mcp_cache(&ctx));
    let mcp_stop = stop.child_token();
    let mcp = connect_mcp(&registry, &config.mcp, &args.mcp, &mcp_options, &mcp_stop).await?;
    let tools: Vec<String> = registry
        .view(None, None)
        .definitions()
        .iter()
        .map(|d| d.name().to_string())
        .chain([ptc::RUN_CODE.to_string()])
        .collect();
    config
        .policies
        .check_tools(tools.iter().map(String::as_str))
        .map_err(|(line, message)| {
            let file = config.path.as_ref().map(|p| p.display().to_string());
            format!(
                "{}:{line}: {message}",
                file.unwrap_or_else(|| "ptc.toml".into())
            )
        })?;
    for disposer in config.policies.install(&registry) {
        std::mem::forget(disposer);
    }
    install_discovery(&registry, &config, args.discovery)?;
    registry.set_approval(std::sync::Arc::new(TerminalApproval));
    registry.set_unknown_arguments(config.unknown_arguments);
    let mut code = CodeConfig::default();
    if config.trusted {
        config.limits.apply(&mut code);
    } else {
        config.limits.apply_narrowing(&mut code);
    }
    code.typecheck = typecheck;
    adjust(&mut code);
    CodeExecutor::new(code).install(&registry);
    Ok(Setup {
        registry,
        config,
        mcp,
        mcp_options,
        warming: Default::default(),
        mcp_stop,
    })
}

/// The discovery tools (unless discovery is off) and the setting: `flag` wins over
/// `[discovery]`.
fn install_discovery(
    registry: &ToolRegistry,
    config: &Config,
    flag: Option<DiscoveryMode>,
) -> Result<(), String> {
    let discovery = config.discovery.resolve(flag);
    if discovery.mode != DiscoveryMode::Off {
        ptc::discovery::register(registry).map_err(|e| e.to_string())?;
    }
    std::mem::forget(registry.set_discovery(discovery));
    Ok(())
}

/// Say once what this kernel cannot enforce of the sandbox (or that bash is disabled).
fn sandbox_notice(ctx: &ptc_packs::PackContext) -> Result<(), String> {
    let root = std::fs::canonicalize(&ctx.root).map_err(|e| e.to_string())?;
    if let Some(notice) = Sandbox::new(&ctx.sandbox, &root)?.notice() {
        crate::output::stderr_line(&format!("ptc: warning: {notice}"));
    }
    Ok(())
}

/// The tools/list cache, unless a sandboxed program could write it (it lies in the workspace
/// `root` or a `writable` path): a poisoned list would show the model tools that are not the
/// server's.
fn mcp_cache(ctx: &ptc_packs::PackContext) -> Option<ToolsCache> {
    let cache = ToolsCache::default_location()?;
    // The cache directory as it resolves (its deepest existing ancestor, canonical).
    let resolved = cache
        .dir()
        .ancestors()
        .find_map(|p| std::fs::canonicalize(p).ok())?;
    let exposed = std::iter::once(&ctx.root)
        .chain(&ctx.sandbox.writable)
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .any(|dir| resolved.starts_with(dir));
    if exposed {
        crate::output::stderr_line(&format!(
            "ptc: the MCP tools cache {} lies where programs may write: not used",
            cache.dir().display()
        ));
        return None;
    }
    Some(cache)
}

/// Start the MCP servers (`--mcp` replaces a configured server of the same name) in
/// parallel and register their tools in declaration order; warnings go to stderr. A server
/// that fails is named on stderr with its error and left out, unless `options` is strict:
/// then the servers already started are shut down (and reaped) before the error returns.
async fn connect_mcp(
    registry: &ToolRegistry,
    configured: &[McpServerSpec],
    flags: &[McpServerSpec],
    options: &StartOptions,
    stop: &CancellationToken,
) -> Result<Vec<McpClient>, String> {
    let mut specs: Vec<McpServerSpec> = configured
        .iter()
        .filter(|c| flags.iter().all(|f| f.name != c.name))
        .cloned()
        .collect();
    specs.extend(flags.iter().cloned());
    let servers = start_servers(registry, specs, options, stop)
        .await
        .map_err(|e| e.to_string())?;
    for note in &servers.notes {
        crate::output::stderr_line(&format!("ptc: {note}"));
    }
    for failed in &servers.failed {
        crate::output::stderr_line(&format!(
            "ptc: warning: {failed}; its tools are left out (--strict-mcp makes this an error)"
        ));
    }
    let mut clients = Vec::with_capacity(servers.packs.len());
    for pack in servers.packs {
        for warning in &pack.warnings {
            crate::output::stderr_line(&format!("ptc: warning: {warning}"));
        }
        clients.push(pack.client);
    }
    Ok(clients)
}

/// `ptc sdk`.
pub async fn sdk(args: SdkArgs) -> Result<ExitCode, String> {
    let setup = registry(&args.packs, |_| {}).await?;
    let mode = args
        .mode
        .or(setup.config.mode.filter(|m| m.offers_run_code()))
        .unwrap_or(ToolMode::Both);
    setup.registry.set_mode(mode);
    let (_, sections) = setup
        .registry
        .view(None, None)
        .model_input()
        .map_err(|e| e.to_string())?;
    for section in sections {
        crate::output::stdout(&section.text);
    }
    untyped_count(&setup.registry);
    setup.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

/// After the per-tool warnings: how many visible tools take arguments ptc neither types nor
/// validates (an input schema outside the supported subset).
fn untyped_count(registry: &ToolRegistry) {
    let tools: Vec<_> = registry
        .view(None, None)
        .definitions()
        .into_iter()
        .filter(|d| d.name() != "run_code")
        .collect();
    let untyped = tools.iter().filter(|d| !d.validates_args()).count();
    crate::output::stderr_line(&format!(
        "ptc: {untyped} of {} tools have untyped arguments (input schema outside the supported subset: typed `unknown`, not validated)",
        tools.len()
    ));
}

/// `ptc tools`.
pub async fn tools(args: ToolsArgs) -> Result<ExitCode, String> {
    let setup = registry(&args.packs, |_| {}).await?;
    setup
        .registry
        .set_mode(args.mode.or(setup.config.mode).unwrap_or(ToolMode::Both));
    // What `ptc serve` lists: run_code's description carries the guidance and the SDK.
    let listed = setup
        .registry
        .view(None, None)
        .listed_tools()
        .map_err(|e| e.to_string())?;
    // A wire format other than ptc's own implies JSON output.
    if args.json || args.format != "ptc" {
        let wire = crate::format::schemas(&listed, &args.format);
        let json = serde_json::to_string_pretty(&wire).map_err(|e| e.to_string())?;
        crate::output::stdout_line(&json);
    } else {
        for tool in listed {
            crate::output::stdout_line(&tool.schema.name);
        }
    }
    setup.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

/// `ptc replay`: the call tree as text, with `--html` as a waterfall page, or with `--list`
/// the runs; from any store, filtered by run, instance and start time.
pub async fn replay(args: ReplayArgs) -> Result<ExitCode, String> {
    if args.rerun {
        return crate::durable::rerun(&args.packs, &args.file, args.run.as_deref()).await;
    }
    let filter = ptc_cli::store::Filter {
        run: args.run.clone(),
        instance: args.instance.clone(),
        since_ms: args.since,
        until_ms: args.until,
    };
    let source = ptc_cli::store::describe(&args.file);
    if args.list {
        let runs = ptc_cli::store::list(&args.file, &filter).await?;
        let mut text = String::from("run\tinstance\tprocess\tstarted\ttool\tstatus\n");
        for run in runs {
            text.push_str(&run.line());
            text.push('\n');
        }
        crate::output::stdout_shown(&text);
        return Ok(ExitCode::SUCCESS);
    }
    let replayed = ptc_cli::store::read(&args.file, &filter).await?;
    for (line, reason) in replayed.skipped.iter().take(20) {
        crate::output::stderr_line(&format!("ptc: {source}: skipped line {line}: {reason}"));
    }
    if replayed.skipped.len() > 20 {
        crate::output::stderr_line(&format!(
            "ptc: {source}: skipped {} lines in all",
            replayed.skipped.len()
        ));
    }
    let setup = registry(&args.packs, |_| {}).await?;
    let page = if args.html {
        ptc::session::html::render_html(
            &ptc_cli::store::title(&args.file),
            &replayed.events,
            &replayed.skipped,
            Some(&setup.registry),
        )
    } else {
        let tree = ptc::session::build_tree(&replayed.events);
        ptc::session::render_tree(&tree, Some(&setup.registry))
    };
    if args.html {
        crate::output::stdout(&page);
    } else {
        crate::output::stdout_shown(&page);
    }
    setup.shutdown().await;
    Ok(ExitCode::SUCCESS)
}
