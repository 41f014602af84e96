//! Behaviours 1-2 (and 4, 6 for the DSL): the author DSL.

use crate::common;

use common::{dismantle, paths};
use ptc_schema::{assert_supported, validate, ParameterSpec, ValueSpec};
use serde_json::{json, Value};

fn compiled(spec: &ValueSpec) -> Value {
    let out = spec
        .compile()
        .unwrap_or_else(|e| panic!("compile failed:\n{e}"));
    assert_supported(&out).unwrap();
    out
}

#[test]
fn b01_dsl_covers_all_node_kinds() {
    let cases = [
        (ValueSpec::string(), json!({"type": "string"})),
        (ValueSpec::number(), json!({"type": "number"})),
        (ValueSpec::integer(), json!({"type": "integer"})),
        (ValueSpec::boolean(), json!({"type": "boolean"})),
        (ValueSpec::null(), json!({"type": "null"})),
        (ValueSpec::json(), json!({})),
        (
            ValueSpec::json().describe("anything"),
            json!({"description": "anything"}),
        ),
        (
            ValueSpec::array(ValueSpec::string()),
            json!({"type": "array", "items": {"type": "string"}}),
        ),
        (
            ValueSpec::object(false).required_property("a", ValueSpec::integer()),
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}),
        ),
        (
            ValueSpec::one_of([ValueSpec::string(), ValueSpec::null()]).describe("maybe"),
            json!({"description": "maybe", "oneOf": [{"type": "string"}, {"type": "null"}]}),
        ),
    ];
    for (spec, want) in &cases {
        assert_eq!(&compiled(spec), want);
    }
    // The compiled schemas enforce their kinds.
    let probe = [json!("s"), json!(1.5), json!(2), json!(true), json!(null)];
    let accepts = |spec: &ValueSpec| -> Vec<bool> {
        let schema = compiled(spec);
        probe.iter().map(|v| validate(&schema, v).is_ok()).collect()
    };
    assert_eq!(
        accepts(&ValueSpec::string()),
        [true, false, false, false, false]
    );
    assert_eq!(
        accepts(&ValueSpec::number()),
        [false, true, true, false, false]
    );
    assert_eq!(
        accepts(&ValueSpec::integer()),
        [false, false, true, false, false]
    );
    assert_eq!(
        accepts(&ValueSpec::boolean()),
        [false, false, false, true, false]
    );
    assert_eq!(
        accepts(&ValueSpec::null()),
        [false, false, false, false, true]
    );
    assert_eq!(accepts(&ValueSpec::json()), [true; 5]);
    let opt = ValueSpec::one_of([ValueSpec::string(), ValueSpec::null()]);
    assert_eq!(accepts(&opt), [true, false, false, false, true]);
}

#[test]
fn b01_enum_must_match_node_type() {
    let ok = ValueSpec::string().enum_values([json!("a"), json!("b")]);
    assert_eq!(compiled(&ok), json!({"type": "string", "enum": ["a", "b"]}));
    let schema = compiled(&ok);
    assert!(validate(&schema, &json!("a")).is_ok());
    assert!(validate(&schema, &json!("c")).is_err());
    assert_eq!(
        compiled(&ValueSpec::integer().constant(json!(3))),
        json!({"type": "integer", "const": 3})
    );

    let bad = ValueSpec::string().enum_values([json!("a"), json!(1)]);
    let err = bad.compile().unwrap_err();
    assert_eq!(paths(&err), vec!["/enum/1"]);
    assert!(
        err.issues[0]
            .message
            .contains("does not match type \"string\""),
        "{err}"
    );

    let err = ValueSpec::integer()
        .constant(json!(1.5))
        .compile()
        .unwrap_err();
    assert_eq!(paths(&err), vec!["/const"]);

    // Deep inside, with every bad place listed.
    let nested = ValueSpec::object(true)
        .property(
            "a",
            ValueSpec::array(ValueSpec::boolean().enum_values([json!(true), json!("no")])),
        )
        .property("b", ValueSpec::null().constant(json!(0)))
        .property("c", ValueSpec::json().enum_values([json!([1])]))
        .property("d", ValueSpec::object(true).constant(json!("x")))
        .property("e", ValueSpec::string().enum_values([]));
    let err = nested.compile().unwrap_err();
    assert_eq!(
        paths(&err),
        vec![
            "/properties/a/items/enum/1",
            "/properties/b/const",
            "/properties/c/enum/0",
            "/properties/d/const",
            "/properties/e/enum",
        ]
    );
    // Untyped json with scalar enum is fine.
    assert!(ValueSpec::json()
        .enum_values([json!(1), json!("a"), json!(null)])
        .compile()
        .is_ok());
}

