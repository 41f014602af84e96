//! Behaviours 7–9: definition validation, argument/output errors, the model-facing projection.

use ptc_testing::tools as common;

use common::*;
use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::{codes, RegistryError, ToolDefinition, ToolError, ToolRegistry, RUN_CODE};
use serde_json::json;

#[tokio::test]
async fn b07_invalid_args_fail_as_invalid_args_and_turn_goes_on() {
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    let result = call(&registry, "echo", json!({"text": 42})).await;
    assert!(result.is_error());
    assert_eq!(result.error_code(), Some(codes::INVALID_ARGS));
    assert_eq!(
        result.error().unwrap().info.as_ref().unwrap().name,
        "ToolArgsError"
    );
    assert!(
        text(&result).starts_with("Error: Invalid arguments for tool echo: /text"),
        "{}",
        text(&result)
    );
    // the registry keeps working: the next call succeeds
    let ok = call(&registry, "echo", json!({"text": "x"})).await;
    assert_eq!(ok.value().unwrap().as_str(), Some("x"));
}

#[tokio::test]
async fn b07_missing_required_argument_is_invalid_args() {
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    let result = call(&registry, "echo", json!({})).await;
    assert_eq!(result.error_code(), Some(codes::INVALID_ARGS));
}

#[tokio::test]
async fn b07_output_breaking_schema_fails_as_invalid_tool_output() {
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("liar")
                .output(ValueSpec::object(false).required_property("n", ValueSpec::integer()))
                .execute_raw(|_, _| async { Ok(json!({"n": 1.5})) }),
        )
        .unwrap();
    let result = call(&registry, "liar", json!({})).await;
    assert_eq!(result.error_code(), Some(codes::INVALID_TOOL_OUTPUT));
    assert_eq!(
        result.error().unwrap().info.as_ref().unwrap().name,
        "ToolOutputError"
    );
    assert!(text(&result).contains("/n"), "{}", text(&result));
}

#[tokio::test]
async fn b07_typed_helper_deserializes_and_validates_output() {
    #[derive(serde::Deserialize)]
    struct Args {
        a: f64,
        b: f64,
    }
    #[derive(serde::Serialize)]
    struct Sum {
        sum: f64,
    }
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("add")
                .parameters(
                    ParameterSpec::new()
                        .required("a", ValueSpec::number())
                        .required("b", ValueSpec::number()),
                )
                .output(ValueSpec::object(false).required_property("sum", ValueSpec::number()))
                .execute(|a: Args, _| async move { Ok::<_, ToolError>(Sum { sum: a.a + a.b }) }),
        )
        .unwrap();
    let result = call(&registry, "add", json!({"a": 1, "b": 2.5})).await;
    assert_eq!(result.value().unwrap().as_ref(), &json!({"sum": 3.5}));
    assert_eq!(text(&result), "{\n  \"sum\": 3.5\n}");
}

