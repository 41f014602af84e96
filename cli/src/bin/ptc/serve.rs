//! `ptc serve`: the registry as an MCP server, over stdio or streamable HTTP.
//!
//! MCP servers whose tools are cached are served from the cache at once and started in the
//! background. SIGTERM and SIGINT (and, on stdio, the end of stdin) stop it gracefully, also
//! while MCP servers are still starting: stop accepting, cancel the runs and let them wind
//! down, stop the MCP servers ptc started (close stdin, SIGTERM, SIGKILL) and reap them.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use ptc::{Agent, ScopeKey, ToolMode};
use ptc_cli::store::journal::RunJournals;
use ptc_mcp::{
    check_exposure, serve_http, serve_stdio, BearerToken, HttpBinding, HttpOptions, PtcServer,
    ServeLimits,
};
use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

use crate::setup::{parse_typecheck, registry_until, PackArgs, Setup};

/// `ptc serve` options.
#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    packs: PackArgs,
    #[command(flatten)]
    telemetry: crate::observe::TelemetryArgs,
    /// How tools are offered: `code` lists only run_code (its description carries the
    /// SDK), `native` the tools, `both` all (default: the mode in ptc.toml, else both).
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    mode: Option<ToolMode>,
    /// Serve MCP's streamable HTTP transport at http://ADDR/mcp instead of stdio;
    /// ADDR is PORT (on 127.0.0.1) or HOST:PORT. Port 0 picks a free port.
    #[arg(long, value_name = "ADDR")]
    http: Option<HttpBinding>,
    /// Require `Authorization: Bearer <token>` on every HTTP request, the token being the
    /// content of FILE (default: `token_file` in [serve] of ptc.toml).
    #[arg(long, value_name = "FILE", requires = "http")]
    http_token_file: Option<std::path::PathBuf>,
    /// Serve a non-loopback --http address without a token: anyone who reaches it can
    /// run every tool. Without a token such an address is refused.
    #[arg(long, requires = "http")]
    http_unauthenticated: bool,
    /// MCP sessions open at once over HTTP (default: [serve] in ptc.toml, else 64).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_sessions: Option<u32>,
    /// Tool calls running at once; later ones wait, then get a busy error
    /// (default: [serve] in ptc.toml, else 8).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_concurrent_runs: Option<u32>,
    /// Characters of a run's result the model sees; the rest is cut to head and tail
    /// (default: `[limits] max_result_chars`, else 50000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_result_chars: Option<u64>,
    /// This instance's id, when several serve one deployment: returned in every
    /// tools/call result's `_meta` as `ptc/instance`, ending the handles of its tasks and
    /// terminals (`…@ID`) so a load balancer can route on them; 1-64 of A-Z a-z 0-9 . _ : -
    /// (default: the bound HOST:PORT with --http, else `local`).
    #[arg(long, value_name = "ID", value_parser = parse_instance)]
    instance: Option<String>,
    /// Keep every call's session events in URL: a file path (JSON lines), sqlite:PATH,
    /// postgres://… (one database for many instances) or off. Default: `[log] url` in
    /// ptc.toml, else sqlite:$XDG_STATE_HOME/ptc/runs.sqlite (without XDG_STATE_HOME,
    /// ~/.local/state/ptc/runs.sqlite; made private to the user). Read it with `ptc replay`.
    #[arg(long, value_name = "URL")]
    log: Option<ptc_cli::store::LogTarget>,
    /// Type-check each program with TypeScript 7 before it runs: off, warn (run, then list
    /// the type errors) or error (refuse a program that has any) (default: `[code] typecheck`
    /// in ptc.toml, else off).
    #[arg(long, value_name = "MODE", value_parser = parse_typecheck)]
    typecheck: Option<ptc::typecheck::TypecheckMode>,
    /// Make every run_code run durable: journal what each program observes in the --log
    /// store (sqlite:PATH, or postgres://… shared by many instances), under its call's id, and
    /// resume the runs of instances on the store that died (their lease lapsed).
    #[arg(long, requires = "log")]
    durable: bool,
    #[command(flatten)]
    lease: crate::durable::LeaseArgs,
    /// With --durable: a run that is an MCP task and has waited this long for a person (an
    /// approval, a question) gives up its sandbox and lease; it resumes by replay on
    /// whichever instance the answer (tasks/update) reaches. Milliseconds; default: never.
    #[arg(long, value_name = "MS", requires = "durable", value_parser = clap::value_parser!(u64).range(1..))]
    park_after_ms: Option<u64>,
    /// Print a compact line per tool call (and sub-call) on stderr.
    #[arg(long)]
    trace: bool,
}

