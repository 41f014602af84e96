//! Hostile programs: nesting, shared references, deep values, broken wrappers, bad text and
//! tools that ignore cancellation. Each ends with a clear failure of the right kind; the
//! process never dies and stays within its limits (plus the documented slack).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::session::MemoryLog;
use ptc::session::SessionEvent;
use ptc::{
    Agent, CodeConfig, CodeExecutor, ScopeKey, ToolBatchInput, ToolCallBlock, ToolDefinition,
    ToolError, ToolRegistry,
};
use serde_json::{json, Value};

use crate::cli::{ptc, Ran};

/// `ptc run --tools testkit EXTRA… -` with `program` on standard input.
fn run(program: &str, extra: &[&str]) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--tools", "testkit"];
    args.extend_from_slice(extra);
    args.push("-");
    ptc(dir.path(), &args, program)
}

/// Generous headroom over what a limit allows, for a loaded machine: this checks that a
/// limit holds at all (a runaway takes minutes or gigabytes), not how fast ptc is.
const MEMORY_CEILING_KB: u64 = 400 * 1024;

#[test]
fn hostile_nested_source_is_a_syntax_failure_not_a_crash() {
    for (what, program) in [
        (
            "[ × 5,000",
            format!("return {}{}", "[".repeat(5_000), "]".repeat(5_000)),
        ),
        (
            "( × 100,000",
            format!("return {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        ),
        (
            "Array< × 50,000",
            format!(
                "let x: {}number{} = 1",
                "Array<".repeat(50_000),
                ">".repeat(50_000)
            ),
        ),
        ("1+ × 50,000", format!("return {}1", "1+".repeat(50_000))),
        ("if × 50,000", format!("{}x", "if (a) ".repeat(50_000))),
    ] {
        let ran = run(&program, &[]);
        assert_eq!(ran.code(), 1, "{what}: {}", ran.all());
        assert!(
            ran.stdout.contains("code run failed (syntax)"),
            "{what}: {}",
            ran.stdout
        );
        assert!(
            ran.stdout.contains("nests deeper than 1000 levels"),
            "{what}: {}",
            ran.stdout
        );
        assert!(
            ran.peak_kb < MEMORY_CEILING_KB,
            "{what}: {} KiB",
            ran.peak_kb
        );
    }
}

#[test]
fn hostile_runs_of_prefix_operators_are_a_syntax_failure_not_a_crash() {
    // One run of operator characters is many prefix operators, each a level of swc's tree.
    for (what, unit) in [("!", "!"), ("~", "~"), ("!~-+", "!~-+"), ("...", "...")] {
        let program = format!("return [{}1]", unit.repeat(2 * 1024 * 1024 / unit.len()));
        let ran = run(&program, &[]);
        assert_eq!(ran.code(), 1, "{what}: {}", ran.all());
        assert!(
            ran.stdout.contains("code run failed (syntax)")
                && ran.stdout.contains("nests deeper than 1000 levels"),
            "{what}: {}",
            ran.stdout
        );
    }
}

#[test]
fn hostile_code_fenced_inside_a_comment_stays_commented_out() {
    // A reviewer reads the fenced block as commented out; it must not be what runs.
    let fence = "```";
    let program = format!("/*\n{fence}ts\nreturn 'hidden'\n{fence}\n*/\nreturn 'visible'");
    let ran = run(&program, &[]);
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(ran.stdout.contains("visible"), "{}", ran.stdout);
    assert!(!ran.stdout.contains("hidden"), "{}", ran.stdout);
    // The same block as the whole program, with prose around it, runs.
    let program = format!("Here it is:\n{fence}ts\nreturn 'fenced'\n{fence}\nDone.");
    let ran = run(&program, &[]);
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(ran.stdout.contains("fenced"), "{}", ran.stdout);
}

#[test]
fn hostile_large_results_of_parallel_calls_count_against_the_heap_cap() {
    // Forty echoes of one 16 MiB string at once under a 32 MiB heap cap: each settles at
    // once, and its result waits for the program with the others. Without counting them the
    // host held every result (640 MiB and more; 40 × 250 MiB aborted at 7.5 GB).
    let program = "const s = 'x'.repeat(16 * 1024 * 1024);\n\
         const rs = await Promise.all(Array.from({ length: 40 }, () => tools.echo({ text: s })));\n\
         return rs.length";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    let log = log.to_str().unwrap();
    for extra in [
        &["--max-heap-mb", "32"][..],
        &["--max-heap-mb", "32", "--log", log],
    ] {
        let ran = run(program, extra);
        assert_eq!(ran.code(), 1, "{extra:?}: {}", ran.all());
        let stdout = &ran.stdout;
        assert!(stdout.contains("code run failed"), "{extra:?}: {stdout}");
        assert!(
            stdout.contains("33554432 bytes") || stdout.contains("heap limit of 32 MiB"),
            "the failure names the cap: {stdout}"
        );
        eprintln!(
            "40 × 16 MiB results, cap 32 MiB {extra:?}: peak {} KiB",
            ran.peak_kb
        );
        assert!(
            ran.peak_kb < MEMORY_CEILING_KB,
            "{extra:?}: {} KiB",
            ran.peak_kb
        );
    }
}

#[test]
fn hostile_deep_arguments_are_refused_in_the_program() {
    let ran = run(
        "let v = {};\nfor (let i = 0; i < 40000; i++) v = { v };\ntry { await tools.echo({ text: 'x', v }) } catch (e) { return e.message }",
        &[],
    );
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(
        ran.stdout.contains("nests deeper than 1000 levels"),
        "{}",
        ran.stdout
    );
}

#[test]
fn hostile_shared_references_are_counted_each_time_they_are_expanded() {
    for program in [
        "let a = [0];\nfor (let i = 0; i < 24; i++) a = [a, a];\ntry { await tools.echo({ text: 'x', a }) } catch (e) { return e.message }",
        "let a = [0];\nfor (let i = 0; i < 40; i++) a = [a, a];\ntry { await tools.echo({ text: 'x', a }) } catch (e) { return e.message }",
        "const s = 'x'.repeat(100000);\ntry { await tools.echo({ text: 'x', list: new Array(100000).fill(s) }) } catch (e) { return e.message }",
    ] {
        let ran = run(program, &["--max-heap-mb", "16", "--timeout-ms", "20000"]);
        assert_eq!(ran.code(), 0, "{program}: {}", ran.all());
        assert!(ran.stdout.contains("bytes once expanded"), "{program}: {}", ran.stdout);
        assert!(ran.peak_kb < MEMORY_CEILING_KB, "{program}: {} KiB", ran.peak_kb);
    }
    // The same through the returned value: the output limit, not the host's memory.
    let ran = run(
        "let a = [0];\nfor (let i = 0; i < 40; i++) a = [a, a];\nreturn a",
        &["--max-heap-mb", "16"],
    );
    assert_eq!(ran.code(), 1, "{}", ran.all());
    assert!(ran.stdout.contains("(output-limit)"), "{}", ran.stdout);
    assert!(ran.peak_kb < MEMORY_CEILING_KB, "{} KiB", ran.peak_kb);
}

#[test]
fn hostile_deep_returned_values_are_bounded() {
    for depth in [3_000, 20_000, 100_000] {
        let program = format!("let v = 0;\nfor (let i = 0; i < {depth}; i++) v = [v];\nreturn v");
        let ran = run(&program, &[]);
        assert_eq!(ran.code(), 1, "{depth}: {}", ran.all());
        assert!(
            ran.stdout.contains("(invalid-output)"),
            "{depth}: {}",
            ran.stdout
        );
        assert!(
            ran.stdout.contains("nests deeper than 1000 levels"),
            "{}",
            ran.stdout
        );
        assert!(
            ran.stdout.len() < 64 * 1024,
            "{depth}: {} bytes",
            ran.stdout.len()
        );
    }
    // Just under the limit, the value comes back, pretty-printed only while that stays
    // within the output limit.
    let ran = run(
        "let v = 0;\nfor (let i = 0; i < 999; i++) v = [v];\nreturn v",
        &[],
    );
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(
        ran.stdout.len() <= 8 * 1024 * 1024,
        "{} bytes",
        ran.stdout.len()
    );
}

#[test]
fn hostile_zero_and_tiny_limits_are_refused_up_front() {
    for flag in ["--max-heap-mb", "--timeout-ms", "--max-parallel"] {
        let ran = run("return 1", &[flag, "0"]);
        assert_eq!(ran.code(), 2, "{flag}: {}", ran.all());
        assert!(ran.stderr.contains(flag), "{flag}: {}", ran.stderr);
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(&config, "[limits]\nmax_heap_mb = 0\n").unwrap();
    let ran = ptc(
        dir.path(),
        &["run", "--config", config.to_str().unwrap(), "-"],
        "return 1",
    );
    assert_eq!(ran.code(), 2, "{}", ran.all());
    assert!(
        ran.stderr.contains("max_heap_mb: must be at least 1"),
        "{}",
        ran.stderr
    );
}

#[test]
fn hostile_text_that_is_not_text_becomes_replacement_characters() {
    let ran = run("console.log('a\\ud800b');\nreturn { s: 'x\\udc00y' }", &[]);
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(ran.stdout.contains("a\u{fffd}b"), "{}", ran.stdout);
    assert!(ran.stdout.contains("x\u{fffd}y"), "{}", ran.stdout);
}

#[test]
fn hostile_programs_cannot_break_out_of_their_function() {
    let ran = run(
        "return 1 }); console.log('escaped'); (async function () {",
        &[],
    );
    assert_eq!(ran.code(), 1, "{}", ran.all());
    assert!(!ran.all().contains("escaped\n"), "{}", ran.all());
    assert!(ran.stdout.contains("(syntax)"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("closes more than the program opened"),
        "{}",
        ran.stdout
    );
}

#[test]
fn hostile_unsupported_syntax_says_so() {
    let ran = run("@sealed class A {}\nreturn 1", &[]);
    assert!(
        ran.stdout
            .contains("decorators are not supported in programs"),
        "{}",
        ran.stdout
    );
    let ran = run("const x = <div>hi</div>;\nreturn x", &[]);
    assert!(
        ran.stdout.contains("JSX is not supported in programs"),
        "{}",
        ran.stdout
    );
}

#[test]
fn hostile_inputs_that_never_end_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ran = ptc(dir.path(), &["run", "/dev/zero"], "");
    assert_eq!(ran.code(), 2, "{}", ran.all());
    assert!(ran.stderr.contains("not a program file"), "{}", ran.stderr);
    let big = " ".repeat(ptc::MAX_PROGRAM_BYTES + 1);
    let ran = ptc(dir.path(), &["run", "-"], &big);
    assert_eq!(ran.code(), 2, "{}", ran.all());
    assert!(ran.stderr.contains("larger than"), "{}", ran.stderr);
}

/// A tool that never finishes and ignores its cancellation.
fn stuck() -> ToolDefinition {
    ToolDefinition::builder("stuck")
        .description("Never returns.")
        .parameters(ParameterSpec::new())
        .output(ValueSpec::string())
        .concurrency_safe(true)
        .execute(|_: Value, _ctx| async move {
            std::future::pending::<()>().await;
            Ok::<_, ToolError>("never".to_string())
        })
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_tool_ignoring_cancellation_cannot_hold_the_run_past_its_deadline() {
    let registry = ToolRegistry::new();
    registry.register(stuck()).unwrap();
    let mut config = CodeConfig::default();
    config.limits.wall_clock = Duration::from_millis(300);
    CodeExecutor::new(config).install(&registry);
    let log = Arc::new(MemoryLog::new());
    let agent = Agent::new(ScopeKey::root("hostile")).with_session(log.clone());
    let started = Instant::now();
    let mut batch = ToolBatchInput::new(vec![ToolCallBlock::new(
        "c1",
        ptc::RUN_CODE,
        json!({"code": "await tools.stuck({})", "description": "wait for a stuck tool"}),
    )]);
    batch.agent = Some(agent);
    batch.log = Some(ptc::LogStep { turn: 1, step: 1 });
    // The safety net turns a regression (a run that never ends) into a failure, not a hang.
    let result = tokio::time::timeout(Duration::from_secs(60), registry.execute(batch))
        .await
        .expect("the run ends")
        .unwrap();
    let elapsed = started.elapsed();
    let text = ptc::content_text(&result.results[0].result.content);
    assert!(text.contains("code run failed (timeout)"), "{text}");
    // The documented slack: the wall clock plus the wind-down grace (1 s); the rest is
    // headroom for a loaded machine.
    assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
    let abandoned = log.events().into_iter().any(|event| {
        matches!(&event, SessionEvent::PtcDispatch { name, error: Some(e), .. }
            if name == "stuck" && e.code() == Some(ptc::codes::ABORTED) && e.message.contains("abandoned"))
    });
    assert!(abandoned, "{:?}", log.events());
}
