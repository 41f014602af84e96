//! The `builtin` pack as a whole: loading it by name, the seed catalog's parameter
//! schemas, scheduling flags, a missing root, the typed SDK, and programs that a model
//! would write against it running through `run_code` (and type-checking).

use crate::builtin_support;
use ptc_testing::tsc as tsc_support;

use std::path::Path;
use std::sync::Arc;

use crate::web_server::{Reply, Server};
use builtin_support::Fixture;
use ptc::{
    Agent, CodeConfig, CodeExecutor, ScopeKey, ToolBatchInput, ToolCallBlock, ToolMode,
    ToolRegistry,
};
use ptc_packs::builtin::{self, TOOLS};
use ptc_packs::{PackContext, PackError, PACKS};
use serde_json::{json, Value};
use tsc_support::TsProject;

/// The seed catalog's parameter schemas (plus `terminal_read`'s `wait` and `timeout_ms`,
/// `web_fetch`'s `offset`, `write`'s `exact`, `terminal_open`'s backends as an enum, and `x-mcp-header` on every parameter that carries a handle, so
/// load balancers route on it).
fn seed_parameters() -> Vec<(&'static str, Value)> {
    vec![
        (
            "read",
            json!({"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path of the file, resolved by the filesystem backend."},
                "offset": {"type": "number", "description": "1-based first line to return. Defaults to 1."},
                "limit": {"type": "number", "description": "Maximum number of lines to return (default 2000; all in run_code)."}
            }, "required": ["file_path"]}),
        ),
        (
            "write",
            json!({"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path of the file, resolved by the filesystem backend."},
                "content": {"type": "string", "description": "Full UTF-8 text content to write."},
                "exact": {"type": "boolean", "description": "Write content byte for byte (to change line endings, or drop a BOM)."}
            }, "required": ["file_path", "content"]}),
        ),
        (
            "edit",
            json!({"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path of the file, resolved by the filesystem backend."},
                "old_string": {"type": "string", "description": "Literal text to replace. Must match exactly."},
                "new_string": {"type": "string", "description": "Literal replacement text. Use an empty string to delete the match."},
                "replace_all": {"type": "boolean", "description": "Replace all matches. Defaults to false; when false, old_string must appear exactly once."}
            }, "required": ["file_path", "old_string", "new_string"]}),
        ),
        (
            "glob",
            json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "Glob pattern to match file paths against (e.g. \"**/*.ts\", \"src/**/*.test.js\"); `*` stays within one folder."},
                "path": {"type": "string", "description": "Where to search. Defaults to the session workspace; a relative path resolves against it."},
                "offset": {"type": "number", "description": "Entries to skip, to page past a capped result."}
            }, "required": ["pattern"]}),
        ),
        (
            "grep",
            json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for (ripgrep syntax)."},
                "path": {"type": "string", "description": "Where to search. Defaults to the session workspace; a relative path resolves against it."},
                "include": {"type": "string", "description": "One glob filter for which files to search (e.g. \"*.ts\", \"*.{js,jsx}\"). Not a list; negation is not supported."},
                "offset": {"type": "number", "description": "Entries to skip, to page past a capped result."}
            }, "required": ["pattern"]}),
        ),
        (
            "bash",
            json!({"type": "object", "properties": {
                "command": {"type": "string", "description": "The bash command to execute."},
                "description": {"type": "string", "description": "Clear, concise description of what this command does in active voice, 5-10 words (shown in the UI). Examples: \"ls\" → \"List files in current directory\"; \"git status\" → \"Show working tree status\"; \"npm install\" → \"Install package dependencies\"."},
                "timeoutMs": {"type": "number", "description": "Timeout in milliseconds. The executor applies its configured default and cap, and kills the command on expiry."},
                "workdir": {"type": "string", "description": "Working directory for this command. Defaults to the session workspace; a relative path is resolved against it."},
                "run_in_background": {"type": "boolean", "description": "Run in the background and return a task id immediately (collect with task_output, stop with task_kill)."}
            }, "required": ["command", "description"]}),
        ),
        (
            "todo_write",
            json!({"type": "object", "properties": {
                "todos": {"type": "array", "description": "The COMPLETE task list, replacing any previous list.", "items": {
                    "type": "object", "additionalProperties": false, "properties": {
                        "content": {"type": "string", "description": "What the task is — a short imperative line."},
                        "status": {"type": "string", "description": "pending (not started) | in_progress (now) | completed (done).", "enum": ["pending", "in_progress", "completed"]}
                    }, "required": ["content", "status"]}}
            }, "required": ["todos"]}),
        ),
        ("task_list", json!({"type": "object", "properties": {}})),
        (
            "task_output",
            json!({"type": "object", "properties": {
                "task_id": {"type": "string", "description": "Task id returned by the tool that started the background work.", "x-mcp-header": "Ptc-Route"},
                "wait": {"type": "boolean", "description": "Block until the task reaches a terminal status or the timeout expires. A timed-out wait returns [status: running] and leaves the task alive."},
                "timeout_ms": {"type": "number", "description": "Max wait in milliseconds (only meaningful with wait: true). Defaults to the configured wait timeout; capped by the configured maximum."}
            }, "required": ["task_id"]}),
        ),
        (
            "task_kill",
            json!({"type": "object", "properties": {
                "task_id": {"type": "string", "description": "Task id returned by the tool that started the background work.", "x-mcp-header": "Ptc-Route"},
                "reason": {"type": "string", "description": "Optional short reason, recorded in the log and forwarded to the task."}
            }, "required": ["task_id"]}),
        ),
        (
            "terminal_open",
            json!({"type": "object", "properties": {
                "type": {"type": "string", "enum": ["shell", "bash", "sh", "python", "node"], "description": "Registered terminal backend type, usually \"shell\"."},
                "name": {"type": "string", "description": "Optional owner-local display name such as \"main\" or \"gdb\"."},
                "cwd": {"type": "string", "description": "Initial working directory. Defaults to the deployment workspace root."}
            }, "required": ["type"]}),
        ),
        (
            "terminal_send",
            json!({"type": "object", "properties": {
                "sessionId": {"type": "string", "description": "Terminal session id.", "x-mcp-header": "Ptc-Route"},
                "text": {"type": "string", "description": "UTF-8 text to write to the terminal."},
                "submit": {"type": "boolean", "description": "Submit Enter after text (default true). Set false for control characters or incomplete REPL input."},
                "run_in_background": {"type": "boolean", "description": "Run in the background and return a task id immediately (collect with task_output, stop with task_kill)."}
            }, "required": ["sessionId", "text"]}),
        ),
        (
            "terminal_read",
            json!({"type": "object", "properties": {
                "sessionId": {"type": "string", "description": "Terminal session id.", "x-mcp-header": "Ptc-Route"},
                "offset": {"type": "number", "description": "Newest-relative line offset (default 0)."},
                "count": {"type": "number", "description": "Requested line count (default 500; backend caps apply)."},
                "wait": {"type": "boolean", "description": "With offset 0: when nothing is unread, block until new output settles, the terminal exits, or the timeout expires."},
                "timeout_ms": {"type": "number", "description": "Max wait in milliseconds (only meaningful with wait: true). Defaults to the configured wait timeout; capped by the configured maximum."}
            }, "required": ["sessionId"]}),
        ),
        ("terminal_list", json!({"type": "object", "properties": {}})),
        (
            "terminal_signal",
            json!({"type": "object", "properties": {
                "sessionId": {"type": "string", "description": "Terminal session id.", "x-mcp-header": "Ptc-Route"},
                "signal": {"type": "string", "description": "Signal to deliver. Shell-targeted SIGQUIT is rejected; use terminal_close.", "enum": ["SIGINT", "SIGQUIT", "SIGTSTP"]}
            }, "required": ["sessionId", "signal"]}),
        ),
        (
            "terminal_close",
            json!({"type": "object", "properties": {
                "sessionId": {"type": "string", "description": "Terminal session id.", "x-mcp-header": "Ptc-Route"}
            }, "required": ["sessionId"]}),
        ),
        (
            "lsp",
            json!({"type": "object", "properties": {
                "operation": {"type": "string", "description": "What to ask.", "enum": [
                    "goToDefinition", "findReferences", "goToImplementation", "hover",
                    "documentSymbol", "workspaceSymbol", "diagnostics"]},
                "file_path": {"type": "string", "description": "The source file to query, relative to the workspace or absolute."},
                "line": {"type": "number", "description": "One-based line of the cursor."},
                "character": {"type": "number", "description": "One-based UTF-16 column of the cursor."},
                "query": {"type": "string", "description": "workspaceSymbol: the name to look for."}
            }, "required": ["operation", "file_path"]}),
        ),
        (
            "ask_user_question",
            json!({"type": "object", "properties": {
                "questions": {"type": "array", "description": "Questions to ask the user before continuing.", "items": {
                    "type": "object", "additionalProperties": false, "properties": {
                        "id": {"type": "string", "description": "Stable id for this question; echoed in the answer."},
                        "question": {"type": "string", "description": "The specific question to ask the user."},
                        "header": {"type": "string", "description": "Optional short heading for the question, such as \"Confirm\" or \"Choose Mode\"."},
                        "options": {"type": "array", "description": "Optional choices to show the user. If you recommend one, put it first and append \"(Recommended)\" to that label.", "items": {
                            "type": "object", "additionalProperties": false, "properties": {
                                "label": {"type": "string", "description": "Short user-facing option label."},
                                "description": {"type": "string", "description": "One sentence explaining the tradeoff or impact."}
                            }, "required": ["label"]}},
                        "multi_select": {"type": "boolean", "description": "Whether the user may select more than one option. Defaults to false."}
                    }, "required": ["id", "question"]}}
            }, "required": ["questions"]}),
        ),
        (
            "skill",
            json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "The exact skill name from the available skills list."},
                "file": {"type": "string", "description": "One of the skill's `files`, to read it."}
            }, "required": ["name"]}),
        ),
        (
            "web_fetch",
            json!({"type": "object", "properties": {
                "url": {"type": "string", "description": "The HTTP(S) URL to fetch."},
                "offset": {"type": "number", "description": "1-based first line to return. Defaults to 1."}
            }, "required": ["url"]}),
        ),
    ]
}

