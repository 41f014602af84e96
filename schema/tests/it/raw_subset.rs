//! Behaviours 3-6: the enforced raw subset and its validator.

use crate::common;

use common::{deep_array_schema, deep_array_value, dismantle, nest, obj, paths};
use ptc_schema::{
    assert_object_schema, assert_supported, node_is_supported, validate, SUPPORTED_KEYWORDS,
};
use serde_json::{json, Value};

#[test]
fn b03_unsupported_keywords_rejected_with_every_path() {
    let schema = json!({
        "$id": "x",
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"deep": {"type": "string", "not": {}}}},
            "list": {"type": "array", "items": {"type": "string", "contentEncoding": "base64"}},
            "n": {"type": "number", "multipleOf": 2}
        }
    });
    let err = assert_supported(&schema).unwrap_err();
    assert_eq!(
        paths(&err),
        vec![
            "/$id",
            "/properties/a/properties/deep/not",
            "/properties/list/items/contentEncoding",
            "/properties/n/multipleOf",
        ]
    );
    let text = err.to_string();
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(text
        .contains("/properties/list/items/contentEncoding: unsupported keyword `contentEncoding`"));
    // A validator must not silently ignore them either.
    assert!(validate(&schema, &json!({})).is_err());
}

#[test]
fn b03_every_non_subset_keyword_is_rejected() {
    for kw in [
        "$schema",
        "$id",
        "allOf",
        "not",
        "if",
        "multipleOf",
        "minProperties",
        "patternProperties",
        "dependentRequired",
        "nullable",
        "contains",
    ] {
        let schema = json!({ kw: 1 });
        let err = assert_supported(&schema).unwrap_err();
        assert_eq!(err.issues.len(), 1, "{kw}");
        assert_eq!(err.issues[0].path, format!("/{kw}"));
        assert!(!node_is_supported(&schema), "{kw}");
    }
    for kw in SUPPORTED_KEYWORDS {
        assert!(
            !assert_supported(&json!({ *kw: 1 })).err().is_some_and(|e| e
                .issues
                .iter()
                .any(|i| i.message.contains("unsupported keyword"))),
            "{kw} flagged as unknown"
        );
    }
}

#[test]
fn b03_keyword_paths_are_pointer_escaped() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a/b": {"type": "string", "x-a/b": true},
            "m~n": {"type": "string", "multipleOf": 3},
            "": {"type": "string", "not": "z"}
        },
        "required": ["a/b", "m~n", "nope"]
    });
    let err = assert_supported(&schema).unwrap_err();
    assert_eq!(
        paths(&err),
        vec![
            "/properties//not",
            "/properties/a~1b/x-a~1b",
            "/properties/m~0n/multipleOf",
            "/required/2",
        ]
    );
}

#[test]
fn b04_one_of_needs_two_branches() {
    let one = json!({"oneOf": [{"type": "string"}]});
    let err = assert_supported(&one).unwrap_err();
    assert_eq!(err.issues[0].path, "/oneOf");
    assert!(err.issues[0].message.contains("at least two"), "{err}");
    assert!(!node_is_supported(&one));
    assert!(assert_supported(&json!({"oneOf": []})).is_err());
    assert!(assert_supported(&json!({"oneOf": {"type": "string"}})).is_err());
    assert!(assert_supported(&json!({"oneOf": [{"type": "string"}, {"type": "null"}]})).is_ok());
}

#[test]
fn b04_one_of_cannot_carry_sibling_constraints() {
    let schema = json!({
        "type": "string",
        "enum": ["a"],
        "description": "annotations are fine",
        "oneOf": [{"type": "string"}, {"type": "null"}]
    });
    let err = assert_supported(&schema).unwrap_err();
    assert_eq!(paths(&err), vec!["/enum", "/type"]);
}

