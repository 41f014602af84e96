//! The keywords real MCP catalogs use (issue 20 §3): each accepted, validated with good and
//! bad values (the path and what was wrong), and the hostile shapes they open up.

use std::time::{Duration, Instant};

use crate::common::{dismantle, nest, obj};
use ptc_schema::{assert_supported, node_is_supported, validate};
use serde_json::{json, Value};

/// `schema` is supported, `good` passes and `bad` fails with exactly `(path, message)`.
#[track_caller]
fn enforced(schema: Value, good: Value, bad: Value, path: &str, message: &str) {
    assert_supported(&schema).unwrap_or_else(|e| panic!("{schema} not supported: {e}"));
    assert!(node_is_supported(&schema), "{schema}");
    if let Err(e) = validate(&schema, &good) {
        panic!("{good} refused by {schema}: {e}");
    }
    let err = validate(&schema, &bad).expect_err(&format!("{bad} accepted by {schema}"));
    assert_eq!(
        (err.path.as_str(), err.message.as_str()),
        (path, message),
        "{schema} vs {bad}"
    );
}

/// An object schema with one property `p`.
fn prop(schema: Value) -> Value {
    json!({"type": "object", "properties": {"p": schema}})
}

#[test]
fn wild_any_of_needs_one_branch_and_stands_with_annotations_only() {
    let schema = prop(json!({
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": null, "title": "P", "description": "d"
    }));
    enforced(
        schema,
        json!({"p": 3}),
        json!({"p": "x"}),
        "/p",
        "value matches none of the 2 anyOf branches (branch 0: expected integer, got string; branch 1: expected null, got string)",
    );
    // Unlike oneOf, several matching branches are fine.
    let overlapping = json!({"anyOf": [{"type": "number"}, {"type": "integer"}]});
    assert!(validate(&overlapping, &json!(1)).is_ok());
    let one_of = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
    assert!(validate(&one_of, &json!(1)).is_err());
    // Beside a union only annotations: constraints go inside the branches.
    let err = assert_supported(&json!({"type": "string", "anyOf": [{}, {}]})).unwrap_err();
    assert_eq!(err.issues[0].path, "/type");
    assert!(
        err.issues[0]
            .message
            .contains("cannot be combined with `anyOf`"),
        "{err}"
    );
    assert!(assert_supported(&json!({"anyOf": [{}]})).is_err());
    // OpenAPI's discriminator is an annotation beside a oneOf.
    let tagged = json!({
        "oneOf": [
            {"type": "object", "properties": {"op": {"const": "get"}}, "required": ["op"]},
            {"type": "object", "properties": {"op": {"const": "put"}}, "required": ["op"]}
        ],
        "discriminator": {"propertyName": "op", "mapping": {"get": "#/$defs/Get"}}
    });
    enforced(
        tagged,
        json!({"op": "get"}),
        json!({"op": "del"}),
        "",
        "value matches none of the 2 oneOf branches (branch 0: /op: expected constant \"get\", got \"del\"; branch 1: /op: expected constant \"put\", got \"del\")",
    );
    assert!(assert_supported(&json!({"discriminator": "op"})).is_err());
}

#[test]
fn wild_type_arrays_accept_each_type() {
    let schema = prop(json!({"type": ["string", "null"], "enum": ["a", null]}));
    enforced(
        schema,
        json!({"p": null}),
        json!({"p": 1}),
        "/p",
        "expected string or null, got number",
    );
    enforced(
        prop(json!({"type": ["object", "null"], "properties": {"x": {"type": "integer"}}})),
        json!({"p": {"x": 1}}),
        json!({"p": {"x": "1"}}),
        "/p/x",
        "expected integer, got string",
    );
    for bad in [
        json!({"type": []}),
        json!({"type": ["string", "string"]}),
        json!({"type": ["text"]}),
    ] {
        let err = assert_supported(&bad).unwrap_err();
        assert_eq!(err.issues[0].path, "/type", "{bad}");
    }
    // `enum` values must fit one of the types.
    assert!(assert_supported(&json!({"type": ["string", "null"], "enum": [1]})).is_err());
}