/// The context for `root` with the example skills (so the pack has its `skill` tool).
fn with_a_skill(root: &Path) -> PackContext {
    let mut ctx = PackContext::new(root.to_path_buf());
    let examples = ptc_testing::repo().join("examples/skills");
    let found = ptc_packs::skills::discover(&[examples], &[]);
    ctx.skills = ptc_packs::skills::SkillCatalog::new(found.skills);
    ctx
}

#[test]
fn builtin_parameters_are_the_seed_catalogs() {
    let f = Fixture::new();
    let defs = builtin::tools(&with_a_skill(&f.root)).unwrap();
    let names: Vec<&str> = defs.iter().map(|d| d.name()).collect();
    assert_eq!(names, TOOLS);
    for (name, expected) in seed_parameters() {
        let def = defs.iter().find(|d| d.name() == name).unwrap();
        // Key order aside, the schemas are equal.
        assert_eq!(def.parameters(), &expected, "{name}");
        assert!(!def.description().is_empty(), "{name}");
        assert_ne!(
            def.output().schema(),
            &json!({}),
            "{name} has a typed output"
        );
    }
}

#[test]
fn builtin_loads_by_name_and_refuses_a_missing_root() {
    assert!(PACKS.contains(&"builtin"));
    let f = Fixture::new();
    let registry = ToolRegistry::new();
    ptc_packs::register_list(&registry, "builtin, testkit", &with_a_skill(&f.root)).unwrap();
    for name in TOOLS {
        assert!(registry.view(None, None).get(name).is_some(), "{name}");
    }
    let missing = f.root.join("missing");
    let err = ptc_packs::register(
        &ToolRegistry::new(),
        "builtin",
        &PackContext::new(missing.clone()),
    )
    .unwrap_err();
    assert!(matches!(err, PackError::Setup(_)), "{err:?}");
    assert!(
        err.to_string().contains(&missing.display().to_string()),
        "{err}"
    );
    f.file("file.txt", "");
    let err = builtin::Builtin::new(&PackContext::new(f.root.join("file.txt"))).unwrap_err();
    assert!(err.to_string().contains("is not a directory"), "{err}");
}