#[test]
fn b04_value_must_match_exactly_one_branch() {
    let schema = json!({"oneOf": [
        {"type": "integer"},
        {"type": "number"},
        {"type": "string", "enum": ["a", "b"]}
    ]});
    assert!(validate(&schema, &json!(1.5)).is_ok());
    assert!(validate(&schema, &json!("a")).is_ok());

    // Two branches match an integer.
    let two = validate(&schema, &json!(3)).unwrap_err();
    assert_eq!(two.path, "");
    assert!(
        two.message.contains("matches 2 oneOf branches (0, 1)"),
        "{two}"
    );

    // No branch matches.
    let zero = validate(&schema, &json!("c")).unwrap_err();
    assert!(
        zero.message.contains("none of the 3 oneOf branches"),
        "{zero}"
    );
    assert!(zero.message.contains("branch 2:"), "{zero}");

    // Inside a document, the error names where.
    let obj = json!({"type": "object", "properties": {"v": schema}});
    let err = validate(&obj, &json!({"v": true})).unwrap_err();
    assert_eq!(err.path, "/v");
}

#[test]
fn b04_nested_one_of_is_decided_per_value() {
    // Outer branch 0 contains an inner oneOf; only one outer branch may match.
    let schema = json!({"oneOf": [
        {"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "null"}]}},
        {"type": "object"}
    ]});
    assert!(validate(&schema, &json!(["a", null])).is_ok());
    assert!(validate(&schema, &json!({})).is_ok());
    let err = validate(&schema, &json!(["a", 1])).unwrap_err();
    assert_eq!(err.path, "");
    assert!(err.message.contains("/1: value matches none"), "{err}");
}

#[test]
fn b05_required_names_must_be_declared() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a", "b", "a", 7]
    });
    let err = assert_supported(&schema).unwrap_err();
    assert_eq!(
        paths(&err),
        vec!["/required/1", "/required/2", "/required/3"]
    );
    assert!(
        err.issues[0].message.contains("\"b\" is not declared"),
        "{err}"
    );
    // Without properties at all, every name is undeclared.
    let bare = json!({"type": "object", "required": ["x"]});
    assert_eq!(
        paths(&assert_supported(&bare).unwrap_err()),
        vec!["/required/0"]
    );
    assert!(!node_is_supported(&bare));
    assert!(assert_supported(
        &json!({"type": "object", "properties": {"x": {}}, "required": ["x"]})
    )
    .is_ok());
}

#[test]
fn b06_validation_is_stack_safe_at_5000_levels() {
    for depth in [5_000, 30_000] {
        let schema = deep_array_schema(depth, json!({"type": "integer"}));
        let good = deep_array_value(depth, json!(1));
        assert!(validate(&schema, &good).is_ok());
        let bad = deep_array_value(depth, json!("x"));
        let err = validate(&schema, &bad).unwrap_err();
        assert_eq!(err.path, "/0".repeat(depth));
        assert_eq!(err.message, "expected integer, got string");
        dismantle(schema);
        dismantle(good);
        dismantle(bad);
    }
    // Deep objects with required/closed checks at every level.
    let depth = 5_000;
    let schema = nest(depth, json!({"type": "null"}), |v| {
        obj([
            ("type", json!("object")),
            ("properties", obj([("a", v)])),
            ("required", json!(["a"])),
            ("additionalProperties", json!(false)),
        ])
    });
    let value = nest(depth, Value::Null, |v| obj([("a", v)]));
    assert!(validate(&schema, &value).is_ok());
    let missing = nest(depth - 1, json!({}), |v| obj([("a", v)]));
    let err = validate(&schema, &missing).unwrap_err();
    assert_eq!(err.path, "/a".repeat(depth - 1));
    assert!(err.message.contains("missing required property \"a\""));
    dismantle(schema);
    dismantle(value);
    dismantle(missing);
}

#[test]
fn b06_validation_through_deep_one_of_is_stack_safe() {
    let depth = 5_000;
    let schema = nest(depth, json!({"type": "integer"}), |v| {
        let array = obj([("type", json!("array")), ("items", v)]);
        obj([("oneOf", Value::Array(vec![json!({"type": "null"}), array]))])
    });
    let good = deep_array_value(depth, json!(1));
    assert!(validate(&schema, &good).is_ok());
    let with_nulls = deep_array_value(depth / 2, Value::Null);
    assert!(validate(&schema, &with_nulls).is_ok());
    let bad = deep_array_value(depth, json!(true));
    let err = validate(&schema, &bad).unwrap_err();
    // The failure propagates as "no branch matched" at the root.
    assert_eq!(err.path, "");
    assert!(err.message.contains("none of the 2 oneOf branches"));
    dismantle(schema);
    dismantle(good);
    dismantle(with_nulls);
    dismantle(bad);
}

