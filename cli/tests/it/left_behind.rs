//! Calls a program left behind are reported as they really ended (issue 22 §4): what the
//! report says agrees with the files on disk. These programs return at once, so how far each
//! call got is a race; the report must be right whichever way it went, so each case runs
//! several times and checks the files against every line of the report.

use std::fs;
use std::path::Path;

use ptc::{CodeExecutor, ToolMode, ToolRegistry};
use ptc_packs::{builtin, PackContext};
use ptc_testing::code as code_support;

/// Runs of each racy program.
const ROUNDS: usize = 8;

/// builtin over `root`, code mode on the engine under test.
fn registry(root: &Path) -> ToolRegistry {
    let registry = ToolRegistry::new();
    builtin::register(&registry, &PackContext::new(root.to_path_buf())).unwrap();
    CodeExecutor::new(code_support::engine_config()).install(&registry);
    registry.set_mode(ToolMode::Code);
    registry
}

/// The report's lines about calls (`- [(×n) ]run_code.ts:L:C tool: fate`), each with its count.
fn reported(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .filter_map(|line| line.strip_prefix("- "))
        .map(|line| match line.strip_prefix("(×") {
            Some(rest) => {
                let (count, rest) = rest.split_once(") ").unwrap();
                (count.parse().unwrap(), rest.to_string())
            }
            None => (1, line.to_string()),
        })
        .collect()
}

/// How many reported calls ended in each way: completed, failed, stopped, not started.
fn tally(lines: &[(usize, String)]) -> [usize; 4] {
    let mut tally = [0; 4];
    for (count, line) in lines {
        let at = if line.contains(": completed") {
            0
        } else if line.contains(": failed") {
            1
        } else if line.contains(": was running when") {
            2
        } else if line.contains(": was cancelled before it started") {
            3
        } else {
            panic!("a call whose end is not said: {line}");
        };
        tally[at] += count;
    }
    tally
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_from_a_foreach_callback_are_reported_as_they_ended_and_the_run_fails() {
    let program = r#"const files = ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"];
files.forEach(async (f) => {
  await tools.edit({ file_path: f, old_string: "version = 1", new_string: "version = 2" });
});
return `updated ${files.length} files`;"#;
    for round in 0..ROUNDS {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        for name in ["a", "b", "c", "d", "e"] {
            fs::write(root.join(format!("{name}.txt")), "version = 1\n").unwrap();
        }
        let run = code_support::run(&registry(&root), program).await;
        let text = run.text();
        let changed = ["a", "b", "c", "d", "e"]
            .iter()
            .filter(|name| {
                fs::read_to_string(root.join(format!("{name}.txt"))).unwrap() == "version = 2\n"
            })
            .count();
        if !run.result.is_error() {
            // Every edit completed before the program ended or with nothing awaiting it.
            assert!(text.starts_with("updated 5 files"), "round {round}: {text}");
            let [completed, ..] = tally(&reported(&text));
            assert_eq!(
                tally(&reported(&text)),
                [completed, 0, 0, 0],
                "round {round}"
            );
            assert_eq!(changed, 5, "round {round}: {text}");
            continue;
        }
        assert!(
            text.contains("code run failed (left behind)") && text.contains("updated 5 files"),
            "round {round}: {text}"
        );
        let [completed, failed, stopped, not_started] = tally(&reported(&text));
        // Edits handed to the program before it ended are not left behind.
        let reported = completed + failed + stopped + not_started;
        assert!(
            (1..=5).contains(&reported),
            "round {round}: each edit is reported at most once: {text}"
        );
        assert_eq!(failed, 0, "round {round}: {text}");
        assert!(
            (5 - reported + completed..=5 - reported + completed + stopped).contains(&changed),
            "round {round}: {changed} files changed, but the report says {completed} completed \
             and {stopped} stopped: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_unawaited_edits_say_which_happened_and_the_second_ones_own_error() {
    let program = r#"tools.edit({ file_path: "a.txt", old_string: "version = 1", new_string: "version = 2" });
tools.edit({ file_path: "b.txt", old_string: "no such text", new_string: "x" });
return "updated a and b";"#;
    for round in 0..ROUNDS {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        fs::write(root.join("a.txt"), "version = 1\n").unwrap();
        fs::write(root.join("b.txt"), "version = 1\n").unwrap();
        let run = code_support::run(&registry(&root), program).await;
        let text = run.text();
        assert!(run.result.is_error(), "round {round}: {text}");
        let lines = reported(&text);
        let line_of = |site: &str| {
            let found = lines.iter().find(|(_, l)| l.starts_with(site));
            found.map(|(_, l)| l.clone()).unwrap_or_default()
        };
        let (first, second) = (
            line_of("run_code.ts:1:7 edit"),
            line_of("run_code.ts:2:7 edit"),
        );
        let changed = fs::read_to_string(root.join("a.txt")).unwrap() == "version = 2\n";
        if first.contains(": completed") {
            assert!(
                changed,
                "round {round}: reported completed, not done: {text}"
            );
        } else if first.contains("before it started") {
            assert!(
                !changed,
                "round {round}: reported not started, but done: {text}"
            );
        } else if first.is_empty() {
            // Settled and handed to the program before it ended: not left behind.
            assert!(changed, "round {round}: {text}");
        } else {
            assert!(
                first.contains(": was running when"),
                "round {round}: {text}"
            );
        }
        assert!(
            !second.contains(": completed"),
            "round {round}: the failing edit cannot complete: {text}"
        );
        if second.contains(": failed") {
            assert!(second.contains("was not found"), "round {round}: {text}");
        }
        assert_eq!(
            fs::read_to_string(root.join("b.txt")).unwrap(),
            "version = 1\n"
        );
    }
}
