//! The `ptc` command line contract: outputs and exit codes of `run`, `sdk` and `tools`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn ptc(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .current_dir(ptc_testing::repo())
        .spawn()
        .expect("ptc runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn cli_run_prints_model_view_and_exits_0() {
    let o = ptc(
        &["run", "--tools", "testkit", "examples/programs/errors.ts"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "fail failed: disk full\nfail failed: quota exceeded\nrecovered from 2 failures; answer = 42\n"
    );
}

#[test]
fn cli_run_reads_stdin_and_exits_1_on_error_result() {
    let o = ptc(
        &["run", "--tools", "testkit", "-"],
        Some("console.log('before');\nthrow new Error('boom')"),
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.starts_with("Error: code run failed (exception): run_code.ts:2:"),
        "{out}"
    );
    assert!(
        out.contains(": Error: boom\n 2 | throw new Error('boom')\n"),
        "{out}"
    );
    assert!(out.contains("Captured output:\nbefore"), "{out}");
}

#[test]
fn cli_run_json_prints_the_whole_result() {
    let o = ptc(
        &["run", "--tools", "testkit", "--json", "-"],
        Some("enum E { A }"),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["isError"], true);
    assert_eq!(v["error"]["info"]["code"], "CODE_RUN_FAILED");
    assert!(v["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Error: code run failed (syntax): run_code.ts:1:1: "));
}

#[test]
fn cli_usage_and_setup_errors_exit_2() {
    assert_eq!(ptc(&["run"], None).status.code(), Some(2));
    assert_eq!(
        ptc(&["run", "--bogus", "x.ts"], None).status.code(),
        Some(2)
    );
    let missing = ptc(
        &["run", "--tools", "testkit", "/nonexistent/program.ts"],
        None,
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read /nonexistent/program.ts"));
    let pack = ptc(&["run", "--tools", "nope", "-"], Some("return 1"));
    assert_eq!(pack.status.code(), Some(2));
    assert!(
        stderr(&pack).contains("unknown tool pack `nope`"),
        "{}",
        stderr(&pack)
    );
}

#[test]
fn cli_repeat_prints_stats_and_log_appends_events() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    let o = ptc(
        &[
            "run",
            "--tools",
            "testkit",
            "--repeat",
            "3",
            "--log",
            log.to_str().unwrap(),
            "-",
        ],
        Some("return (await tools.add({a: 1, b: 2})) + (await tools.add({a: 0, b: 0}))"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "3\n");
    let err = stderr(&o);
    assert!(
        err.contains("ptc runs=3 ") && err.contains(" tool_calls=2"),
        "{err}"
    );
    let events = ptc::session::read_jsonl(&log).unwrap();
    // per run: tool/call, 2 × (ptc-dispatch-start, ptc-dispatch), tool/result
    assert_eq!(events.len(), 3 * 6);
    assert_eq!(events[0].kind(), "tool/call");
    assert_eq!(events[5].kind(), "tool/result");
}

#[test]
fn cli_tools_lists_names_by_mode_and_exports_formats() {
    let names = |mode: &str| stdout(&ptc(&["tools", "--tools", "testkit", "--mode", mode], None));
    assert_eq!(names("native"), "add\ncounter\necho\nfail\nsleep\n");
    assert_eq!(names("code"), "run_code\n");
    assert_eq!(names("both"), "add\ncounter\necho\nfail\nsleep\nrun_code\n");
    for (format, key) in [
        ("openai", "/0/function/parameters"),
        ("anthropic", "/0/input_schema"),
        ("mcp", "/0/inputSchema"),
    ] {
        let o = ptc(
            &[
                "tools", "--tools", "testkit", "--mode", "native", "--json", "--format", format,
            ],
            None,
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v.pointer(key).unwrap()["type"], "object", "{format}");
    }
}

#[test]
fn cli_sdk_prints_declarations() {
    let o = ptc(&["sdk", "--tools", "testkit", "--mode", "code"], None);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("declare const tools"), "{out}");
    assert!(
        out.contains("run_code"),
        "code-only guidance mentions run_code"
    );
    assert_eq!(
        ptc(&["sdk", "--mode", "native"], None).status.code(),
        Some(2)
    );
}

#[test]
fn cli_trace_reports_each_sub_call() {
    let o = ptc(
        &["run", "--tools", "testkit", "--trace", "-"],
        Some("await tools.echo({text: 'x'}); return 1"),
    );
    let err = stderr(&o);
    assert!(
        err.contains("-1:ptc:1 echo") && err.contains("run-") && err.contains(" ok"),
        "{err}"
    );
}

#[test]
fn cli_run_streams_console_output_live_to_stderr() {
    let o = ptc(
        &["run", "--tools", "testkit", "-"],
        Some("console.log('first'); console.warn('second'); return 'value'"),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "first\nwarn: second\n");
    assert_eq!(stdout(&o), "first\nwarn: second\nvalue\n");
}

#[test]
fn cli_mcp_flag_adds_a_servers_tools_and_bad_declarations_exit_2() {
    let fixture = format!(
        "fx=node {}/tests/mcp/fixture-server.mjs",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = ptc(
        &["run", "--mcp", &fixture, "-"],
        Some("return await tools.fx__weather({ city: 'Oslo' })"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap(),
        serde_json::json!({"city": "Oslo", "celsius": 21.5})
    );
    // The schema outside the subset is reported once, on one line.
    let warnings: Vec<_> = stderr(&o)
        .lines()
        .filter(|l| l.starts_with("ptc: warning: fx__bounded:"))
        .map(str::to_string)
        .collect();
    assert_eq!(warnings.len(), 1, "{}", stderr(&o));
    assert!(warnings[0].contains("multipleOf"), "{}", warnings[0]);

    // `ptc sdk` counts the tools with untyped arguments, after the per-tool warnings.
    let o = ptc(&["sdk", "--mode", "code", "--mcp", &fixture], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    let warning = lines
        .iter()
        .position(|l| l.starts_with("ptc: warning: fx__bounded:"));
    let count = lines
        .iter()
        .position(|l| l.starts_with("ptc: 1 of ") && l.contains(" tools have untyped arguments"));
    assert!(
        matches!((warning, count), (Some(w), Some(c)) if w < c),
        "{err}"
    );

    let o = ptc(&["tools", "--mode", "native", "--mcp", &fixture], None);
    assert!(stdout(&o).lines().any(|l| l == "fx__pid"), "{}", stdout(&o));

    for (flag, message) in [
        ("nameonly", "expected NAME=COMMAND"),
        ("x=", "the command is empty"),
        ("bad.name=node x.js", "may only hold"),
    ] {
        let o = ptc(&["tools", "--mcp", flag], None);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{flag}: {}", stderr(&o));
    }
    // A server that cannot start is left out, named; --strict-mcp makes it an error.
    let ghost = "ghost=/nonexistent/server";
    let message = "MCP server `ghost` could not be started";
    let o = ptc(&["tools", "--tools", "testkit", "--mcp", ghost], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(message), "{}", stderr(&o));
    assert!(stdout(&o).lines().any(|l| l == "echo"), "{}", stdout(&o));
    let o = ptc(&["tools", "--strict-mcp", "--mcp", ghost], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(message), "{}", stderr(&o));
}

#[test]
fn cli_readme_shows_what_ptc_sdk_prints() {
    let readme = std::fs::read_to_string(ptc_testing::repo().join("README.md")).expect("README.md");
    let section = &readme[readme
        .find("## What a model sees")
        .expect("README has a \"What a model sees\" section")..];
    let fence = "````markdown\n";
    let start = section.find(fence).expect("a ````markdown block") + fence.len();
    let end = start + section[start..].find("\n````\n").expect("its end") + 1;
    let o = ptc(&["sdk", "--tools", "testkit", "--mode", "code"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        &section[start..end],
        stdout(&o),
        "README's block is stale: paste the output of `ptc sdk --tools testkit --mode code`"
    );
}

#[test]
fn cli_unknown_arguments_are_refused_unless_the_operator_allows_them() {
    let program = "return await tools.echo({ text: 'hi', loud: true })";
    let o = ptc(&["run", "--tools", "testkit", "-"], Some(program));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(
            "Invalid arguments for tool echo: /loud: unknown argument; the arguments are: text"
        ),
        "{}",
        stdout(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("ptc.toml");
    std::fs::write(&config, "unknown_arguments = \"allow\"\n").unwrap();
    let o = ptc(
        &[
            "run",
            "--tools",
            "testkit",
            "--config",
            config.to_str().unwrap(),
            "-",
        ],
        Some(program),
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), "hi\n");
}

#[test]
fn cli_run_applies_the_web_section_to_web_fetch() {
    use std::io::{BufRead, BufReader};
    // One local page, served once, to the run whose configuration allows its host.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hello", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(&stream);
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap() > 2 {
            line.clear();
        }
        let body = "<main><h1>Hello from the web</h1></main>";
        write!(
            &stream,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
    });
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let program = format!("return (await tools.web_fetch({{ url: {url:?} }})).text;");
    let run = |config: &str| {
        let file = tmp.path().join("ptc.toml");
        std::fs::write(&file, config).unwrap();
        let args = [
            "run",
            "--tools",
            "builtin",
            "--root",
            root.to_str().unwrap(),
        ];
        let config_args = ["--config", file.to_str().unwrap(), "-"];
        ptc(&[&args[..], &config_args[..]].concat(), Some(&program))
    };
    let refused = run("");
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stdout(&refused).contains("`127.0.0.1` is a loopback address"),
        "{}",
        stdout(&refused)
    );
    let allowed = run("[web]\nallow_hosts = [\"127.0.0.1\"]\n");
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    // The text (one line and its newline), then the newline `run` ends its output with.
    assert_eq!(stdout(&allowed), "# Hello from the web\n\n");
    server.join().unwrap();
}

/// Processes whose working directory is under `root`.
fn processes_in(root: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cwd = std::fs::read_link(entry.path().join("cwd"));
        if cwd.is_ok_and(|c| c.starts_with(root)) {
            let cmdline = std::fs::read_to_string(entry.path().join("cmdline")).unwrap_or_default();
            found.push(cmdline.replace('\0', " "));
        }
    }
    found
}

#[test]
fn cli_run_answers_lsp_from_an_lsp_server_of_the_config_and_leaves_none_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("root");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/util.ts"),
        "export const answer: number = 42;\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/main.ts"),
        "import { answer } from \"./util\";\nconsole.log(answer);\n",
    )
    .unwrap();
    let server = ptc_testing::repo().join("node_modules/.bin/typescript-language-server");
    assert!(
        server.exists(),
        "{} is missing: run `npm ci`",
        server.display()
    );
    let config = base.join("ptc.toml");
    std::fs::write(
        &config,
        format!(
            "[[lsp]]\nname = \"ts\"\ncommand = \"{}\"\nargs = [\"--stdio\"]\nextensions = [\"ts\"]\n",
            server.display()
        ),
    )
    .unwrap();
    let program = base.join("hover.ts");
    std::fs::write(
        &program,
        "const h = await tools.lsp({ operation: \"hover\", file_path: \"src/main.ts\", line: 2, character: 14 });\nreturn h.markdown;\n",
    )
    .unwrap();
    let (root_arg, config_arg, program_arg) = (
        root.display().to_string(),
        config.display().to_string(),
        program.display().to_string(),
    );
    let o = ptc(
        &[
            "run",
            "--tools",
            "builtin",
            "--root",
            &root_arg,
            "--config",
            &config_arg,
            &program_arg,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("const answer: number"),
        "{}",
        stdout(&o)
    );
    // `ptc run` returned: its server, and all the server started, are gone with it.
    assert_eq!(processes_in(&root), Vec::<String>::new());
}

