//! Behaviours 35-37 (the declarations) and 53-56 (what the modes show).

use crate::common;

use common::{decls, params, realistic_catalog, stress_catalog, Tool};
use ptc_sdk_gen::{
    code_only_guidance, code_section, declarations, is_identifier, sdk_section, RuntimeLimits,
    ToolDecl,
};
use serde_json::json;

fn simple(name: &str, description: &str) -> Tool {
    Tool::new(
        name,
        description,
        json!({"type": "object", "properties": {}}),
        json!({"type": "string"}),
    )
}

fn limits() -> RuntimeLimits {
    RuntimeLimits::default()
}

/// The `ToolArgsMap` member lines (keys), in output order.
fn arg_keys(sdk: &str) -> Vec<String> {
    let start = sdk.find("interface ToolArgsMap {").expect("ToolArgsMap");
    let end = start + sdk[start..].find("\n}\n").expect("end of ToolArgsMap");
    sdk[start..end]
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("//") && !l.starts_with(' ') && !l.starts_with('}'))
        .map(|l| {
            l.trim_start()
                .split(": ")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn b35_sdk_sorted_and_byte_identical() {
    let names = [
        "b",
        "B",
        "a",
        "_x",
        "Z",
        "\u{e9}t\u{e9}",
        "a-b",
        "aa",
        "$",
        "0",
    ];
    let tools: Vec<Tool> = names.iter().map(|n| simple(n, "d")).collect();
    let forward = decls(&tools);
    let sdk = declarations(&forward);

    // Byte order of the names (not case-insensitive, not Unicode collation).
    let mut sorted: Vec<&str> = names.to_vec();
    sorted.sort_unstable();
    let expected: Vec<String> = sorted
        .iter()
        .map(|n| {
            if is_identifier(n) {
                n.to_string()
            } else {
                serde_json::to_string(n).unwrap()
            }
        })
        .collect();
    assert_eq!(arg_keys(&sdk), expected);
    assert_eq!(
        expected,
        [
            "$",
            "\"0\"",
            "B",
            "Z",
            "_x",
            "a",
            "\"a-b\"",
            "aa",
            "b",
            "\"\u{e9}t\u{e9}\""
        ]
    );

    // Same set in other orders (and called again): identical bytes.
    let mut reversed = forward.clone();
    reversed.reverse();
    let mut rotated = forward.clone();
    rotated.rotate_left(3);
    for order in [&forward, &reversed, &rotated] {
        assert_eq!(declarations(order), sdk);
        assert_eq!(
            sdk_section(order, &limits()),
            sdk_section(&forward, &limits())
        );
    }

    // Realistic and hostile catalogs are order-independent as well.
    for catalog in [realistic_catalog(), stress_catalog()] {
        let mut d = decls(&catalog);
        let first = declarations(&d);
        d.reverse();
        assert_eq!(declarations(&d), first);
    }

    // A repeated name yields one entry, the same one whatever the order.
    let dupes = [
        simple("dup", "first"),
        simple("dup", "second"),
        simple("z", "z"),
    ];
    let mut d = decls(&dupes);
    let one = declarations(&d);
    d.reverse();
    assert_eq!(declarations(&d), one);
    assert_eq!(
        one.matches("\ndup: ").count(),
        2,
        "one entry per map:\n{one}"
    );
}

#[test]
fn b35_run_code_never_declared() {
    let tools = [
        simple("run_code", "Execute a TypeScript program."),
        simple("echo", "Echo."),
    ];
    let sdk = declarations(&decls(&tools));
    assert!(!sdk.contains("run_code"), "{sdk}");
    assert!(!sdk.contains("Execute a TypeScript program."), "{sdk}");
    assert_eq!(sdk, declarations(&decls(&tools[1..])));
    assert_eq!(arg_keys(&sdk), ["echo"]);

    // Only the exact name is reserved.
    let near = [
        simple("run_code2", "d"),
        simple("Run_code", "d"),
        simple("run-code", "d"),
    ];
    let sdk = declarations(&decls(&near));
    assert_eq!(arg_keys(&sdk), ["Run_code", "\"run-code\"", "run_code2"]);

    // The fenced declarations in the `both` section never bind run_code either.
    let section = sdk_section(&decls(&tools), &limits());
    let fenced = &section[section.rfind("```ts\n").expect("ts fence")..];
    assert!(!fenced.contains("run_code"), "{fenced}");
}

#[test]
fn b36_declares_core_types() {
    let catalog = realistic_catalog();
    let sdk = declarations(&decls(&catalog));
    for needle in [
        "type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\n",
        "interface ToolArgsMap {\n",
        "interface ToolOutputMap {\n",
        "type ToolName = keyof ToolArgsMap;\n",
        "declare class ToolCallError extends Error { readonly toolName: string }\n",
        "declare const tools: { [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> };\n",
    ] {
        assert!(sdk.contains(needle), "missing {needle:?} in:\n{sdk}");
    }
    // Each tool's argument and output types, in their maps.
    for entry in [
        "\nadd: { a: number; b: number };\n",
        "\ncounter: Record<string, JsonValue>;\n",
        "\necho: {\n  text: string; // Text to return.\n} & Record<string, JsonValue>;\n",
        "\nfail: { message: string };\n",
        "\nsleep: { ms: number };\n",
    ] {
        assert!(sdk.contains(entry), "missing {entry:?} in:\n{sdk}");
    }
    let outputs = &sdk[sdk.find("interface ToolOutputMap {").unwrap()..];
    for entry in [
        "\nadd: number;\n",
        "\ncounter: number;\n",
        "\necho: string;\n",
        "\nfail: null;\n",
        "\nsleep: { slept: number };\n",
    ] {
        assert!(outputs.contains(entry), "missing {entry:?} in:\n{outputs}");
    }
    // The call syntax for names that are not identifiers is said only when one exists.
    assert!(!sdk.contains("tools[\"my-tool\"]"), "{sdk}");
    let dashed = [simple("my-tool", "d")];
    assert!(declarations(&decls(&dashed)).contains("`tools[\"my-tool\"](args)`"));

    // No tools: the same declarations with empty maps (ToolName = never).
    let empty = declarations(&[]);
    assert!(empty.contains("interface ToolArgsMap {}\n"), "{empty}");
    assert!(empty.contains("interface ToolOutputMap {}\n"), "{empty}");
    assert!(empty.contains("type ToolName = keyof ToolArgsMap;\n"));
    assert!(empty.contains("declare const tools: {"));
}

#[test]
fn closed_tools_drop_the_open_record_from_their_arguments_at_every_depth_not_opened() {
    let nested = json!({"type": "object", "properties": {
        "text": {"type": "string", "description": "Text to return."},
        "opts": {"type": "object", "properties": {"loud": {"type": "boolean"}}},
        "tags": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}
    }, "required": ["text"]});
    let explicit_open = json!({"type": "object", "properties": {"q": {"type": "string"}},
        "additionalProperties": true});
    let tools = [
        Tool::new(
            "echo",
            "Echo.",
            nested.clone(),
            json!({"type": "object", "properties": {"t": {"type": "string"}}}),
        )
        .closed(),
        Tool::new("open", "Open.", nested, json!({"type": "null"})),
        Tool::new(
            "mcp",
            "Extra keys allowed.",
            explicit_open,
            json!({"type": "null"}),
        )
        .closed(),
        Tool::new(
            "none",
            "No arguments.",
            json!({"type": "object", "properties": {}}),
            json!({"type": "null"}),
        )
        .closed(),
    ];
    let sdk = declarations(&decls(&tools));
    assert!(
        sdk.contains(
            "\necho: {\n  text: string; // Text to return.\n  opts?: { loud?: boolean }; \
             tags?: { a?: string } & Record<string, JsonValue>;\n};\n"
        ),
        "nested objects are closed as the pipeline closes them, unless they say otherwise:\n{sdk}"
    );
    let open = sdk.lines().find(|l| l.starts_with("open: ")).unwrap();
    assert!(open.ends_with("} & Record<string, JsonValue>;"), "{sdk}");
    assert!(
        sdk.contains("\nmcp: { q?: string } & Record<string, JsonValue>;\n"),
        "{sdk}"
    );
    assert!(sdk.contains("\nnone: Record<string, never>;\n"), "{sdk}");
    // Outputs are never closed by the flag.
    assert!(
        sdk.contains("\necho: { t?: string } & Record<string, JsonValue>;\n"),
        "{sdk}"
    );
}

#[test]
fn b37_descriptions_one_line_and_literal() {
    let hostile =
        "First line */ injected();\r\nSecond\tline /* nested\u{2028}third\u{0}\u{7f}\u{202e} end*/";
    let mut with_props = params(
        json!({"p": {"type": "string", "description": "prop */ desc\nwith newline"}}),
        true,
    );
    with_props["properties"]["q"] = json!({"type": "number", "description": "  \n\t "});
    let tools = [
        simple("hostile", hostile),
        Tool::new("props", "**/", with_props, json!({"type": "null"})),
        simple("blank", " \n\t "),
        simple("plain", "Just text."),
        simple(
            "glob",
            r#"Glob pattern (e.g. "**/*.ts", "src/**/*.test.js"), \d+ kept."#,
        ),
    ];
    let sdk = declarations(&decls(&tools));

    // The text stays literal: `*/`, `/*` and backslashes are not escaped.
    assert!(
        sdk.contains("\n// First line */ injected(); Second line /* nested third end*/\nhostile: "),
        "{sdk}"
    );
    assert!(sdk.contains("\n// **/\nprops: {\n"), "{sdk}");
    assert!(
        sdk.contains("\n  p: string; // prop */ desc with newline\n"),
        "{sdk}"
    );
    assert!(sdk.contains("\n// Just text.\nplain: "), "{sdk}");
    assert!(
        sdk.contains(r#"// Glob pattern (e.g. "**/*.ts", "src/**/*.test.js"), \d+ kept."#),
        "{sdk}"
    );
    assert!(!sdk.contains("*\\/"), "no escapes: {sdk}");
    // A blank description gives no comment at all.
    assert!(sdk.contains("interface ToolArgsMap {\nblank: "), "{sdk}");
    assert!(sdk.contains("\n  q?: number;\n"), "{sdk}");

    // Whatever the input, every comment is a `//` comment that ends its line, the code
    // before it holds no comment delimiter, and no line terminator hides inside a line.
    let catalog = stress_catalog();
    for sdk in [sdk, declarations(&decls(&catalog))] {
        for line in sdk.lines() {
            let code = code_part(line);
            assert!(
                !code.contains("/*") && !code.contains("*/"),
                "comment delimiter outside a line comment: {line:?}"
            );
            assert!(
                !line.contains(['\r', '\u{2028}', '\u{2029}', '\u{0}']),
                "{line:?}"
            );
        }
    }
}

#[test]
fn b37_a_recurring_property_is_commented_where_the_model_first_reads_it() {
    let id = json!({"type": "string", "description": "The session id."});
    let args = params(
        json!({"id": id, "n": {"type": "number", "description": "How many."}}),
        true,
    );
    let status = json!({
        "type": "object",
        "properties": {
            "id": id,
            "state": {"type": "string", "description": "running or done."},
            "n": {"type": "number", "description": "Lines shown."}
        },
        "required": ["id", "state"]
    });
    let tools = [
        Tool::new("b_read", "Read.", args.clone(), status.clone()),
        Tool::new("a_open", "Open.", args, status),
    ];
    let sdk = declarations(&decls(&tools));
    // Read in order: a_open's arguments first, so they keep the comments.
    assert!(
        sdk.contains(
            "\na_open: {\n  id: string; // The session id.\n  n: number; // How many.\n};"
        ),
        "{sdk}"
    );
    // Said once: the same name with the same text is bare later, arguments or output.
    assert!(
        sdk.contains("\nb_read: { id: string; n: number };\n"),
        "{sdk}"
    );
    // The same name with other text (`n`) is commented again.
    let open = "} & Record<string, JsonValue>;";
    assert!(
        sdk.contains(&format!(
            "\na_open: {{\n  id: string;\n  state: string; // running or done.\n  n?: number; // Lines shown.\n{open}"
        )),
        "{sdk}"
    );
    assert!(
        sdk.contains(
            "\nb_read: { id: string; state: string; n?: number } & Record<string, JsonValue>;\n"
        ),
        "{sdk}"
    );
    assert_eq!(sdk.matches("// The session id.").count(), 1, "{sdk}");
    assert_eq!(sdk.matches("// Lines shown.").count(), 1, "{sdk}");
}

/// `line` up to its `//` comment, with the contents of `"..."` literals blanked, so a
/// quoted key such as `"*/ evil /*"` does not count as a comment delimiter.
fn code_part(line: &str) -> String {
    let mut out = String::new();
    let mut in_str = false;
    let mut escaped = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
                out.push('"');
            }
        } else {
            if c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' {
                in_str = true;
            }
            out.push(c);
        }
    }
    out
}

