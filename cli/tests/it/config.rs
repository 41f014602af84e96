//! `ptc.toml`: parsing errors name the key and line; policies apply to native calls and
//! to sub-calls inside `run_code`; limits reach code mode.

use ptc_testing::code as code_support;

use std::sync::Arc;
use std::time::Duration;

use code_support::*;
use ptc::policy::approval::ApprovalAnswer;
use ptc::policy::approval::ApprovalRequest;
use ptc::{codes, Agent, CodeConfig, ScopeKey, ToolExecutionInput};
use ptc_cli::config::{Config, PolicyAction};
use serde_json::json;

fn parse_err(text: &str) -> String {
    Config::parse(text, Some(std::path::Path::new("ptc.toml")))
        .unwrap_err()
        .to_string()
}

#[test]
fn config_parses_mode_tools_limits_and_policies() {
    let config = Config::parse(
        r#"
mode = "code"
tools = ["testkit"]

[limits]
timeout_ms = 500
max_parallel = 3

[[policy]]
tool = "bash"
action = "deny"
match = { command = "rm\\s+-rf" }

[[policy]]
tool = "write"
action = "ask"
not_match = { file_path = "^src/" }
"#,
        None,
    )
    .unwrap();
    assert_eq!(config.mode, Some(ptc::ToolMode::Code));
    assert_eq!(config.tools.as_deref(), Some(&["testkit".to_string()][..]));
    let mut code = CodeConfig::default();
    config.limits.apply(&mut code);
    assert_eq!(code.limits.wall_clock, Duration::from_millis(500));
    assert_eq!(code.sub_calls.max_parallel, 3);
    assert_eq!(
        code.sub_calls.max_calls, 10_000,
        "unset limits keep their defaults"
    );
    let rules = &config.policies.rules;
    assert_eq!((rules[0].action, rules[0].line), (PolicyAction::Deny, 10));
    let p = &config.policies;
    assert!(p.decide("bash", &json!({"command": "rm -rf /"})).is_some());
    assert!(p.decide("bash", &json!({"command": "ls"})).is_none());
    assert!(p
        .decide("write", &json!({"file_path": "docs/a.md"}))
        .is_some());
    assert!(p
        .decide("write", &json!({"file_path": "src/a.rs"}))
        .is_none());
}

#[test]
fn config_unknown_keys_and_bad_values_name_key_and_line() {
    let e = parse_err("mode = \"code\"\nbogus = 1\n");
    assert!(e.starts_with("ptc.toml:2:") && e.contains("bogus"), "{e}");
    let e = parse_err("\n\nmode = \"fast\"\n");
    assert!(
        e.starts_with("ptc.toml:3:") && e.contains("mode") && e.contains("fast"),
        "{e}"
    );
    let e = parse_err("[limits]\ntimeout_ms = \"soon\"\n");
    assert!(
        e.starts_with("ptc.toml:2:") && e.contains("invalid type"),
        "{e}"
    );
    let e = parse_err("[[policy]]\ntool = \"x\"\naction = \"maybe\"\n");
    assert!(e.starts_with("ptc.toml:3:") && e.contains("maybe"), "{e}");
    let e = parse_err("[[policy]]\ntool = \"x\"\naction = \"deny\"\nmatch = { a = \"(\" }\n");
    assert!(
        e.starts_with("ptc.toml:4:") && e.contains("policy.match.a"),
        "{e}"
    );
    let e = parse_err("[[policy]]\naction = \"deny\"\n");
    assert!(e.contains("tool"), "{e}");
}

