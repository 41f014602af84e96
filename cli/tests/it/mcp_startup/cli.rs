//! Starting the recorded catalog through the `ptc` command: a failed server among good ones,
//! `--strict-mcp`, and warm starts from the cache.

use std::path::Path;
use std::time::Duration;

use crate::mcp_support::serve::StdioPeer;

use super::support::{
    catalog, catalog_names, catalog_tools, median, spread, stderr, stdout, wrapped, write_config,
    Dirs,
};

const CALL_TIME: &str = "return await tools.time__get_current_time({ timezone: 'UTC' })";

/// Whether process `pid` still exists (a zombie counts: it was not reaped).
fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// `time` and `memory` start; `broken` (CATALOG_FAIL=1) cannot. Every server records its pid
/// in `pids`; with `after_listed`, `broken` fails only once the others have listed their
/// tools in `log` (so the strict run has started servers to stop).
fn three(dirs: &Dirs, file: &str, after_listed: Option<&Path>) -> std::path::PathBuf {
    let pids = dirs.conf.path().join("pids");
    let pids = pids.to_str().unwrap();
    let record = r#"echo $$ >> "$1""#;
    let good = |name| {
        let mut spec = catalog(name, 0);
        if let Some(log) = after_listed {
            spec.env
                .insert("CATALOG_LOG".into(), log.to_str().unwrap().into());
        }
        wrapped(spec, record, &[pids])
    };
    let mut broken = catalog("fetch", 0);
    broken.name = "broken".into();
    broken.env.insert("CATALOG_FAIL".into(), "1".into());
    let broken = match after_listed {
        None => wrapped(broken, record, &[pids]),
        Some(log) => wrapped(
            broken,
            r#"echo $$ >> "$1"; until [ "$(grep -c listed "$2" 2>/dev/null)" = 2 ]; do sleep 0.01; done"#,
            &[pids, log.to_str().unwrap()],
        ),
    };
    write_config(
        dirs.conf.path(),
        file,
        &[good("time"), broken, good("memory")],
    )
}

#[test]
fn mcp_failed_server_is_named_left_out_and_the_others_work_unless_strict() {
    let dirs = Dirs::new();
    let config = three(&dirs, "ptc.toml", None);
    let (o, _) = dirs.ptc(&config, &["tools", "--mode", "native"], "");
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let named: Vec<&str> = err.lines().filter(|l| l.contains("`broken`")).collect();
    assert!(
        named.iter().any(|l| l
            .starts_with("ptc: warning: MCP server `broken` could not be started")
            && l.contains("left out")),
        "{err}"
    );
    assert!(err.contains("failing on purpose (CATALOG_FAIL=1)"), "{err}");
    assert!(!out.contains("broken__"), "{out}");
    assert!(out.lines().any(|l| l == "time__get_current_time"), "{out}");
    assert!(out.lines().any(|l| l == "memory__read_graph"), "{out}");

    let program = "const t = await tools.time__get_current_time({ timezone: 'UTC' });\n\
                   const g = await tools.memory__read_graph({});\n\
                   return typeof t.is_dst + ' ' + typeof g";
    let (o, _) = dirs.ptc(&config, &["run", "-"], program);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), "boolean object\n");

    // All or nothing: ptc fails, naming the server, and stops the ones it started.
    let log = dirs.conf.path().join("listed.log");
    let strict = three(&dirs, "strict.toml", Some(&log));
    let (o, _) = dirs.ptc(&strict, &["run", "--strict-mcp", "-"], CALL_TIME);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("MCP server `broken` could not be started"),
        "{err}"
    );
    let listed = std::fs::read_to_string(&log).unwrap();
    assert_eq!(listed.matches("listed").count(), 2, "{listed}");
    let pids = std::fs::read_to_string(dirs.conf.path().join("pids")).unwrap();
    let left: Vec<&str> = pids.lines().filter(|pid| alive(pid)).collect();
    assert!(left.is_empty(), "processes left: {left:?} of {pids}");

    // The same from `[mcp_start] strict`.
    let text = std::fs::read_to_string(&strict).unwrap();
    std::fs::write(&strict, format!("[mcp_start]\nstrict = true\n\n{text}")).unwrap();
    std::fs::remove_file(&log).unwrap();
    let (o, _) = dirs.ptc(&strict, &["tools"], "");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The whole catalog, slow to start (300–1000 ms each): a warm start lists every tool without
