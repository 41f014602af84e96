//! The corpus: programs written the way a model writes them, from the model-facing text
//! alone (`ptc tools --mode code`, `ptc sdk`), each with the answer it must get.
//!
//! `tests/programs/<name>.ts` is sent as one `run_code` call in code mode, with the testkit
//! and builtin packs loaded over a fresh copy of `tests/programs/workspace/`;
//! `tests/programs/<name>.expected` holds `# ok` or `# error` on its first line, then the
//! exact text the model is sent (the copy's path written as `<root>`). A program whose first
//! line is `// ptc-limits: timeout_ms=N` runs with that wall clock. Every case runs on
//! the engine this build tests (QuickJS, or deno_core without the `quickjs` feature); all failures are reported together. Where the deno_core
//! backend legitimately differs (its engine puts a caret on another column, words a
//! TypeError its own way, or finishes an un-awaited call before the program ends),
//! `<name>.deno.expected` holds its answer.
//!
//! `PTC_BLESS=1` writes what a program got when it has no expectation for the engine (for
//! deno_core: when it differs from `.expected` and there is no `.deno.expected`): a draft
//! for a new case, to be read and judged by hand. It never touches an existing expectation.

use ptc_testing::code as code_support;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use ptc::journal::{Journaling, MemoryJournal};
use ptc::{CodeExecutor, ToolMode, ToolRegistry};
use ptc_packs::{builtin, PackContext};

/// The corpus directory.
pub(crate) fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// A copy of the workspace fixture under a fresh temporary directory, with modification
/// times one second apart in path order (so "newest first" is the reverse path order).
pub(crate) fn workspace() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("ws");
    let mut files = Vec::new();
    copy_tree(&corpus().join("workspace"), &root, &mut files);
    files.sort();
    let epoch = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    for (i, file) in files.iter().enumerate() {
        let f = fs::File::options().write(true).open(file).unwrap();
        f.set_modified(epoch + Duration::from_secs(i as u64))
            .unwrap();
    }
    (tmp, root)
}

fn copy_tree(from: &Path, to: &Path, files: &mut Vec<PathBuf>) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target, files);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            files.push(target);
        }
    }
}

/// testkit and builtin over `root`, code mode on the engine under test, with the wall clock
/// a `// ptc-limits: timeout_ms=N` first line of `program` asks for.
fn registry(root: &Path, program: &str) -> ToolRegistry {
    journaled(root, program, None)
}

/// [`registry`], its runs journaled as `journaling` says.
fn journaled(root: &Path, program: &str, journaling: Option<Journaling>) -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).unwrap();
    builtin::register(&registry, &PackContext::new(root.to_path_buf())).unwrap();
    let mut config = code_support::engine_config();
    let asked = program.lines().next().and_then(|line| {
        line.strip_prefix("// ptc-limits: timeout_ms=")
            .map(|ms| ms.trim().parse::<u64>().expect("timeout_ms is a number"))
    });
    if let Some(ms) = asked {
        config.limits.wall_clock = Duration::from_millis(ms);
    }
    config.journaling = journaling;
    CodeExecutor::new(config).install(&registry);
    registry.set_mode(ToolMode::Code);
    registry
}

/// What one case expects: failure or not, and the text.
struct Expected {
    error: bool,
    text: String,
}

fn parse_expected(path: &Path) -> Result<Expected, String> {
    let raw = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (head, text) = raw.split_once('\n').unwrap_or((raw.as_str(), ""));
    let error = match head {
        "# ok" => false,
        "# error" => true,
        other => {
            return Err(format!(
                "{}: first line {other:?} is not `# ok` or `# error`",
                path.display()
            ))
        }
    };
    Ok(Expected {
        error,
        text: text.strip_suffix('\n').unwrap_or(text).to_owned(),
    })
}

fn render_expected(error: bool, text: &str) -> String {
    format!("{}\n{text}\n", if error { "# error" } else { "# ok" })
}

