//! Limits and cancellation: each ends the run with its own failure kind, and the engine stays usable.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{failure, run, run_full, run_with, value, TestHost};
use ptc_engine::{FailureKind, Limits};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Run `ts`, cancelling it once it has made its first host call (readiness, not a sleep).
async fn cancelled_after_first_call(ts: &str) -> ptc_engine::RunReport {
    let cancel = CancellationToken::new();
    let host = TestHost::new();
    let canceller = {
        let (cancel, host) = (cancel.clone(), host.clone());
        tokio::spawn(async move {
            host.wait_for_calls(1).await;
            cancel.cancel();
        })
    };
    let report = run_full(ts, host, Limits::default(), cancel).await;
    canceller.await.unwrap();
    report
}

fn wall_clock(ms: u64) -> Limits {
    Limits {
        wall_clock: Duration::from_millis(ms),
        ..Limits::default()
    }
}

engine_test! {
    async fn a_hot_loop_times_out_and_the_next_run_works() {
        let report = run_with("console.log('spinning');\nwhile (true) {}", wall_clock(100)).await;
        assert_eq!(failure(&report).kind, FailureKind::Timeout);
        // The limit as configured, not what was left of it when the program started, and
        // that the program was computing.
        assert_eq!(
            failure(&report).message,
            "the run exceeded its wall-clock limit of 100ms while the program was computing, \
             not waiting for a tool call (a loop that does not end?)"
        );
        assert_eq!(report.logs, vec!["spinning".to_string()]);
        // A catch cannot swallow the interrupt.
        let report = run_with(
            "while (true) { try { while (true) {} } catch {} }",
            wall_clock(100),
        )
        .await;
        assert_eq!(failure(&report).kind, FailureKind::Timeout);
        assert_eq!(value("return 'fine'").await, Some(json!("fine")));
    }
}

engine_test! {
    async fn a_call_that_never_settles_times_out_naming_the_call_it_waited_for() {
        let report = run_with("const a = 1;\nawait tools.never({})", wall_clock(100)).await;
        assert_eq!(failure(&report).kind, FailureKind::Timeout);
        assert_eq!(
            failure(&report).message,
            "the run exceeded its wall-clock limit of 100ms while the program waited for \
             tools.never (called at run_code.ts:2:13)\n 2 | await tools.never({})\n   |             ^"
        );
        // Several calls: the first ones named, the rest counted.
        let program = "await Promise.all([1, 2, 3, 4, 5].map((i) => tools.never({ i })));";
        let report = run_with(program, wall_clock(100)).await;
        let message = &failure(&report).message;
        assert!(
            message.starts_with(
                "the run exceeded its wall-clock limit of 100ms while the program waited for \
                 5 tool calls: tools.never (called at run_code.ts:1:"
            ) && message.contains(", and 2 more\n"),
            "{message}"
        );
    }
}

engine_test! {
    async fn a_timeout_in_a_loop_of_calls_names_the_call_and_a_busy_one_the_computing() {
        let program = "let n = 0;\nwhile (true) {\n  n += await tools.sleep({ ms: 40 });\n}";
        let report = run_with(program, wall_clock(150)).await;
        let message = &failure(&report).message;
        assert!(
            message.contains("while the program waited for tools.sleep (called at run_code.ts:3:")
                || message.contains("while the program was computing"),
            "{message}"
        );
        // Computing after a call.
        let program = "const r = await tools.echo({});\nlet s = 0;\nfor (let i = 0; ; i++) s += Math.abs(i);";
        let report = run_with(program, wall_clock(100)).await;
        let message = &failure(&report).message;
        assert!(
            message.ends_with(
                " while the program was computing, not waiting for a tool call (a loop that \
                 does not end?)"
            ),
            "{message}"
        );
    }
}

engine_test! {
    async fn a_memory_bomb_hits_the_heap_cap_and_the_next_run_works() {
        let limits = Limits {
            max_heap_bytes: 64 * 1024 * 1024,
            ..Limits::default()
        };
        let report = run_with(
            "console.log('allocating');\nlet a = [];\nwhile (true) a.push(new Array(1e6).fill(1));",
            limits,
        )
        .await;
        assert_eq!(
            failure(&report).kind,
            FailureKind::Memory,
            "{:?}",
            report.outcome
        );
        assert_eq!(report.logs, vec!["allocating".to_string()]);
        assert!(
            failure(&report).message.contains(" while the program was computing"),
            "{}",
            failure(&report).message
        );
        let report = run("let a = [];\nwhile (true) a.push('x'.repeat(1e6) + a.length);").await;
        assert_eq!(
            failure(&report).kind,
            FailureKind::Memory,
            "{:?}",
            report.outcome
        );
        assert_eq!(value("return [1, 2, 3].length").await, Some(json!(3)));
    }
}

