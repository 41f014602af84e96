//! `ptc run`: one program as one `run_code` call through the full pipeline.
//!
//! The process is the [`Owner`] of the background work its programs start (tasks,
//! terminals; shared by the runs of `--repeat`): when the runs are over, or SIGINT or
//! SIGTERM stops them, the owner is closed and ptc waits until those processes are gone. What
//! was still running then is named after the result (`[stopped] background task … was still
//! running when ptc run exited, so it was stopped`; `stopped` in `--json`).

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use ptc::{
    Agent, LogStep, Owner, ScopeKey, ToolBatchInput, ToolCallBlock, ToolExecution,
    ToolExecutionResult, ToolMode, ToolRegistry,
};
use ptc_cli::config::LimitsConfig;
use serde_json::json;
use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

use crate::setup::{parse_typecheck, registry, PackArgs};

/// `ptc run` options.
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub(crate) packs: PackArgs,
    #[command(flatten)]
    pub(crate) telemetry: crate::observe::TelemetryArgs,
    /// Wall-clock limit for the program, in milliseconds (default 120000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) timeout_ms: Option<u64>,
    /// Heap limit for the program, in MiB (default 256).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_heap_mb: Option<u64>,
    /// Characters of the result the model sees; the rest is cut to head and tail (default 50000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_result_chars: Option<u64>,
    /// Concurrency-safe tool calls that may overlap (default 10).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_parallel: Option<u64>,
    /// Print a compact trace of each tool call (name, duration, ok/error) on stderr.
    #[arg(long)]
    pub(crate) trace: bool,
    /// Keep the session's events in URL: a file path (JSON lines), sqlite:PATH,
    /// postgres://… or off (default: `[log] url` in ptc.toml, else no log).
    #[arg(long, value_name = "URL")]
    pub(crate) log: Option<ptc_cli::store::LogTarget>,
    /// Print the whole result (isError, content, error) as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Run the program N times in this process (each a fresh run_code call) and print timings on stderr.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) repeat: Option<u64>,
    /// Type-check each program with TypeScript 7 before it runs: off, warn (run, then list
    /// the type errors) or error (refuse a program that has any) (default: `[code] typecheck`
    /// in ptc.toml, else off).
    #[arg(long, value_name = "MODE", value_parser = parse_typecheck)]
    pub(crate) typecheck: Option<ptc::typecheck::TypecheckMode>,
    /// The run_code description (5-10 words, shown in UIs).
    #[arg(
        long,
        value_name = "TEXT",
        default_value = "ad-hoc program run from the ptc command line"
    )]
    pub(crate) description: String,
    /// Make the run durable under ID: it keeps a journal of what the program observes in the
    /// --log store (sqlite:PATH or postgres://…), and a run with this id whose process died
    /// resumes from it (`ptc resume`, or any `ptc serve --durable` on the store).
    #[arg(long, value_name = "ID", conflicts_with = "repeat")]
    pub(crate) run_id: Option<String>,
    #[command(flatten)]
    pub(crate) lease: crate::durable::LeaseArgs,
    /// The program file, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub(crate) file: String,
}