/// The case names: every `.ts` directly under the corpus, sorted; an `.expected` with no
/// program is an error.
fn cases() -> Vec<String> {
    let mut names = Vec::new();
    let mut expectations = Vec::new();
    for entry in fs::read_dir(corpus()).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        match path.extension().and_then(|e| e.to_str()) {
            Some("ts") => names.push(stem),
            Some("expected") => {
                expectations.push(stem.strip_suffix(".deno").unwrap_or(&stem).to_owned())
            }
            _ => {}
        }
    }
    for stem in &expectations {
        assert!(names.contains(stem), "{stem}.expected has no {stem}.ts");
    }
    names.sort();
    names
}

/// Held by each test that runs the whole corpus: some programs race un-awaited calls on
/// purpose, and their expected outputs hold what they see on a machine nothing else loads.
static WHOLE_CORPUS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Whether the engine under test is the deno_core backend (built without `quickjs`).
fn deno() -> bool {
    !cfg!(feature = "quickjs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_of_model_written_programs_gets_the_expected_answers() {
    let _alone = WHOLE_CORPUS.lock().await;
    let bless = std::env::var_os("PTC_BLESS").is_some();
    let names = cases();
    assert!(
        names.len() >= 60,
        "the corpus has {} programs, want at least 60",
        names.len()
    );
    let mut failures = Vec::new();
    for name in &names {
        let program = fs::read_to_string(corpus().join(format!("{name}.ts"))).unwrap();
        let (_tmp, root) = workspace();
        let registry = registry(&root, &program);
        let run = code_support::run(&registry, &program).await;
        let text = run.text().replace(root.to_str().unwrap(), "<root>");
        let error = run.result.is_error();
        let path = corpus().join(format!("{name}.expected"));
        let own = corpus().join(format!("{name}.deno.expected"));
        let path = if deno() && own.exists() {
            own.clone()
        } else {
            path
        };
        if bless && !path.exists() {
            fs::write(&path, render_expected(error, &text)).unwrap();
            continue;
        }
        if bless && deno() && !own.exists() {
            let same = parse_expected(&path).is_ok_and(|e| e.error == error && e.text == text);
            if !same {
                fs::write(&own, render_expected(error, &text)).unwrap();
            }
            continue;
        }
        match parse_expected(&path) {
            Err(message) => failures.push(message),
            Ok(expected) if expected.error != error || expected.text != text => {
                failures.push(format!(
                    "{name}: expected {}:\n{}\n--- got {}:\n{text}",
                    if expected.error {
                        "an error"
                    } else {
                        "success"
                    },
                    expected.text,
                    if error { "an error" } else { "success" },
                ));
            }
            Ok(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs differ:\n\n{}",
        failures.len(),
        names.len(),
        failures.join("\n\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_programs_replay_byte_for_byte_from_their_journals_with_every_tool_disabled() {
    let _alone = WHOLE_CORPUS.lock().await;
    let names = cases();
    // A recording only has to agree with its replay, not with an expected output: programs
    // run a few at a time (many wait on timers and tools).
    let failures: Vec<String> = futures::stream::iter(&names)
        .map(|name| async move {
            let program = fs::read_to_string(corpus().join(format!("{name}.ts"))).unwrap();
            let (_tmp, root) = workspace();
            let store = MemoryJournal::new();
            let journaling = |live| Journaling::new(store.clone(), live);
            let recorded = journaled(&root, &program, Some(journaling(true)));
            let live = code_support::run(&recorded, &program).await;
            // Every call is answered by the journal: a tool that ran would be a divergence.
            let replaying = journaled(&root, &program, Some(journaling(false)));
            let replay = code_support::run(&replaying, &program).await;
            let same =
                (live.text(), live.result.is_error()) == (replay.text(), replay.result.is_error());
            (!same).then(|| {
                format!(
                    "{name}: recorded:\n{}\n--- replayed:\n{}",
                    live.text(),
                    replay.text()
                )
            })
        })
        .buffer_unordered(3)
        .filter_map(std::future::ready)
        .collect()
        .await;
    assert!(
        failures.is_empty(),
        "{} of {} programs replay otherwise:\n\n{}",
        failures.len(),
        names.len(),
        failures.join("\n\n")
    );
}
