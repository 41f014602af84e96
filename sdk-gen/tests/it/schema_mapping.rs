//! Behaviour 38: JSON Schema → TypeScript, and hostile schemas.

use crate::common;

use common::{
    decls, deep_array, deep_default, deep_object, deep_one_of, stress_catalog, Deep, Tool,
};
use ptc_sdk_gen::{declarations, schema_to_ts, MAX_DEPTH};
use serde_json::{json, Value};

#[track_caller]
fn check(schema: &str, expected: &str) {
    let schema: Value = serde_json::from_str(schema).expect("test schema is JSON");
    assert_eq!(schema_to_ts(&schema), expected, "schema: {schema}");
}

#[test]
fn b38_schema_mapping() {
    // Scalars.
    check(r#"{"type": "string"}"#, "string");
    check(r#"{"type": "number"}"#, "number");
    check(r#"{"type": "integer"}"#, "number");
    check(r#"{"type": "boolean"}"#, "boolean");
    check(r#"{"type": "null"}"#, "null");

    // Untyped / annotation-only nodes accept any JSON value.
    check("{}", "JsonValue");
    check(
        r#"{"description": "d", "title": "t", "default": 1, "examples": [1, "a"]}"#,
        "JsonValue",
    );

    // enum / const become JSON-encoded literal unions.
    check(r#"{"type": "string", "enum": ["a", "b"]}"#, r#""a" | "b""#);
    check(
        r#"{"enum": [1, -2.5, true, null, "x\"y", "line\nbreak"]}"#,
        r#"1 | -2.5 | true | null | "x\"y" | "line\nbreak""#,
    );
    check(r#"{"type": "integer", "enum": [3]}"#, "3");
    check(r#"{"enum": ["a", "a", "b"]}"#, r#""a" | "b""#);
    check(r#"{"const": "only"}"#, r#""only""#);
    check(r#"{"type": "boolean", "const": false}"#, "false");
    check(r#"{"const": null}"#, "null");

    // oneOf is a union.
    check(
        r#"{"oneOf": [{"type": "string"}, {"type": "number"}]}"#,
        "string | number",
    );
    check(
        r#"{"oneOf": [{"type": "integer"}, {"type": "number"}, {"type": "null"}]}"#,
        "number | null",
    );
    check(
        r#"{"oneOf": [{"type": "string"}, {"oneOf": [{"type": "null"}, {"const": 1}]}]}"#,
        "string | null | 1",
    );

    // Arrays, with parentheses around unions and intersections.
    check(
        r#"{"type": "array", "items": {"type": "string"}}"#,
        "string[]",
    );
    check(r#"{"type": "array"}"#, "JsonValue[]");
    check(r#"{"type": "array", "items": {}}"#, "JsonValue[]");
    check(
        r#"{"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "null"}]}}"#,
        "(string | null)[]",
    );
    check(
        r#"{"type": "array", "items": {"enum": ["a", "b"]}}"#,
        r#"("a" | "b")[]"#,
    );
    check(r#"{"type": "array", "items": {"enum": [-1]}}"#, "-1[]");
    check(
        r#"{"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}"#,
        "number[][]",
    );
    check(
        r#"{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}}"#,
        "{ a?: string }[]",
    );
    check(
        r#"{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}"#,
        "({ a?: string } & Record<string, JsonValue>)[]",
    );
    check(
        r#"{"type": "array", "items": {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "string"}]}}"#,
        "({ a?: string } & Record<string, JsonValue> | string)[]",
    );

    // Objects.
    check(
        r#"{"type": "object", "additionalProperties": false}"#,
        "Record<string, never>",
    );
    check(
        r#"{"type": "object", "properties": {}, "additionalProperties": false}"#,
        "Record<string, never>",
    );
    check(r#"{"type": "object"}"#, "Record<string, JsonValue>");
    check(
        r#"{"type": "object", "properties": {}, "additionalProperties": true}"#,
        "Record<string, JsonValue>",
    );
    check(
        r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}"#,
        "{ a: string; b?: number }",
    );
    check(
        r#"{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}"#,
        "{ a: string } & Record<string, JsonValue>",
    );
    check(
        r#"{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": true}"#,
        "{ a: string } & Record<string, JsonValue>",
    );
    check(
        r#"{"type": "object", "properties": {"my-key": {}, "a b": {}, "1x": {}, "": {}}, "additionalProperties": false}"#,
        r#"{ "my-key"?: JsonValue; "a b"?: JsonValue; "1x"?: JsonValue; ""?: JsonValue }"#,
    );
    check(
        r#"{"type": "object", "properties": {"ok_$1": {}, "then": {}, "__proto__": {}, "café": {"type": "null"}}, "additionalProperties": false}"#,
        r#"{ ok_$1?: JsonValue; then?: JsonValue; __proto__?: JsonValue; "café"?: null }"#,
    );
    check(
        r#"{"type": "object", "properties": {"inner": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"], "additionalProperties": false}}, "required": ["inner"], "additionalProperties": false}"#,
        "{ inner: { x: number } }",
    );
    // Property order is the schema's own order.
    check(
        r#"{"type": "object", "properties": {"z": {"type": "null"}, "a": {"type": "null"}}, "additionalProperties": false}"#,
        "{ z?: null; a?: null }",
    );

    // A property description makes the object multi-line: the property gets a line of
    // its own ending with a one-line `//` comment that keeps the text literal; members
    // without a description share lines.
    check(
        r#"{"type": "object", "properties": {"text": {"type": "string", "description": "The text.\nSecond */ line."}, "n": {"type": "number"}, "m": {"type": "null"}}, "required": ["text"]}"#,
        "{\n  text: string; // The text. Second */ line.\n  n?: number; m?: null;\n} & Record<string, JsonValue>",
    );
    // Nested multi-line objects indent one level per property; a multi-line member's
    // comment goes on the line above it.
    check(
        r#"{"type": "object", "properties": {"outer": {"type": "object", "description": "O.", "properties": {"x": {"type": "string", "description": "X."}}, "additionalProperties": false}}, "additionalProperties": false}"#,
        "{\n  // O.\n  outer?: {\n    x?: string; // X.\n  };\n}",
    );
    // Long member lists are multi-line too, packed up to 120 characters a line.
    let long: Vec<String> = (0..8)
        .map(|i| format!(r#""a_long_property_name_{i}": {{"type": "string"}}"#))
        .collect();
    check(
        &format!(
            r#"{{"type": "object", "properties": {{{}}}, "additionalProperties": false}}"#,
            long.join(", ")
        ),
        "{\n  a_long_property_name_0?: string; a_long_property_name_1?: string; a_long_property_name_2?: string;\n  \
         a_long_property_name_3?: string; a_long_property_name_4?: string; a_long_property_name_5?: string;\n  \
         a_long_property_name_6?: string; a_long_property_name_7?: string;\n}",
    );
    // oneOf of object variants.
    check(
        r#"{"oneOf": [{"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"], "additionalProperties": false}, {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}]}"#,
        r#"{ kind: "a" } | { kind: "b" } & Record<string, JsonValue>"#,
    );

    // Unsupported nodes are `unknown`, locally: their parents still render.
    check(r##"{"$ref": "#/x"}"##, "unknown");
    check(
        r#"{"type": "object", "properties": {"a": {"type": "string", "not": {}}, "b": {"type": "string"}}, "additionalProperties": false}"#,
        "{ a?: unknown; b?: string }",
    );
    check(
        r#"{"type": "array", "items": {"type": "number", "multipleOf": 2}}"#,
        "unknown[]",
    );
    check(
        r#"{"oneOf": [{"type": "string"}, {"type": "string", "contentEncoding": "x"}]}"#,
        "unknown",
    );
}

/// Every case here is outside the subset (or not a schema at all) and must
/// render as exactly `unknown`.
#[test]
fn b38_hostile_schema_renders_unknown_and_never_panics() {
    let unknown_cases = [
        json!(true),
        json!(false),
        json!(null),
        json!(5),
        json!("string"),
        json!([{"type": "string"}]),
        json!({"$ref": "#/definitions/x"}),
        json!({"$ref": "https://example.org/schema.json"}),
        json!({"type": "string", "pattern": "(?<=a)b"}),
        json!({"type": "string", "format": 1}),
        json!({"type": "number", "minimum": "0"}),
        json!({"type": "string", "minLength": -1}),
        json!({"type": ["string", "string"]}),
        json!({"type": []}),
        json!({"type": "date"}),
        json!({"type": 7}),
        json!({"anyOf": [{"type": "string"}]}),
        json!({"type": "string", "anyOf": [{"type": "string"}, {"type": "null"}]}),
        json!({"allOf": [{}]}),
        json!({"not": {}}),
        json!({"oneOf": {"type": "string"}}),
        json!({"oneOf": [{"type": "string"}, true]}),
        json!({"type": "object", "additionalProperties": 1}),
        json!({"type": "object", "properties": []}),
        json!({"type": "object", "properties": {"a": {}}, "required": "a"}),
        json!({"type": "object", "properties": {"a": {}}, "required": ["b"]}),
        json!({"type": "object", "patternProperties": {}}),
        json!({"type": "array", "items": [{"type": "string"}]}),
        json!({"enum": [{"a": 1}]}),
        json!({"enum": [[1]]}),
        json!({"enum": "a"}),
        json!({"const": {"a": 1}}),
        json!({"type": "string", "enum": [1]}),
        json!({"description": 5}),
        json!({"__proto__": {}}),
    ];
    for schema in &unknown_cases {
        assert_eq!(schema_to_ts(schema), "unknown", "schema: {schema}");
    }

    // Huge enums render linearly, every literal once.
    let values: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
    let ts = schema_to_ts(&json!({"type": "string", "enum": values}));
    assert_eq!(ts.matches(" | ").count(), 99_999);
    assert!(ts.starts_with("\"v0\" | \"v1\" | ") && ts.ends_with("\"v99999\""));

    // Wide objects render linearly too.
    let mut wide = json!({"type": "object", "properties": {}, "additionalProperties": false});
    for i in 0..20_000 {
        wide["properties"][format!("p-{i}")] = json!({"type": "string", "description": "*/"});
    }
    let ts = schema_to_ts(&wide);
    assert_eq!(ts.matches("; // */\n").count(), 20_000);
    assert!(
        ts.len() < 40 * 20_000,
        "output is not linear: {} bytes",
        ts.len()
    );

    // 5,000-deep schemas: rendered on a thread with a small stack, so an
    // unbounded recursion would overflow; nesting stops at MAX_DEPTH.
    let object = Deep(deep_object(5_000));
    let array = Deep(deep_array(5_000));
    let one_of = Deep(deep_one_of(5_000));
    let default = Deep(deep_default(5_000));
    let catalog = stress_catalog();
    let (object_ts, array_ts, one_of_ts, default_ts, sdk) = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn_scoped(s, || {
                (
                    schema_to_ts(&object.0),
                    schema_to_ts(&array.0),
                    schema_to_ts(&one_of.0),
                    schema_to_ts(&default.0),
                    declarations(&decls(&catalog)),
                )
            })
            .expect("spawn")
            .join()
            .expect("rendering panicked")
    });
    // The root is depth 0; nodes at depths 1..=MAX_DEPTH still render.
    assert_eq!(object_ts.matches("x: ").count(), MAX_DEPTH + 1);
    assert!(object_ts.contains("x: unknown"));
    assert!(object_ts.len() < 64 * 1024, "{} bytes", object_ts.len());
    assert_eq!(array_ts, format!("unknown{}", "[]".repeat(MAX_DEPTH + 1)));
    assert_eq!(one_of_ts, "unknown");
    assert_eq!(default_ts, "JsonValue[]");
    assert!(sdk.contains("\ndeep_one_of: unknown;\n"));
    assert!(sdk.contains("\nunsupported: unknown;\n"));
    assert!(sdk.contains("\nbool_schemas: unknown;\n"));
    assert!(sdk.contains("\nnull_schemas: unknown;\n"));

    // A leaf at depth MAX_DEPTH renders; one level deeper it is `unknown`.
    assert_eq!(
        schema_to_ts(&deep_array(MAX_DEPTH)),
        format!("number{}", "[]".repeat(MAX_DEPTH))
    );
    assert_eq!(
        schema_to_ts(&deep_array(MAX_DEPTH + 1)),
        format!("unknown{}", "[]".repeat(MAX_DEPTH + 1))
    );

    // Weird tool names and hostile catalog values never panic either.
    let weird: Vec<Tool> = [
        "\u{0}",
        "\u{feff}",
        "\u{202e}evil",
        "a\u{2028}b",
        "\\",
        "\"",
    ]
    .iter()
    .map(|n| Tool::new(n, "\u{0}*/\u{202e}", json!(1.5), json!("x")))
    .collect();
    let sdk = declarations(&decls(&weird));
    assert!(sdk.contains("\n\"\\u0000\": unknown;\n"));
    assert!(sdk.contains("\n\"a\\u2028b\": unknown;\n"));
    assert!(sdk.contains("\n// */\n\"\\\\\": unknown;\n"), "{sdk}");
}