#[test]
fn b37_non_identifier_names_are_quoted() {
    for name in [
        "read_file",
        "$",
        "_",
        "a1",
        "then",
        "constructor",
        "__proto__",
        "default",
        "new",
        "delete",
    ] {
        assert!(is_identifier(name), "{name}");
    }
    for name in [
        "",
        "my-tool",
        "a.b",
        "1st",
        "with space",
        "caf\u{e9}",
        "\u{65e5}",
        "a\"b",
        "tab\t",
        "-",
    ] {
        assert!(!is_identifier(name), "{name:?}");
    }

    let names = [
        "my-tool",
        "a.b",
        "1st",
        "",
        "with space",
        "caf\u{e9}",
        "q\"b\\s\nn\u{1}\u{2028}",
        "then",
        "constructor",
        "__proto__",
        "default",
        "plain",
    ];
    let tools: Vec<Tool> = names.iter().map(|n| simple(n, "d")).collect();
    let sdk = declarations(&decls(&tools));
    for key in [
        r#""my-tool""#,
        r#""a.b""#,
        r#""1st""#,
        r#""""#,
        r#""with space""#,
        "\"caf\u{e9}\"",
        r#""q\"b\\s\nn\u0001\u2028""#,
    ] {
        // Quoted in both maps; the JSON encoding round-trips to the name.
        assert_eq!(
            sdk.matches(&format!("\n{key}: ")).count(),
            2,
            "{key} in:\n{sdk}"
        );
        let decoded: String = serde_json::from_str(key).unwrap();
        assert!(names.contains(&decoded.as_str()));
    }
    // Prototype-ish names and reserved words stay ordinary, bare members.
    for key in ["then", "constructor", "__proto__", "default", "plain"] {
        assert_eq!(
            sdk.matches(&format!("\n{key}: ")).count(),
            2,
            "{key} in:\n{sdk}"
        );
    }
    assert!(!sdk.contains("\"then\""));
    assert!(!sdk.contains("\"__proto__\""));

    // Property names inside argument objects follow the same rule.
    let tools = [Tool::new(
        "t",
        "d",
        params(
            json!({"my-key": {"type": "string"}, "then": {"type": "string"}}),
            true,
        ),
        json!({"type": "null"}),
    )];
    let sdk = declarations(&decls(&tools));
    assert!(
        sdk.contains(
            r#"
t: { "my-key": string; then: string };"#
        ),
        "{sdk}"
    );
}

