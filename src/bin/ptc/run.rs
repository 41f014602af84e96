//! `ptc run`: one program as one `run_code` call through the full pipeline.

use std::io::Read;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use ptc::config::LimitsConfig;
use ptc::{
    Agent, JsonlLog, LogStep, ScopeKey, ToolBatchInput, ToolCallBlock, ToolExecution,
    ToolExecutionResult, ToolMode, ToolRegistry,
};
use serde_json::json;

use crate::setup::{registry, PackArgs};

/// `ptc run` options.
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    packs: PackArgs,
    #[command(flatten)]
    telemetry: crate::observe::TelemetryArgs,
    /// Wall-clock limit for the program, in milliseconds (default 120000).
    #[arg(long, value_name = "N")]
    timeout_ms: Option<u64>,
    /// Heap limit for the program, in MiB (default 256).
    #[arg(long, value_name = "N")]
    max_heap_mb: Option<usize>,
    /// Concurrency-safe tool calls that may overlap (default 10).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_parallel: Option<u64>,
    /// Print a compact trace of each tool call (name, duration, ok/error) on stderr.
    #[arg(long)]
    trace: bool,
    /// Append the session's events to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    log: Option<std::path::PathBuf>,
    /// Print the whole result (isError, content, error) as JSON.
    #[arg(long)]
    json: bool,
    /// Run the program N times in this process (each a fresh run_code call) and print timings on stderr.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    repeat: Option<u64>,
    /// The run_code description (5-10 words, shown in UIs).
    #[arg(
        long,
        value_name = "TEXT",
        default_value = "ad-hoc program run from the ptc command line"
    )]
    description: String,
    /// The program file, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    file: String,
}

fn read_program(file: &str) -> Result<String, String> {
    if file == "-" {
        let mut code = String::new();
        std::io::stdin()
            .read_to_string(&mut code)
            .map_err(|e| format!("cannot read the program from standard input: {e}"))?;
        Ok(code)
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))
    }
}

/// Run the command.
pub async fn main(args: RunArgs) -> Result<ExitCode, String> {
    let code = read_program(&args.file)?;
    let limits = LimitsConfig {
        timeout_ms: args.timeout_ms,
        max_heap_mb: args.max_heap_mb,
        max_parallel: args.max_parallel.map(|n| n as usize),
        ..LimitsConfig::default()
    };
    // Console output streams live to stderr (not under --repeat, which measures).
    let live = args.repeat.is_none();
    let setup = registry(&args.packs, |config| {
        limits.apply(config);
        if live {
            config.console = Some(Arc::new(|_: &ToolExecution, _, line: &str| {
                eprintln!("{line}")
            }));
        }
    })
    .await?;
    let telemetry = match crate::observe::start(&args.telemetry, &setup.config.telemetry) {
        Ok(telemetry) => telemetry,
        Err(e) => {
            setup.shutdown().await;
            return Err(e);
        }
    };
    let registry = &setup.registry;
    registry.set_mode(ToolMode::Both);
    if args.trace {
        crate::trace::install(registry);
    }
    let mut agent = Agent::new(ScopeKey::root("cli"));
    if let Some(path) = &args.log {
        let log = JsonlLog::open(path)
            .map_err(|e| format!("cannot open the log {}: {e}", path.display()))?;
        agent = agent.with_session(Arc::new(log));
    }
    let outcome = run(registry, agent, &code, &args).await;
    setup.shutdown().await;
    telemetry.shutdown().await;
    outcome
}

async fn run(
    registry: &ToolRegistry,
    agent: Agent,
    code: &str,
    args: &RunArgs,
) -> Result<ExitCode, String> {
    let sub_calls = Arc::new(AtomicU64::new(0));
    let counter = sub_calls.clone();
    registry.on_result(
        move |exec: &Arc<ToolExecution>, _: &Arc<ToolExecutionResult>| {
            if exec.parent().is_some() {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        },
    );
    let start = Instant::now();
    let mut last = None;
    let repeat = args.repeat.unwrap_or(1);
    for i in 1..=repeat {
        sub_calls.store(0, Ordering::Relaxed);
        let mut batch = ToolBatchInput::new(vec![ToolCallBlock::new(
            format!("run-{i}"),
            ptc::RUN_CODE,
            json!({"code": code, "description": args.description}),
        )]);
        batch.agent = Some(agent.clone());
        batch.log = Some(LogStep { turn: i, step: 1 });
        let mut result = match registry.execute(batch).await {
            Ok(result) => result,
            Err(ptc::ToolBatchExecutionError::Log { error, result }) => {
                eprintln!("ptc: {error}");
                result
            }
            Err(e) => return Err(e.to_string()),
        };
        last = Some(result.results.remove(0).result);
    }
    let elapsed = start.elapsed();
    let result = last.expect("at least one run");
    if args.json {
        let out = json!({
            "isError": result.is_error(),
            "content": result.content,
            "error": result.error(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
    } else {
        println!("{}", ptc::content::content_text(&result.content));
    }
    if args.repeat.is_some() {
        let total_ms = elapsed.as_secs_f64() * 1e3;
        eprintln!(
            "ptc runs={} total_ms={:.1} per_run_ms={:.3} tool_calls={}",
            repeat,
            total_ms,
            total_ms / repeat as f64,
            sub_calls.load(Ordering::Relaxed)
        );
    }
    Ok(if result.is_error() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