#[test]
fn b01_object_always_states_additional_properties() {
    assert_eq!(
        compiled(&ValueSpec::object(true)),
        json!({"type": "object", "additionalProperties": true})
    );
    assert_eq!(
        compiled(&ValueSpec::object(false)),
        json!({"type": "object", "additionalProperties": false})
    );
    let nested = compiled(&ValueSpec::array(
        ValueSpec::object(false).property("x", ValueSpec::object(true)),
    ));
    assert_eq!(nested["items"]["additionalProperties"], json!(false));
    assert_eq!(
        nested["items"]["properties"]["x"]["additionalProperties"],
        json!(true)
    );
    // And the flag is enforced.
    let closed = compiled(&ValueSpec::object(false).property("a", ValueSpec::string()));
    let open = compiled(&ValueSpec::object(true).property("a", ValueSpec::string()));
    let v = json!({"a": "x", "b": 1});
    assert_eq!(validate(&closed, &v).unwrap_err().path, "/b");
    assert!(validate(&open, &v).is_ok());
}

#[test]
fn b02_parameters_are_open_object_with_per_property_required() {
    let params = ParameterSpec::new()
        .required("path", ValueSpec::string().describe("file path"))
        .optional("limit", ValueSpec::integer())
        .required(
            "mode",
            ValueSpec::string().enum_values([json!("r"), json!("w")]),
        );
    let schema = params.compile().unwrap();
    assert_eq!(
        serde_json::to_string(&schema).unwrap(),
        r#"{"type":"object","properties":{"path":{"type":"string","description":"file path"},"limit":{"type":"integer"},"mode":{"type":"string","enum":["r","w"]}},"required":["path","mode"]}"#
    );
    assert!(schema.get("additionalProperties").is_none());
    assert!(validate(&schema, &json!({"path": "/x", "mode": "r", "extra": true})).is_ok());
    let err = validate(&schema, &json!({"path": "/x"})).unwrap_err();
    assert_eq!(err.message, "missing required property \"mode\"");

    // No required parameters: the key is omitted; no parameters: still an object.
    let only_optional = ParameterSpec::new()
        .optional("q", ValueSpec::string())
        .compile()
        .unwrap();
    assert!(only_optional.get("required").is_none());
    assert_eq!(
        ParameterSpec::new().compile().unwrap(),
        json!({"type": "object", "properties": {}})
    );
    ptc_schema::assert_object_schema(&schema).unwrap();

    // Duplicate parameter names are an error, not a silent overwrite.
    let err = ParameterSpec::new()
        .required("a", ValueSpec::string())
        .optional("a", ValueSpec::number())
        .compile()
        .unwrap_err();
    assert_eq!(paths(&err), vec!["/properties/a"]);
}

#[test]
fn b04_dsl_one_of_needs_two_branches() {
    let err = ValueSpec::one_of([ValueSpec::string()])
        .compile()
        .unwrap_err();
    assert_eq!(paths(&err), vec!["/oneOf"]);
    let err = ValueSpec::array(ValueSpec::one_of([]))
        .compile()
        .unwrap_err();
    assert_eq!(paths(&err), vec!["/items/oneOf"]);
    // Constraints beside oneOf are rejected too.
    let err = ValueSpec::one_of([ValueSpec::string(), ValueSpec::integer()])
        .enum_values([json!("a")])
        .compile()
        .unwrap_err();
    assert_eq!(paths(&err), vec!["/enum"]);
    let ok = compiled(&ValueSpec::one_of([
        ValueSpec::integer(),
        ValueSpec::number(),
    ]));
    assert!(validate(&ok, &json!(1.5)).is_ok());
    assert!(validate(&ok, &json!(1))
        .unwrap_err()
        .message
        .contains("exactly one"));
}