#[test]
fn builtin_read_only_tools_are_concurrency_safe_and_mutating_ones_exclusive() {
    let f = Fixture::new();
    let args = json!({});
    for name in ["read", "glob", "grep", "lsp"] {
        assert!(
            f.concurrency_safe(name, &args),
            "{name} should be concurrency-safe"
        );
    }
    for name in ["write", "edit", "bash", "todo_write"] {
        assert!(
            !f.concurrency_safe(name, &args),
            "{name} should be exclusive"
        );
    }
}

#[test]
fn builtin_sdk_declares_typed_outputs() {
    let f = Fixture::new();
    let sdk = CodeExecutor::declarations(&f.registry.view(None, None).executable_definitions());
    for snippet in [
        "total_lines: number;",
        "next_offset?: number;",
        "replacements: number;",
        "paths: string[];",
        "exit_code?: number;",
        "status: \"pending\" | \"in_progress\" | \"completed\";",
        "task_id?: string;",
        "state: \"running\" | \"stopping\" | \"exited\" | \"killed\" | \"done\";",
        "dropped_bytes: number;",
        "answers: { id: string; answer: string[] }[]",
        "until: \"prompt\" | \"input\" | \"output\" | \"silence\" | \"timeout\" | \"exit\"",
        "locations?: { path: string; line: number; character: number; text: string }[]",
    ] {
        assert!(sdk.contains(snippet), "missing `{snippet}` in:\n{sdk}");
    }
    let outputs = &sdk[sdk.find("interface ToolOutputMap").unwrap()..];
    assert!(
        !outputs.contains("JsonValue"),
        "an untyped output:\n{outputs}"
    );
}

