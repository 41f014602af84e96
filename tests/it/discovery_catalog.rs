//! Discovery over the recorded catalog (42 public MCP servers' `tools/list`, 870 tools,
//! `testing/catalog/lists/`), registered as definitions the way the MCP pack makes them, no
//! servers needed: the up-front sizes with discovery on, and one program that searches,
//! describes and calls.

use ptc_testing::code as code_support;

use code_support::*;
use ptc::discovery::{Discovery, DiscoveryMode};
use ptc::{ListedTool, ToolDefinition, ToolError, ToolMode, ToolRegistry, RUN_CODE};
use serde_json::{json, Value};

/// Every recorded tool, as `(server, tool)` pairs of the lists' JSON.
pub fn catalog() -> Vec<(String, Value)> {
    let dir = ptc_testing::repo().join("testing/catalog/lists");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut tools = Vec::new();
    for file in files {
        let server = file.file_stem().unwrap().to_string_lossy().into_owned();
        let list: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for tool in list["tools"].as_array().unwrap() {
            tools.push((server.clone(), tool.clone()));
        }
    }
    tools
}

/// A registry with the whole catalog (each tool answers `"ok"`, `time__get_current_time` a
/// time), the discovery pack and code mode in `mode`.
pub fn catalog_registry(mode: ToolMode) -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc::CodeExecutor::new(engine_config()).install(&registry);
    for (server, tool) in catalog() {
        registry.register(definition(&server, &tool)).unwrap();
    }
    ptc::discovery::register(&registry).unwrap();
    registry.set_mode(mode);
    registry
}

/// The definition the MCP pack makes of `tool` (mcp/src/pack.rs), with a local body.
fn definition(server: &str, tool: &Value) -> ToolDefinition {
    let name = format!("{server}__{}", tool["name"].as_str().unwrap());
    let mut parameters = tool["inputSchema"].clone();
    if let Some(map) = parameters.as_object_mut() {
        map.remove("$schema");
    }
    let output = match tool.get("outputSchema") {
        Some(schema) => {
            let mut schema = schema.clone();
            if let Some(map) = schema.as_object_mut() {
                map.remove("$schema");
            }
            match ptc::schema::assert_supported(&schema) {
                Ok(()) => schema,
                Err(_) => json!({}),
            }
        }
        None => json!({"type": "string"}),
    };
    let description = tool["description"]
        .as_str()
        .or(tool["title"].as_str())
        .unwrap_or_default();
    let answer = match name.as_str() {
        "time__get_current_time" => json!({
            "timezone": "Europe/Paris", "datetime": "2026-12-02T10:00:00+01:00",
            "day_of_week": "Wednesday", "is_dst": false
        }),
        _ => json!("ok"),
    };
    ToolDefinition::builder(name)
        .description(description)
        .parameters_passthrough(parameters)
        .output_schema(output)
        .execute_raw(move |_, _| {
            let answer = answer.clone();
            async move { Ok::<_, ToolError>(answer) }
        })
        .build()
        .unwrap()
}

/// The listing as MCP's `tools/list` carries it (name, description, schemas), in bytes.
fn listing_bytes(listed: &[ListedTool]) -> usize {
    listed
        .iter()
        .map(|t| {
            let mut json = json!({
                "name": t.schema.name,
                "description": t.schema.description,
                "inputSchema": t.schema.parameters,
            });
            if let Some(output) = &t.output_schema {
                json["outputSchema"] = output.clone();
            }
            json.to_string().len()
        })
        .sum()
}

fn run_code_description(registry: &ToolRegistry) -> String {
    let listed = registry.view(None, None).listed_tools().unwrap();
    let run_code = listed.iter().find(|t| t.schema.name == RUN_CODE).unwrap();
    run_code.schema.description.clone()
}

