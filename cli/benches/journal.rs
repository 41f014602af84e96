//! What journaling costs on a SQLite run store (`ptc::journal`, `ptc_cli::store::journal`),
//! side by side with the same programs unjournaled: a run with no call (the start and the end
//! written in one transaction), 1000 sub-calls of a tool that changes nothing (journaled
//! lazily, written at the end), and 100 sub-calls of one that may change something (each
//! written through before it runs and as it settles); 200 sub-calls of the builtin `read`
//! of a small file, 100 of the builtin `write` of one and 100 of the builtin `edit` of one: what real tools cost with and
//! without.
//!
//! The same programs journaled in memory show what recording costs before any store.
//!
//! `cargo bench -p ptc-cli --bench journal`

use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{criterion_group, criterion_main, Criterion};
use ptc::journal::Journaling;
use ptc::{CodeConfig, CodeExecutor, ToolBatchInput, ToolCallBlock, ToolDefinition, ToolRegistry};
use ptc_cli::store::journal::{self, Lease};
use ptc_cli::store::LogTarget;
use serde_json::json;

fn program(id: &str, source: &str) -> ToolBatchInput {
    ToolBatchInput::new(vec![ToolCallBlock::new(
        id,
        "run_code",
        json!({"code": source, "description": "benchmark program for criterion"}),
    )])
}

/// A registry with `look` (concurrency-safe), `effect` (not) and the builtin pack on `root`,
/// journaled or not.
fn registry(journaling: Option<Journaling>, root: &std::path::Path) -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc_packs::builtin::register(&registry, &ptc_packs::PackContext::new(root)).unwrap();
    for (name, safe) in [("look", true), ("effect", false)] {
        let tool = ToolDefinition::builder(name)
            .description("Return { n: 0 }.")
            .concurrency_safe(safe)
            .output_schema(json!({}))
            .execute_raw(|_, _| async { Ok(json!({"n": 0})) });
        registry.register(tool.build().unwrap()).unwrap();
    }
    let mut config = CodeConfig::quickjs();
    config.journaling = journaling;
    CodeExecutor::new(config).install(&registry);
    registry
}

const TRIVIAL: &str = "return 1";
const LOOK_1000: &str =
    "let n = 0\nfor (let i = 0; i < 1000; i++) n += (await tools.look({})).n\nreturn n";
const EFFECT_100: &str =
    "let n = 0\nfor (let i = 0; i < 100; i++) n += (await tools.effect({})).n\nreturn n";
const WRITE_100: &str = "for (let i = 0; i < 100; i++) await tools.write({ file_path: \"out.txt\", content: `line ${i}\\n` })\nreturn 100";
/// The builtin `edit` (not idempotent: the same edit twice fails the second time), turning
/// one word of a small file back and forth: a real tool journaled before it runs.
const EDIT_100: &str = "for (let i = 0; i < 100; i++) {\n  const [from, to] = i % 2 ? [\"beta\", \"alpha\"] : [\"alpha\", \"beta\"]\n  await tools.edit({ file_path: \"edited.txt\", old_string: `word ${from}`, new_string: `word ${to}` })\n}\nreturn 100";
const READ_200: &str = "let n = 0\nfor (let i = 0; i < 200; i++) n += (await tools.read({ file_path: \"notes.txt\" })).lines.length\nreturn n";

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let target = LogTarget::Sqlite(dir.path().join("runs.sqlite"));
    let store = journal::open(&target, Lease::default()).unwrap();
    let root = tempfile::tempdir().unwrap();
    let notes: String = (1..=20)
        .map(|i| format!("line {i} of the notes\n"))
        .collect();
    std::fs::write(root.path().join("notes.txt"), &notes).unwrap();
    std::fs::write(
        root.path().join("edited.txt"),
        format!("{notes}word alpha\n"),
    )
    .unwrap();
    let plain = registry(None, root.path());
    let journaled = registry(Some(Journaling::new(store, true)), root.path());
    // What recording costs before any store.
    let memory = registry(
        Some(Journaling::new(ptc::journal::MemoryJournal::new(), true)),
        root.path(),
    );
    // Each journaled run is a new one: its own id, its own journal.
    let runs = AtomicU64::new(0);
    let mut group = c.benchmark_group("journal");
    group.sample_size(20);
    for (name, source) in [
        ("trivial", TRIVIAL),
        ("look_1000", LOOK_1000),
        ("effect_100", EFFECT_100),
        ("read_200", READ_200),
        ("write_100", WRITE_100),
        ("edit_100", EDIT_100),
    ] {
        for (kind, registry) in [
            ("plain", &plain),
            ("memory", &memory),
            ("sqlite", &journaled),
        ] {
            group.bench_function(format!("{name}/{kind}"), |b| {
                b.to_async(&rt).iter(|| async {
                    let id = format!("run-{}", runs.fetch_add(1, Ordering::Relaxed));
                    let batch = registry.execute(program(&id, source)).await.unwrap();
                    assert!(
                        !batch.results[0].result.is_error(),
                        "{:?}",
                        batch.results[0].result.content
                    );
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
