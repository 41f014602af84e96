//! Behaviours 35-37 (the declarations) and 53-56 (what the modes show).

mod common;

use common::{decls, params, realistic_catalog, stress_catalog, Tool};
use ptc_sdk_gen::{code_only_guidance, declarations, is_identifier, sdk_section, ToolDecl};
use serde_json::json;

fn simple(name: &str, description: &str) -> Tool {
    Tool::new(
        name,
        description,
        json!({"type": "object", "properties": {}}),
        json!({"type": "string"}),
    )
}

/// The `ToolArgsMap` member lines (keys), in output order.
fn arg_keys(sdk: &str) -> Vec<String> {
    let start = sdk.find("interface ToolArgsMap {").expect("ToolArgsMap");
    let end = start + sdk[start..].find("\n}\n").expect("end of ToolArgsMap");
    sdk[start..end]
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("  ") && !l.starts_with("  /**") && !l.starts_with("   "))
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
        assert_eq!(sdk_section(order), sdk_section(&forward));
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
        one.matches("  dup: ").count(),
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
    let section = sdk_section(&decls(&tools));
    let fenced = &section[section.find("```ts\n").expect("ts fence")..];
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
        "declare class ToolCallError extends Error {\n",
        "  readonly toolName: string;\n",
        "declare const tools: { [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> };\n",
    ] {
        assert!(sdk.contains(needle), "missing {needle:?} in:\n{sdk}");
    }
    // Each tool's argument and output types, in their maps.
    for entry in [
        "  add: { a: number; b: number };\n",
        "  counter: Record<string, JsonValue>;\n",
        "  echo: {\n    /** Text to return. */\n    text: string;\n  } & Record<string, JsonValue>;\n",
        "  fail: { message: string };\n",
        "  sleep: { ms: number };\n",
    ] {
        assert!(sdk.contains(entry), "missing {entry:?} in:\n{sdk}");
    }
    let outputs = &sdk[sdk.find("interface ToolOutputMap {").unwrap()..];
    for entry in [
        "  add: number;\n",
        "  counter: number;\n",
        "  echo: string;\n",
        "  fail: null;\n",
        "  sleep: { slept: number };\n",
    ] {
        assert!(outputs.contains(entry), "missing {entry:?} in:\n{outputs}");
    }

    // No tools: the same declarations with empty maps (ToolName = never).
    let empty = declarations(&[]);
    assert!(empty.contains("interface ToolArgsMap {}\n"), "{empty}");
    assert!(empty.contains("interface ToolOutputMap {}\n"), "{empty}");
    assert!(empty.contains("type ToolName = keyof ToolArgsMap;\n"));
    assert!(empty.contains("declare const tools: {"));
}

#[test]
fn b37_descriptions_one_line_and_escaped() {
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
    ];
    let sdk = declarations(&decls(&tools));

    assert!(sdk.contains(
        "  /** First line *\\/ injected(); Second line /\\* nested third end*\\/ */\n  hostile: "
    ), "{sdk}");
    assert!(sdk.contains("  /** **\\/ */\n  props: {\n"), "{sdk}");
    assert!(
        sdk.contains("    /** prop *\\/ desc with newline */\n    p: string;\n"),
        "{sdk}"
    );
    assert!(sdk.contains("  /** Just text. */\n  plain: "), "{sdk}");
    // A blank description gives no comment at all.
    assert!(sdk.contains("interface ToolArgsMap {\n  blank: "), "{sdk}");
    assert!(sdk.contains("    p: string;\n    q?: number;\n"), "{sdk}");

    // Whatever the input, every comment opens and closes on its own line and
    // nothing else in the output looks like a comment delimiter.
    let catalog = stress_catalog();
    for sdk in [sdk, declarations(&decls(&catalog))] {
        for line in sdk.lines() {
            let code = strip_string_literals(line);
            let opens = code.matches("/*").count();
            let closes = code.matches("*/").count();
            if opens > 0 {
                let trimmed = code.trim_start();
                assert!(
                    trimmed.starts_with("/** ")
                        && trimmed.ends_with(" */")
                        && opens == 1
                        && closes == 1,
                    "bad comment line: {line:?}"
                );
            } else {
                assert_eq!(closes, 0, "stray comment end: {line:?}");
            }
            assert!(
                !line.contains(['\r', '\u{2028}', '\u{2029}', '\u{0}']),
                "{line:?}"
            );
        }
    }
}

/// `line` with the contents of `"..."` literals blanked, so a quoted key such
/// as `"*/ evil /*"` does not count as a comment delimiter.
fn strip_string_literals(line: &str) -> String {
    if line.trim_start().starts_with("/**") {
        return line.to_owned();
    }
    let mut out = String::new();
    let mut in_str = false;
    let mut escaped = false;
    for c in line.chars() {
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
            sdk.matches(&format!("\n  {key}: ")).count(),
            2,
            "{key} in:\n{sdk}"
        );
        let decoded: String = serde_json::from_str(key).unwrap();
        assert!(names.contains(&decoded.as_str()));
    }
    // Prototype-ish names and reserved words stay ordinary, bare members.
    for key in ["then", "constructor", "__proto__", "default", "plain"] {
        assert_eq!(
            sdk.matches(&format!("\n  {key}: ")).count(),
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
        sdk.contains(r#"  t: { "my-key": string; then: string };"#),
        "{sdk}"
    );
}

#[test]
fn b55_code_only_guidance_explains_run_code() {
    let text = code_only_guidance();
    for needle in [
        "`run_code`",
        "body of an async function",
        "`await tools.name(args)`",
        "tools[\"my-tool\"](args)",
        "`ToolCallError`",
        "`toolName`",
        "try/catch",
        "`console.log`",
        "`Promise.all`",
        "erasable syntax only",
        "`enum`",
        "`description`",
        "5-10 words",
        "calling those tools directly fails",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert!(
        !text.contains("interface ToolArgsMap"),
        "the SDK is added by the caller"
    );
    assert!(
        text.len() < 2_000,
        "guidance should stay short: {} bytes",
        text.len()
    );
}

#[test]
fn b56_sdk_section_is_guidance_plus_declarations() {
    let catalog = realistic_catalog();
    let d: Vec<ToolDecl<'_>> = decls(&catalog);
    let section = sdk_section(&d);
    let sdk = declarations(&d);
    assert!(
        section.ends_with(&format!("```ts\n{sdk}```\n")),
        "{section}"
    );
    let prose = &section[..section.find("```ts").unwrap()];
    for needle in [
        "`run_code`",
        "`await tools.name(args)`",
        "`ToolCallError`",
        "`toolName`",
        "`console.log`",
        "`Promise.all`",
        "erasable syntax only",
        "`enum`",
    ] {
        assert!(prose.contains(needle), "missing {needle:?} in:\n{prose}");
    }
    assert!(
        prose.len() < 2_000,
        "preamble should stay short: {} bytes",
        prose.len()
    );
}