/// A `grep`-shaped tool that counts the calls its body sees.
fn searcher(
    name: &str,
    parameters: serde_json::Value,
    runs: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> ptc::ToolBuilder {
    ToolDefinition::builder(name)
        .parameters_schema(parameters)
        .output(ValueSpec::json())
        .execute_raw(move |args, _| {
            runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move { Ok(args.as_ref().clone()) }
        })
}

fn grep_parameters() -> serde_json::Value {
    json!({"type": "object", "properties": {
        "pattern": {"type": "string"},
        "path": {"type": "string"},
        "include": {"type": "string"}
    }, "required": ["pattern"]})
}

#[tokio::test]
async fn unknown_argument_keys_fail_as_invalid_args_naming_the_key_a_suggestion_and_the_names() {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let registry = ToolRegistry::new();
    registry
        .register(searcher("grep", grep_parameters(), runs.clone()))
        .unwrap();
    let r = call(&registry, "grep", json!({"pattern": "x", "inclde": "*.rs"})).await;
    assert_eq!(r.error_code(), Some(codes::INVALID_ARGS));
    assert_eq!(
        text(&r),
        "Error: Invalid arguments for tool grep: /inclde: unknown argument (did you mean \
         `include`?); the arguments are: pattern, path, include"
    );
    // No close name: no suggestion. Schema violations come in the same message.
    let r = call(
        &registry,
        "grep",
        json!({"ignoreCase": true, "patern": "x", "path": 3}),
    )
    .await;
    assert_eq!(
        text(&r),
        "Error: Invalid arguments for tool grep: /ignoreCase: unknown argument; /patern: \
         unknown argument (did you mean `pattern`?); /: missing required property \"pattern\"; \
         /path: expected string, got number; the arguments are: pattern, path, include"
    );
    // A name the call already carries is not suggested.
    let r = call(&registry, "grep", json!({"pattern": "x", "Pattern": "y"})).await;
    assert!(
        text(&r).contains("/Pattern: unknown argument; the arguments"),
        "{}",
        text(&r)
    );
    assert_eq!(
        runs.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the body never ran"
    );
    // A tool without parameters says so; JSON-pointer escaping in the key.
    registry.register(constant("now", json!(1))).unwrap();
    let r = call(&registry, "now", json!({"a/b": 1})).await;
    assert_eq!(
        text(&r),
        "Error: Invalid arguments for tool now: /a~1b: unknown argument; the tool takes no \
         arguments"
    );
    assert!(call(&registry, "now", json!({})).await.value().is_some());
}

#[tokio::test]
async fn unknown_argument_keys_of_a_closed_schema_are_reported_once_and_many_are_capped() {
    let registry = ToolRegistry::new();
    let mut closed = grep_parameters();
    closed["additionalProperties"] = json!(false);
    registry
        .register(searcher("grep", closed, Default::default()))
        .unwrap();
    let r = call(&registry, "grep", json!({"pattern": "x", "inclde": "*.rs"})).await;
    assert_eq!(
        text(&r),
        "Error: Invalid arguments for tool grep: /inclde: unknown argument (did you mean \
         `include`?); the arguments are: pattern, path, include"
    );
    let many: serde_json::Map<String, serde_json::Value> =
        (0..1000).map(|i| (format!("k{i}"), json!(i))).collect();
    let r = call(&registry, "grep", serde_json::Value::Object(many)).await;
    let t = text(&r);
    assert_eq!(t.matches("unknown argument").count(), 20, "{t}");
    assert!(
        t.ends_with(
            "; and more (only the first 20 are listed); the arguments are: pattern, path, include"
        ),
        "{t}"
    );
    // A huge key is neither looked up nor echoed whole.
    let mut huge = serde_json::Map::new();
    huge.insert("pattern".into(), json!("x"));
    huge.insert("x".repeat(1 << 20), json!(1));
    let r = call(&registry, "grep", serde_json::Value::Object(huge)).await;
    assert!(text(&r).len() < 400, "{}", text(&r).len());
}

fn todo_parameters(items_extra: Option<serde_json::Value>) -> serde_json::Value {
    let mut item = json!({"type": "object", "properties": {
        "content": {"type": "string"},
        "status": {"type": "string"},
        "priority": {"type": "string"},
        "meta": {"type": "object", "properties": {"owner": {"type": "string"}}},
        "extra": {"type": "object"}
    }, "required": ["content"]});
    if let Some(extra) = items_extra {
        item["additionalProperties"] = extra;
    }
    json!({"type": "object", "properties": {
        "todos": {"type": "array", "items": item}
    }, "required": ["todos"]})
}

#[tokio::test]
async fn unknown_keys_inside_nested_objects_fail_naming_the_path_and_what_the_object_has() {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let registry = ToolRegistry::new();
    registry
        .register(searcher("todo", todo_parameters(None), runs.clone()))
        .unwrap();
    registry
        .register(searcher(
            "strict",
            todo_parameters(Some(json!(false))),
            runs.clone(),
        ))
        .unwrap();
    let args = json!({"todos": [
        {"content": "a"},
        {"content": "b", "status": "x"},
        {"content": "c", "prio": "high", "meta": {"owner": "me", "team": "t"}}
    ]});
    let expected = "Invalid arguments for tool {tool}: /todos/2/prio: unknown key (did you mean \
                    `priority`? todos[] items have content, status, priority, meta, extra); \
                    /todos/2/meta/team: unknown key (todos[].meta has owner); the arguments are: \
                    todos";
    for tool in ["todo", "strict"] {
        let r = call(&registry, tool, args.clone()).await;
        assert_eq!(r.error_code(), Some(codes::INVALID_ARGS));
        assert_eq!(
            text(&r),
            format!("Error: {}", expected.replace("{tool}", tool)),
            "{tool}"
        );
    }
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 0);
    // A free-form object (no properties) takes any key.
    let free = json!({"todos": [{"content": "a", "extra": {"anything": 1}}]});
    assert!(call(&registry, "todo", free).await.value().is_some());
}

