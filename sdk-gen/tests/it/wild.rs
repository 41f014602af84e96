//! Schemas as the catalog writes them: unions, type arrays, records, `$ref`s and
//! constraints, each rendered and checked by the real `tsc`.

use crate::common::{decls, Tool};
use crate::typescript::check_sdk;
use ptc_sdk_gen::{declarations, schema_to_ts};
use serde_json::{json, Value};

#[track_caller]
fn check(schema: Value, expected: &str) {
    assert_eq!(schema_to_ts(&schema), expected, "schema: {schema}");
}

#[test]
fn wild_unions_type_arrays_records_and_refs_render_as_typescript() {
    check(
        json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "T"}),
        "string | null",
    );
    check(json!({"type": ["number", "null"]}), "number | null");
    check(
        json!({"type": ["object", "null"], "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
        "{ a?: string } | null",
    );
    check(
        json!({"type": "object", "additionalProperties": {"type": "integer"}}),
        "Record<string, number>",
    );
    check(
        json!({"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"type": "array", "items": {"type": "string"}}}),
        "Record<string, string[]>",
    );
    check(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "number"}}),
        "{ a?: string } & Record<string, JsonValue>",
    );
    check(
        json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/P"}, "q": {"$ref": "#/definitions/Q"}},
            "required": ["p"],
            "additionalProperties": false,
            "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"], "additionalProperties": false}},
            "definitions": {"Q": {"enum": ["a", "b"]}}
        }),
        r#"{ p: { x: number }; q?: "a" | "b" }"#,
    );
    // Recursion renders as `JsonValue` where the schema refers to itself (`schema_to_ts`
    // declares no aliases; the SDK does, see below).
    check(
        json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}},
            "additionalProperties": false
        }),
        "{ name?: string; children?: JsonValue[] }",
    );
}

#[test]
fn wild_constraints_are_tags_in_the_property_comment() {
    let schema = json!({
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10, "description": "How many."},
            "since": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}], "default": null},
            "name": {"type": "string", "minLength": 1, "maxLength": 40, "pattern": "^[a-z]+$", "examples": ["abc"]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": true}
        },
        "additionalProperties": false
    });
    let ts = schema_to_ts(&schema);
    for line in [
        "limit?: number; // How many. @minimum 1 @maximum 100 @default 10",
        "since?: string | null; // @default null @format date-time",
        r#"name?: string; // @minLength 1 @maxLength 40 @pattern ^[a-z]+$ @example "abc""#,
        "tags?: string[]; // @minItems 1 @uniqueItems true",
    ] {
        assert!(ts.contains(line), "missing {line:?} in:\n{ts}");
    }
}

#[test]
fn wild_schemas_compile_under_tsc_and_reject_wrong_arguments() {
    let params = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "maybe": {"type": ["number", "null"]},
            "either": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "node": {"$ref": "#/$defs/Node"}
        },
        "required": ["id"],
        "additionalProperties": false,
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "v": {"type": "integer", "minimum": 0}}, "additionalProperties": false}}
    });
    let tree = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#"}}, "a": {"$ref": "#/$defs/A"}},
        "required": ["name"],
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}, "additionalProperties": false},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "n": {"type": "number"}}, "additionalProperties": false}
        }
    });
    let tools = [
        Tool::new(
            "wild",
            "Wild schemas.",
            params,
            json!({"type": ["string", "null"]}),
        )
        .closed(),
        Tool::new(
            "tree",
            "Recursive and mutually recursive.",
            tree,
            json!({"type": "null"}),
        )
        .closed(),
    ];
    let sdk = declarations(&decls(&tools));
    let usage = r#"
  const out: string | null = await tools.wild({ id: "x", maybe: null, either: ["a"], labels: { a: "b" }, node: { v: 1, next: { v: 2 } } });
  await tools.wild({ id: "x", either: "one" });
  // @ts-expect-error labels hold strings
  await tools.wild({ id: "x", labels: { a: 1 } });
  // @ts-expect-error maybe is a number or null
  await tools.wild({ id: "x", maybe: "1" });
  // @ts-expect-error node.v is a number
  await tools.wild({ id: "x", node: { v: "1" } });
  // @ts-expect-error node.next.next.v is a number too: the recursive type is named
  await tools.wild({ id: "x", node: { next: { next: { v: "1" } } } });
  await tools.tree({ name: "r", kids: [{ name: "k", kids: [] }], a: { b: { a: { b: { n: 1 } } } } });
  // @ts-expect-error a nested kid needs a name
  await tools.tree({ name: "r", kids: [{ name: "k", kids: [{}] }] });
  // @ts-expect-error n is a number, four levels down
  await tools.tree({ name: "r", a: { b: { a: { b: { n: "1" } } } } });
  return out;
"#;
    assert!(
        sdk.contains("type RefNode = {\n  next?: RefNode;\n  v?: number; // @minimum 0\n};\n"),
        "{sdk}"
    );
    assert!(sdk.contains("node?: RefNode"), "{sdk}");
    // The root refers to itself (`#`) and A and B to each other: named once each.
    assert!(sdk.contains("\ntree: Ref;\n"), "{sdk}");
    assert!(
        sdk.contains("type RefA = { b?: { a?: RefA; n?: number } };\n"),
        "{sdk}"
    );
    check_sdk(&sdk, usage);
}

#[test]
fn hostile_ref_chains_cycles_and_shared_definitions_render_bounded() {
    // A 5,000-deep chain of references, a cycle, and definitions that each use the next one
    // twice (2^40 paths if inlined blindly), rendered on a small stack.
    let mut chain = serde_json::Map::new();
    for i in 0..5_000 {
        chain.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    chain.insert("d5000".into(), json!({"type": "string"}));
    let chain =
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": chain});
    let cycle = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}});
    let mut shared = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/l{}", i + 1);
        shared.insert(
            format!("l{i}"),
            json!({"type": "object", "properties": {"x": {"$ref": next}, "y": {"$ref": next}}, "additionalProperties": false}),
        );
    }
    shared.insert("l40".into(), json!({"type": "string"}));
    let shared = json!({"$ref": "#/$defs/l0", "$defs": shared});
    let (chain_ts, cycle_ts, shared_ts) = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn_scoped(s, || {
                (
                    schema_to_ts(&chain),
                    schema_to_ts(&cycle),
                    schema_to_ts(&shared),
                )
            })
            .unwrap()
            .join()
            .unwrap()
    });
    // Nesting stops at MAX_DEPTH; the cycle stops where it comes back.
    assert_eq!(chain_ts, "{ a?: unknown } & Record<string, JsonValue>");
    assert_eq!(cycle_ts, "{ a?: JsonValue } & Record<string, JsonValue>");
    // At most MAX_INLINED_REFS references are inlined: the output stays small.
    assert!(shared_ts.len() < 20_000, "{} bytes", shared_ts.len());
    assert!(shared_ts.contains("JsonValue"), "{shared_ts}");
}
