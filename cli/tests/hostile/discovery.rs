//! Hostile use of the discovery tools from a program: recursion through `call_tool`, calling
//! `run_code` by name, huge queries and name lists, bad limits and arguments. Each is a clear
//! rejection the program can catch; the run goes on.

use crate::cli::ptc;

#[test]
fn hostile_discovery_tools_reject_bad_input_clearly_and_the_run_goes_on() {
    let program = r#"
const tries = {
  recurse: () => tools.call_tool({ name: "call_tool", arguments: { name: "echo", arguments: { text: "x" } } }),
  runCode: () => tools.call_tool({ name: "run_code", arguments: { code: "return 1", description: "nested" } }),
  notAnObject: () => tools.call_tool({ name: "echo", arguments: "text" }),
  badLimit: () => tools.search_tools({ query: "add", limit: -1 }),
  manyNames: () => tools.describe_tools({ names: Array(10000).fill("echo") }),
  hugeQuery: () => tools.search_tools({ query: "add ".repeat(250000) }),
};
const out = {};
for (const [what, attempt] of Object.entries(tries)) {
  try { const r = await attempt(); out[what] = `ok: ${r.total}`; }
  catch (e) { out[what] = e.message.slice(0, 200); }
}
out.after = await tools.echo({ text: "still here" });
return out;
"#;
    let dir = tempfile::tempdir().unwrap();
    let ran = ptc(
        dir.path(),
        &["run", "--tools", "testkit", "--discovery", "on", "-"],
        program,
    );
    assert_eq!(ran.code(), 0, "{}", ran.all());
    let out: serde_json::Value = serde_json::from_str(&ran.stdout).expect("the returned object");
    let said = |what: &str| out[what].as_str().unwrap_or_default().to_string();
    assert!(
        said("recurse").contains("/name: `call_tool` is called directly"),
        "{out}"
    );
    assert!(said("runCode").contains("Unknown tool: run_code"), "{out}");
    assert!(
        said("notAnObject").contains("Invalid arguments for tool call_tool"),
        "{out}"
    );
    assert!(
        said("badLimit").contains("/limit: must be at least 1, got -1"),
        "{out}"
    );
    assert!(
        said("manyNames").contains("at most 50 names at once, got 10000"),
        "{out}"
    );
    assert_eq!(said("hugeQuery"), "ok: 1", "{out}");
    assert_eq!(out["after"], "still here", "{out}");
}
