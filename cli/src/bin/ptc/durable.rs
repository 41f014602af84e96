//! Durable runs from the command line: `ptc run --log STORE --run-id ID` journals a run
//! (`ptc::journal`), `ptc resume STORE ID` continues one whose process died, `ptc serve
//! --durable` journals every run and resumes the runs of instances that died, and
//! `ptc replay --rerun STORE` re-runs recorded runs against their journals with every tool
//! disabled, to show they replay the same.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use ptc::journal::{Entry, JournalStore, Journaling};
use ptc::{Agent, LogStep, ScopeKey, ToolBatchInput, ToolCallBlock, ToolMode, ToolRegistry};
use ptc_cli::store::journal::{Lease, RunJournals, DEFAULT_LEASE};
use ptc_cli::store::LogTarget;
use ptc_mcp::{PtcServer, TaskStore};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// How long a durable run's lease lasts (`--lease-ms`).
#[derive(Args, Debug, Clone, Default)]
pub struct LeaseArgs {
    /// How long this process's hold on a durable run lasts unless renewed (it renews every
    /// third of it while the run goes on): after a crash, another instance takes the run
    /// over once it lapses. Milliseconds, default 10000.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(30..))]
    lease_ms: Option<u64>,
}

impl LeaseArgs {
    fn lease(&self) -> Lease {
        Lease::new(self.lease_ms.map_or(DEFAULT_LEASE, Duration::from_millis))
    }
}

use crate::run::RunArgs;
use crate::setup::{registry, PackArgs};

/// `ptc resume` options.
#[derive(Args, Debug)]
pub struct ResumeArgs {
    #[command(flatten)]
    packs: PackArgs,
    #[command(flatten)]
    lease: LeaseArgs,
    /// Print the whole result (isError, content, error) as JSON.
    #[arg(long)]
    json: bool,
    /// Wall-clock limit for what is left of the program, in milliseconds (default 120000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: Option<u64>,
    /// The run store holding the run's journal: sqlite:PATH or postgres://…
    #[arg(value_name = "STORE")]
    store: LogTarget,
    /// The run's id (what `ptc run --run-id` was given).
    #[arg(value_name = "ID")]
    id: String,
}

/// The journals of the run store `target` (`--log`), for runs that record (`live`) or
/// only replay, under `lease`.
pub fn journaling(
    target: Option<&LogTarget>,
    live: bool,
    lease: &LeaseArgs,
) -> Result<(Journaling, Arc<RunJournals>), String> {
    let target = target.ok_or(
        "durable runs keep their journal in the --log store: pass --log sqlite:PATH or \
         --log postgres://…",
    )?;
    let journals = ptc_cli::store::journal::open(target, lease.lease())?;
    let journaling = Journaling::new(journals.clone(), live);
    Ok((journaling, journals))
}

/// The program a journal recorded, and whether the run ended.
fn recorded(store: &dyn JournalStore, id: &str) -> Result<(String, bool), String> {
    let entries = store.load(id).map_err(|e| e.to_string())?;
    let Some(Entry::Start(start)) = entries.first() else {
        return Err(format!("the store has no journal of a run {id}"));
    };
    let ended = matches!(entries.last(), Some(Entry::End { .. }));
    Ok((start.code.clone(), ended))
}

/// `ptc resume`: run the journal's program again under its id; what the journal holds is
/// replayed, the rest runs.
pub async fn resume(args: ResumeArgs) -> Result<ExitCode, String> {
    let (journaling, _) = journaling(Some(&args.store), true, &args.lease)?;
    let (code, _) = recorded(&*journaling.store, &args.id)?;
    let run = RunArgs {
        packs: args.packs,
        telemetry: Default::default(),
        timeout_ms: args.timeout_ms,
        max_heap_mb: None,
        max_result_chars: None,
        max_parallel: None,
        trace: false,
        log: Some(args.store),
        json: args.json,
        repeat: None,
        typecheck: None,
        description: format!("resumed run {}", args.id),
        run_id: Some(args.id),
        lease: args.lease,
        file: String::new(),
    };
    crate::run::main_with(run, code).await
}

