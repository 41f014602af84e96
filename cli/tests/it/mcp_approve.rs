//! Approvals through the MCP client: an `ask` policy under `ptc serve` asks the client's
//! person with `elicitation/create` (the official TypeScript SDK client, whose handler
//! allows once, allows for the session, denies, declines, cancels or never answers, and a
//! client without the capability), for native calls and `run_code` sub-calls alike; the
//! session log records each decision. And `ask_user_question` over the same client, and
//! in `ptc run` with no user attached.

use crate::mcp_support;

use std::path::PathBuf;

use mcp_support::{ptc_bin, run_client};
use ptc::session::{read_jsonl, SessionEvent};
use serde_json::{json, Value};

/// A serve setup in a temp dir: the workspace root `dir/workspace`, the operator's
/// `dir/ptc.toml` (an `ask` rule for `echo`, plus `extra`), the log `dir/log.jsonl`.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(extra: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("workspace")).unwrap();
        let config = format!(
            "tools = [\"testkit\", \"builtin\"]\n\n[[policy]]\ntool = \"echo\"\naction = \"ask\"\nreason = \"echo needs a person\"\n\n{extra}"
        );
        std::fs::write(dir.path().join("ptc.toml"), config).unwrap();
        Setup { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Run the client (`elicit` as its plan's answers, or none: no capability).
    fn run(&self, elicit: Option<Value>, steps: Value) -> Vec<Value> {
        let path = std::env::var("PATH").unwrap_or_default();
        let (root, config, log) = (
            self.path("workspace"),
            self.path("ptc.toml"),
            self.path("log.jsonl"),
        );
        let args = [
            "serve",
            "--mode",
            "both",
            "--root",
            root.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
        ];
        let mut plan = json!({
            "stdio": { "command": ptc_bin(), "args": args, "env": { "PATH": path } },
            "steps": steps,
        });
        if let Some(elicit) = elicit {
            plan["elicit"] = elicit;
        }
        run_client(&plan)
    }

    /// The approval decisions in the log: `(call id, decision)`.
    fn decisions(&self) -> Vec<(String, String)> {
        read_jsonl(self.path("log.jsonl"))
            .unwrap()
            .into_iter()
            .filter_map(|e| match e {
                SessionEvent::Approval {
                    call_id, decision, ..
                } => Some((call_id, decision)),
                _ => None,
            })
            .collect()
    }
}

fn echo(text: &str) -> Value {
    json!({ "call": "echo", "args": { "text": text } })
}

fn run_code(code: &str) -> Value {
    json!({ "call": "run_code", "args": { "code": code, "description": "a test program" } })
}

fn text(result: &Value) -> &str {
    result["text"].as_str().unwrap_or_default()
}

fn assert_denied(result: &Value, why: &str) {
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(result).contains("echo needs a person"), "{result}");
    assert!(text(result).contains(why), "expected `{why}` in {result}");
}

#[test]
fn allow_once_asks_for_every_call_and_the_form_shows_tool_reason_and_arguments() {
    let setup = Setup::new("");
    let out = setup.run(
        Some(json!("allow_once")),
        json!([echo("one"), echo("two"), { "elicitations": true }]),
    );
    assert_eq!(text(&out[0]), "one", "{}", out[0]);
    assert_eq!(text(&out[1]), "two", "{}", out[1]);
    let asked = out[2].as_array().unwrap();
    assert_eq!(asked.len(), 2, "{}", out[2]);
    let message = asked[0]["message"].as_str().unwrap();
    assert!(message.contains("echo needs a person"), "{message}");
    assert!(
        message.contains("`echo`") && message.contains("\"one\""),
        "{message}"
    );
    let choices: Vec<&str> = asked[0]["requestedSchema"]["properties"]["decision"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["const"].as_str().unwrap())
        .collect();
    assert_eq!(choices, ["allow_once", "allow_session", "deny"]);
    let decisions: Vec<String> = setup.decisions().into_iter().map(|(_, d)| d).collect();
    assert_eq!(decisions, ["allowed once", "allowed once"]);
}

