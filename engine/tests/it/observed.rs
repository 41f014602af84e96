//! What a program observes from outside besides tool results: the host's clock and seed, and
//! the order of deliveries a recording host keeps, on every backend.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ptc_engine::{Deliveries, Delivery, FailureKind, Host, HostCall, Limits, RunFailure};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// A host whose seed is fixed and whose clock reads 1,000,000,000,000 ms plus 250 ms a
/// reading; it may record or replay deliveries.
struct Recorder {
    seed: [u8; 32],
    reads: Mutex<u64>,
    /// Deliveries seen (live) or to replay.
    delivered: Mutex<Vec<u64>>,
    /// While replaying: how many of `delivered` were handed over again.
    replayed: Mutex<Option<usize>>,
    /// Tools answer after `ms` (live) or at once (replaying).
    instant: bool,
}

impl Recorder {
    fn live(seed: u8) -> Arc<Self> {
        Arc::new(Recorder {
            seed: [seed; 32],
            reads: Mutex::new(0),
            delivered: Mutex::new(Vec::new()),
            replayed: Mutex::new(None),
            instant: false,
        })
    }

    fn replaying(seed: u8, deliveries: Vec<u64>) -> Arc<Self> {
        Arc::new(Recorder {
            seed: [seed; 32],
            reads: Mutex::new(0),
            delivered: Mutex::new(deliveries),
            replayed: Mutex::new(Some(0)),
            instant: true,
        })
    }
}

impl Host for Recorder {
    fn call_tool(&self, _name: &str, args: Value) -> Result<HostCall, RunFailure> {
        let ms = if self.instant {
            0
        } else {
            args["ms"].as_u64().unwrap_or(0)
        };
        Ok(Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(args.into())
        }))
    }

    fn seed(&self) -> [u8; 32] {
        self.seed
    }

    fn clock(&self) -> Result<f64, RunFailure> {
        let mut reads = self.reads.lock().unwrap();
        *reads += 1;
        Ok(1e12 + 250.0 * *reads as f64)
    }

    fn deliveries(&self) -> Option<&dyn Deliveries> {
        Some(self)
    }
}

impl Deliveries for Recorder {
    fn recorded(&self, id: u64) -> bool {
        self.replayed.lock().unwrap().is_some() && self.delivered.lock().unwrap().contains(&id)
    }

    fn next(&self) -> Result<Option<u64>, RunFailure> {
        let replayed = *self.replayed.lock().unwrap();
        Ok(replayed.and_then(|n| self.delivered.lock().unwrap().get(n).copied()))
    }

    fn delivered(&self, id: u64, _: Delivery) -> Result<(), RunFailure> {
        let mut replayed = self.replayed.lock().unwrap();
        match replayed.as_mut() {
            Some(n) => *n += 1,
            None => self.delivered.lock().unwrap().push(id),
        }
        Ok(())
    }
}

async fn run(host: Arc<Recorder>, ts: &str) -> Result<Option<Value>, RunFailure> {
    let report = common::engine()
        .run(
            common::program(ts),
            host,
            Limits::default(),
            CancellationToken::new(),
        )
        .await;
    report.outcome
}

const OBSERVES: &str = r#"
const t0 = performance.now();
return {
  random: [Math.random(), Math.random()],
  uuid: crypto.randomUUID(),
  bytes: Array.from(crypto.getRandomValues(new Uint8Array(4))),
  now: Date.now(),
  date: new Date().toISOString(),
  called: typeof Date(),
  elapsed: performance.now() - t0,
  fixed: new Date(0).toISOString(),
  utc: Date.UTC(2026, 0, 1),
  isDate: new Date() instanceof Date && Object.prototype.toString.call(new Date()) === '[object Date]',
  ctor: new Date().constructor === Date && Date.name === 'Date' && Date.length === 7,
  sub: (() => { class Day extends Date {} const d = new Day(5); return d instanceof Date && d.getTime(); })(),
};
"#;