#[test]
fn config_unknown_arguments_allow_applies_only_when_trusted() {
    let default = Config::parse("", None).unwrap();
    assert_eq!(default.unknown_arguments, ptc::UnknownArguments::Reject);
    let allow = Config::parse("unknown_arguments = \"allow\"\n", None).unwrap();
    assert_eq!(allow.unknown_arguments, ptc::UnknownArguments::Allow);
    let e = parse_err("\nunknown_arguments = \"ignore\"\n");
    assert!(
        e.starts_with("ptc.toml:2:") && e.contains("unknown_arguments") && e.contains("ignore"),
        "{e}"
    );

    // A workspace file nobody trusted may not reopen the parameters.
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = ptc_cli::config::TrustStore::new(home.path().join("trusted.toml"));
    std::fs::write(
        root.path().join("ptc.toml"),
        "unknown_arguments = \"allow\"\n",
    )
    .unwrap();
    let loaded = Config::discover_trusted(None, root.path(), Some(&store)).unwrap();
    assert_eq!(
        loaded.config.unknown_arguments,
        ptc::UnknownArguments::Reject
    );
    assert!(
        loaded
            .notices
            .iter()
            .any(|n| n.contains("unknown_arguments = \"allow\"")),
        "{:?}",
        loaded.notices
    );
    std::fs::write(
        root.path().join("ptc.toml"),
        "unknown_arguments = \"reject\"\n",
    )
    .unwrap();
    let loaded = Config::discover_trusted(None, root.path(), Some(&store)).unwrap();
    assert!(loaded.notices.is_empty(), "{:?}", loaded.notices);
}

#[test]
fn config_untrusted_wider_limits_are_named_in_the_notice_and_lower_ones_are_not() {
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = ptc_cli::config::TrustStore::new(home.path().join("trusted.toml"));
    std::fs::write(
        root.path().join("ptc.toml"),
        "[limits]\ntimeout_ms = 999999\nmax_heap_mb = 4000\nmax_parallel = 2\n",
    )
    .unwrap();
    let loaded = Config::discover_trusted(None, root.path(), Some(&store)).unwrap();
    let notice = loaded.notices.join("\n");
    assert!(
        notice.contains("limits.timeout_ms") && notice.contains("limits.max_heap_mb"),
        "{notice}"
    );
    assert!(!notice.contains("max_parallel"), "{notice}");
}

#[test]
fn config_policies_match_web_fetch_urls() {
    let config = Config::parse(
        "[[policy]]\ntool = \"web_fetch\"\naction = \"deny\"\n\
         not_match = { url = \"^https://docs\\\\.rs/\" }\nreason = \"docs.rs only\"\n",
        None,
    )
    .unwrap();
    let p = &config.policies;
    let fetch = |url: &str| p.decide("web_fetch", &json!({ "url": url })).is_some();
    assert!(fetch("https://evil.example/"));
    assert!(fetch("https://docs.rs.evil.example/"));
    assert!(!fetch("https://docs.rs/serde"));
}

#[test]
fn config_untrusted_workspace_web_section_cannot_open_private_addresses() {
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = ptc_cli::config::TrustStore::new(home.path().join("trusted.toml"));
    std::fs::write(
        root.path().join("ptc.toml"),
        "[web]\nallow_private = true\nallow_hosts = [\"169.254.169.254\"]\ndeny_hosts = [\"ads.example\"]\n",
    )
    .unwrap();
    let loaded = Config::discover_trusted(None, root.path(), Some(&store)).unwrap();
    let web = loaded.config.web.config();
    assert!(!web.allow_private && web.allow_hosts.is_empty());
    assert!(web.deny_hosts[0].matches("ads.example"));
    let notice = loaded.notices.join("\n");
    assert!(
        notice.contains("web.allow_private = true")
            && notice.contains("web.allow_hosts = [\"169.254.169.254\"]"),
        "{notice}"
    );
}

#[test]
fn config_discovery_prefers_explicit_then_root_file() {
    let dir = tempfile::tempdir().unwrap();
    assert!(Config::discover(None, dir.path()).unwrap().mode.is_none());
    std::fs::write(dir.path().join("ptc.toml"), "mode = \"native\"\n").unwrap();
    assert_eq!(
        Config::discover(None, dir.path()).unwrap().mode,
        Some(ptc::ToolMode::Native)
    );
    let other = dir.path().join("other.toml");
    std::fs::write(&other, "mode = \"both\"\n").unwrap();
    assert_eq!(
        Config::discover(Some(&other), dir.path()).unwrap().mode,
        Some(ptc::ToolMode::Both)
    );
    let missing = Config::discover(Some(&dir.path().join("nope.toml")), dir.path()).unwrap_err();
    assert!(missing.to_string().contains("nope.toml"));
}

const POLICY: &str = r#"
[[policy]]
tool = "echo"
action = "deny"
match = { text = "^secret" }
reason = "no secrets"