fn parse_mode(s: &str) -> Result<ToolMode, String> {
    s.parse()
}

fn parse_instance(s: &str) -> Result<String, String> {
    ptc_mcp::check_instance(s).map(|()| s.to_string())
}

/// Serve until the client disconnects (stdio) or a signal stops the process.
pub async fn main(mut args: ServeArgs) -> Result<ExitCode, String> {
    args.packs.typecheck = args.typecheck;
    let stop = stop_on_signals()?;
    let max_result_chars = args.max_result_chars;
    let durable = match args.durable {
        true => Some(crate::durable::journaling(
            args.log.as_ref(),
            true,
            &args.lease,
        )?),
        false => None,
    };
    let journaling = durable.as_ref().map(|(journaling, _)| journaling.clone());
    let adjust = move |config: &mut ptc::CodeConfig| {
        if let Some(n) = max_result_chars {
            config.max_result_chars = n as usize;
        }
        config.journaling = journaling;
    };
    let setup = match registry_until(&args.packs, adjust, &stop).await {
        Ok(setup) => setup,
        Err(e) if stop.is_cancelled() => {
            crate::output::stderr_line(&format!("ptc: stopped before serving ({e})"));
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e),
    };
    // Servers registered from the cache start now, in the background: their real lists
    // replace the cached ones as they answer, and the clients hear `tools/list_changed`.
    setup.start_warm();
    let telemetry = match crate::observe::start(&args.telemetry, &setup.config.telemetry) {
        Ok(telemetry) => telemetry,
        Err(e) => {
            setup.shutdown().await;
            return Err(e);
        }
    };
    let journals = durable.map(|(_, journals)| journals);
    let stop = match &journals {
        Some(journals) => hand_over_on(stop, journals.clone()),
        None => stop,
    };
    let served = serve(&args, &setup, journals, stop).await;
    setup.shutdown().await;
    // Spans of the last calls are still buffered: export them before exiting.
    telemetry.shutdown().await;
    served
}