/// `ptc replay --rerun`: each finished run of `target` (or only `only`) re-run against its
/// journal with every tool disabled; one line per run, `same` or how it diverged. Exit 1
/// when any diverged.
pub async fn rerun(
    packs: &PackArgs,
    target: &LogTarget,
    only: Option<&str>,
) -> Result<ExitCode, String> {
    let (journaling, _) = journaling(Some(target), false, &LeaseArgs::default())?;
    let store = journaling.store.clone();
    let runs = match only {
        Some(id) => vec![id.to_string()],
        None => store.runs().map_err(|e| e.to_string())?,
    };
    let setup = registry(packs, |config| config.journaling = Some(journaling)).await?;
    setup.registry.set_mode(ToolMode::Both);
    let mut diverged = 0;
    for id in &runs {
        let (code, ended) = recorded(&*store, id)?;
        if !ended {
            crate::output::stdout_line(&format!(
                "{id}\tunfinished: its process died (ptc resume continues it)"
            ));
            continue;
        }
        let agent = Agent::new(ScopeKey::root("cli"));
        let batch = run_batch(id, &code, format!("re-run of {id}"), agent);
        let mut batch = setup
            .registry
            .execute(batch)
            .await
            .map_err(|e| e.to_string())?;
        let result = batch.results.remove(0).result;
        let text = ptc::content_text(&result.content);
        match text.strip_prefix("code run failed (nondeterminism): ") {
            Some(why) => {
                diverged += 1;
                let why = why.lines().next().unwrap_or_default();
                crate::output::stdout_line(&format!("{id}\tdiverged: {why}"));
            }
            None => crate::output::stdout_line(&format!("{id}\tsame")),
        }
    }
    setup.shutdown().await;
    Ok(if diverged > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The batch that runs `code` as run `id` (its `run_code` call's id).
fn run_batch(id: &str, code: &str, description: String, agent: Agent) -> ToolBatchInput {
    ToolBatchInput::new(vec![ToolCallBlock::new(
        id.to_string(),
        ptc::RUN_CODE,
        json!({"code": code, "description": description}),
    )])
    .with_agent(agent)
    .with_log(LogStep { turn: 1, step: 1 })
}

/// `ptc serve --durable`: until `stop`, claim the runs whose owner's lease lapsed (an
/// instance that died or was cut off, or a parked run whose question was answered) and run
/// each on from its journal as `server`'s agent for that task, at most `at_once` at a time;
/// each one's end is said on stderr and kept in its journal.
pub async fn resume_orphans(
    registry: ToolRegistry,
    server: PtcServer,
    journals: Arc<RunJournals>,
    every: Duration,
    at_once: usize,
    stop: CancellationToken,
) {
    let running = Arc::new(tokio::sync::Semaphore::new(at_once));
    loop {
        let free = running.available_permits();
        if free > 0 {
            let claimed = {
                let journals = journals.clone();
                tokio::task::spawn_blocking(move || journals.orphans(free)).await
            };
            match claimed {
                Ok(Ok(runs)) => {
                    for id in runs {
                        let Ok(permit) = running.clone().acquire_owned().await else {
                            return;
                        };
                        let (registry, agent) = (registry.clone(), server.task_agent(&id));
                        let journals = journals.clone();
                        tokio::spawn(async move {
                            let said = resume_one(&registry, agent, &journals, &id).await;
                            crate::output::stderr_line(&format!("ptc: orphaned run {id}: {said}"));
                            drop(permit);
                        });
                    }
                }
                Ok(Err(e)) => {
                    crate::output::stderr_line(&format!("ptc: cannot look for orphaned runs: {e}"))
                }
                Err(_) => {}
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
            // An answer here may have made a parked run ready.
            _ = journals.answered().notified() => {}
        }
    }
}

/// Run orphaned run `id` on from its journal: how it ended, in a few words.
async fn resume_one(
    registry: &ToolRegistry,
    agent: Agent,
    store: &RunJournals,
    id: &str,
) -> String {
    let code = match recorded(store, id) {
        Ok((code, _)) => code,
        Err(e) => return format!("not resumed ({e})"),
    };
    // tasks/cancel reaches it through the store, as it would have on its first instance.
    let signal = CancellationToken::new();
    store.watch(id, signal.clone());
    let batch = run_batch(id, &code, format!("resumed run {id}"), agent).with_signal(signal);
    match registry.execute(batch).await {
        Ok(mut batch) => {
            let result = batch.results.remove(0).result;
            let text = ptc::content_text(&result.content);
            let first = text.lines().next().unwrap_or_default();
            match result.is_error() {
                true => format!("resumed here, ended with an error: {first}"),
                false => "resumed here and completed".to_string(),
            }
        }
        Err(e) => format!("not resumed ({e})"),
    }
}
