//! `ptc replay --html` pages, loaded and driven in a real headless Chromium.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::support::{self, ptc_output, run_args, workspace};

/// Debian's Chromium (or `PTC_CHROMIUM`), or `None` after saying the test is skipped.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PTC_CHROMIUM")
        .map(Into::into)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    support::tool(path, "Chromium", "apt-get install chromium")?;
    let driver = support::repo().join("node_modules").join("playwright-core");
    support::tool(driver, "playwright-core", "npm ci")?;
    Some(std::env::var_os("PTC_CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), Into::into))
}

/// Render `log` with `ptc replay --html` into `page`; returns the page's text.
fn render(log: &Path, page: &Path, dir: &Path, expect_skipped: usize) -> String {
    let out = ptc_output(
        &[
            "replay",
            "--tools",
            "testkit",
            "--html",
            log.to_str().unwrap(),
        ],
        dir,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    if expect_skipped > 0 {
        assert_eq!(
            stderr.matches(": skipped line ").count(),
            expect_skipped,
            "each damaged line is named: {stderr}"
        );
    }
    std::fs::write(page, &out.stdout).unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Run `tests/observe/waterfall.mjs` over `page` with `steps`.
fn drive(chromium: &Path, page: &Path, steps: Value) -> Value {
    let spec = json!({"page": page, "chromium": chromium, "steps": steps});
    let out = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/observe/waterfall.mjs"))
        .arg(spec.to_string())
        .current_dir(support::repo())
        .output()
        .expect("node starts");
    assert!(
        out.status.success(),
        "the browser script failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen["requests"], json!([]), "the page fetches nothing");
    assert_eq!(seen["errors"], json!([]), "no script errors");
    assert_eq!(seen["dom"]["scripts"], json!([]), "no external scripts");
    seen
}

#[test]
fn waterfall_of_a_real_run_shows_its_bars_in_chromium() {
    let Some(chromium) = chromium() else {
        return;
    };
    let ws = workspace();
    let log = ws.path().join("session.jsonl");
    let args = run_args(&["--log", log.to_str().unwrap()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ptc_output(&args, ws.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let root = support::root_call_id(&log);
    let sub = |n: u32| format!("{root}:ptc:{n}");
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(b"{\"type\":\"tool/call\",\n\xff\xfe not text\n")
        .unwrap();

    let page = support::artifact("waterfall.html");
    let html = render(&log, &page, ws.path(), 2);
    assert!(
        !html.contains("</script><b>"),
        "logged text cannot end the data element"
    );
    for external in ["src=", "href=", "url(", "@import"] {
        assert!(!html.contains(external), "self-contained: no {external}");
    }
    let shot = support::artifact("waterfall.png");
    let details = support::artifact("waterfall-details.png");
    let seen = drive(
        &chromium,
        &page,
        json!([
            {"hover": sub(2)},
            {"screenshot": shot, "height": 290},
            {"click": sub(6)},
            {"screenshot": details},
            {"click": sub(1)},
            {"hover": sub(5)},
        ]),
    );
    let dom = &seen["dom"];
    assert_eq!(
        dom["body"],
        json!({"runs": "1", "calls": "7", "skipped": "2"})
    );
    assert!(dom["skipped"]
        .as_str()
        .unwrap()
        .starts_with("2 damaged lines were skipped: line 15"));
    let sections = dom["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 1);
    assert_eq!(sections[0]["callId"], root.as_str());
    assert_eq!(sections[0]["outcome"], "ok");
    assert_eq!(sections[0]["calls"], "6");
    let lane_count: usize = sections[0]["lanes"].as_str().unwrap().parse().unwrap();
    assert!(lane_count >= 3, "sleep, add and sleep overlap");
    let bars = dom["bars"].as_array().unwrap();
    let summary: Vec<(String, &str, &str)> = bars
        .iter()
        .map(|b| {
            (
                b["callId"].as_str().unwrap().replace(&root, "run"),
                b["name"].as_str().unwrap(),
                b["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("run".to_string(), "run_code", "ok"),
            ("run:ptc:1".to_string(), "echo", "ok"),
            ("run:ptc:2".to_string(), "sleep", "ok"),
            ("run:ptc:3".to_string(), "add", "ok"),
            ("run:ptc:4".to_string(), "sleep", "ok"),
            ("run:ptc:5".to_string(), "fail", "error"),
            ("run:ptc:6".to_string(), "add", "denied"),
        ]
    );
    let lanes: std::collections::BTreeSet<&str> = bars[2..5]
        .iter()
        .map(|b| b["lane"].as_str().unwrap())
        .collect();
    assert_eq!(lanes.len(), 3, "overlapping calls get lanes of their own");
    let ms = |b: &Value, k: &str| b[k].as_str().unwrap().parse::<u64>().unwrap();
    assert!(
        ms(&bars[2], "endMs") - ms(&bars[2], "startMs") >= 60,
        "the 60 ms sleep"
    );
    assert_eq!(dom["boldElements"], 0, "logged markup stays text");

    let steps = seen["steps"].as_array().unwrap();
    assert!(steps[0]["tip"]
        .as_str()
        .unwrap()
        .starts_with(&format!("sleep  {}\nok · ", sub(2))));
    let denied = &steps[2];
    assert_eq!(denied["title"], format!("add — {}", sub(6)));
    let fields = &denied["fields"];
    assert_eq!(fields["outcome"], "denied");
    assert_eq!(fields["policy"], "denied: no unlucky numbers");
    assert!(fields["error"]
        .as_str()
        .unwrap()
        .starts_with("TOOL_DENIED (ToolDeniedError)"));
    assert!(fields["arguments"].as_str().unwrap().contains("\"a\": 13"));
    let echo = &steps[4]["fields"];
    assert!(echo["arguments"]
        .as_str()
        .unwrap()
        .contains("hello </script><b>bold</b>"));
    assert_eq!(echo["result"], "hello </script><b>bold</b>");
    let tip = steps[5]["tip"].as_str().unwrap();
    assert!(
        tip.starts_with(&format!("fail  {}\nerror · ", sub(5))),
        "{tip}"
    );
    assert!(tip.ends_with("TOOL_ERROR: boom"), "{tip}");
    for png in [&shot, &details] {
        let size = std::fs::metadata(png).unwrap().len();
        assert!(
            size > 10_000,
            "{} is a real screenshot ({size} bytes)",
            png.display()
        );
    }
}

/// One run of 10,000 sub-calls (some overlapping, some failing), 300 native calls, and
/// four damaged lines (one of them nested 100,000 levels deep).
fn big_log(path: &Path) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let t0: u64 = 1_760_000_000_000;
    let mut line = |v: Value| writeln!(out, "{v}").unwrap();
    line(
        json!({"type": "tool/call", "atMs": t0, "turn": 1, "step": 1, "callId": "big-1",
        "name": "run_code", "arguments": {"code": "…", "description": "ten thousand calls"}}),
    );
    for i in 1..=10_000u64 {
        let id = format!("big-1:ptc:{i}");
        let start = t0 + 1 + i / 4;
        line(
            json!({"type": "tool/ptc-dispatch-start", "atMs": start, "parentCallId": "big-1",
            "subCallId": id, "name": "echo", "arguments": {"text": format!("call {i}")}}),
        );
        let (is_error, error) = match i {
            i if i % 503 == 0 => (
                true,
                json!({"message": "slow", "info": {"name": "ToolTimeoutError", "code": "TOOL_TIMEOUT"}}),
            ),
            i if i % 211 == 0 => (
                true,
                json!({"message": "nope", "info": {"name": "ToolDeniedError", "code": "TOOL_DENIED"}}),
            ),
            i if i % 97 == 0 => (
                true,
                json!({"message": "failed", "info": {"name": "Error", "code": "TOOL_ERROR"}}),
            ),
            _ => (false, Value::Null),
        };
        let mut settled = json!({"type": "tool/ptc-dispatch", "atMs": start + i % 7,
            "parentCallId": "big-1", "subCallId": id, "name": "echo", "isError": is_error,
            "content": [{"type": "text", "text": format!("call {i}")}]});
        if is_error {
            settled["error"] = error;
        }
        line(settled);
        if i % 4000 == 0 {
            line(Value::String("not an event".into()));
        }
    }
    line(
        json!({"type": "tool/result", "atMs": t0 + 2_600, "turn": 1, "step": 1,
        "callId": "big-1", "name": "run_code", "isError": false,
        "content": [{"type": "text", "text": "done"}]}),
    );
    for i in 0..300u64 {
        let at = t0 + 3_000 + i * 10;
        line(
            json!({"type": "tool/call", "atMs": at, "turn": 2, "step": i, "callId": format!("n-{i}"),
            "name": "echo", "arguments": {"text": "native"}}),
        );
        line(
            json!({"type": "tool/result", "atMs": at + 3, "turn": 2, "step": i,
            "callId": format!("n-{i}"), "name": "echo", "isError": false,
            "content": [{"type": "text", "text": "native"}]}),
        );
    }
    // A line nested 100,000 levels deep: skipped, not a stack overflow.
    let deep = format!(
        "{{\"type\":\"tool/call\",\"atMs\":1,\"turn\":1,\"step\":1,\"callId\":\"deep\",\"name\":\"echo\",\"arguments\":{}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    writeln!(out, "{deep}").unwrap();
    writeln!(out, "{{truncated").unwrap();
}

#[test]
fn waterfall_of_ten_thousand_calls_stays_responsive_in_chromium() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("big.jsonl");
    big_log(&log);
    let page = support::artifact("waterfall-10k.html");
    render(&log, &page, dir.path(), 4);
    let seen = drive(
        &chromium,
        &page,
        json!([
            {"hover": "big-1:ptc:9999"},
            {"hover": "big-1:ptc:4"},
            {"screenshot": support::artifact("waterfall-10k.png")},
            {"hover": "n-299"},
        ]),
    );
    let dom = &seen["dom"];
    assert_eq!(
        dom["body"],
        json!({"runs": "301", "calls": "10301", "skipped": "4"})
    );
    let sections = dom["sections"].as_array().unwrap();
    assert_eq!(sections[0]["callId"], "big-1");
    assert_eq!(sections[0]["calls"], "10000");
    assert!(
        sections.len() < 100,
        "only runs near the viewport are in the DOM ({} of 301)",
        sections.len()
    );
    assert!(
        dom["bars"].as_array().unwrap().len() < 1000,
        "a 10,000-call run draws on its canvas without a DOM element per bar"
    );
    let legend: Vec<&str> = dom["legend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(
        legend,
        [
            "ok 10132",
            "error 103",
            "denied 47",
            "cancelled 0",
            "timeout 19",
            "unsettled 0"
        ]
    );
    let steps = seen["steps"].as_array().unwrap();
    assert!(steps[0]["tip"]
        .as_str()
        .unwrap()
        .starts_with("echo  big-1:ptc:9999\n"));
    assert!(steps[1]["tip"]
        .as_str()
        .unwrap()
        .starts_with("echo  big-1:ptc:4\n"));
    assert!(steps[3]["tip"]
        .as_str()
        .unwrap()
        .starts_with("echo  n-299\n"));
    assert!(steps[3]["rendered"].as_u64().unwrap() < 100);
    eprintln!(
        "10,301 calls: page ready in {} ms (script {:.0} ms); hovers took {} ms, {} ms and {} ms",
        seen["readyMs"], seen["scriptMs"], steps[0]["ms"], steps[1]["ms"], steps[3]["ms"]
    );
}