async fn serve(
    args: &ServeArgs,
    setup: &Setup,
    journals: Option<Arc<RunJournals>>,
    stop: CancellationToken,
) -> Result<ExitCode, String> {
    let registry = setup.registry.clone();
    registry.set_mode(args.mode.or(setup.config.mode).unwrap_or(ToolMode::Both));
    if args.trace {
        crate::trace::install(&registry);
    }
    let mut agent = Agent::new(ScopeKey::root("mcp"));
    let log = open_log(args, setup)?;
    if let Some(log) = &log {
        agent = agent.with_session(log.clone());
    }
    let mut limits = ServeLimits::default();
    setup.config.serve.apply(&mut limits);
    if let Some(n) = args.max_sessions {
        limits.max_sessions = n as usize;
    }
    if let Some(n) = args.max_concurrent_runs {
        limits.max_concurrent_runs = n as usize;
    }
    let mut server = PtcServer::new(registry.clone(), agent).with_limits(&limits);
    if let Some(journals) = journals {
        server = server.with_tasks(journals.clone());
        if let Some(ms) = args.park_after_ms {
            server = server.with_park_after(std::time::Duration::from_millis(ms));
        }
        // Look for orphans twice per lease: a run waits at most about a lease and a half
        // after its owner died.
        let every = journals.lease().duration / 2;
        tokio::spawn(crate::durable::resume_orphans(
            registry,
            server.clone(),
            journals,
            every,
            limits.max_concurrent_runs.max(1),
            stop.clone(),
        ));
    }
    if let Some(id) = &args.instance {
        server = server.with_instance(id);
    }
    let served = match args.http {
        None => serve_stdio(server, &limits, stop).await,
        Some(binding) => {
            let token = match args.http_token_file.as_ref().or(setup
                .config
                .serve
                .token_file
                .as_ref())
            {
                Some(path) => Some(BearerToken::from_file(path)?),
                None => None,
            };
            let exposed = check_exposure(binding.0, token.as_ref(), args.http_unauthenticated)
                .map_err(|e| e.to_string())?;
            if let Some(warning) = exposed {
                crate::output::stderr_line(&format!("ptc: {warning}"));
            }
            let options = HttpOptions {
                limits,
                token,
                unauthenticated: args.http_unauthenticated,
                instance: args.instance.clone(),
            };
            serve_http(server, binding, options, stop, |addr| {
                // Without --instance, runs are recorded under the bound address.
                if let (Some(log), None) = (&log, &args.instance) {
                    log.store().set_instance(&addr.to_string());
                }
                eprintln!("ptc: serving MCP at http://{addr}{}", ptc_mcp::HTTP_PATH)
            })
            .await
        }
    };
    if let Some(log) = &log {
        // What the writer still holds is written before the process ends.
        log.store().close();
    }
    served.map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// The run store: `--log`, else `[log] url`, else the default SQLite file (which, when it
/// cannot be opened, is only warned about). Runs are recorded under `--instance`; without
/// it, over stdio under the host's name, over HTTP under the bound address (set once bound).
fn open_log(
    args: &ServeArgs,
    setup: &Setup,
) -> Result<Option<std::sync::Arc<crate::output::LoudLog>>, String> {
    let instance = args
        .instance
        .clone()
        .unwrap_or_else(ptc_cli::store::host_instance);
    if let Some(target) = args.log.as_ref().or(setup.config.log.url.as_ref()) {
        return crate::output::LoudLog::open(target, &instance);
    }
    let opened = ptc_cli::store::default_sqlite().and_then(|path| {
        crate::output::LoudLog::open(&ptc_cli::store::LogTarget::Sqlite(path), &instance)
    });
    opened.or_else(|e| {
        crate::output::stderr_line(&format!(
            "ptc: serving without a run store ({e}); --log URL or --log off says where"
        ));
        Ok(None)
    })
}

/// A token cancelled when `stop` is, once `journals` handed this instance's durable runs
/// over to the other instances: the runs it then cancels write nothing more.
fn hand_over_on(stop: CancellationToken, journals: Arc<RunJournals>) -> CancellationToken {
    let serving = CancellationToken::new();
    let cancel = serving.clone();
    tokio::spawn(async move {
        stop.cancelled().await;
        tokio::task::spawn_blocking(move || {
            // Results still waiting to be written are the other instances' to replay.
            ptc::journal::write_waiting();
            journals.hand_over()
        })
        .await
        .ok();
        cancel.cancel();
    });
    serving
}

/// A token cancelled by the first SIGTERM or SIGINT.
fn stop_on_signals() -> Result<CancellationToken, String> {
    let install = |kind| signal(kind).map_err(|e| format!("cannot handle signals: {e}"));
    let mut term = install(SignalKind::terminate())?;
    let mut int = install(SignalKind::interrupt())?;
    let stop = CancellationToken::new();
    let cancel = stop.clone();
    tokio::spawn(async move {
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        eprintln!("ptc: {name}: stopping");
        cancel.cancel();
    });
    Ok(stop)
}
