//! The recorded catalog (`testing/catalog/lists/`, served verbatim by
//! `tests/mcp/catalog-server.mjs`) re-served by `ptc serve --mode native` to the official
//! TypeScript SDK client: every upstream tool is listed, and an input schema without `type`
//! (9 tools of the official GitLab server) is re-served as an object schema.

use std::path::{Path, PathBuf};

use crate::mcp_support::{node_module, ptc_bin, root, run_client};
use serde_json::{json, Value};

/// A recorded list.
fn list(server: &str) -> PathBuf {
    ptc_testing::repo().join(format!("testing/catalog/lists/{server}.json"))
}

/// The names of a recorded list's tools, as ptc registers them.
fn recorded(server: &str) -> Vec<String> {
    let text = std::fs::read_to_string(list(server)).unwrap();
    let list: Value = serde_json::from_str(&text).unwrap();
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{server}__{}", t["name"].as_str().unwrap()))
        .collect()
}

/// `ptc serve --mode native --discovery off ARGS` over stdio in `dir`, listed once by the
/// official client.
fn list_natively(dir: &Path, args: &[&str]) -> Vec<Value> {
    node_module("@modelcontextprotocol/sdk/package.json");
    let mut command = vec![
        "serve",
        "--root",
        dir.to_str().unwrap(),
        "--mode",
        "native",
        "--discovery",
        "off",
    ];
    command.extend_from_slice(args);
    let env = json!({"PATH": std::env::var("PATH").unwrap_or_default()});
    let plan = json!({
        "stdio": {"command": ptc_bin(), "args": command, "env": env},
        "steps": [{"list": true}]
    });
    let results = run_client(&plan);
    results[0]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list failed in the official client: {}", results[0]))
        .clone()
}

fn server_command(server: &str) -> String {
    format!(
        "node {} {}",
        root().join("tests/mcp/catalog-server.mjs").display(),
        list(server).display()
    )
}

#[test]
fn catalog_gitlab_typeless_input_schemas_are_listed_as_objects_to_the_official_client() {
    let dir = tempfile::tempdir().unwrap();
    let flag = format!("gitlab={}", server_command("gitlab"));
    let tools = list_natively(dir.path(), &["--mcp", &flag]);
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    let mut want = recorded("gitlab");
    want.sort_unstable();
    assert_eq!(names, want);
    let typeless = [
        "gitlab__create_issue",
        "gitlab__push_files",
        "gitlab__fork_repository",
    ];
    for tool in &tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        if typeless.contains(&tool["name"].as_str().unwrap()) {
            assert_eq!(tool["inputSchema"], json!({"type": "object"}), "{tool}");
        }
    }
}

#[test]
fn catalog_all_870_tools_are_listed_to_the_official_client() {
    let servers: Vec<String> = {
        let mut files: Vec<_> =
            std::fs::read_dir(ptc_testing::repo().join("testing/catalog/lists"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
        files.sort();
        files
            .iter()
            .map(|f| f.file_stem().unwrap().to_str().unwrap().to_owned())
            .collect()
    };
    let config_dir = tempfile::tempdir().unwrap();
    let mut config = String::new();
    for server in &servers {
        config.push_str(&format!(
            "[[mcp]]\nname = {}\ncommand = \"node\"\nargs = [{}, {}]\n\n",
            toml_string(server),
            toml_string(
                &root()
                    .join("tests/mcp/catalog-server.mjs")
                    .display()
                    .to_string()
            ),
            toml_string(&list(server).display().to_string()),
        ));
    }
    let config_file = config_dir.path().join("ptc.toml");
    std::fs::write(&config_file, config).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tools = list_natively(dir.path(), &["--config", config_file.to_str().unwrap()]);
    let want: usize = servers.iter().map(|s| recorded(s).len()).sum();
    assert_eq!(want, 870);
    assert_eq!(tools.len(), want, "every catalog tool is listed");
    for tool in &tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}