/// `tools` as OpenAI function tools, compact JSON: the size a model API is sent.
fn openai_bytes(tools: &[ptc::ListedTool]) -> usize {
    let list: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.schema.name, "description": t.schema.description, "parameters": t.schema.parameters
            }})
        })
        .collect();
    serde_json::to_string(&list).unwrap().len()
}

/// Bytes of `tools` as an Anthropic Messages API tool list (compact JSON).
fn anthropic_bytes(tools: &[ptc::ListedTool]) -> usize {
    let list: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "name": t.schema.name, "description": t.schema.description,
                "input_schema": t.schema.parameters
            })
        })
        .collect();
    serde_json::to_string(&list).unwrap().len()
}

#[test]
fn builtin_descriptions_are_true_in_code_mode_and_the_code_list_is_lean() {
    let f = Fixture::new();
    let registry = code_registry(&f.root);
    registry.set_mode(ToolMode::Code);
    let listed = registry.view(None, None).listed_tools().unwrap();
    let text = &listed[0].schema.description;
    // Descriptions written for native rendering are not shown next to typed results.
    for native in [
        "line-numbered",
        "[exit code",
        "inline",
        "grouped by file",
        "stdout/stderr",
        "Long output is truncated",
    ] {
        assert!(!text.contains(native), "{native:?} in:\n{text}");
    }
    // Examples reach the model exactly as written.
    assert!(
        text.contains(
            r#"// Glob pattern to match file paths against (e.g. "**/*.ts", "src/**/*.test.js"); `*` stays within one folder."#
        ),
        "{text}"
    );
    assert!(!text.contains("*\\/") && !text.contains("/\\*"), "{text}");
    for (tool, code) in [
        (
            "read",
            "// Read a text file (≤ 8 MiB per call); if `truncated`, go on from `next_offset`.\nread: {",
        ),
        (
            "bash",
            "A non-zero exit is a result, not an error; a timeout rejects",
        ),
        ("grep", "Entries to skip, to page past a capped result."),
        ("glob", "Entries to skip, to page past a capped result."),
        ("todo_write", "The COMPLETE task list, replacing any previous list."),
    ] {
        assert!(text.contains(code), "{tool}: {code:?} in:\n{text}");
        let def = registry.view(None, None).get(tool).unwrap();
        assert_ne!(def.code_description(), def.description(), "{tool}");
    }
    // Every argument is closed: no open record on any tool's arguments.
    let args = &text[text.find("interface ToolArgsMap").unwrap()
        ..text.find("interface ToolOutputMap").unwrap()];
    assert!(!args.contains("\n} & Record<string, JsonValue>;"), "{args}");

    // Native schemas keep the native descriptions.
    registry.set_mode(ToolMode::Native);
    let native = registry.view(None, None).listed_tools().unwrap();
    let read = native.iter().find(|t| t.schema.name == "read").unwrap();
    assert_eq!(
        read.schema.description,
        "Read a text file and return line-numbered content."
    );

    // Size: the code-mode list (run_code with its SDK) at most the native list of the same
    // tools, in both the OpenAI and the Anthropic format (benches/sdk_size.sh prints the
    // OpenAI figure).
    for (format, bytes) in [
        ("openai", openai_bytes as fn(&[ptc::ListedTool]) -> usize),
        ("anthropic", anthropic_bytes),
    ] {
        let (code, native) = (bytes(&listed), bytes(&native));
        assert!(
            code <= native,
            "{format}: code-mode list {code} bytes vs native {native} bytes: {:.3}x",
            code as f64 / native as f64
        );
    }
}

