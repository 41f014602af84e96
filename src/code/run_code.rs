//! The reserved `run_code` tool: parameters, body, output.

use std::sync::Arc;

use ptc_engine::{FailureKind, Program};
use ptc_schema::{ParameterSpec, ValueSpec};
use serde_json::Value;

use super::bridge;
use super::journal;
use super::output::{self, cap_text, run_result, Failed};
use super::typecheck::Verdict;
use super::CodeConfig;
use crate::content::ContentBlock;
use crate::definition::ToolDefinition;
use crate::definition::RUN_CODE;
use crate::error::ToolError;
use crate::execution::ToolRunContext;
use serde_json::json;

/// The file name error positions point into.
const FILENAME: &str = "run_code.ts";

/// Self-contained: hosts that put the SDK section in the system prompt show it alone.
const DESCRIPTION: &str = "Run a TypeScript program that calls tools as `await tools.name(args)`.";

#[derive(serde::Deserialize)]
struct Args {
    code: String,
    description: String,
    /// A handle the program keeps using; only its `@<instance>` matters here.
    #[serde(default)]
    route: Option<String>,
}

/// `route`'s text: the model is told when to pass it.
const ROUTE: &str = "Only when the program uses a task or terminal that an earlier run \
    started: its id (e.g. `task-…@i2`), so that this request reaches the server instance \
    that holds it.";

/// Build the `run_code` definition for `config`. It lives outside the registry's
/// layers; code-mode executors route calls to it.
pub(crate) fn definition(config: Arc<CodeConfig>) -> ToolDefinition {
    let max_chars = config.max_result_chars;
    ToolDefinition::builder(RUN_CODE)
        .description(DESCRIPTION)
        .parameters(
            ParameterSpec::new()
                .required(
                    "code",
                    ValueSpec::string().describe("The TypeScript program."),
                )
                .required(
                    "description",
                    ValueSpec::string()
                        .describe("5-10 words on what the program does (shown in UIs)."),
                )
                .optional(
                    "route",
                    ValueSpec::string()
                        .describe(ROUTE)
                        .mcp_header(crate::owner::ROUTE_HEADER),
                ),
        )
        .output(ValueSpec::string())
        .render(move |_, value| {
            let text = value.as_str().unwrap_or_default();
            vec![ContentBlock::text(cap_text(text, max_chars).into_owned())]
        })
        .presentation_meta(move |_, value| {
            // The model sees a capped text; the log keeps the whole of it.
            let text = value.as_str().unwrap_or_default();
            (text.chars().count() > max_chars).then(|| json!({ "fullText": text }))
        })
        .execute(move |args: Args, ctx| run(config.clone(), args, ctx))
        .build_unreserved()
        .expect("the run_code definition is valid")
}

