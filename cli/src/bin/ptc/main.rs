//! `ptc`: run TypeScript programs against tool packs, print the SDK, list the tools.
//!
//! Exit codes: 0 success, 1 the result is an error, 2 a usage or setup error, 3 the run
//! finished but its session log could not be written (events were lost).

mod durable;
mod format;
mod observe;
mod output;
mod run;
mod serve;
mod setup;
mod trace;
mod trust;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Programmable tool calling: run programs that call tools through ptc's guarded pipeline.
#[derive(Parser)]
#[command(name = "ptc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a TypeScript program as one `run_code` call and print what the model would see.
    #[command(
        after_help = "Examples:\n  ptc run --tools testkit examples/fanout.ts\n  echo 'return await tools.echo({text: \"hi\"})' | ptc run --tools testkit -\n  ptc run --tools testkit --repeat 100 examples/fanout.ts"
    )]
    Run(run::RunArgs),
    /// Print the TypeScript SDK section a model reads in code mode.
    #[command(after_help = "Example:\n  ptc sdk --tools testkit --mode code")]
    Sdk(setup::SdkArgs),
    /// List the model-facing tools (names, or schemas with --json) as the mode presents them.
    #[command(
        after_help = "Examples:\n  ptc tools --tools testkit --mode native\n  ptc tools --tools testkit --mode code --json"
    )]
    Tools(setup::ToolsArgs),
    /// Render a session log (written by `ptc run --log` or `ptc serve`: a JSON-lines file,
    /// sqlite:PATH or postgres://…) as a tree of calls and sub-calls, with --html as a
    /// self-contained waterfall page, or with --list as its runs.
    #[command(
        after_help = "Example:\n  ptc run --tools testkit --log session.jsonl examples/programs/fanout.ts\n  ptc replay --tools testkit session.jsonl\n  ptc replay --tools testkit --html session.jsonl > run.html\n  ptc replay --list sqlite:$HOME/.local/state/ptc/runs.sqlite\n  ptc replay --instance 10.0.0.5:8080 --since 2026-12-02T09:00:00Z postgres://ptc@db/ptc"
    )]
    Replay(setup::ReplayArgs),
    /// Serve the tools to MCP clients over stdio (default) or streamable HTTP.
    #[command(
        after_help = "Examples:\n  ptc serve --tools builtin --mode code\n  ptc serve --tools testkit --mcp 'everything=npx -y @modelcontextprotocol/server-everything' --http 8808"
    )]
    Serve(serve::ServeArgs),
    /// Continue a durable run (`ptc run --run-id`) whose process died: what its journal holds
    /// is replayed, the rest runs.
    #[command(
        after_help = "Example:\n  ptc run --tools builtin --log sqlite:runs.sqlite --run-id fix-42 fix.ts\n  ptc resume --tools builtin sqlite:runs.sqlite fix-42"
    )]
    Resume(durable::ResumeArgs),
    /// Trust a workspace's ptc.toml: record the sha256 of its exact content outside the
    /// workspace, so that its [[mcp]] servers, tools and allow rules apply.
    #[command(
        after_help = "Examples:\n  ptc trust --root ~/project\n  ptc trust --config ~/project/ci/ptc.toml\n  ptc trust --forget --root ~/project"
    )]
    Trust(trust::TrustArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    ptc_packs::install_tls_provider();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ptc: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Run(args) => run::main(args).await,
            Command::Sdk(args) => setup::sdk(args).await,
            Command::Tools(args) => setup::tools(args).await,
            Command::Replay(args) => setup::replay(args).await,
            Command::Serve(args) => serve::main(args).await,
            Command::Resume(args) => durable::resume(args).await,
            Command::Trust(args) => trust::main(args),
        }
    });
    // Everything was stopped and reaped inside `block_on`; do not wait on a blocking read
    // of stdin (`ptc serve` over stdio) that may never return.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match outcome {
        Ok(code) => code,
        Err(message) => {
            output::stderr_line(&format!("ptc: {message}"));
            ExitCode::from(2)
        }
    }
}