/// Run `code` as a `run_code` call of the registry (code mode `both`).
pub(crate) async fn run_code(registry: &ToolRegistry, code: &str) -> (bool, String) {
    let mut input = ToolBatchInput::new(vec![ToolCallBlock::new(
        "call-1",
        "run_code",
        json!({"code": code, "description": "example program over the workspace"}),
    )]);
    input.agent = Some(Agent::new(ScopeKey::root("agent")));
    let result = registry
        .execute(input)
        .await
        .unwrap()
        .results
        .remove(0)
        .result;
    (result.is_error(), ptc::content_text(&result.content))
}

fn code_registry(root: &Path) -> ToolRegistry {
    code_registry_with(PackContext::new(root.to_path_buf()))
}

fn code_registry_with(ctx: PackContext) -> ToolRegistry {
    let registry = ToolRegistry::new();
    builtin::register(&registry, &ctx).unwrap();
    CodeExecutor::new(CodeConfig::default()).install(&registry);
    registry.set_mode(ToolMode::Both);
    registry
}

pub(crate) fn example(name: &str) -> String {
    let path = ptc_testing::repo()
        .join("examples/programs/builtin")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// A small source tree with TODOs and a symbol to rename.
fn source_tree(f: &Fixture) {
    f.file(
        "src/main.ts",
        "import { oldName } from \"./util\";\n// TODO: handle errors\nexport const a = oldName(1) + oldNameCount;\n// FIXME: remove\n// TODO: and this\n",
    );
    f.file(
        "src/util.ts",
        "export function oldName(x: number) { return x; }\nexport const oldNameCount = 0; // TODO rename?\n",
    );
    f.file("docs/notes.md", "oldName\noldName\nnothing to do\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_todo_summary_program_runs_through_run_code() {
    let f = Fixture::new();
    source_tree(&f);
    let registry = code_registry(&f.root);
    let (failed, text) = run_code(&registry, &example("todos.ts")).await;
    assert!(!failed, "{text}");
    assert!(
        text.contains("   3  src/main.ts  (first: 2: // TODO: handle errors)"),
        "{text}"
    );
    assert!(
        text.contains(
            "   1  src/util.ts  (first: 2: export const oldNameCount = 0; // TODO rename?)"
        ),
        "{text}"
    );
    assert!(text.contains("\"total\": 4"), "{text}");
    assert!(text.contains("\"complete\": true"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_rename_program_renames_whole_words_only() {
    let f = Fixture::new();
    source_tree(&f);
    let registry = code_registry(&f.root);
    let (failed, text) = run_code(&registry, &example("rename.ts")).await;
    assert!(!failed, "{text}");
    assert!(text.contains("\"remaining\": 0"), "{text}");
    assert_eq!(
        f.read("src/main.ts"),
        "import { newName } from \"./util\";\n// TODO: handle errors\nexport const a = newName(1) + oldNameCount;\n// FIXME: remove\n// TODO: and this\n"
    );
    assert!(f
        .read("src/util.ts")
        .starts_with("export function newName(x: number)"));
    assert!(f.read("src/util.ts").contains("oldNameCount"));
    assert_eq!(f.read("docs/notes.md"), "newName\nnewName\nnothing to do\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_command_program_parses_wc_output() {
    let f = Fixture::new();
    source_tree(&f);
    let registry = code_registry(&f.root);
    let (failed, text) = run_code(&registry, &example("command.ts")).await;
    assert!(!failed, "{text}");
    assert!(
        text.contains(".ts            2 files        7 lines"),
        "{text}"
    );
    assert!(
        text.contains(".md            1 files        3 lines"),
        "{text}"
    );
    assert!(text.contains("\"files\": 3"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_web_fetch_program_summarises_a_local_pages_headings() {
    let server = Server::start(|_| {
        Reply::ok(
            "text/html",
            "<html><body><nav><h2>Menu</h2></nav><main><h1>Guide</h1>\
             <h2>Install</h2><h3>Linux</h3><h3>macOS</h3><pre><code># not a heading</code></pre>\
             <h2>Use</h2><h3>Programs</h3></main></body></html>",
        )
    })
    .await;
    let f = Fixture::new();
    let mut ctx = PackContext::new(f.root.clone());
    ctx.web.allow_hosts = vec![builtin::HostPattern::parse("127.0.0.1").unwrap()];
    let registry = code_registry_with(ctx);
    let program = example("web_fetch.ts").replace(
        "http://127.0.0.1:8000/guide.html",
        &server.url("/guide.html"),
    );
    let (failed, text) = run_code(&registry, &program).await;
    assert!(!failed, "{text}");
    assert!(
        text.contains("- Guide\n  - Install\n    - Linux\n    - macOS\n  - Use\n    - Programs\n"),
        "{text}"
    );
    assert!(text.contains("\"headings\": 6"), "{text}");
    assert!(text.contains("\"Install\": 2"), "{text}");
    assert!(text.contains("\"status\": 200"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_background_program_polls_its_task_until_it_ends() {
    let f = Fixture::new();
    let registry = code_registry(&f.root);
    let (failed, text) = run_code(&registry, &example("background.ts")).await;
    assert!(!failed, "{text}");
    assert!(text.starts_with("started task-"), "{text}");
    assert!(
        text.contains("\"step 1\",\n    \"step 2\",\n    \"step 3\",\n    \"done\""),
        "{text}"
    );
    assert!(
        text.contains("\"status\": \"exited with code 0\""),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_terminal_program_drives_a_python_repl() {
    let f = Fixture::new();
    let registry = code_registry(&f.root);
    let (failed, text) = run_code(&registry, &example("terminal.ts")).await;
    assert!(!failed, "{text}");
    assert!(text.contains("\"round(area, 2)\": \"28.27\""), "{text}");
    assert!(
        text.contains("\"[n * n for n in range(5)]\": \"[0, 1, 4, 9, 16]\""),
        "{text}"
    );
    assert!(
        text.contains("\"closed\": \"closed: closed by terminal_close\""),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_tool_errors_reach_programs_as_tool_call_errors() {
    let f = Fixture::new();
    let registry = code_registry(&f.root);
    let (failed, text) = run_code(
        &registry,
        "try { await tools.read({ file_path: '../../etc/passwd' }); return 'read it'; }\n\
         catch (e) { return `${(e as any).toolName}: ${(e as Error).message}`; }",
    )
    .await;
    assert!(!failed, "{text}");
    assert!(text.contains("read: "), "{text}");
    assert!(text.contains("not inside the workspace root"), "{text}");
}

#[test]
fn builtin_example_programs_typecheck_against_the_builtin_sdk() {
    let f = Fixture::new();
    let defs: Vec<Arc<ptc::ToolDefinition>> = f.registry.view(None, None).executable_definitions();
    let sdk = CodeExecutor::declarations(&defs);
    let mut project = TsProject::new(&sdk);
    for name in [
        "todos.ts",
        "rename.ts",
        "command.ts",
        "background.ts",
        "terminal.ts",
        "web_fetch.ts",
        "lsp_rename.ts",
    ] {
        project.add_program(name, &example(name));
    }
    let (ok, diagnostics) = project.check();
    assert!(ok, "tsc rejected an example:\n{diagnostics}");
    // Not vacuous: a misspelt output field is rejected.
    let mut wrong = TsProject::new(&sdk);
    wrong.add_program(
        "wrong.ts",
        "const r = await tools.grep({ pattern: 'x' }); return r.matchez;",
    );
    let (ok, diagnostics) = wrong.check();
    assert!(!ok && diagnostics.contains("matchez"), "{diagnostics}");
}

#[tokio::test]
async fn builtin_works_under_a_root_whose_own_name_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(std::ffi::OsStr::from_bytes(b"r\xffoot"));
    std::fs::create_dir(&root).unwrap();
    let registry = ToolRegistry::new();
    builtin::register(&registry, &PackContext::new(root.clone())).unwrap();
    let call = |name: &str, args: Value| {
        let registry = registry.clone();
        let name = name.to_string();
        async move {
            let r = registry
                .dispatch(ptc::ToolExecutionInput::new("call-1", name.as_str(), args))
                .await;
            assert!(!r.is_error(), "{name}: {}", ptc::content_text(&r.content));
            r.value().unwrap().as_ref().clone()
        }
    };
    let v = call(
        "write",
        json!({"file_path": "d/a.txt", "content": "needle\n"}),
    )
    .await;
    assert_eq!(v["path"], "d/a.txt");
    let v = call("read", json!({"file_path": "d/a.txt"})).await;
    assert_eq!(v["lines"][0]["text"], "needle");
    let v = call("grep", json!({"pattern": "needle"})).await;
    assert_eq!(v["matches"][0]["path"], "d/a.txt");
    let v = call("glob", json!({"pattern": "*.txt"})).await;
    assert_eq!(v["paths"], json!(["d/a.txt"]));
    let v = call(
        "edit",
        json!({"file_path": "d/a.txt", "old_string": "needle", "new_string": "pin"}),
    )
    .await;
    assert_eq!(v["replacements"], 1);
    let v = call(
        "bash",
        json!({"command": "cat a.txt", "description": "show the file", "workdir": "d"}),
    )
    .await;
    assert_eq!(v["stdout"], "pin\n");
}