/// What both modes' guidance says: the runtime contract, with the limits in force.
const CONTRACT: [&str; 22] = [
    "`run_code`",
    "async function body",
    "top-level `await`/`return`",
    "`async () => {…}`",
    "`export default`",
    "`await tools.name(args)`",
    "Erasable types only (no `enum`)",
    "no value `import`/`require`",
    "`console.log` output",
    "then the returned value (a string as is, else JSON",
    "the last expression's",
    "`ToolCallError` (`toolName`, `message`)",
    "Await all calls (not in `forEach`): at the end, pending ones stop and unfinished changes fail the run",
    "uncaught, it fails the run",
    "`URL`",
    "`structuredClone`",
    "`Intl` (Number/DateTime/List/RelativeTimeFormat, PluralRules, Collator: a subset, en-US/UTC \
     default); no `fetch`, `process`, `Buffer`, files, network",
    "120 s, 256 MiB heap, 10,000 calls (10 at once)",
    "past 50,000 chars",
    "Promise.all([tools.x(",
    "try {",
    "return { a, b, c };",
];

#[test]
fn b55_code_only_guidance_states_the_runtime_contract() {
    let text = code_only_guidance(&limits());
    assert!(
        text.starts_with("## Calling tools\nYour only tool is `run_code`"),
        "{text}"
    );
    for needle in CONTRACT {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    // Five example lines in one fence.
    let example = &text[text.find("```ts\n").unwrap() + 6..text.rfind("```").unwrap()];
    assert_eq!(example.lines().count(), 5, "{example}");
    assert!(
        !text.contains("interface ToolArgsMap"),
        "the declarations follow in code_section"
    );
    assert!(
        // 1,200 until the Intl subset was named (a tester could not tell which constructors exist).
        text.len() < 1_260,
        "guidance should stay short: {} bytes",
        text.len()
    );

    let catalog = realistic_catalog();
    let d = decls(&catalog);
    assert_eq!(
        code_section(&d, &limits()),
        format!("{text}```ts\n{}```\n", declarations(&d))
    );
}

#[test]
fn guidance_states_the_limits_in_force() {
    let tight = RuntimeLimits {
        wall_clock_ms: 1_500,
        max_heap_bytes: 64 * 1024 * 1024,
        max_calls: 50,
        max_parallel: 3,
        max_result_chars: 1_234_567,
    };
    for text in [code_only_guidance(&tight), sdk_section(&[], &tight)] {
        assert!(
            text.contains("- Limits: 1.5 s, 64 MiB heap, 50 calls (3 at once), results cut to head and tail past 1,234,567 chars."),
            "{text}"
        );
    }
    let odd = RuntimeLimits {
        wall_clock_ms: 250,
        max_heap_bytes: 1_000_000,
        max_calls: 12_345,
        max_parallel: 1,
        max_result_chars: 999,
    };
    assert!(code_only_guidance(&odd)
        .contains("- Limits: 250 ms, 1,000,000 bytes heap, 12,345 calls (1 at once), results cut to head and tail past 999 chars."));
}

#[test]
fn b56_sdk_section_is_guidance_plus_declarations() {
    let catalog = realistic_catalog();
    let d: Vec<ToolDecl<'_>> = decls(&catalog);
    let section = sdk_section(&d, &limits());
    let sdk = declarations(&d);
    assert!(
        section.ends_with(&format!("```ts\n{sdk}```\n")),
        "{section}"
    );
    let prose = &section[..section.rfind("```ts").unwrap()];
    assert!(
        prose.starts_with("## Calling tools from code\nBesides calling tools directly"),
        "{prose}"
    );
    for needle in CONTRACT {
        assert!(prose.contains(needle), "missing {needle:?} in:\n{prose}");
    }
    assert!(
        prose.len() < 1_380,
        "preamble should stay short: {} bytes",
        prose.len()
    );
}