async fn run(config: Arc<CodeConfig>, args: Args, ctx: ToolRunContext) -> Result<Value, ToolError> {
    if args.description.trim().is_empty() {
        return Err(ToolError::invalid_args(
            RUN_CODE,
            "/description: must not be blank",
        ));
    }
    let exec = ctx.execution().clone();
    if let Some(route) = &args.route {
        misrouted(route, &exec)?;
    }
    let scope = exec.agent().map(|a| a.scope());
    let definitions = ctx
        .registry()
        .view(scope, exec.tool_set())
        .callable_definitions();
    // `error` checks before the run; `warn` while it runs.
    let sdk = config.typecheck.as_ref().map(|_| {
        let registry = ctx.registry();
        let decls = super::executor::decls(&definitions, |t| registry.rejects_unknown_arguments(t));
        ptc_sdk_gen::declarations(&decls)
    });
    let mut appended = match (&config.typecheck, &sdk) {
        (Some(typecheck), Some(sdk)) if typecheck.refuses() => {
            match typecheck.verdict(&args.code, sdk, ctx.signal()).await {
                Verdict::Clean => None,
                Verdict::Append(block) => Some(block),
                Verdict::Refuse(text) => {
                    return Err(ToolError::new(
                        cap_text(&text, config.max_result_chars).into_owned(),
                    ))
                }
            }
        }
        _ => None,
    };
    let warn_code = match &config.typecheck {
        Some(typecheck) if !typecheck.refuses() => Some(args.code.clone()),
        _ => None,
    };
    let warn_check = async {
        match (&config.typecheck, &sdk, &warn_code) {
            (Some(typecheck), Some(sdk), Some(code)) => {
                typecheck.verdict(code, sdk, ctx.signal()).await
            }
            _ => Verdict::Clean,
        }
    };
    let tool_names = definitions.iter().map(|d| d.name().to_string()).collect();
    let program = Program {
        source: args.code,
        tool_names,
        result_shapes: super::shapes::result_shapes(&definitions),
        filename: FILENAME.to_string(),
    };
    let journal = match &config.journaling {
        Some(journaling) => {
            let start = journal::Start {
                program: crate::digest::sha256_hex(program.source.as_bytes()),
                code: program.source.clone(),
                engine: config.engine.name(),
                tools: tools_digest(&definitions),
                seed: journal::new_seed(),
                at_ms: crate::session::now_ms(),
            };
            match journal::RunJournal::open(journaling, exec.call_id(), start) {
                Ok(journal) => Some(journal),
                Err(e) => return Err(output::failure(e.kind.as_str(), &e.message, "", &[])),
            }
        }
        None => None,
    };
    let repeats: bridge::Repeats = {
        let definitions = definitions.clone();
        Arc::new(move |name: &str, args: &Value| {
            match definitions.iter().find(|d| d.name() == name) {
                Some(d) if d.is_concurrency_safe(args) => journal::Repeat::Harmless,
                Some(d) if d.is_idempotent() => journal::Repeat::Idempotent,
                _ => journal::Repeat::Unsafe,
            }
        })
    };
    let run_signal = ctx.signal().child_token();
    let (host, bridge) = bridge::open(
        ctx.clone(),
        run_signal.clone(),
        &config.sub_calls,
        config.console.clone(),
        config.engine.polls_host_while_computing(),
        journal.clone().map(|journal| (journal, repeats)),
    );
    let engine_run = config
        .engine
        .run(program, Arc::new(host), config.limits.clone(), run_signal);
    let (mut report, warned) = tokio::join!(bridge.drive(engine_run), warn_check);
    if let Verdict::Append(block) = warned {
        appended = Some(block);
    }
    if ctx.signal().is_cancelled() {
        // The caller cancelled: whatever the program saw last (often an aborted sub-call
        // rejecting), the run failed because it was aborted.
        if let Err(failure) = &mut report.outcome {
            if failure.kind != FailureKind::Aborted {
                failure.message = format!("the run was cancelled ({})", failure.message);
                failure.kind = FailureKind::Aborted;
            }
        }
    }
    // A replay that went another way says so; its output is not the run's to record.
    let diverged = matches!(&report.outcome, Err(f) if f.kind == FailureKind::Nondeterminism);
    let reason = match &report.outcome {
        Ok(_) => "completed",
        Err(f) => f.kind.as_str(),
    };
    bridge.wind_down(reason).await;
    bridge.explain(&mut report.left_behind);
    bridge.name_failed_call(&mut report);
    bridge.drop_paged_notes(&mut report.notes);
    let changes = bridge.changes();
    // A call cut short "may have taken effect" only if its tool may change something.
    let may_change = |name: &str| {
        definitions
            .iter()
            .find(|d| d.name() == name)
            .is_none_or(|d| !d.is_concurrency_safe(&Value::Object(Default::default())))
    };
    let failed = Failed {
        changes: &changes,
        may_change: &may_change,
    };
    let result = run_result(report, config.limits.max_output_bytes, failed);
    let result = with_block(result, appended);
    if let Some(journal) = journal.as_ref().filter(|_| !diverged) {
        let (text, is_error) = match &result {
            Ok(value) => (value.as_str().unwrap_or_default(), false),
            Err(error) => (error.message.as_str(), true),
        };
        if let Err(e) = journal.end(text, is_error) {
            return Err(output::failure(e.kind.as_str(), &e.message, "", &[]));
        }
    }
    result.map_err(|mut error| {
        error.message = cap_text(&error.message, config.max_result_chars).into_owned();
        error
    })
}

/// The sha256 of the tools a program can call: their names and input schemas, in name order.
fn tools_digest(definitions: &[Arc<ToolDefinition>]) -> String {
    let mut tools: Vec<(&str, String)> = definitions
        .iter()
        .map(|d| {
            (
                d.name(),
                ptc_schema::value::to_string_unbounded(d.parameters()),
            )
        })
        .collect();
    tools.sort();
    let text: String = tools
        .iter()
        .map(|(name, schema)| format!("{name}\n{schema}\n"))
        .collect();
    crate::digest::sha256_hex(text.as_bytes())
}

/// The run's result (or error) with the type check's `[typecheck]` block after it.
fn with_block(result: Result<Value, ToolError>, block: Option<String>) -> Result<Value, ToolError> {
    let Some(block) = block else {
        return result;
    };
    let after = |text: &str| match text.is_empty() {
        true => block.clone(),
        false => format!("{text}\n\n{block}"),
    };
    match result {
        Ok(Value::String(text)) => Ok(Value::String(after(&text))),
        Ok(other) => Ok(other),
        Err(mut error) => {
            error.message = after(&error.message);
            Err(error)
        }
    }
}

/// An error when `route` names an instance other than the one this run is on (the load
/// balancer could not send it there: that instance is gone, or the header was dropped).
fn misrouted(route: &str, exec: &crate::execution::ToolExecution) -> Result<(), ToolError> {
    let here = exec
        .agent()
        .and_then(|a| a.owner())
        .and_then(|o| o.handle().holding().instance.clone());
    match (route.rsplit_once('@'), here) {
        (Some((handle, there)), Some(here)) if there != &*here => Err(ToolError::new(format!(
            "`{handle}@{there}` lives on instance {there}; this request reached {here} \
             ({there} is down, or nothing routes on the Mcp-Param-Ptc-Route header): \
             what {there} held is not reachable from here; without `route` the program \
             runs on any instance"
        ))),
        _ => Ok(()),
    }
}