#[tokio::test]
async fn nested_objects_that_allow_additional_properties_keep_their_extra_keys() {
    let registry = ToolRegistry::new();
    registry
        .register(searcher(
            "open",
            todo_parameters(Some(json!(true))),
            Default::default(),
        ))
        .unwrap();
    let args = json!({"todos": [{"content": "a", "prio": "high"}]});
    let r = call(&registry, "open", args.clone()).await;
    assert_eq!(r.value().map(|v| v.as_ref().clone()), Some(args));
}

#[tokio::test]
async fn unknown_argument_keys_pass_where_the_schema_or_the_operator_allows_them() {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let registry = ToolRegistry::new();
    let mut open = grep_parameters();
    open["additionalProperties"] = json!(true);
    registry
        .register(searcher("open", open, runs.clone()))
        .unwrap();
    registry
        .register(
            ToolDefinition::builder("foreign")
                .parameters_passthrough(json!({"type": "object", "properties": {
                    "q": {"type": "string", "multipleOf": 2}
                }}))
                .output(ValueSpec::json())
                .execute_raw(|args, _| async move { Ok(args.as_ref().clone()) }),
        )
        .unwrap();
    registry
        .register(searcher("grep", grep_parameters(), runs.clone()))
        .unwrap();
    // A schema for the other keys leaves them open too, and validates them.
    registry
        .register(
            ToolDefinition::builder("labels")
                .parameters_schema(
                    json!({"type": "object", "properties": {"id": {"type": "string"}},
                    "additionalProperties": {"type": "integer"}}),
                )
                .output(ValueSpec::json())
                .execute_raw(|args, _| async move { Ok(args.as_ref().clone()) }),
        )
        .unwrap();
    let labels = json!({"id": "x", "count": 2});
    let r = call(&registry, "labels", labels.clone()).await;
    assert_eq!(r.value().map(|v| v.as_ref().clone()), Some(labels));
    let r = call(&registry, "labels", json!({"id": "x", "count": "2"})).await;
    assert_eq!(
        text(&r),
        "Error: Invalid arguments for tool labels: /count: expected integer, got string"
    );
    let extra = json!({"pattern": "x", "ignoreCase": true});
    assert_eq!(
        call(&registry, "open", extra.clone())
            .await
            .value()
            .unwrap()
            .as_ref(),
        &extra
    );
    let foreign = json!({"q": "x", "extra": 1});
    assert_eq!(
        call(&registry, "foreign", foreign.clone())
            .await
            .value()
            .unwrap()
            .as_ref(),
        &foreign
    );
    assert_eq!(
        call(&registry, "grep", extra.clone()).await.error_code(),
        Some(codes::INVALID_ARGS)
    );
    assert_eq!(registry.unknown_arguments(), ptc::UnknownArguments::Reject);
    registry.set_unknown_arguments(ptc::UnknownArguments::Allow);
    let r = call(&registry, "grep", extra.clone()).await;
    assert_eq!(
        r.value().unwrap().as_ref(),
        &extra,
        "the seed's open parameters"
    );
    // The schema still applies.
    let r = call(&registry, "grep", json!({"pattern": 1, "x": 2})).await;
    assert_eq!(
        text(&r),
        "Error: Invalid arguments for tool grep: /pattern: expected string, got number"
    );
    registry.set_unknown_arguments(ptc::UnknownArguments::Reject);
    assert_eq!(
        call(&registry, "grep", extra).await.error_code(),
        Some(codes::INVALID_ARGS)
    );
}