#[test]
fn b06_schema_check_is_stack_safe_at_5000_levels() {
    for depth in [5_000, 30_000] {
        let ok = deep_array_schema(depth, json!({"type": "string"}));
        assert!(assert_supported(&ok).is_ok());
        dismantle(ok);

        let bad = nest(depth, json!({"type": "string", "not": {}}), |v| {
            let one_of = obj([("oneOf", Value::Array(vec![v, json!({"type": "null"})]))]);
            obj([
                ("type", json!("object")),
                ("properties", obj([("p", one_of)])),
            ])
        });
        let err = assert_supported(&bad).unwrap_err();
        assert_eq!(err.issues.len(), 1);
        assert_eq!(
            err.issues[0].path,
            format!("{}/not", "/properties/p/oneOf/0".repeat(depth))
        );
        dismantle(bad);
    }
}

#[test]
fn hostile_nodes_never_panic_and_are_reported() {
    let hostile = [
        json!(true),
        json!(false),
        json!(null),
        json!(3),
        json!("string"),
        json!([{"type": "string"}]),
        json!({"type": ["string", "string"]}),
        json!({"type": []}),
        json!({"type": "text"}),
        json!({"type": 5}),
        json!({"type": "object", "properties": []}),
        json!({"type": "object", "properties": {"a": true}}),
        json!({"type": "object", "properties": {"a": 1}}),
        json!({"type": "object", "required": "a"}),
        json!({"type": "object", "additionalProperties": {"type": "strin"}}),
        json!({"type": "object", "additionalProperties": "no"}),
        json!({"type": "array", "items": [{"type": "string"}]}),
        json!({"type": "array", "items": false}),
        json!({"type": "string", "items": {}}),
        json!({"properties": {}}),
        json!({"enum": []}),
        json!({"enum": "a"}),
        json!({"enum": [[1]]}),
        json!({"const": {"a": 1}}),
        json!({"description": 1}),
        json!({"title": null}),
        json!({"oneOf": [true, false]}),
    ];
    for schema in &hostile {
        assert!(assert_supported(schema).is_err(), "accepted {schema}");
        // Node-local check and validate never panic either.
        let _ = node_is_supported(schema);
        assert!(
            validate(schema, &json!(1)).is_err(),
            "validated against {schema}"
        );
    }
    // Node-local: child problems are not this node's problem.
    assert!(node_is_supported(
        &json!({"type": "object", "properties": {"a": true}})
    ));
    assert!(node_is_supported(
        &json!({"type": "array", "items": {"not": "x"}})
    ));
    assert!(node_is_supported(&json!({"oneOf": [1, 2]})));
    assert!(!node_is_supported(
        &json!({"type": "object", "properties": 1})
    ));
    assert_eq!(
        assert_supported(&json!(true)).unwrap_err().issues[0].path,
        ""
    );
    // Root problems display as "/".
    assert!(assert_supported(&json!(false))
        .unwrap_err()
        .to_string()
        .starts_with("/: boolean schema"));
}

#[test]
fn annotations_and_empty_nodes_accept_any_value() {
    let any = [
        json!({}),
        json!({"description": "d", "title": "t", "default": {"x": [1]}, "examples": [1, "a"]}),
    ];
    for schema in &any {
        assert!(node_is_supported(schema));
        assert!(assert_supported(schema).is_ok());
        for v in [
            json!(null),
            json!(1),
            json!("s"),
            json!([1, {}]),
            json!({"k": []}),
        ] {
            assert!(validate(schema, &v).is_ok(), "{schema} vs {v}");
        }
    }
}

#[test]
fn enum_and_const_must_match_type_and_be_scalars() {
    let err =
        assert_supported(&json!({"type": "integer", "enum": [1, 2.5, "3", 4.0]})).unwrap_err();
    assert_eq!(paths(&err), vec!["/enum/1", "/enum/2"]);
    assert!(assert_supported(&json!({"type": "string", "const": 1})).is_err());
    assert!(assert_supported(&json!({"type": "object", "const": "x"})).is_err());
    assert!(assert_supported(&json!({"enum": ["a", 1, true, null]})).is_ok());
    assert!(assert_supported(&json!({"type": "null", "const": null})).is_ok());
}