engine_test! {
    async fn a_program_reads_the_hosts_clock_and_draws_from_its_seed() {
        let first = run(Recorder::live(7), OBSERVES).await.unwrap().unwrap();
        let again = run(Recorder::live(7), OBSERVES).await.unwrap().unwrap();
        let other = run(Recorder::live(8), OBSERVES).await.unwrap().unwrap();
        assert_eq!(first, again, "one seed and clock, one run");
        for field in ["random", "uuid", "bytes"] {
            assert_ne!(first[field], other[field], "{field} follows the seed");
        }
        let random = first["random"].as_array().unwrap();
        assert!(random.iter().all(|r| (0.0..1.0).contains(&r.as_f64().unwrap())));
        assert_ne!(random[0], random[1]);
        assert_eq!(first["uuid"].as_str().unwrap().len(), 36);
        assert_eq!(first["uuid"].as_str().unwrap().as_bytes()[14], b'4');
        // Readings: the time origin, then 2 (t0), 3 (now), 4 (date), 5 (called),
        // 6 (elapsed), 7 and 8 (isDate), 9 (ctor).
        assert_eq!(first["now"], json!(1e12 as u64 + 750));
        assert_eq!(first["date"], json!("2001-09-09T01:46:41.000Z"));
        assert_eq!(first["called"], json!("string"));
        assert_eq!(first["elapsed"], json!(1000));
        assert_eq!(first["fixed"], json!("1970-01-01T00:00:00.000Z"));
        assert_eq!(first["utc"], json!(1_767_225_600_000u64));
        assert_eq!(first["isDate"], json!(true));
        assert_eq!(first["ctor"], json!(true));
        assert_eq!(first["sub"], json!(5));
    }
}

/// Calls and a timer that settle in another order than they were made, each continuation
/// recording where it ran.
const RACES: &str = r#"
const seen = [];
const timer = new Promise((resolve) => setTimeout(resolve, 40)).then(() => seen.push('timer'));
const calls = [60, 5, 20].map((ms) => tools.echo({ ms }).then((r) => { seen.push(r.ms); return r.ms; }));
const first = await Promise.race(calls);
seen.push(`race:${first}`);
await Promise.all([timer, ...calls]);
return seen;
"#;

engine_test! {
    async fn a_replay_hands_over_calls_and_timers_in_the_recorded_order_whatever_settles_first() {
        // Live, the machine's timing decides the order (5, 20 and the 40 ms timer on a quiet
        // one); whatever it was, it is what was recorded.
        let live = Recorder::live(1);
        let seen = run(live.clone(), RACES).await.unwrap().unwrap();
        let order = live.delivered.lock().unwrap().clone();
        // Ids in the order they were made: the timer 0, the calls 1, 2 and 3.
        assert_eq!(order.len(), 4, "{order:?}");
        // Replaying, every call answers at once and the timer does not wait: the recording
        // alone decides what the program sees.
        let replay = Recorder::replaying(1, order.clone());
        let started = std::time::Instant::now();
        assert_eq!(run(replay.clone(), RACES).await.unwrap().unwrap(), seen);
        assert_eq!(*replay.replayed.lock().unwrap(), Some(order.len()));
        assert!(started.elapsed() < Duration::from_secs(30));
        // Another recorded order is another run: the same program follows it.
        let quiet = Recorder::replaying(1, vec![2, 3, 0, 1]);
        assert_eq!(
            run(quiet, RACES).await.unwrap().unwrap(),
            json!([5, "race:5", 20, "timer", 60])
        );
        let other = Recorder::replaying(1, vec![1, 2, 3, 0]);
        assert_eq!(
            run(other, RACES).await.unwrap().unwrap(),
            json!([60, "race:60", 5, 20, "timer"])
        );
    }
}

engine_test! {
    async fn a_recording_that_names_a_call_the_program_never_made_is_nondeterminism() {
        let replay = Recorder::replaying(1, vec![2, 3, 0, 1, 7]);
        let program = format!("{RACES}\n// and then one more\n");
        let more = program.replace("return seen;", "await tools.echo({ ms: 1 }); return seen;");
        let failure = run(replay, &more).await.unwrap_err();
        assert_eq!(failure.kind, FailureKind::Nondeterminism, "{failure:?}");
        assert!(
            failure.message.contains("call 7") && failure.message.contains("has not made"),
            "{}",
            failure.message
        );
    }
}
