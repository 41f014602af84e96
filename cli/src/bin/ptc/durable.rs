//! Durable runs from the command line: `ptc run --log STORE --run-id ID` journals a run
//! (`ptc::journal`), `ptc resume STORE ID` continues one whose process died, and
//! `ptc replay --rerun STORE` re-runs recorded runs against their journals with every tool
//! disabled, to show they replay the same.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use ptc::journal::{Entry, JournalStore, Journaling};
use ptc::{Agent, LogStep, ScopeKey, ToolBatchInput, ToolCallBlock, ToolMode};
use ptc_cli::store::LogTarget;
use serde_json::json;

use crate::run::RunArgs;
use crate::setup::{registry, PackArgs};

/// `ptc resume` options.
#[derive(Args, Debug)]
pub struct ResumeArgs {
    #[command(flatten)]
    packs: PackArgs,
    /// Print the whole result (isError, content, error) as JSON.
    #[arg(long)]
    json: bool,
    /// Wall-clock limit for what is left of the program, in milliseconds (default 120000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: Option<u64>,
    /// The run store holding the run's journal: sqlite:PATH.
    #[arg(value_name = "STORE")]
    store: LogTarget,
    /// The run's id (what `ptc run --run-id` was given).
    #[arg(value_name = "ID")]
    id: String,
}

/// The journals of the run store `target` (`--log`), for runs that record (`live`) or
/// only replay.
pub fn journaling(target: Option<&LogTarget>, live: bool) -> Result<Journaling, String> {
    let target = target
        .ok_or("--run-id keeps the run's journal in the --log store: pass --log sqlite:PATH")?;
    let store = ptc_cli::store::journal::open(target)?;
    Ok(Journaling {
        store: Arc::new(store),
        live,
    })
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
    let journaling = journaling(Some(&args.store), true)?;
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
    let journaling = journaling(Some(target), false)?;
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
        let batch = ToolBatchInput::new(vec![ToolCallBlock::new(
            id.clone(),
            ptc::RUN_CODE,
            json!({"code": code, "description": format!("re-run of {id}")}),
        )])
        .with_agent(Agent::new(ScopeKey::root("cli")))
        .with_log(LogStep { turn: 1, step: 1 });
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
