//! What the host holds for a run's calls: the results of calls that settled but that the
//! program has not taken yet count against the heap cap with the arguments of calls in
//! flight, so calls that settle at once cannot pile up results outside the program's heap.

use crate::common;

use std::time::{Duration, Instant};

use common::{run_full, TestHost};
use ptc_engine::{FailureKind, Limits};
use tokio_util::sync::CancellationToken;

engine_test! {
    async fn results_not_taken_yet_count_against_the_heap_cap() {
        // Forty calls of 4 MiB each, made without yielding; each settles at once and its
        // result (its arguments echoed) waits for the program. Under a 32 MiB cap only a few
        // fit; the rest are refused, and the host never sees them.
        let limits = Limits {
            max_heap_bytes: 32 * 1024 * 1024,
            wall_clock: Duration::from_secs(60),
            ..Limits::default()
        };
        let host = TestHost::new();
        let program = "const s = 'x'.repeat(4 * 1024 * 1024);\n\
             const calls = [];\n\
             for (let i = 0; i < 40; i++) calls.push(tools.echo({ s }));\n\
             const settled = await Promise.allSettled(calls);\n\
             const refused = settled.filter((r) => r.status === 'rejected');\n\
             return [refused.length, refused[0]?.reason.message]";
        let report = run_full(program, host.clone(), limits, CancellationToken::new()).await;
        let accepted = host.calls().len();
        assert!((1..=8).contains(&accepted), "{accepted} calls reached the host");
        match report.outcome {
            Ok(Some(value)) => {
                assert_eq!(value[0].as_u64().unwrap() as usize, 40 - accepted, "{value}");
                let message = value[1].as_str().unwrap();
                assert!(message.contains("results the program has not taken yet"), "{message}");
            }
            // Taking the results into the program's own heap may pass the cap there.
            Err(failure) => assert_eq!(failure.kind, FailureKind::Memory, "{failure:?}"),
            other => panic!("{other:?}"),
        }
    }
}

// QuickJS only: its interrupt handler polls the host's calls while the program computes, so
// results arrive then. deno_core polls its ops only when the program yields; a result that
// settles meanwhile waits outside the cap (SECURITY.md says so), and this program times out.
#[cfg(feature = "quickjs")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_that_arrive_while_the_program_computes_are_counted_as_they_arrive() {
    common::with_backend(common::Backend::QuickJs, async {
        // Forty calls with small arguments and 4 MiB results, then a loop that never yields:
        // the results arrive while it runs and are counted then, so the run ends with the
        // memory failure at once instead of holding them all until its wall clock runs out.
        let limits = Limits {
            max_heap_bytes: 16 * 1024 * 1024,
            wall_clock: Duration::from_secs(30),
            ..Limits::default()
        };
        let host = TestHost::new();
        let program = "for (let i = 0; i < 40; i++) tools.big({ bytes: 4 * 1024 * 1024 });\n\
             while (true) {}";
        let started = Instant::now();
        let report = run_full(program, host.clone(), limits, CancellationToken::new()).await;
        let failure = report.outcome.unwrap_err();
        assert_eq!(failure.kind, FailureKind::Memory, "{failure:?}");
        assert!(
            failure.message.contains("not yet handed"),
            "{}",
            failure.message
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    })
    .await
}