#[test]
fn wild_number_bounds() {
    let schema = prop(json!({"type": "integer", "minimum": 1, "maximum": 100}));
    enforced(
        schema.clone(),
        json!({"p": 1}),
        json!({"p": 0}),
        "/p",
        "expected a number >= 1 (minimum), got 0",
    );
    enforced(
        schema,
        json!({"p": 100}),
        json!({"p": 100.5}),
        "/p",
        "expected integer, got number",
    );
    let exclusive = prop(json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5}));
    enforced(
        exclusive.clone(),
        json!({"p": 0.5}),
        json!({"p": 0}),
        "/p",
        "expected a number > 0 (exclusiveMinimum), got 0",
    );
    enforced(
        exclusive,
        json!({"p": 1.49}),
        json!({"p": 1.5}),
        "/p",
        "expected a number < 1.5 (exclusiveMaximum), got 1.5",
    );
    // Large integers compare exactly.
    let big = json!({"maximum": 9007199254740993_u64});
    assert!(validate(&big, &json!(9007199254740993_u64)).is_ok());
    assert!(validate(&big, &json!(9007199254740994_u64)).is_err());
    // Bounds apply to numbers only; a type that rules numbers out is a contradiction.
    assert!(validate(&json!({"minimum": 5}), &json!("x")).is_ok());
    let err = assert_supported(&json!({"type": "string", "minimum": 1})).unwrap_err();
    assert_eq!(err.issues[0].path, "/minimum");
    assert!(assert_supported(&json!({"minimum": "1"})).is_err());
    assert!(assert_supported(&json!({"exclusiveMinimum": true})).is_err());
}

#[test]
fn wild_string_lengths_count_code_points() {
    let schema = prop(json!({"type": "string", "minLength": 2, "maxLength": 3}));
    enforced(
        schema.clone(),
        json!({"p": "ééé"}),
        json!({"p": "😀"}),
        "/p",
        "expected at least 2 characters (minLength), got 1",
    );
    enforced(
        schema,
        json!({"p": "😀😀😀"}),
        json!({"p": "abcd"}),
        "/p",
        "expected at most 3 characters (maxLength), got 4",
    );
    assert!(assert_supported(&json!({"maxLength": -1})).is_err());
    assert!(assert_supported(&json!({"maxLength": 1.5})).is_err());
}

#[test]
fn wild_array_counts_and_unique_items() {
    let schema =
        prop(json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2}));
    enforced(
        schema.clone(),
        json!({"p": ["a"]}),
        json!({"p": []}),
        "/p",
        "expected at least 1 items (minItems), got 0",
    );
    enforced(
        schema,
        json!({"p": ["a", "b"]}),
        json!({"p": ["a", "b", "c"]}),
        "/p",
        "expected at most 2 items (maxItems), got 3",
    );
    let unique = prop(json!({"type": "array", "uniqueItems": true}));
    enforced(
        unique.clone(),
        json!({"p": [1, "1", [1], {"a": 1}, {"a": 2}]}),
        json!({"p": [1, 2, 1.0]}),
        "/p",
        "expected unique items (uniqueItems), items 0 and 2 are equal",
    );
    assert!(validate(&unique, &json!({"p": [{"a": [1]}, {"a": [1]}]})).is_err());
}