/// starting a server, within 3× a start with one server; a call starts its server; a corrupt
/// cache file is ignored with a note.
#[test]
fn mcp_warm_start_lists_the_catalog_without_starting_servers() {
    let dirs = Dirs::new();
    let logs = dirs.conf.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let names = catalog_names();
    let specs: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut spec = catalog(name, spread(i, names.len()));
            let log = logs.join(format!("{name}.log"));
            spec.env
                .insert("CATALOG_LOG".into(), log.to_str().unwrap().into());
            spec
        })
        .collect();
    let config = write_config(dirs.conf.path(), "ptc.toml", &specs);
    let tools = ["tools", "--mode", "native", "--discovery", "off"];
    let (cold, cold_time) = dirs.ptc(&config, &tools, "");
    assert_eq!(cold.status.code(), Some(0), "{}", stderr(&cold));
    let total: usize = names.iter().map(|n| catalog_tools(n).len()).sum();
    assert_eq!(stdout(&cold).lines().count(), total);
    let started = || -> Vec<String> {
        let mut started: Vec<String> = std::fs::read_dir(&logs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| std::fs::read_to_string(p).unwrap().contains("started"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        started.sort();
        started
    };
    assert_eq!(started(), names, "a cold start starts every server");
    let clear = || {
        for entry in std::fs::read_dir(&logs).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
    };
    clear();

    let mut warm = Vec::new();
    for _ in 0..3 {
        let (o, took) = dirs.ptc(&config, &tools, "");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), stdout(&cold), "the warm list is the cold one");
        assert_eq!(
            started(),
            Vec::<String>::new(),
            "a warm start started servers"
        );
        warm.push(took);
    }
    // One server (the median delay), started: the cache is off.
    let one = write_config(dirs.conf.path(), "one.toml", &[catalog("time", 650)]);
    let single: Vec<Duration> = (0..3)
        .map(|_| {
            let (o, took) = dirs.ptc(&one, &["tools", "--mode", "native", "--no-mcp-cache"], "");
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            took
        })
        .collect();
    let (warm, single) = (median(warm), median(single));
    let ratio = warm.as_secs_f64() / single.as_secs_f64();
    println!(
        "{} servers, {total} tools: cold {cold_time:.2?}, warm {warm:.2?}, one server {single:.2?}: warm/one {ratio:.2}",
        names.len()
    );
    assert!(ratio <= 3.0, "warm/one-server ratio {ratio:.2} > 3");

    // A call starts only its server, lazily.
    let (o, _) = dirs.ptc(&config, &["run", "-"], CALL_TIME);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("\"is_dst\": false"), "{}", stdout(&o));
    assert_eq!(started(), ["time"]);
    clear();

    // A corrupt cache file: noted, ignored, the server started.
    let file = dirs.cache_file("memory");
    std::fs::write(&file, "{ not json").unwrap();
    let (o, _) = dirs.ptc(&config, &tools, "");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let note = format!(
        "ptc: MCP server `memory`: tools cache {} ignored (it is not valid JSON",
        file.display()
    );
    assert!(err.contains(&note), "{err}");
    assert_eq!(stdout(&o), stdout(&cold));
    assert_eq!(started(), ["memory"]);
}

/// `ptc serve` serves a warm server's cached tools at once and starts it in the background; a
/// SIGTERM while that start hangs in `initialize` stops ptc, and the server (which ignores
/// SIGTERM) is killed and reaped.
#[test]
fn mcp_serve_sigterm_during_a_background_start_leaves_no_process() {
    let dirs = Dirs::new();
    let fixture = crate::mcp_support::fixture_flag("fx");
    let spec: ptc_mcp::McpServerSpec = fixture.parse().unwrap();
    let config = write_config(dirs.conf.path(), "ptc.toml", &[spec]);
    let (o, _) = dirs.ptc(&config, &["tools"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let pid_file = dirs.conf.path().join("fx.pid");
    let mut ptc = std::process::Command::new(crate::mcp_support::ptc_bin())
        .args(["serve", "--mode", "native", "--root"])
        .arg(dirs.root.path())
        .arg("--config")
        .arg(&config)
        .env("XDG_CACHE_HOME", dirs.cache.path())
        .env("FIXTURE_HANG", "initialize")
        .env("FIXTURE_PID", &pid_file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ptc runs");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let pid = loop {
        if let Ok(pid) = std::fs::read_to_string(&pid_file) {
            break pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let status = std::process::Command::new("kill")
        .args(["-TERM", &ptc.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stdin = ptc.stdin.take();
    let output = ptc.wait_with_output().unwrap();
    drop(stdin);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        !err.contains("stopped before serving"),
        "served warm: {err}"
    );
    assert!(!alive(&pid), "the MCP server {pid} outlived ptc: {err}");
}

/// `ptc serve` lists a warm server's cached tools before the server answers; once its
/// background start lists it, the real list replaces the cached one and the client hears
/// `notifications/tools/list_changed`.
#[test]
fn mcp_serve_warm_lists_cached_tools_then_the_real_ones_with_list_changed() {
    let dirs = Dirs::new();
    // The server starts only while the directory `go` exists.
    let go = dirs.conf.path().join("go");
    let gate = r#"until [ -d "$1" ]; do sleep 0.01; done"#;
    let spec = wrapped(catalog("time", 0), gate, &[go.to_str().unwrap()]);
    let config = write_config(dirs.conf.path(), "ptc.toml", &[spec]);
    std::fs::create_dir(&go).unwrap();
    let (o, _) = dirs.ptc(&config, &["tools"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir(&go).unwrap();
    // The cache now says the server has one tool, `ghost`.
    let file = dirs.cache_file("time");
    let mut cached: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    cached["tools"] = serde_json::json!([{ "name": "ghost", "inputSchema": { "type": "object" } }]);
    std::fs::write(&file, cached.to_string()).unwrap();

    let config_arg = config.to_str().unwrap();
    let cache = dirs.cache.path().to_str().unwrap();
    let mut peer = StdioPeer::start_with_env(
        dirs.root.path(),
        &["--mode", "native", "--config", config_arg],
        &[("XDG_CACHE_HOME", cache)],
    );
    let list = |peer: &mut StdioPeer, id: u64| -> Vec<String> {
        let request = serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list" });
        peer.send_line(request.to_string().as_bytes());
        let reply = peer.reply();
        assert_eq!(reply["id"], id, "{reply}");
        let mut names: Vec<String> = reply["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(list(&mut peer, 1), ["time__ghost"]);
    std::fs::create_dir(&go).unwrap();
    let note = peer.reply();
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(
        list(&mut peer, 2),
        ["time__convert_time", "time__get_current_time"]
    );
    assert_eq!(peer.finish(), Some(0));
}
