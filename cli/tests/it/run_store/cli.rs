//! The stores as the `ptc` command uses them: `ptc serve`'s default SQLite file and its bound
//! address as the instance, `ptc run --log sqlite:`, `ptc replay`, and `[log]` in `ptc.toml`.

use std::process::Command;

use ptc::session::SessionEvent;
use ptc_cli::store::{self, Filter, LogTarget};
use serde_json::json;

use super::super::mcp_support::serve::{HttpServer, StdioPeer};
use super::super::mcp_support::{ptc_bin, run_client};
use super::*;

#[test]
fn serve_logs_to_the_default_sqlite_store_and_replay_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("xdg-state");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = [
        ("XDG_STATE_HOME", state.to_str().unwrap()),
        ("HOME", home.to_str().unwrap()),
    ];
    let mut peer = StdioPeer::start_with_env(
        dir.path(),
        &["--tools", "testkit", "--mode", "native"],
        &env,
    );
    let result = peer.call(1, "add", json!({ "a": 2, "b": 3 }));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(peer.finish(), Some(0));

    let db = state.join("ptc/runs.sqlite");
    assert!(db.exists(), "the default store is {}", db.display());
    let url = format!("sqlite:{}", db.display());
    let replay = |args: &[&str]| {
        let o = Command::new(ptc_bin())
            .arg("replay")
            .args(args)
            .arg(&url)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    let listing = replay(&["--list"]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines[0], "run\tinstance\tprocess\tstarted\ttool\tstatus");
    assert_eq!(lines.len(), 2, "{listing}");
    let columns: Vec<&str> = lines[1].split('\t').collect();
    assert!(columns[0].starts_with("mcp-"), "{listing}");
    assert_eq!(
        columns[1],
        store::host_instance(),
        "over stdio: the host's name"
    );
    assert_eq!((columns[4], columns[5]), ("add", "ok"), "{listing}");
    let tree = replay(&["--tools", "testkit", "--run", columns[0]]);
    assert!(tree.contains("add"), "{tree}");
    let none = replay(&["--list", "--instance", "elsewhere"]);
    assert_eq!(none.lines().count(), 1, "{none}");

    // Without XDG_STATE_HOME: under HOME; `--log off`: nowhere.
    let env = [("XDG_STATE_HOME", ""), ("HOME", home.to_str().unwrap())];
    let mut peer = StdioPeer::start_with_env(dir.path(), &["--tools", "testkit"], &env);
    peer.call(1, "add", json!({ "a": 1, "b": 1 }));
    assert_eq!(peer.finish(), Some(0));
    let under_home = home.join(".local/state/ptc/runs.sqlite");
    assert!(under_home.exists(), "{}", under_home.display());
    let quiet = dir.path().join("quiet");
    let env = [("XDG_STATE_HOME", quiet.to_str().unwrap())];
    let mut peer =
        StdioPeer::start_with_env(dir.path(), &["--tools", "testkit", "--log", "off"], &env);
    peer.call(1, "add", json!({ "a": 1, "b": 1 }));
    assert_eq!(peer.finish(), Some(0));
    assert!(!quiet.exists(), "--log off writes no store");
}

#[test]
fn serve_over_http_records_runs_under_its_bound_address_and_writes_them_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.sqlite");
    let url = format!("sqlite:{}", db.display());
    let server = HttpServer::start(
        dir.path(),
        &["--tools", "testkit", "--mode", "native", "--log", &url],
        &[],
    );
    let results = run_client(&json!({
        "http": server.url,
        "steps": [{ "call": "echo", "args": { "text": "hi" } }],
    }));
    assert_eq!(results[0]["isError"], false, "{results:?}");
    let authority = server.authority().to_string();
    let (code, _) = server.terminate();
    assert_eq!(code, Some(0));
    let target: LogTarget = url.parse().unwrap();
    let listed = runs(&target, &Filter::default());
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].instance, authority);
    assert_eq!(
        (listed[0].tool.as_str(), listed[0].status.as_deref()),
        ("echo", Some("ok"))
    );
}