#[test]
fn wild_pattern_is_bounded_and_linear() {
    let schema = prop(json!({"type": "string", "pattern": "^[a-z0-9-]+$"}));
    enforced(
        schema,
        json!({"p": "my-repo"}),
        json!({"p": "My Repo"}),
        "/p",
        "expected a string matching \"^[a-z0-9-]+$\" (pattern), got \"My Repo\"",
    );
    // Unanchored, as JSON Schema says.
    assert!(validate(&json!({"pattern": "b"}), &json!("abc")).is_ok());
    // Look-around and back-references are outside the subset, named at the pattern.
    for pattern in ["(?=a)", "(a)\\1", "(?<!x)y"] {
        let err = assert_supported(&json!({"type": "string", "pattern": pattern})).unwrap_err();
        assert_eq!(err.issues[0].path, "/pattern", "{pattern}");
        assert!(
            err.issues[0].message.contains("`pattern` is not supported"),
            "{err}"
        );
    }
    // A pattern whose compiled form is huge is refused, not built.
    let err = assert_supported(&json!({"pattern": "(\\w{100}){100}"})).unwrap_err();
    assert!(
        err.issues[0].message.contains("compiles to more than"),
        "{err}"
    );
    // Classic catastrophic-backtracking patterns match in linear time.
    let bomb = json!({"type": "string", "pattern": "^(a+)+$"});
    let text = format!("{}!", "a".repeat(100_000));
    let started = Instant::now();
    let err = validate(&bomb, &json!(text)).unwrap_err();
    assert!(err.message.contains("(pattern)"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn wild_formats_are_checked_where_cheap_and_others_are_annotations() {
    for (format, good, bad) in [
        ("date-time", "2025-06-01T12:00:00Z", "2025-06-01"),
        ("date", "2025-06-01", "June 1st"),
        ("email", "dev@example.org", "dev at example.org"),
        ("uri", "https://example.org/x", "example.org/x"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
        ("ipv4", "10.0.0.1", "10.0.0"),
        ("ipv6", "fe80::1", "fe80:::1"),
    ] {
        let message = format!("expected a string of format \"{format}\", got \"{bad}\"");
        enforced(
            prop(json!({"type": "string", "format": format})),
            json!({"p": good}),
            json!({"p": bad}),
            "/p",
            &message,
        );
    }
    assert!(validate(&json!({"type": "integer", "format": "int32"}), &json!(7)).is_ok());
    assert!(validate(
        &json!({"type": "string", "format": "hostname"}),
        &json!("not a host")
    )
    .is_ok());
}

#[test]
fn wild_property_names_and_schema_valued_additional_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "propertyNames": {"type": "string", "pattern": "^[a-z_]+$"},
        "additionalProperties": {"type": "integer"}
    });
    enforced(
        schema.clone(),
        json!({"id": "x", "count": 1}),
        json!({"id": "x", "count": "1"}),
        "/count",
        "expected integer, got string",
    );
    let err = validate(&schema, &json!({"id": "x", "Bad-Key": 1})).unwrap_err();
    assert_eq!(err.path, "/Bad-Key");
    assert!(
        err.message.starts_with(
            "property name \"Bad-Key\" is not allowed (propertyNames): expected a string matching"
        ),
        "{err}"
    );
    // Declared properties are not checked against additionalProperties.
    assert!(validate(&schema, &json!({"id": "not an integer"})).is_ok());
    assert!(assert_supported(&json!({"type": "object", "additionalProperties": 3})).is_err());
    assert!(assert_supported(&json!({"propertyNames": {"type": "string"}})).is_err());
}

#[test]
fn wild_local_refs_resolve_from_the_root() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "annotations may stand beside a $ref"},
            "b": {"$ref": "#/definitions/B"},
            "odd": {"$ref": "#/$defs/x~1y"}
        },
        "$defs": {"A": {"type": "array", "items": {"$ref": "#/definitions/B"}}, "x/y": {"type": "null"}},
        "definitions": {"B": {"type": "string", "maxLength": 2}}
    });
    enforced(
        schema.clone(),
        json!({"a": ["ab"], "b": "c", "odd": null}),
        json!({"a": ["abc"]}),
        "/a/0",
        "expected at most 2 characters (maxLength), got 3",
    );
    // A recursive schema (through properties) validates values of any depth.
    let tree = json!({
        "type": "object",
        "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}},
        "additionalProperties": false
    });
    assert_supported(&tree).unwrap();
    let depth = 5_000;
    let good = nest(depth, json!({"v": 1}), |v| {
        obj([("kids", Value::Array(vec![v]))])
    });
    assert!(validate(&tree, &good).is_ok());
    let bad = nest(depth, json!({"v": "1"}), |v| {
        obj([("kids", Value::Array(vec![v]))])
    });
    let err = validate(&tree, &bad).unwrap_err();
    assert_eq!(err.path, format!("{}/v", "/kids/0".repeat(depth)));
    dismantle(good);
    dismantle(bad);
}

