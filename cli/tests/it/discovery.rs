//! Discovery through the `ptc` command: `--discovery` and `[discovery]`, the up-front sizes
//! over the recorded catalog served by 42 real stdio MCP servers
//! (`tests/mcp/catalog-server.mjs`), the example program, and `ptc serve` growing a session's
//! native list with `notifications/tools/list_changed`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use crate::mcp_support::{node_module, ptc_bin, root, run_client};

/// `ptc ARGS` in the repository, stdin closed.
fn ptc(args: &[&str]) -> Output {
    Command::new(ptc_bin())
        .args(args)
        .current_dir(ptc_testing::repo())
        .stdin(Stdio::null())
        .output()
        .expect("ptc runs")
}

fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// An operator configuration (outside the workspace) connecting every recorded catalog list
/// as `[[mcp]]`, plus `extra` TOML; the workspace root beside it.
fn catalog_config(dir: &Path, extra: &str) -> (PathBuf, PathBuf) {
    node_module("@modelcontextprotocol/sdk/package.json");
    let server = root().join("tests/mcp/catalog-server.mjs");
    let lists = ptc_testing::repo().join("testing/catalog/lists");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&lists)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut toml = format!("{extra}\n");
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy();
        toml.push_str(&format!(
            "[[mcp]]\nname = {name:?}\ncommand = \"node\"\nargs = [{:?}, {:?}]\n\n",
            server.display().to_string(),
            file.display().to_string()
        ));
    }
    let config = dir.join("ptc.toml");
    std::fs::write(&config, toml).unwrap();
    let workspace = dir.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    (config, workspace)
}

fn listing_bytes(json: &str) -> usize {
    let tools: Vec<Value> = serde_json::from_str(json).unwrap();
    tools.iter().map(|t| t.to_string().len()).sum()
}

#[test]
fn discovery_catalog_servers_up_front_sizes_and_the_example_program() {
    let dir = tempfile::tempdir().unwrap();
    let (config, workspace) = catalog_config(dir.path(), "");
    let base = [
        "--config",
        config.to_str().unwrap(),
        "--root",
        workspace.to_str().unwrap(),
    ];
    let with = |args: &[&str]| -> Vec<String> {
        args.iter().chain(&base).map(|s| s.to_string()).collect()
    };
    let run = |args: Vec<String>| ok(&ptc(&args.iter().map(String::as_str).collect::<Vec<_>>()));

    let code_on = run(with(&["sdk", "--mode", "code"]));
    let code_off = run(with(&["sdk", "--mode", "code", "--discovery", "off"]));
    let native_on = listing_bytes(&run(with(&[
        "tools", "--mode", "native", "--format", "mcp",
    ])));
    let native_off = listing_bytes(&run(with(&[
        "tools",
        "--mode",
        "native",
        "--format",
        "mcp",
        "--discovery",
        "off",
    ])));
    println!(
        "42 servers, 870 tools: code mode {} bytes up front ({} without discovery, {:.2}%); \
         native {native_on} bytes listed ({native_off} without, {:.2}%)",
        code_on.len(),
        code_off.len(),
        100.0 * code_on.len() as f64 / code_off.len() as f64,
        100.0 * native_on as f64 / native_off as f64,
    );
    assert!(code_on.len() <= 19_700, "{code_on}");
    assert!(code_on.len() * 100 <= code_off.len() * 3);
    assert!(native_on * 100 <= native_off * 3);
    assert!(
        code_on.contains("\n- time (2): convert_time, get_current_time\n"),
        "{code_on}"
    );

    let example = ptc_testing::repo().join("examples/programs/discover.ts");
    let out = run(with(&[
        "run",
        "--discovery",
        "on",
        example.to_str().unwrap(),
    ]));
    println!("{out}");
    assert!(out.contains("time__get_current_time: tools.time__get_current_time(args: { timezone: string }) => Promise<"), "{out}");
    assert!(
        out.contains("\"tool\": \"time__get_current_time\""),
        "{out}"
    );
}

#[test]
fn discovery_flag_wins_over_the_config_and_bad_values_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("ptc.toml");
    std::fs::write(&config, "[discovery]\nmode = \"on\"\npinned = [\"echo\"]\n").unwrap();
    let config = config.to_str().unwrap();
    let names = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "tools", "--tools", "testkit", "--mode", "native", "--config", config,
        ];
        args.extend_from_slice(extra);
        ok(&ptc(&args)).lines().map(String::from).collect()
    };
    assert_eq!(
        names(&[]),
        ["call_tool", "describe_tools", "echo", "search_tools"]
    );
    assert_eq!(
        names(&["--discovery", "off"]),
        ["add", "counter", "echo", "fail", "sleep"]
    );

    std::fs::write(
        dir.path().join("ptc.toml"),
        "[discovery]\nmode = \"sometimes\"\n",
    )
    .unwrap();
    let o = ptc(&["tools", "--tools", "testkit", "--config", config]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ptc.toml:2: discovery.mode: unknown discovery mode `sometimes`"),
        "{err}"
    );

    let o = ptc(&["tools", "--tools", "testkit", "--discovery", "maybe"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected auto, on or off"));
}

#[test]
fn discovery_serve_native_search_results_join_the_session_list() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let plan = json!({
        "stdio": {
            "command": ptc_bin(),
            "args": ["serve", "--tools", "testkit", "--mode", "native", "--discovery", "on",
                     "--root", workspace.to_str().unwrap()],
        },
        "steps": [
            { "list": true },
            { "call": "search_tools", "args": { "query": "add two numbers", "limit": 1 } },
            { "awaitTools": { "has": ["add", "search_tools"] } },
            { "call": "add", "args": { "a": 2, "b": 3 } },
            { "call": "call_tool", "args": { "name": "echo", "arguments": { "text": "hi" } } },
        ],
    });
    let results = run_client(&plan);
    let listed: Vec<&str> = results[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["call_tool", "describe_tools", "search_tools"]);
    let search = &results[0][2]["description"];
    assert!(
        search
            .as_str()
            .unwrap()
            .contains("\n- testkit (5): small tools for trying code mode\n"),
        "{search}"
    );
    assert_eq!(
        results[1]["structured"]["tools"][0]["name"], "add",
        "{}",
        results[1]
    );
    let grown = &results[2];
    assert!(grown["notified"].as_u64().unwrap() >= 1, "{grown}");
    assert_eq!(
        grown["names"],
        json!(["add", "call_tool", "describe_tools", "search_tools"])
    );
    assert_eq!(results[3]["text"], "5", "{}", results[3]);
    assert_eq!(results[4]["text"], "hi", "{}", results[4]);
}

#[test]
fn discovery_applies_from_an_untrusted_workspace_config() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("ptc.toml"), "[discovery]\nmode = \"on\"\n").unwrap();
    let o = Command::new(ptc_bin())
        .args(["tools", "--tools", "testkit", "--mode", "native", "--root"])
        .arg(&workspace)
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let names: Vec<String> = ok(&o).lines().map(String::from).collect();
    assert_eq!(names, ["call_tool", "describe_tools", "search_tools"]);
}