#[test]
fn allow_for_this_session_is_asked_once_for_native_calls_and_sub_calls() {
    let setup = Setup::new("");
    let out = setup.run(
        Some(json!(["allow_session", "deny"])),
        json!([
            echo("one"),
            run_code("return await tools.echo({ text: \"two\" })"),
            echo("three"),
            { "elicitations": true },
        ]),
    );
    assert_eq!(text(&out[0]), "one", "{}", out[0]);
    assert_eq!(text(&out[1]), "two", "{}", out[1]);
    assert_eq!(text(&out[2]), "three", "{}", out[2]);
    assert_eq!(out[3].as_array().unwrap().len(), 1, "{}", out[3]);
    let decisions = setup.decisions();
    assert_eq!(decisions.len(), 3, "{decisions:?}");
    assert!(decisions
        .iter()
        .all(|(_, d)| d == "allowed for this session"));
    assert!(
        decisions[1].0.contains(":ptc:"),
        "a sub-call: {decisions:?}"
    );
}

#[test]
fn deny_decline_and_cancel_each_deny_saying_which() {
    let setup = Setup::new("");
    let out = setup.run(
        Some(json!(["deny", "decline", "cancel"])),
        json!([
            echo("one"),
            run_code(
                "try { await tools.echo({ text: \"two\" }); } catch (e) { return e.message; }"
            ),
            echo("three"),
        ]),
    );
    assert_denied(&out[0], "approval denied");
    assert_eq!(out[1]["isError"], false, "{}", out[1]);
    assert!(text(&out[1]).contains("declined by the user"), "{}", out[1]);
    assert_denied(&out[2], "cancelled by the user");
    let decisions: Vec<String> = setup.decisions().into_iter().map(|(_, d)| d).collect();
    assert_eq!(
        decisions,
        ["denied", "declined by the user", "cancelled by the user"]
    );
}

#[test]
fn an_unanswered_approval_times_out_as_configured() {
    let setup = Setup::new("[serve]\napproval_timeout_ms = 300\n");
    let out = setup.run(Some(json!("never")), json!([echo("one")]));
    assert_denied(&out[0], "timed out: no answer within 300 ms");
}

#[test]
fn a_client_without_the_elicitation_capability_is_never_asked() {
    let setup = Setup::new("");
    let out = setup.run(
        None,
        json!([
            echo("one"),
            run_code("return await tools.echo({ text: \"two\" })")
        ]),
    );
    assert_denied(&out[0], "did not declare the elicitation capability");
    assert_eq!(out[1]["isError"], true, "{}", out[1]);
    assert!(
        text(&out[1]).contains("did not declare the elicitation capability"),
        "{}",
        out[1]
    );
}

#[test]
fn waiting_for_a_person_does_not_count_against_the_run_wall_clock() {
    // The person answers after 1.5 s; the program may run for 1 s.
    let setup = Setup::new("[limits]\ntimeout_ms = 1000\n");
    let answer = json!({ "after_ms": 1500, "answer": "allow_once" });
    let out = setup.run(
        Some(answer),
        json!([run_code(
            "const a = await tools.echo({ text: \"late\" }); return a + \" but fine\";"
        )]),
    );
    assert_eq!(out[0]["isError"], false, "{}", out[0]);
    assert_eq!(text(&out[0]), "late but fine", "{}", out[0]);
}

fn questions() -> Value {
    json!([
        {
            "id": "mode", "question": "Which mode?", "header": "Mode",
            "options": [
                { "label": "Fast (Recommended)", "description": "Skips the slow checks." },
                { "label": "Safe" },
            ],
        },
        { "id": "name", "question": "Your name?" },
        {
            "id": "langs", "question": "Which languages?", "multi_select": true,
            "options": [{ "label": "Rust" }, { "label": "TS" }],
        },
    ])
}