#[test]
fn hostile_refs_missing_remote_or_cyclic_are_refused() {
    let cases = [
        (json!({"$ref": "#/$defs/nope"}), "/$ref", "names no schema"),
        (
            json!({"$ref": "https://example.org/s.json"}),
            "/$ref",
            "is not local",
        ),
        (json!({"$ref": "#/properties/a"}), "/$ref", "is not local"),
        (json!({"$ref": "#"}), "/$ref", "`$ref` cycle"),
        (
            json!({"properties": {}, "type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}),
            "/$defs/a/$ref",
            "`$ref` cycle",
        ),
        (
            json!({"$defs": {"u": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/u"}]}}}),
            "/$defs/u/anyOf/1/$ref",
            "`$ref` cycle",
        ),
        (
            json!({"$ref": "#/$defs/a", "type": "string", "$defs": {"a": {}}}),
            "/type",
            "cannot be combined with `$ref`",
        ),
    ];
    for (schema, path, words) in cases {
        let err = assert_supported(&schema).unwrap_err();
        assert!(
            err.issues
                .iter()
                .any(|i| i.path == path && i.message.contains(words)),
            "{schema}: {err}"
        );
        // Validation refuses the schema instead of looping.
        assert!(validate(&schema, &json!(null)).is_err(), "{schema}");
    }
}

#[test]
fn hostile_5000_deep_ref_chain_is_checked_and_validated_without_recursion() {
    let depth = 5_000;
    let mut defs = serde_json::Map::new();
    for i in 0..depth {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(format!("d{depth}"), json!({"type": "string"}));
    let schema = json!({"$ref": "#/$defs/d0", "$defs": defs});
    let (checked, good, bad) = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn_scoped(s, || {
                (
                    assert_supported(&schema).is_ok(),
                    validate(&schema, &json!("x")).is_ok(),
                    validate(&schema, &json!(1)),
                )
            })
            .unwrap()
            .join()
            .unwrap()
    });
    assert!(checked && good);
    assert_eq!(bad.unwrap_err().message, "expected string, got number");
}

#[test]
fn hostile_huge_and_exponential_unions_are_bounded() {
    // 10,000 branches: the message quotes the first 20.
    let branches: Vec<Value> = (0..10_000).map(|i| json!({"const": i})).collect();
    let huge = json!({"anyOf": branches});
    assert!(validate(&huge, &json!(9_999)).is_ok());
    let err = validate(&huge, &json!(-1)).unwrap_err();
    assert!(
        err.message.contains("none of the 10000 anyOf branches"),
        "{}",
        err.message
    );
    assert!(err.message.contains("(9980 more)"), "{}", err.message);
    assert!(err.message.len() < 4_000, "{}", err.message.len());
    // Shared definitions that branch twice per level would try 2^40 paths: stopped at the budget.
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/l{}", i + 1);
        defs.insert(
            format!("l{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("l40".into(), json!({"type": "string"}));
    let schema = json!({"$ref": "#/$defs/l0", "$defs": defs});
    assert_supported(&schema).unwrap();
    assert!(validate(&schema, &json!("ok")).is_ok());
    let started = Instant::now();
    let err = validate(&schema, &json!(1)).unwrap_err();
    assert!(
        err.to_string()
            .contains("validation stopped after 1000000 checks"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    // The budget is per outermost union: many small unions in one value never exhaust it.
    let items = json!({"type": "array", "items": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "integer"}}]}});
    let many: Vec<Value> = (0..300_000).map(|_| json!([1, 2, 3])).collect();
    assert!(validate(&items, &Value::Array(many.clone())).is_ok());
    let mut bad = many;
    bad[299_999] = json!(["x"]);
    let err = validate(&items, &Value::Array(bad)).unwrap_err();
    assert_eq!(err.path, "/299999");
}