engine_test! {
    async fn bombs_of_small_allocations_hit_the_heap_cap() {
        let limits = Limits {
            max_heap_bytes: 16 * 1024 * 1024,
            ..Limits::default()
        };
        for bomb in [
            "const m = new Map();\nfor (let i = 0; ; i++) m.set(i, i);",
            "const a = [];\nfor (let i = 0; ; i++) a.push({ i });",
            "const a = [];\nfor (let i = 0; ; i++) a.push(String(i).repeat(50));",
        ] {
            let report = run_with(bomb, limits.clone()).await;
            assert_eq!(
                failure(&report).kind,
                FailureKind::Memory,
                "{bomb}: {:?}",
                report.outcome
            );
        }
        assert_eq!(value("return 'alive'").await, Some(json!("alive")));
    }
}

engine_test! {
    async fn the_heap_cap_cannot_be_caught() {
        let limits = Limits {
            max_heap_bytes: 16 * 1024 * 1024,
            ..Limits::default()
        };
        let report = run_with(
            "try {\n  const hoard = [];\n  while (true) hoard.push(new Array(100000).fill(1));\n} catch (e) {\n  return 'caught ' + e;\n}",
            limits.clone(),
        )
        .await;
        assert_eq!(
            failure(&report).kind,
            FailureKind::Memory,
            "{:?}",
            report.outcome
        );
        // Caught and then idle: still memory, not a success.
        let report = run_with(
            "let ok = false;\ntry { new Array(1e8).fill(0) } catch { ok = true }\nawait tools.echo({});\nreturn ok",
            limits,
        )
        .await;
        assert_eq!(
            failure(&report).kind,
            FailureKind::Memory,
            "{:?}",
            report.outcome
        );
    }
}

engine_test! {
    async fn an_output_flood_hits_the_output_limit_and_keeps_earlier_lines() {
        let limits = Limits {
            max_output_bytes: 1000,
            ..Limits::default()
        };
        let report = run_with(
            "for (let i = 0; ; i++) {\n  try { console.log('line ' + String(i).padStart(5, '0')) } catch {}\n}",
            limits.clone(),
        )
        .await;
        assert_eq!(failure(&report).kind, FailureKind::OutputLimit);
        assert_eq!(report.logs.len(), 1000 / 10);
        assert_eq!(report.logs[0], "line 00000");
        assert_eq!(report.logs[99], "line 00099");

        // The returned value counts too.
        let report = run_with(
            "console.log('x'.repeat(600));\nreturn 'y'.repeat(600)",
            limits.clone(),
        )
        .await;
        assert_eq!(failure(&report).kind, FailureKind::OutputLimit);
        assert_eq!(report.logs.len(), 1);
        assert_eq!(
            common::value("return 'y'.repeat(600)").await,
            Some(json!("y".repeat(600)))
        );
    }
}

engine_test! {
    async fn cancelling_aborts_a_hot_loop() {
        // The program calls the host once (it is running), then spins.
        let report = cancelled_after_first_call("await tools.echo({});\nwhile (true) {}").await;
        assert_eq!(failure(&report).kind, FailureKind::Aborted);
    }
}

engine_test! {
    async fn cancelling_aborts_a_wait_on_a_call_that_never_settles() {
        let report = cancelled_after_first_call("console.log('waiting');\nawait tools.never({})").await;
        assert_eq!(failure(&report).kind, FailureKind::Aborted);
        assert_eq!(report.logs, vec!["waiting".to_string()]);
    }
}

engine_test! {
    async fn a_run_cancelled_before_it_starts_is_aborted() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let host = TestHost::new();
        let report = run_full(
            "await tools.echo({});\nreturn 1",
            host.clone(),
            Limits::default(),
            cancel,
        )
        .await;
        assert_eq!(failure(&report).kind, FailureKind::Aborted);
    }
}

engine_test! {
    async fn a_host_call_limit_ends_the_run_as_call_limit() {
        let host = TestHost::new();
        let report = run_full(
            "await tools.echo({});\ntry { await tools.limited({}) } catch (e) { console.log('caught') }\nreturn 'kept going'",
            host.clone(),
            Limits::default(),
            CancellationToken::new(),
        )
        .await;
        let failure = failure(&report);
        assert_eq!(failure.kind, FailureKind::CallLimit);
        assert_eq!(failure.message, "too many tool calls (limit 0)");
        assert_eq!(host.calls().len(), 2);
    }
}