/// The program in `file` (or standard input for `-`), at most
/// [`ptc::MAX_PROGRAM_BYTES`]; devices (`/dev/zero`, …) and directories are refused,
/// pipes are read up to the limit.
fn read_program(file: &str) -> Result<String, String> {
    let limit = ptc::MAX_PROGRAM_BYTES;
    let (reader, what): (Box<dyn Read>, String) = if file == "-" {
        (Box::new(std::io::stdin()), "standard input".into())
    } else {
        let meta = std::fs::metadata(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        let kind = meta.file_type();
        if !(kind.is_file() || kind.is_fifo() || kind.is_socket()) {
            return Err(format!(
                "{file} is not a program file (a directory or a device); pass a file, or `-` to \
                 read standard input"
            ));
        }
        let opened = std::fs::File::open(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        (Box::new(opened), file.to_string())
    };
    let mut bytes = Vec::new();
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the program from {what}: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "the program in {what} is larger than {limit} bytes, the most ptc runs"
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("the program in {what} is not UTF-8: {e}"))
}

/// Run the command.
pub async fn main(args: RunArgs) -> Result<ExitCode, String> {
    let code = read_program(&args.file)?;
    main_with(args, code).await
}

/// Run `code` as `args` say (their `file` is not read).
pub(crate) async fn main_with(mut args: RunArgs, code: String) -> Result<ExitCode, String> {
    args.packs.typecheck = args.typecheck;
    let limits = LimitsConfig {
        timeout_ms: args.timeout_ms,
        max_heap_mb: args.max_heap_mb.map(|n| n as usize),
        max_parallel: args.max_parallel.map(|n| n as usize),
        max_result_chars: args.max_result_chars.map(|n| n as usize),
        ..LimitsConfig::default()
    };
    // Console output streams live to stderr (not under --repeat, which measures).
    let live = args.repeat.is_none();
    let streamed = Streamed::default();
    let journaling = match &args.run_id {
        Some(_) => Some(crate::durable::journaling(args.log.as_ref(), true, &args.lease)?.0),
        None => None,
    };
    let setup = registry(&args.packs, |config| {
        limits.apply(config);
        config.journaling = journaling;
        if live {
            let streamed = streamed.clone();
            config.console = Some(Arc::new(move |_: &ToolExecution, _, line: &str| {
                streamed.push(line);
                ptc_cli::terminal::console_line(line)
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
    let owner = Owner::new("ptc run");
    let mut agent = Agent::new(ScopeKey::root("cli")).with_owner(owner.clone());
    let log = match args.log.as_ref().or(setup.config.log.url.as_ref()) {
        Some(target) => crate::output::LoudLog::open(target, &ptc_cli::store::host_instance())?,
        None => None,
    };
    if let Some(log) = &log {
        agent = agent.with_session(log.clone());
    }
    let stop = stop_on_signals()?;
    let outcome = run(registry, agent, &code, &args, &stop, &streamed, &owner).await;
    // Nothing the programs started outlives the process (`run` closed it already, unless it
    // failed before).
    let _ = tokio::time::timeout(OWNER_GRACE, owner.close()).await;
    setup.shutdown().await;
    telemetry.shutdown().await;
    if let Some(log) = &log {
        // A database log writes what it still holds.
        log.store().close();
    }
    if let Some(code) = stop.signalled() {
        return Ok(ExitCode::from(code));
    }
    match log.as_ref().and_then(|log| log.failure()) {
        // Loud already (on stderr when it happened); the exit code says it too.
        Some(_) if outcome.is_ok() => Ok(ExitCode::from(3)),
        _ => outcome,
    }
}

/// The console lines a run streamed live, so that a terminal shows them once.
#[derive(Clone, Default)]
struct Streamed(Arc<std::sync::Mutex<Vec<String>>>);

impl Streamed {
    fn push(&self, line: &str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line.to_string());
    }

    /// `text` (a run's result) without the streamed lines it repeats: the head of a
    /// successful run's text, or the `Captured output:` tail of a failed one's. `None` when
    /// nothing was streamed or the text does not hold them as they were (a capped result).
    fn strip_from<'t>(&self, text: &'t str) -> Option<&'t str> {
        let lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if lines.is_empty() {
            return None;
        }
        let logged = lines.join("\n");
        if let Some(rest) = text.strip_prefix(logged.as_str()) {
            if rest.is_empty() || rest.starts_with('\n') {
                return Some(rest.strip_prefix('\n').unwrap_or(rest));
            }
        }
        let tail = format!("\nCaptured output:\n{logged}");
        text.strip_suffix(tail.as_str())
    }
}

/// Whether standard output and standard error are the same terminal (a person reads both).
fn same_terminal() -> bool {
    use std::io::IsTerminal;
    use std::os::unix::fs::MetadataExt;
    let (out, err) = (std::io::stdout(), std::io::stderr());
    if !out.is_terminal() || !err.is_terminal() {
        return false;
    }
    let device = |fd: i32| std::fs::metadata(format!("/proc/self/fd/{fd}")).map(|m| m.rdev());
    match (device(1), device(2)) {
        (Ok(a), Ok(b)) => a == b,
        _ => true,
    }
}

/// How long ptc waits for the processes of its background work to be gone.
const OWNER_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Fires on the first SIGINT or SIGTERM, remembering the exit code it calls for.
struct Stop {
    token: CancellationToken,
    code: Arc<std::sync::OnceLock<u8>>,
}

impl Stop {
    fn signalled(&self) -> Option<u8> {
        self.code.get().copied()
    }
}

fn stop_on_signals() -> Result<Stop, String> {
    let install = |kind| signal(kind).map_err(|e| format!("cannot handle signals: {e}"));
    let (mut term, mut int) = (
        install(SignalKind::terminate())?,
        install(SignalKind::interrupt())?,
    );
    let stop = Stop {
        token: CancellationToken::new(),
        code: Arc::default(),
    };
    let (token, code) = (stop.token.clone(), stop.code.clone());
    tokio::spawn(async move {
        let (name, exit) = tokio::select! {
            _ = term.recv() => ("SIGTERM", 143),
            _ = int.recv() => ("SIGINT", 130),
        };
        eprintln!("ptc: {name}: stopping");
        let _ = code.set(exit);
        token.cancel();
    });
    Ok(stop)
}

async fn run(
    registry: &ToolRegistry,
    agent: Agent,
    code: &str,
    args: &RunArgs,
    stop: &Stop,
    streamed: &Streamed,
    owner: &Owner,
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
        if i > 1 && stop.token.is_cancelled() {
            break;
        }
        sub_calls.store(0, Ordering::Relaxed);
        let call_id = match &args.run_id {
            Some(id) => id.clone(),
            None => format!("run-{}-{i}", ptc::session::process_tag()),
        };
        let batch = ToolBatchInput::new(vec![ToolCallBlock::new(
            call_id,
            ptc::RUN_CODE,
            json!({"code": code, "description": args.description}),
        )])
        .with_agent(agent.clone())
        .with_log(LogStep { turn: i, step: 1 })
        .with_signal(stop.token.child_token());
        // A log that could not be written says so on stderr itself.
        let mut result = registry.execute(batch).await.map_err(|e| e.to_string())?;
        last = Some(result.results.remove(0).result);
    }
    let elapsed = start.elapsed();
    let result = last.expect("at least one run");
    // The background work the programs left running ends with the process: say what it was,
    // since the output may read as if it went on.
    let _ = tokio::time::timeout(OWNER_GRACE, owner.close()).await;
    let stopped: Vec<String> = owner
        .stopped()
        .iter()
        .map(|what| format!("{what} was still running when ptc run exited, so it was stopped"))
        .collect();
    if args.json {
        let mut out = json!({
            "isError": result.is_error(),
            "content": result.content,
            "error": result.error(),
        });
        if !stopped.is_empty() {
            out["stopped"] = json!(stopped);
        }
        crate::output::stdout_line(&serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?);
    } else {
        let text = ptc::content_text(&result.content);
        // On one terminal the console lines are already on the screen: show the rest.
        let shown = match same_terminal() {
            true => streamed.strip_from(&text),
            false => None,
        };
        match shown {
            Some("") => {}
            Some(rest) => crate::output::stdout_shown_line(rest),
            None => crate::output::stdout_shown_line(&text),
        }
        for line in &stopped {
            crate::output::stdout_shown_line(&format!("[stopped] {line}"));
        }
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