#[test]
fn huge_enum_is_checked_and_enforced() {
    let values: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
    let schema = json!({"type": "string", "enum": values});
    assert!(assert_supported(&schema).is_ok());
    assert!(validate(&schema, &json!("v99999")).is_ok());
    let err = validate(&schema, &json!("nope")).unwrap_err();
    assert!(
        err.message.len() < 200,
        "message must stay bounded: {}",
        err.message.len()
    );

    let mut bad: Vec<Value> = (0..50_000).map(|i| json!(i)).collect();
    bad.push(json!("x"));
    let err = assert_supported(&json!({"type": "integer", "enum": bad})).unwrap_err();
    assert_eq!(paths(&err), vec!["/enum/50000"]);
}

#[test]
fn integer_versus_number() {
    let int = json!({"type": "integer"});
    let num = json!({"type": "number"});
    for v in [
        json!(3),
        json!(3.0),
        json!(-7),
        json!(u64::MAX),
        json!(1e20),
    ] {
        assert!(validate(&int, &v).is_ok(), "{v}");
        assert!(validate(&num, &v).is_ok(), "{v}");
    }
    let err = validate(&int, &json!(3.5)).unwrap_err();
    assert_eq!(err.to_string(), "/: expected integer, got number");
    assert!(validate(&num, &json!(3.5)).is_ok());
    assert!(validate(&num, &json!("3")).is_err());
    assert!(validate(&int, &json!("3")).is_err());
    // enum/const compare numbers numerically.
    assert!(validate(&json!({"enum": [1, 2]}), &json!(1.0)).is_ok());
    assert!(validate(&json!({"const": 2.0}), &json!(2)).is_ok());
    assert!(validate(&json!({"const": 2}), &json!(2.5)).is_err());
    assert!(validate(&json!({"const": "1"}), &json!(1)).is_err());
}

#[test]
fn open_versus_closed_objects() {
    let props = json!({"a": {"type": "string"}});
    let open = json!({"type": "object", "properties": props});
    let open_explicit =
        json!({"type": "object", "properties": props, "additionalProperties": true});
    let closed = json!({"type": "object", "properties": props, "additionalProperties": false});
    let v = json!({"a": "x", "extra/key": 1});
    assert!(validate(&open, &v).is_ok());
    assert!(validate(&open_explicit, &v).is_ok());
    let err = validate(&closed, &v).unwrap_err();
    assert_eq!(err.path, "/extra~1key");
    assert!(err.message.contains("not allowed"), "{err}");
    assert!(validate(&closed, &json!({"a": "x"})).is_ok());
    assert!(validate(&closed, &json!({})).is_ok());
    // Declared properties are still validated in open objects.
    assert_eq!(validate(&open, &json!({"a": 1})).unwrap_err().path, "/a");
    // Closed empty object.
    let empty = json!({"type": "object", "additionalProperties": false});
    assert!(validate(&empty, &json!({})).is_ok());
    assert!(validate(&empty, &json!({"k": 1})).is_err());
}

#[test]
fn validation_error_pointers_name_where_and_what() {
    let schema = json!({
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "m~n": {"type": "boolean"}},
                "required": ["name"]
            }}
        }
    });
    let value = json!({"items": [
        {"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": 4}
    ]});
    let err = validate(&schema, &value).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/items/3/name: expected string, got number"
    );
    let err = validate(&schema, &json!({"items": [{"name": "a", "m~n": 1}]})).unwrap_err();
    assert_eq!(err.path, "/items/0/m~0n");
    let err = validate(&schema, &json!({"items": [{}, {"name": 1}]})).unwrap_err();
    assert_eq!(err.path, "/items/0");
    assert_eq!(err.message, "missing required property \"name\"");
    // The first failure in document order leads; every one is listed.
    let err = validate(&schema, &json!({"items": [{"name": 1}, {"name": 2}]})).unwrap_err();
    assert_eq!(err.path, "/items/0/name");
    assert_eq!(
        err.to_string(),
        "/items/0/name: expected string, got number; /items/1/name: expected string, got number"
    );
}