engine_test! {
    async fn dropping_the_run_stops_the_program() {
        // A warm engine (deno_core makes its first sandboxes when first used), so the program
        // below is running when its future is dropped.
        assert_eq!(value("return 1").await, Some(json!(1)));
        let host = TestHost::new();
        let (released, on_release) = tokio::sync::oneshot::channel();
        let run = common::engine().run(
            common::program("for (let i = 0; ; i++) { await tools.echo({ i }); }"),
            Arc::new(Released(host.clone(), Mutex::new(Some(released)))),
            Limits::default(),
            CancellationToken::new(),
        );
        // Drop the run once the program is calling the host.
        tokio::select! {
            _ = run => panic!("the program ended by itself"),
            _ = host.wait_for_calls(1) => {}
        }
        // The engine lets go of the host only when the program has stopped; a program that
        // kept running would keep it (the bound is a guard against a hang, not a speed test).
        tokio::time::timeout(Duration::from_secs(60), on_release)
            .await
            .expect("the program kept running after its future was dropped")
            .unwrap();
        assert!(!host.calls().is_empty());
    }
}

/// A host that says when the engine lets go of it.
struct Released(
    Arc<TestHost>,
    Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
);

impl ptc_engine::Host for Released {
    fn call_tool(
        &self,
        name: &str,
        args: serde_json::Value,
    ) -> Result<ptc_engine::HostCall, ptc_engine::RunFailure> {
        self.0.call_tool(name, args)
    }
}

impl Drop for Released {
    fn drop(&mut self) {
        if let Some(released) = self.1.lock().unwrap().take() {
            let _ = released.send(());
        }
    }
}

/// A host whose calls fail as soon as the run's token is cancelled (as ptc's bridge aborts them).
struct AbortingHost(CancellationToken);

impl ptc_engine::Host for AbortingHost {
    fn call_tool(
        &self,
        _name: &str,
        _args: serde_json::Value,
    ) -> Result<ptc_engine::HostCall, ptc_engine::RunFailure> {
        let token = self.0.clone();
        Ok(Box::pin(async move {
            token.cancelled().await;
            Err("aborted: the run was cancelled".to_string())
        }))
    }
}

engine_test! {
    async fn cancelling_is_reported_as_aborted_even_when_the_aborted_call_rejects_first() {
        for _ in 0..20 {
            let cancel = CancellationToken::new();
            let program = common::program("await tools.echo({});\nreturn 'unreachable'");
            let run = ptc_engine::Engine::run(
                &*common::engine(),
                program,
                std::sync::Arc::new(AbortingHost(cancel.clone())),
                Limits::default(),
                cancel.clone(),
            );
            let canceller = tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(2)).await;
                cancel.cancel();
            });
            let report = run.await;
            canceller.await.unwrap();
            assert_eq!(
                failure(&report).kind,
                FailureKind::Aborted,
                "{:?}",
                report.outcome
            );
        }
    }
}

engine_test! {
    async fn heap_limits_below_the_minimum_fail_cleanly() {
        let minimum = common::engine().min_heap_bytes();
        for bytes in [0, 1, 1024, minimum - 1] {
            let limits = Limits {
                max_heap_bytes: bytes,
                ..Limits::default()
            };
            let report = run_with("return 1", limits).await;
            let failure = failure(&report);
            assert_eq!(failure.kind, FailureKind::Memory, "{bytes}: {failure:?}");
            assert!(failure.message.contains("below the minimum"), "{}", failure.message);
        }
        let limits = Limits {
            max_heap_bytes: minimum,
            ..Limits::default()
        };
        assert_eq!(run_with("return 1", limits).await.outcome, Ok(Some(json!(1))));
    }
}

engine_test! {
    async fn arguments_of_calls_in_flight_count_against_one_cap() {
        // Thirty calls in flight at once, each holding about 1.6 MB of arguments (32,768 numbers
        // at 48 bytes each, counted alike by the Rust reader and by the JSON text's count, whose
        // text is only 64 KB), against a 32 MiB cap: about twenty fit, the rest are refused
        // while those hold their share, and once they settle a call is accepted again.
        let limits = Limits {
            max_heap_bytes: 32 * 1024 * 1024,
            wall_clock: Duration::from_secs(60),
            ..Limits::default()
        };
        let host = TestHost::new();
        let program = "const s = new Array(32768).fill(0);\n\
             const calls = [];\n\
             for (let i = 0; i < 30; i++) calls.push(tools.sleep({ ms: 100, s }));\n\
             const settled = await Promise.allSettled(calls);\n\
             const refused = settled.filter((r) => r.status === 'rejected');\n\
             await tools.sleep({ ms: 1, s });\n\
             return [settled.length - refused.length, refused.length, refused[0]?.reason.message]";
        let report = run_full(program, host.clone(), limits, CancellationToken::new()).await;
        let value = report.outcome.unwrap().unwrap();
        let (accepted, refused) = (value[0].as_u64().unwrap(), value[1].as_u64().unwrap());
        assert!((15..=22).contains(&accepted), "{value}");
        assert_eq!(accepted + refused, 30, "{value}");
        let message = value[2].as_str().unwrap();
        assert!(message.contains("bytes once expanded"), "{message}");
        assert!(message.contains("calls still in flight hold"), "{message}");
        assert_eq!(host.calls().len() as u64, accepted + 1);
    }
}