#[test]
fn b08_output_schema_is_mandatory() {
    let registry = ToolRegistry::new();
    let err = registry
        .register(ToolDefinition::builder("x").execute_raw(|_, _| async { Ok(json!(null)) }))
        .unwrap_err();
    assert!(
        matches!(err, RegistryError::InvalidDefinition { ref reason, .. } if reason.contains("output schema is missing")),
        "{err}"
    );
}

#[test]
fn b08_unsupported_output_schema_is_rejected() {
    let registry = ToolRegistry::new();
    let err = registry
        .register(
            ToolDefinition::builder("x")
                .output_schema(json!({"type": "string", "not": {"const": "b"}}))
                .execute_raw(|_, _| async { Ok(json!("a")) }),
        )
        .unwrap_err();
    assert!(err.to_string().contains("/not"), "{err}");
}

#[test]
fn b08_unsupported_parameter_schema_is_rejected() {
    let registry = ToolRegistry::new();
    let err = registry
        .register(
            ToolDefinition::builder("x")
                .parameters_schema(json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}}))
                .output(ValueSpec::null())
                .execute_raw(|_, _| async { Ok(json!(null)) }),
        )
        .unwrap_err();
    assert!(err.to_string().contains("/properties/a/$ref"), "{err}");
}

#[test]
fn b08_timeout_must_be_positive() {
    let registry = ToolRegistry::new();
    let err = registry
        .register(constant("x", json!(1)).timeout_ms(0))
        .unwrap_err();
    assert!(
        err.to_string().contains("timeout_ms must be positive"),
        "{err}"
    );
    registry
        .register(constant("y", json!(1)).timeout_ms(5))
        .unwrap();
}

#[test]
fn b08_name_unique_within_layer() {
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    assert_eq!(
        registry.register(echo()).unwrap_err(),
        RegistryError::Duplicate("echo".into())
    );
}

#[test]
fn b08_run_code_is_reserved() {
    let registry = ToolRegistry::new();
    assert_eq!(
        registry.register(constant(RUN_CODE, json!(1))).unwrap_err(),
        RegistryError::Reserved
    );
    let scope = ptc::ScopeKey::root("agent");
    assert_eq!(
        registry
            .scoped(&scope)
            .register(constant(RUN_CODE, json!(1)))
            .unwrap_err(),
        RegistryError::Reserved
    );
}

#[test]
fn b09_schemas_carry_only_name_description_parameters() {
    let registry = ToolRegistry::new();
    registry
        .register(
            echo()
                .timeout_ms(1234)
                .render(|_, v| vec![ptc::ContentBlock::text(format!("rendered {v}"))])
                .present_call(|_| None),
        )
        .unwrap();
    let schemas = registry.view(None, None).schemas();
    assert_eq!(schemas.len(), 1);
    let wire = serde_json::to_value(&schemas[0]).unwrap();
    let keys: Vec<&String> = wire.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "parameters"]);
    assert!(!wire.to_string().contains("1234"), "timeout leaked: {wire}");
    assert!(
        !wire.to_string().contains("output"),
        "output leaked: {wire}"
    );
}

#[test]
fn b09_schemas_are_deep_copies() {
    let registry = ToolRegistry::new();
    registry.register(echo()).unwrap();
    let mut schemas = registry.view(None, None).schemas();
    schemas[0].parameters["properties"]["text"]["type"] = json!("number");
    schemas[0].description.push_str(" (mutated)");
    let again = registry.view(None, None).schemas();
    assert_eq!(
        again[0].parameters["properties"]["text"]["type"],
        json!("string")
    );
    assert_eq!(again[0].description, "Return the text.");
}