#[test]
fn discovery_catalog_code_mode_up_front_text_is_at_most_three_percent() {
    let registry = catalog_registry(ToolMode::Code);
    assert_eq!(
        registry.view(None, None).definitions().len(),
        873,
        "870 + 3 discovery tools"
    );
    let off = registry.set_discovery(Discovery::with_mode(DiscoveryMode::Off));
    let full = run_code_description(&registry);
    off.dispose();
    let compact = run_code_description(&registry);
    println!(
        "code mode, 870 tools: {} bytes up front with discovery (auto), {} without ({:.2}%)",
        compact.len(),
        full.len(),
        100.0 * compact.len() as f64 / full.len() as f64
    );
    assert!(
        compact.len() <= 19_700,
        "{} bytes:\n{compact}",
        compact.len()
    );
    assert!(compact.len() * 100 <= full.len() * 3);
    // The flow, the discovery tools declared, one line per server with its count.
    assert!(compact.contains("tools.search_tools("), "{compact}");
    assert!(
        compact.contains("search_tools: {\n  query: string;"),
        "{compact}"
    );
    assert!(
        compact.contains("\n- time (2): convert_time, get_current_time\n"),
        "{compact}"
    );
    assert!(
        !compact.contains("\ntime__get_current_time: {"),
        "hidden tools are not declared"
    );
}

#[test]
fn discovery_catalog_native_listing_is_at_most_three_percent() {
    let registry = catalog_registry(ToolMode::Native);
    let off = registry.set_discovery(Discovery::with_mode(DiscoveryMode::Off));
    let full = registry.view(None, None).listed_tools().unwrap();
    off.dispose();
    let compact = registry.view(None, None).listed_tools().unwrap();
    let (full_bytes, compact_bytes) = (listing_bytes(&full), listing_bytes(&compact));
    println!(
        "native mode, 870 tools: {compact_bytes} bytes listed with discovery (auto), {full_bytes} without ({:.2}%)",
        100.0 * compact_bytes as f64 / full_bytes as f64
    );
    assert_eq!(
        full.len(),
        870,
        "discovery off: every tool, no discovery tool"
    );
    let names: Vec<&str> = compact.iter().map(|t| t.schema.name.as_str()).collect();
    assert_eq!(names, ["call_tool", "describe_tools", "search_tools"]);
    assert!(compact_bytes * 100 <= full_bytes * 3);
    let search = &compact[2].schema.description;
    assert!(
        search.contains("\n- github ("),
        "the overview rides in search_tools: {search}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_catalog_program_searches_describes_and_calls() {
    let registry = catalog_registry(ToolMode::Code);
    let out = run_ok(
        &registry,
        r#"
const found = await tools.search_tools({ query: "current time in a timezone" });
const top = found.tools.map((t) => t.name);
const doc = await tools.describe_tools({ names: [top[0]] });
const now = await tools[top[0]]({ timezone: "Europe/Paris" });
return { top: top.slice(0, 5), total: found.total, declared: doc.includes("timezone: string"), now };
"#,
    )
    .await;
    let out: Value = serde_json::from_str(&out).unwrap();
    println!("{out}");
    assert_eq!(out["top"][0], "time__get_current_time", "{out}");
    assert_eq!(out["declared"], true, "{out}");
    assert_eq!(out["now"]["day_of_week"], "Wednesday", "{out}");
}

/// A signature is code on one line: the constraints the SDK shows as `// @tag` comments are
/// left out (joined onto one line, a comment would swallow the rest of the arguments).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_catalog_signatures_carry_no_comments() {
    let registry = catalog_registry(ToolMode::Code);
    let out = run_ok(
        &registry,
        r#"
const found = await tools.search_tools({ query: "git pull", server: "git_cyanheads", limit: 25 });
return found.tools.map((t) => t.signature);
"#,
    )
    .await;
    let signatures: Vec<String> = serde_json::from_str(&out).unwrap();
    let pull = signatures
        .iter()
        .find(|s| s.starts_with("tools.git_cyanheads__git_pull("))
        .unwrap_or_else(|| panic!("{signatures:?}"));
    assert!(pull.contains("branch?: string;"), "{pull}");
    for signature in &signatures {
        assert!(!signature.contains("// @"), "{signature}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_catalog_unknown_tool_lists_a_few_names_and_how_to_find_the_rest() {
    let registry = catalog_registry(ToolMode::Code);
    let run = run(&registry, "return await tools.time__get_curent_time({});").await;
    let text = run.text();
    assert!(
        text.contains("(did you mean \"time__get_current_time\"?)"),
        "{text}"
    );
    assert!(
        text.contains(" and 833 more; find tools with tools.search_tools({ query })"),
        "{text}"
    );
    assert!(text.len() < 2_500, "{} bytes: {text}", text.len());
}