engine_test! {
    async fn shared_references_count_every_time_they_are_expanded() {
        // deno_core's QuickJS facade takes most of a minute to reach the heap cap here on a
        // quiet 2-core machine: the wall clock only catches a hang (a timeout is a failure).
        let limits = || Limits {
            max_heap_bytes: 16 * 1024 * 1024,
            wall_clock: Duration::from_secs(300),
            ..Limits::default()
        };
        let host = TestHost::new();
        // As arguments: the call is refused (2^40 leaves from 40 arrays; 100,000 references to one
        // 100 KB string), and the program goes on.
        for args in [
            "(() => { let a = [0]; for (let i = 0; i < 40; i++) a = [a, a]; return { a } })()",
            "({ list: new Array(100000).fill('x'.repeat(100000)) })",
        ] {
            let program = format!(
                "try {{ await tools.echo({args}); return 'sent' }} catch (e) {{ return e.message }}"
            );
            let report = run_full(&program, host.clone(), limits(), CancellationToken::new()).await;
            // The engine refuses the arguments (the program catches that), or the program runs
            // out of heap while they are serialized; never does the host see them.
            match report.outcome {
                Ok(message) => {
                    let message = message.unwrap();
                    let message = message.as_str().unwrap();
                    assert!(message.contains("bytes once expanded"), "{args}: {message}");
                }
                Err(failure) => assert_eq!(failure.kind, FailureKind::Memory, "{args}: {failure:?}"),
            }
        }
        assert!(host.calls().is_empty(), "{:?}", host.calls().len());
        // As the returned value: the output limit, not the host's memory.
        let program = "let a = [0];\nfor (let i = 0; i < 40; i++) a = [a, a];\nreturn a";
        let report = run_full(program, host.clone(), limits(), CancellationToken::new()).await;
        let failure = failure(&report);
        assert!(
            matches!(failure.kind, FailureKind::Memory | FailureKind::OutputLimit),
            "{program}: {failure:?}"
        );
        // Printed, it is shown two levels deep, as Node shows it.
        let program = "let a = [0];\nfor (let i = 0; i < 40; i++) a = [a, a];\nconsole.log(a)";
        let report = run_full(program, host.clone(), limits(), CancellationToken::new()).await;
        assert_eq!(report.logs.len(), 1);
        assert!(report.logs[0].contains("[Array]") && report.logs[0].len() < 400, "{:?}", report.logs);
        assert_eq!(value("return 'fine'").await, Some(json!("fine")));
    }
}

/// A host whose every tool (here `sleep`) waits `ms` for a "person" and reports that wait as paused.
struct PersonHost {
    waited: std::sync::Arc<std::sync::Mutex<(Duration, Option<Instant>)>>,
}

impl ptc_engine::Host for PersonHost {
    fn call_tool(
        &self,
        _name: &str,
        args: serde_json::Value,
    ) -> Result<ptc_engine::HostCall, ptc_engine::RunFailure> {
        let waited = self.waited.clone();
        let ms = args["ms"].as_u64().unwrap_or(0);
        Ok(Box::pin(async move {
            waited.lock().unwrap().1 = Some(Instant::now());
            tokio::time::sleep(Duration::from_millis(ms)).await;
            let mut w = waited.lock().unwrap();
            if let Some(since) = w.1.take() {
                w.0 += since.elapsed();
            }
            Ok(json!("answered").into())
        }))
    }

    fn paused(&self) -> Duration {
        let w = self.waited.lock().unwrap();
        w.0 + w.1.map_or(Duration::ZERO, |s| s.elapsed())
    }
}

engine_test! {
    async fn time_waiting_for_a_person_does_not_count_against_the_wall_clock() {
        let host = std::sync::Arc::new(PersonHost { waited: Default::default() });
        let report = common::engine()
            .run(
                common::program("return await tools.sleep({ ms: 400 })"),
                host,
                wall_clock(150),
                CancellationToken::new(),
            )
            .await;
        assert_eq!(report.outcome, Ok(Some(json!("answered"))), "{:?}", report.logs);
    }
}