#[test]
fn ask_user_question_asks_through_the_client_and_echoes_answers_by_id() {
    let setup = Setup::new("");
    let content = json!({ "content": { "mode": "Safe", "name": "Ada", "langs": ["Rust", "TS"] } });
    let ask = json!({ "call": "ask_user_question", "args": { "questions": questions() } });
    let program = format!(
        "const r = await tools.ask_user_question({{ questions: {} }}); \
         return r.answers.map((a) => a.id + '=' + a.answer.join('+')).join(' ');",
        questions()
    );
    let out = setup.run(
        Some(json!([content.clone(), content])),
        json!([ask, run_code(&program), { "elicitations": true }]),
    );
    assert_eq!(out[0]["isError"], false, "{}", out[0]);
    assert_eq!(
        out[0]["structured"],
        json!({ "answers": [
            { "id": "mode", "answer": ["Safe"] },
            { "id": "name", "answer": ["Ada"] },
            { "id": "langs", "answer": ["Rust", "TS"] },
        ] }),
        "{}",
        out[0]
    );
    assert_eq!(
        text(&out[1]),
        "mode=Safe name=Ada langs=Rust+TS",
        "{}",
        out[1]
    );
    let form = &out[2][0]["requestedSchema"];
    assert_eq!(form["required"], json!(["mode", "name", "langs"]), "{form}");
    assert_eq!(form["properties"]["mode"]["title"], "Mode", "{form}");
    assert_eq!(
        form["properties"]["mode"]["oneOf"][0]["const"],
        "Fast (Recommended)"
    );
    assert_eq!(form["properties"]["name"]["type"], "string", "{form}");
    assert_eq!(form["properties"]["langs"]["type"], "array", "{form}");
    assert_eq!(
        form["properties"]["langs"]["items"]["anyOf"][1]["const"],
        "TS"
    );
}

#[test]
fn ask_user_question_fails_clearly_when_declined_or_nobody_can_be_asked() {
    let ask = json!({ "call": "ask_user_question", "args": { "questions": questions() } });
    let setup = Setup::new("");
    let out = setup.run(Some(json!("decline")), json!([ask.clone()]));
    assert_eq!(out[0]["isError"], true, "{}", out[0]);
    assert!(text(&out[0]).contains("declined to answer"), "{}", out[0]);
    let out = setup.run(None, json!([ask]));
    assert_eq!(out[0]["isError"], true, "{}", out[0]);
    assert!(text(&out[0]).contains("no user is attached"), "{}", out[0]);
}

#[test]
fn ask_user_question_in_ptc_run_without_a_terminal_is_a_tool_error() {
    use std::io::Write;
    let setup = Setup::new("");
    let program =
        "return await tools.ask_user_question({ questions: [{ id: \"q\", question: \"Go?\" }] })";
    let mut child = std::process::Command::new(ptc_bin())
        .args(["run", "--tools", "builtin", "--root"])
        .arg(setup.path("workspace"))
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(program.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("no user is attached"), "{all}");
}

#[test]
fn over_http_approvals_reach_the_session_for_native_calls_and_sub_calls() {
    let setup = Setup::new("");
    let config = setup.path("ptc.toml");
    let server = mcp_support::serve::HttpServer::start(
        setup.dir.path(),
        &["--mode", "both", "--config", config.to_str().unwrap()],
        &[],
    );
    let out = run_client(&json!({
        "http": server.url,
        "elicit": ["allow_once", "deny"],
        "steps": [echo("one"), run_code("return await tools.echo({ text: \"two\" })")],
    }));
    assert_eq!(text(&out[0]), "one", "{}", out[0]);
    assert_eq!(out[1]["isError"], true, "{}", out[1]);
    assert!(text(&out[1]).contains("approval denied"), "{}", out[1]);
}