#[test]
fn run_logs_to_sqlite_when_told_and_records_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("runs.sqlite").display());
    let o = Command::new(ptc_bin())
        .args(["run", "--tools", "testkit", "--log", &url, "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(b"return await tools.add({a: 1, b: 2})")?;
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let target: LogTarget = url.parse().unwrap();
    let listed = runs(&target, &Filter::default());
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].instance, store::host_instance());
    assert_eq!(listed[0].tool, "run_code");
    // The run and its sub-call, whole.
    let kinds: Vec<&str> = read(&target, &Filter::default())
        .iter()
        .map(SessionEvent::kind)
        .collect();
    assert_eq!(
        kinds,
        [
            "tool/call",
            "tool/ptc-dispatch-start",
            "tool/ptc-dispatch",
            "tool/result"
        ]
    );
}

#[test]
fn log_table_takes_a_url_beside_the_file_names_bad_ones_and_is_ignored_when_untrusted() {
    use ptc_cli::config::Config;
    let file = std::path::Path::new("/etc/ptc/ptc.toml");
    let parse = |text: &str| Config::parse(text, Some(file));
    let relative = parse("[log]\nurl = \"sqlite:runs.sqlite\"\n").unwrap();
    assert_eq!(
        relative.log.url,
        Some(LogTarget::Sqlite("/etc/ptc/runs.sqlite".into()))
    );
    let off = parse("[log]\nurl = \"off\"\n").unwrap();
    assert_eq!(off.log.url, Some(LogTarget::Off));
    let bad = parse("mode = \"code\"\n[log]\nurl = \"redis://x\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        bad.contains("ptc.toml:3: log.url: unknown log URL scheme `redis://`"),
        "{bad}"
    );

    // A workspace file the operator has not trusted cannot choose where events go.
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let trust = ptc_cli::config::TrustStore::new(home.path().join("trusted.toml"));
    std::fs::write(
        root.path().join("ptc.toml"),
        "[log]\nurl = \"postgres://evil.example/steal\"\n",
    )
    .unwrap();
    let loaded = Config::discover_trusted(None, root.path(), Some(&trust)).unwrap();
    assert_eq!(loaded.config.log.url, None);
    assert!(
        loaded.notices.join("\n").contains("[log] url"),
        "{:?}",
        loaded.notices
    );
}

#[test]
fn two_ptc_run_processes_append_to_one_sqlite_file_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("runs.sqlite").display());
    let program = dir.path().join("two_adds.ts");
    std::fs::write(
        &program,
        "return (await tools.add({a: 1, b: 2})) + (await tools.add({a: 0, b: 0}))",
    )
    .unwrap();
    let spawn = || {
        Command::new(ptc_bin())
            .args(["run", "--tools", "testkit", "--repeat", "30", "--log", &url])
            .arg(&program)
            .output()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
    });
    for o in [&a, &b] {
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let target: LogTarget = url.parse().unwrap();
    let listed = runs(&target, &Filter::default());
    assert_eq!(listed.len(), 60, "{listed:?}");
    assert!(listed.iter().all(|r| r.status.as_deref() == Some("ok")));
    let mut processes: Vec<&str> = listed.iter().map(|r| r.process.as_str()).collect();
    processes.sort();
    processes.dedup();
    assert_eq!(processes.len(), 2, "two processes: {processes:?}");
    // Each run whole: its call, two sub-calls (start and end), its result.
    assert_eq!(read(&target, &Filter::default()).len(), 60 * 6);
}

#[test]
fn serve_records_runs_under_its_instance_id() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("runs.sqlite").display());
    let mut peer = StdioPeer::start(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--mode",
            "native",
            "--instance",
            "edge-1",
            "--log",
            &url,
        ],
    );
    let result = peer.call(1, "add", json!({ "a": 2, "b": 3 }));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(peer.finish(), Some(0));
    let target: LogTarget = url.parse().unwrap();
    let listed = runs(&target, &Filter::default());
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].instance, "edge-1");
}