#[test]
fn validation_reports_every_violation_in_one_message() {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "query": {"type": "string"},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "limit": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "pick": {"oneOf": [{"type": "string"}, {"type": "number"}]}
        },
        "required": ["path", "query"],
        "additionalProperties": false
    });
    let value = json!({
        "mode": "quick", "limit": 1.5, "tags": ["a", 2, "c", false], "pick": true, "extra": 1
    });
    let err = validate(&schema, &value).unwrap_err();
    let listed: Vec<(&str, &str)> = err
        .violations
        .iter()
        .map(|v| (v.path.as_str(), v.message.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            ("", "missing required property \"path\""),
            ("", "missing required property \"query\""),
            (
                "/extra",
                "property \"extra\" is not allowed (additionalProperties is false)"
            ),
            ("/mode", "expected one of \"fast\", \"slow\", got \"quick\""),
            ("/limit", "expected integer, got number"),
            ("/tags/1", "expected string, got number"),
            ("/tags/3", "expected string, got boolean"),
            (
                "/pick",
                "value matches none of the 2 oneOf branches (branch 0: expected string, got \
                 boolean; branch 1: expected number, got boolean)"
            ),
        ]
    );
    assert!(!err.more);
    assert_eq!((err.path.as_str(), err.message.as_str()), listed[0]);
    let text = err.to_string();
    assert!(
        text.starts_with("/: missing required property \"path\"; /: missing required"),
        "{text}"
    );
    assert!(
        text.contains("; /mode: expected one of \"fast\", \"slow\", got \"quick\"; "),
        "{text}"
    );

    // Inside a oneOf branch only the branch's first failure counts.
    let branchy = json!({"oneOf": [
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        {"type": "string"}
    ]});
    let err = validate(&branchy, &json!({"a": 1, "b": 2})).unwrap_err();
    assert_eq!(err.violations.len(), 1, "{err}");
    assert!(
        err.message.contains("branch 0: /a: expected string"),
        "{err}"
    );
}

#[test]
fn validation_lists_at_most_twenty_violations_and_long_enums_are_cut() {
    let schema = json!({"type": "array", "items": {"type": "string"}});
    let value = Value::Array((0..1000).map(|i| json!(i)).collect());
    let err = validate(&schema, &value).unwrap_err();
    assert_eq!(err.violations.len(), ptc_schema::MAX_VIOLATIONS);
    assert_eq!(ptc_schema::MAX_VIOLATIONS, 20);
    assert!(err.more);
    assert_eq!(err.violations[19].path, "/19");
    let text = err.to_string();
    assert!(
        text.ends_with("/19: expected string, got number; and more (only the first 20 are listed)"),
        "{text}"
    );
    // Exactly twenty: all listed, nothing more.
    let value = Value::Array((0..20).map(|i| json!(i)).collect());
    let err = validate(&schema, &value).unwrap_err();
    assert_eq!((err.violations.len(), err.more), (20, false));

    let many: Vec<Value> = (0..30).map(|i| json!(format!("v{i}"))).collect();
    let err = validate(&json!({"enum": many}), &json!("x")).unwrap_err();
    assert!(
        err.message
            .starts_with("expected one of \"v0\", \"v1\", \"v2\""),
        "{err}"
    );
    assert!(
        err.message.ends_with("\"v19\", … (10 more), got \"x\""),
        "{err}"
    );
}

#[test]
fn object_root_is_enforced_only_by_assert_object_schema() {
    assert!(assert_supported(&json!({"type": "array"})).is_ok());
    let err = assert_object_schema(&json!({"type": "array"})).unwrap_err();
    assert_eq!(err.issues[0].path, "");
    assert!(assert_object_schema(&json!({})).is_err());
    assert!(assert_object_schema(&json!({"type": "object", "properties": {"x": {}}})).is_ok());
    // Both kinds of issue are listed together.
    let err = assert_object_schema(&json!({"type": "string", "not": {}})).unwrap_err();
    assert_eq!(paths(&err), vec!["", "/not"]);
}