#[test]
fn cli_run_intl_missing_locale_data_prints_nothing_to_stderr() {
    // fr-CH has no CHF symbol of its own in ICU4X's data (CLDR prints the ISO code): ICU4X's
    // debug-build log of that lookup must not reach stderr, which the model never sees.
    let o = ptc(
        &["run", "--tools", "testkit", "-"],
        Some(
            "return new Intl.NumberFormat('fr-CH', { style: 'currency', currency: 'CHF' })\
             .format(69.93)",
        ),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("69.93\u{a0}CHF"), "{:?}", stdout(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn cli_run_with_otlp_starts_its_exporter_beside_web_fetchs_tls() {
    // web_fetch's rustls (no default provider) is the OTLP exporter's reqwest's too: the
    // exporter's client must still build (it panicked before the CLI installed ring).
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("one.ts");
    std::fs::write(&program, "return 1").unwrap();
    let o = ptc(
        &[
            "run",
            "--otlp",
            "http://127.0.0.1:9/v1/traces",
            program.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("exporter initialization failed"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

#[test]
fn cli_run_says_which_background_task_it_stopped_as_it_exited() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let root_arg = root.display().to_string();
    let program =
        "const t = await tools.bash({ command: 'sleep 60', description: 'Wait a minute', \
                   run_in_background: true });\nconsole.log(t.task_id);\nreturn 'started';";
    let o = ptc(
        &["run", "--tools", "builtin", "--root", &root_arg, "-"],
        Some(program),
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    let id = out.lines().next().unwrap();
    assert!(id.starts_with("task-"), "{out}");
    assert!(
        out.ends_with(&format!(
            "started\n[stopped] background task {id} (Wait a minute) was still running when ptc \
             run exited, so it was stopped\n"
        )),
        "{out}"
    );
    let o = ptc(
        &[
            "run", "--tools", "builtin", "--root", &root_arg, "--json", "-",
        ],
        Some(program),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let stopped = v["stopped"].as_array().unwrap();
    assert_eq!(stopped.len(), 1, "{v}");
    assert!(
        stopped[0]
            .as_str()
            .unwrap()
            .ends_with("(Wait a minute) was still running when ptc run exited, so it was stopped"),
        "{v}"
    );
    // A task that ended by itself is not named.
    let done = "await tools.bash({ command: 'true', description: 'Quick', run_in_background: \
                true });\nawait new Promise((r) => setTimeout(r, 500));\nreturn 'ok';";
    let o = ptc(
        &["run", "--tools", "builtin", "--root", &root_arg, "-"],
        Some(done),
    );
    assert_eq!(stdout(&o), "ok\n", "{}", stderr(&o));
}
