//! `ptc serve`: the registry as an MCP server, over stdio or streamable HTTP.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use ptc::mcp::{serve_http, serve_stdio, HttpBinding, PtcServer};
use ptc::{Agent, JsonlLog, ScopeKey, ToolMode};

use crate::setup::{registry, PackArgs};

/// `ptc serve` options.
#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    packs: PackArgs,
    /// How tools are offered: `code` lists only run_code (its description carries the
    /// SDK), `native` the tools, `both` all (default: the mode in ptc.toml, else both).
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    mode: Option<ToolMode>,
    /// Serve MCP's streamable HTTP transport at http://ADDR/mcp instead of stdio;
    /// ADDR is PORT (on 127.0.0.1) or HOST:PORT. Port 0 picks a free port.
    #[arg(long, value_name = "ADDR")]
    http: Option<HttpBinding>,
    /// Append every call's session events to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    log: Option<std::path::PathBuf>,
    /// Print a compact line per tool call (and sub-call) on stderr.
    #[arg(long)]
    trace: bool,
}

fn parse_mode(s: &str) -> Result<ToolMode, String> {
    s.parse()
}

/// Run the server until the client disconnects (stdio) or the process is stopped (HTTP).
pub async fn main(args: ServeArgs) -> Result<ExitCode, String> {
    let setup = registry(&args.packs, |_| {}).await?;
    let registry = setup.registry.clone();
    registry.set_mode(args.mode.or(setup.config.mode).unwrap_or(ToolMode::Both));
    if args.trace {
        crate::trace::install(&registry);
    }
    let mut agent = Agent::new(ScopeKey::root("mcp"));
    if let Some(path) = &args.log {
        let log = JsonlLog::open(path)
            .map_err(|e| format!("cannot open the log {}: {e}", path.display()))?;
        agent = agent.with_session(Arc::new(log));
    }
    let server = PtcServer::new(registry, agent);
    let serve = async {
        match args.http {
            None => serve_stdio(server).await,
            Some(binding) => {
                serve_http(server, binding, |addr| {
                    eprintln!("ptc: serving MCP at http://{addr}{}", ptc::mcp::HTTP_PATH)
                })
                .await
            }
        }
    };
    // On Ctrl-C, stop serving and still stop the MCP servers this process started.
    let served = tokio::select! {
        served = serve => served,
        _ = tokio::signal::ctrl_c() => Ok(()),
    };
    setup.shutdown().await;
    served.map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