[[policy]]
tool = "add"
action = "ask"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_policy_denies_native_calls_and_sub_calls_alike() {
    let registry = code_registry();
    Config::parse(POLICY, None)
        .unwrap()
        .policies
        .install(&registry);
    let native = registry
        .dispatch(ToolExecutionInput::new(
            "c",
            "echo",
            json!({"text": "secret x"}),
        ))
        .await;
    assert_eq!(native.error_code(), Some(codes::TOOL_DENIED));
    assert!(!registry
        .dispatch(ToolExecutionInput::new(
            "c",
            "echo",
            json!({"text": "fine"})
        ))
        .await
        .is_error());
    let r = run(
        &registry,
        "try { await tools.echo({text: 'secret x'}); return 'leaked' } catch (e) { return `${e.name} ${e.toolName}: ${e.message}` }",
    )
    .await;
    assert_eq!(r.text(), "ToolCallError echo: no secrets");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_ask_runs_only_when_approved_and_denies_without_a_terminal() {
    let registry = code_registry();
    Config::parse(POLICY, None)
        .unwrap()
        .policies
        .install(&registry);
    registry.set_approval(Arc::new(ptc_cli::terminal::TerminalApproval));
    let agent = || Agent::new(ScopeKey::root("a"));
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "add", json!({"a": 1, "b": 2})).with_agent(agent()))
        .await;
    assert_eq!(
        r.error_code(),
        Some(codes::TOOL_DENIED),
        "tests have no terminal attached"
    );
    registry.set_approval(Arc::new(|_: ApprovalRequest| async {
        ApprovalAnswer::AllowedOnce
    }));
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "add", json!({"a": 1, "b": 2})).with_agent(agent()))
        .await;
    assert_eq!(r.value().unwrap().as_f64(), Some(3.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_deny_rules_are_guards_that_other_listeners_cannot_undo() {
    let registry = code_registry();
    // an outer listener that short-circuits with allow, so the policy's own listener never runs
    registry.on_pre_execute(|_: Arc<ptc::ToolExecution>, _: ptc::PreNext| async {
        ptc::PreToolDecision::Allow
    });
    Config::parse(POLICY, None)
        .unwrap()
        .policies
        .install(&registry);
    let r = registry
        .dispatch(ToolExecutionInput::new(
            "c",
            "echo",
            json!({"text": "secret"}),
        ))
        .await;
    assert_eq!(r.error_code(), Some(codes::TOOL_DENIED));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_denied_write_inside_a_program_rejects_with_tool_call_error() {
    let root = tempfile::tempdir().unwrap();
    let registry = ptc::ToolRegistry::new();
    let ctx = ptc_packs::PackContext::new(root.path().to_path_buf());
    ptc_packs::register(&registry, "builtin", &ctx).unwrap();
    ptc::CodeExecutor::new(CodeConfig::default()).install(&registry);
    let policy = "[[policy]]\ntool = \"write\"\naction = \"deny\"\nnot_match = { file_path = \"^src/\" }\nreason = \"writes go under src/\"\n";
    Config::parse(policy, None)
        .unwrap()
        .policies
        .install(&registry);
    let r = run(
        &registry,
        r#"await tools.write({ file_path: "src/ok.txt", content: "fine" });
try {
  await tools.write({ file_path: "notes.txt", content: "nope" });
  return "written";
} catch (e) {
  return `${e instanceof ToolCallError} ${e.toolName}: ${e.message}`;
}"#,
    )
    .await;
    assert_eq!(r.text(), "true write: writes go under src/");
    assert!(root.path().join("src/ok.txt").exists());
    assert!(
        !root.path().join("notes.txt").exists(),
        "nothing was written outside src/"
    );
}

#[test]
fn config_declares_mcp_servers_and_names_the_line_of_a_bad_one() {
    let config = Config::parse(
        r#"
[[mcp]]
name = "everything"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { LOG_LEVEL = "warn" }

[[mcp]]
name = "fx"
command = "node"
timeout_ms = 500
"#,
        None,
    )
    .unwrap();
    assert_eq!(config.mcp.len(), 2);
    assert_eq!(config.mcp[0].name, "everything");
    assert_eq!(
        config.mcp[0].args,
        ["-y", "@modelcontextprotocol/server-everything"]
    );
    assert_eq!(config.mcp[0].env["LOG_LEVEL"], "warn");
    assert_eq!(config.mcp[1].timeout(), Duration::from_millis(500));

    let e = parse_err("\n[[mcp]]\nname = \"a.b\"\ncommand = \"node\"\n");
    assert!(e.starts_with("ptc.toml:2:") && e.contains("a.b"), "{e}");
    let e = parse_err(
        "[[mcp]]\nname = \"x\"\ncommand = \"node\"\n[[mcp]]\nname = \"x\"\ncommand = \"npx\"\n",
    );
    assert!(
        e.starts_with("ptc.toml:4:") && e.contains("two servers are named `x`"),
        "{e}"
    );
    let e = parse_err("[[mcp]]\nname = \"x\"\ncommand = \"node\"\nargv = []\n");
    assert!(e.starts_with("ptc.toml:4:") && e.contains("argv"), "{e}");
    let e = parse_err("[[mcp]]\nname = \"x\"\n");
    assert!(e.contains("command"), "{e}");
}

#[test]
fn config_declares_lsp_servers_names_the_line_of_a_bad_one_and_ignores_them_untrusted() {
    let config = Config::parse(
        "[[lsp]]\nname = \"go\"\ncommand = \"bin/gopls\"\nextensions = [\"go\"]\n",
        Some(std::path::Path::new("/etc/ptc/ptc.toml")),
    )
    .unwrap();
    assert_eq!(config.lsp.len(), 1);
    assert_eq!(config.lsp[0].command, "/etc/ptc/bin/gopls");
    assert_eq!(config.lsp[0].extensions, ["go"]);
    let e = parse_err("\n[[lsp]]\nname = \"go\"\ncommand = \"gopls\"\nextensions = []\n");
    assert!(
        e.starts_with("ptc.toml:2:") && e.contains("no `extensions`"),
        "{e}"
    );
    let e =
        parse_err("[[lsp]]\nname = \"go\"\ncommand = \"gopls\"\nextensions = [\"go\"]\nenv = {}\n");
    assert!(e.contains("env"), "{e}");

    // A workspace file a program could have written sets no command.
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = ptc_cli::config::TrustStore::new(home.path().join("trusted.toml"));
    std::fs::write(
        root.path().join("ptc.toml"),
        "[[lsp]]\nname = \"ts\"\ncommand = \"./evil.sh\"\nextensions = [\"ts\"]\n",
    )
    .unwrap();
    let loaded = Config::discover_trusted(None, root.path(), Some(&store)).unwrap();
    assert!(loaded.config.lsp.is_empty());
    let notice = loaded.notices.join("\n");
    assert!(
        notice.contains("[[lsp]] `ts`") && notice.contains("evil.sh"),
        "{notice}"
    );
}

#[test]
fn config_serve_table_sets_limits_rejects_zero_and_resolves_the_token_file() {
    let config = Config::parse(
        "[serve]\nmax_sessions = 3\nmax_concurrent_runs = 2\nmax_queued_runs = 0\n\
         header_timeout_ms = 1500\ntoken_file = \"secret/token\"\n",
        Some(std::path::Path::new("/etc/ptc/ptc.toml")),
    )
    .unwrap();
    let mut limits = ptc_mcp::ServeLimits::default();
    config.serve.apply(&mut limits);
    assert_eq!(limits.max_sessions, 3);
    assert_eq!(limits.max_concurrent_runs, 2);
    assert_eq!(limits.max_queued_runs, 0, "0: never wait");
    assert_eq!(limits.header_timeout, Duration::from_millis(1500));
    assert_eq!(
        limits.max_connections,
        ptc_mcp::ServeLimits::default().max_connections,
        "unset keys keep their defaults"
    );
    assert_eq!(
        config.serve.token_file.as_deref(),
        Some(std::path::Path::new("/etc/ptc/secret/token")),
        "relative to the configuration's folder"
    );
    for key in [
        "max_connections",
        "max_sessions",
        "session_idle_timeout_ms",
        "max_concurrent_runs",
        "header_timeout_ms",
        "idle_timeout_ms",
        "max_request_bytes",
    ] {
        let e = parse_err(&format!("mode = \"code\"\n[serve]\n{key} = 0\n"));
        assert!(
            e.starts_with("ptc.toml:3:") && e.contains(&format!("serve.{key} must be at least 1")),
            "{e}"
        );
    }
    let e = parse_err("[serve]\nmax_session = 3\n");
    assert!(
        e.starts_with("ptc.toml:2:") && e.contains("max_session"),
        "{e}"
    );
}

#[test]
fn config_tasks_and_terminals_set_caps_reject_zero_and_only_narrow_when_untrusted() {
    let config = Config::parse(
        "[tasks]\nmax_tasks = 3\nmax_wait_ms = 500\n[terminals]\nmax_terminals = 2\n\
         idle_timeout_ms = 60000\n",
        None,
    )
    .unwrap();
    let tasks = config.tasks.limits();
    assert_eq!(tasks.max_tasks, 3);
    assert_eq!(tasks.max_wait, Duration::from_millis(500));
    assert_eq!(
        tasks.max_output_bytes,
        ptc_packs::builtin::TaskLimits::default().max_output_bytes,
        "unset keys keep their defaults"
    );
    let terminals = config.terminals.limits();
    assert_eq!(terminals.max_terminals, 2);
    assert_eq!(terminals.idle_timeout, Duration::from_secs(60));
    for (table, key) in [
        ("tasks", "max_tasks"),
        ("tasks", "max_output_bytes"),
        ("tasks", "max_wait_ms"),
        ("terminals", "max_terminals"),
        ("terminals", "scrollback_bytes"),
        ("terminals", "idle_timeout_ms"),
        ("terminals", "max_lifetime_ms"),
    ] {
        let e = parse_err(&format!("mode = \"code\"\n[{table}]\n{key} = 0\n"));
        assert!(
            e.starts_with("ptc.toml:3:")
                && e.contains(&format!("{table}.{key} must be at least 1")),
            "{e}"
        );
    }
    let e = parse_err("[terminals]\nmax_terminal = 3\n");
    assert!(e.contains("max_terminal"), "{e}");

    // Inside an untrusted workspace: lower values apply, higher ones are dropped and named.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ptc.toml"),
        "[tasks]\nmax_tasks = 1000\nmax_wait_ms = 100\n[terminals]\nmax_lifetime_ms = 1000000000\n\
         max_terminals = 1\n",
    )
    .unwrap();
    let store = ptc_cli::config::TrustStore::new(std::env::temp_dir().join(format!(
        "ptc-config-test-{}/trusted.toml",
        std::process::id()
    )));
    let loaded = Config::discover_trusted(None, dir.path(), Some(&store)).unwrap();
    let (tasks, terminals) = (
        loaded.config.tasks.limits(),
        loaded.config.terminals.limits(),
    );
    assert_eq!(tasks.max_tasks, 16);
    assert_eq!(tasks.max_wait, Duration::from_millis(100));
    assert_eq!(terminals.max_terminals, 1);
    assert_eq!(
        terminals.max_lifetime,
        ptc_packs::builtin::TerminalLimits::default().max_lifetime
    );
    let notice = loaded.notices.join("\n");
    assert!(
        notice.contains("tasks.max_tasks = 1000 (above the default 16)"),
        "{notice}"
    );
    assert!(notice.contains("terminals.max_lifetime_ms"), "{notice}");
}

#[test]
fn config_skills_paths_resolve_against_the_file_and_replace_the_defaults() {
    let config = Config::parse(
        "[skills]\npaths = [\"team\", \"/srv/skills\"]\n",
        Some(std::path::Path::new("/etc/ptc/ptc.toml")),
    )
    .unwrap();
    let root = std::path::Path::new("/w");
    assert_eq!(
        config.skills.sources(root),
        [
            std::path::PathBuf::from("/etc/ptc/team"),
            "/srv/skills".into()
        ]
    );
    let defaults = Config::parse("", None).unwrap().skills.sources(root);
    assert!(defaults.ends_with(&["/w/.ptc/skills".into(), "/w/.claude/skills".into()]));
    assert!(parse_err("[skills]\npath = [\"x\"]\n").contains("unknown field `path`"));
}
