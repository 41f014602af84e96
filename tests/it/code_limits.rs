//! Behaviour 51: each limit ends a run with a clear failure kind — wall clock (hot
//! loops and long waits), heap, output bytes (logs and value) and sub-call caps.

use ptc_testing::code as code_support;

use std::time::{Duration, Instant};

use code_support::*;
use ptc::{codes, SubCallLimits};

fn assert_failed(r: &Run, kind: &str) {
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED), "{}", r.text());
    let prefix = format!("Error: code run failed ({kind}): ");
    assert!(
        r.text().starts_with(&prefix),
        "expected {kind}: {}",
        r.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_wall_clock_stops_a_hot_loop() {
    let registry = code_registry_with(config(|c| c.limits.wall_clock = Duration::from_millis(300)));
    let started = Instant::now();
    let r = run(&registry, "console.log('spinning');\nwhile (true) {}").await;
    let elapsed = started.elapsed();
    assert_failed(&r, "timeout");
    assert!(
        r.text().ends_with("\nCaptured output:\nspinning"),
        "{}",
        r.text()
    );
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_wall_clock_stops_a_program_waiting_on_a_tool() {
    let registry = code_registry_with(config(|c| c.limits.wall_clock = Duration::from_millis(300)));
    let r = run(
        &registry,
        "await tools.sleep({ ms: 60000 });\nreturn 'slept';",
    )
    .await;
    assert_failed(&r, "timeout");
    let d = r.dispatches();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code.as_deref(), Some(codes::ABORTED));
}

fn heap_registry() -> ptc::ToolRegistry {
    code_registry_with(config(|c| c.limits.max_heap_bytes = 32 * 1024 * 1024))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_heap_cap_stops_a_memory_bomb_and_the_next_run_works() {
    let registry = heap_registry();
    let bomb = "console.log('allocating');\n\
                const hoard = [];\n\
                while (true) hoard.push(new Array(100000).fill(1));";
    let r = run(&registry, bomb).await;
    assert_failed(&r, "memory");
    assert!(
        r.text().ends_with("\nCaptured output:\nallocating"),
        "{}",
        r.text()
    );
    assert_eq!(
        run_ok(&registry, "return await tools.echo({ text: 'alive' });").await,
        "alive"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_heap_cap_stops_a_bomb_of_small_allocations_as_memory() {
    let registry = heap_registry();
    for bomb in [
        "const m = new Map();\nfor (let i = 0; ; i++) m.set(i, i);",
        "const a = [];\nfor (let i = 0; ; i++) a.push({ i });",
        "const a = [];\nfor (let i = 0; ; i++) a.push(String(i).repeat(50));",
    ] {
        assert_failed(&run(&registry, bomb).await, "memory");
    }
    assert_eq!(run_ok(&registry, "return 'alive';").await, "alive");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_heap_cap_cannot_be_caught_by_the_program() {
    let registry = heap_registry();
    let code = "try {\n\
                  const hoard = [];\n\
                  while (true) hoard.push(new Array(100000).fill(1));\n\
                } catch (e) { return 'caught ' + e; }";
    assert_failed(&run(&registry, code).await, "memory");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_output_limit_stops_a_log_flood_and_keeps_earlier_lines() {
    let registry = code_registry_with(config(|c| c.limits.max_output_bytes = 1000));
    let r = run(
        &registry,
        "console.log('first');\nfor (let i = 0; ; i++) console.log(String(i).padStart(100, '.'));",
    )
    .await;
    assert_failed(&r, "output-limit");
    let text = r.text();
    let (_, captured) = text
        .split_once("\nCaptured output:\n")
        .expect("captured output");
    let lines: Vec<&str> = captured.lines().collect();
    assert_eq!(lines[0], "first");
    assert!(lines.len() > 1, "earlier flood lines are kept: {lines:?}");
    assert!(captured.len() <= 1000, "{} bytes captured", captured.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_the_returned_value_counts_toward_the_output_limit() {
    let registry = code_registry_with(config(|c| c.limits.max_output_bytes = 1000));
    let r = run(&registry, "console.log('small');\nreturn 'x'.repeat(2000);").await;
    assert_failed(&r, "output-limit");
    let ok = run(&registry, "console.log('small');\nreturn 'x'.repeat(500);").await;
    assert!(!ok.result.is_error(), "{}", ok.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_the_call_cap_ends_the_run_on_the_call_past_it() {
    let registry = code_registry_with(config(|c| {
        c.sub_calls = SubCallLimits {
            max_calls: 5,
            ..SubCallLimits::default()
        }
    }));
    let exactly =
        "for (let i = 0; i < 5; i++) await tools.echo({ text: String(i) });\nreturn 'five';";
    assert_eq!(run_ok(&registry, exactly).await, "five");
    // The sixth call ends the run; the program cannot catch it and carry on.
    let code = "try {\n\
                  for (let i = 0; i < 6; i++) await tools.echo({ text: String(i) });\n\
                  return 'six';\n\
                } catch (e) { return 'caught'; }";
    let r = run(&registry, code).await;
    assert_failed(&r, "call-limit");
    assert!(
        r.text()
            .contains("more than 5 tool calls: do bulk work in fewer calls"),
        "{}",
        r.text()
    );
    assert_eq!(r.dispatches().len(), 5);
    assert!(r.dispatches().iter().all(|d| !d.is_error));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b51_the_pending_cap_ends_a_fan_out_that_is_too_wide() {
    let registry = code_registry_with(config(|c| {
        c.sub_calls = SubCallLimits {
            max_pending: 3,
            ..SubCallLimits::default()
        }
    }));
    let three = "await Promise.all([1, 2, 3].map((ms) => tools.sleep({ ms })));\nreturn 'three';";
    assert_eq!(run_ok(&registry, three).await, "three");
    // Long sleeps, so none settles before the fourth is submitted however slow the engine.
    let ten = "await Promise.all(Array.from({ length: 10 }, () => tools.sleep({ ms: 5000 })));\nreturn 'ten';";
    let r = run(&registry, ten).await;
    assert_failed(&r, "call-limit");
    assert!(
        r.text().contains("pending at once: await them in batches"),
        "{}",
        r.text()
    );
    assert!(r.starts().len() <= 3, "{:?}", r.starts());
}