#[test]
fn builder_misuse_is_reported_not_panicked() {
    let spec = ValueSpec::object(true)
        .property("s", ValueSpec::string().property("x", ValueSpec::null()))
        .property(
            "m~n/o",
            ValueSpec::array(ValueSpec::json()).required_property("y", ValueSpec::null()),
        )
        .property("ok", ValueSpec::string().describe("fine"));
    let err = spec.compile().unwrap_err();
    assert_eq!(paths(&err), vec!["/properties/m~0n~1o", "/properties/s"]);
    let text = err.to_string();
    assert!(
        text.contains("/properties/s: `property(\"x\")` is only valid on object specs, not string"),
        "{text}"
    );
    assert!(text.contains("`required_property(\"y\")`"), "{text}");
    // Duplicate property names inside an object spec.
    let err = ValueSpec::object(false)
        .property("a", ValueSpec::string())
        .property("a", ValueSpec::string())
        .compile()
        .unwrap_err();
    assert_eq!(paths(&err), vec!["/properties/a"]);
}

#[test]
fn b06_deep_specs_compile_clone_and_drop_without_recursion() {
    for depth in [5_000, 30_000] {
        let mut spec = ValueSpec::integer();
        for _ in 0..depth {
            spec = ValueSpec::array(spec);
        }
        let schema = spec.compile().unwrap();
        assert_supported(&schema).unwrap();
        let mut value = json!(1);
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        assert!(validate(&schema, &value).is_ok());
        let copy = spec.clone();
        drop(spec);
        drop(copy);
        dismantle(schema);
        dismantle(value);
    }
    // Deep objects and oneOfs, with one bad node at the bottom.
    let depth = 5_000;
    let mut spec = ValueSpec::string().constant(json!(1));
    for _ in 0..depth {
        spec = ValueSpec::object(false)
            .required_property("n", ValueSpec::one_of([ValueSpec::null(), spec]));
    }
    let err = spec.compile().unwrap_err();
    assert_eq!(err.issues.len(), 1);
    assert_eq!(
        err.issues[0].path,
        format!("{}/const", "/properties/n/oneOf/1".repeat(depth))
    );
}

#[test]
fn compiled_specs_round_trip_through_validation() {
    let spec = ValueSpec::object(false)
        .required_property("id", ValueSpec::integer())
        .property(
            "tags",
            ValueSpec::array(ValueSpec::string().enum_values([json!("a"), json!("b")])),
        )
        .property("meta", ValueSpec::json())
        .property(
            "kind",
            ValueSpec::one_of([
                ValueSpec::string().constant(json!("x")),
                ValueSpec::object(true).required_property("k", ValueSpec::boolean()),
            ]),
        );
    let schema = compiled(&spec);
    assert!(validate(
        &schema,
        &json!({"id": 1, "tags": ["a"], "meta": {"any": [1]}, "kind": "x"})
    )
    .is_ok());
    assert!(validate(&schema, &json!({"id": 1.0, "kind": {"k": true, "z": 0}})).is_ok());
    assert_eq!(
        validate(&schema, &json!({"id": 1, "tags": ["a", "c"]}))
            .unwrap_err()
            .path,
        "/tags/1"
    );
    assert_eq!(
        validate(&schema, &json!({"id": "1"})).unwrap_err().path,
        "/id"
    );
    assert_eq!(
        validate(&schema, &json!({"id": 1, "kind": "y"}))
            .unwrap_err()
            .path,
        "/kind"
    );
    // Clone compiles identically.
    assert_eq!(spec.clone().compile().unwrap(), schema);
}

#[test]
fn hostile_deep_json_in_enum_is_rejected_and_dropped_safely() {
    let mut deep = json!(0);
    for _ in 0..30_000 {
        deep = Value::Array(vec![deep]);
    }
    let spec = ValueSpec::object(true)
        .property(
            "e",
            ValueSpec::json().enum_values([json!(1), deep.clone_shallow_free()]),
        )
        .property("c", ValueSpec::string().constant(deep));
    let err = spec.compile().unwrap_err();
    assert_eq!(
        paths(&err),
        vec!["/properties/c/const", "/properties/e/enum/1"]
    );
    drop(spec);
}

/// Builds a second deep value without serde_json's recursive `Clone`.
trait CloneShallowFree {
    fn clone_shallow_free(&self) -> Value;
}

impl CloneShallowFree for Value {
    fn clone_shallow_free(&self) -> Value {
        let mut depth = 0;
        let mut cur = self;
        while let Value::Array(a) = cur {
            depth += 1;
            cur = &a[0];
        }
        let mut v = cur.clone();
        for _ in 0..depth {
            v = Value::Array(vec![v]);
        }
        v
    }
}
