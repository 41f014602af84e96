//! Behaviours 7–9: definition validation, argument/output errors, the model-facing projection.

mod common;

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
                .output_schema(json!({"type": "string", "pattern": "^a"}))
                .execute_raw(|_, _| async { Ok(json!("a")) }),
        )
        .unwrap_err();
    assert!(err.to_string().contains("/pattern"), "{err}");
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
    let schemas = registry.schemas(None, None);
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
    let mut schemas = registry.schemas(None, None);
    schemas[0].parameters["properties"]["text"]["type"] = json!("number");
    schemas[0].description.push_str(" (mutated)");
    let again = registry.schemas(None, None);
    assert_eq!(
        again[0].parameters["properties"]["text"]["type"],
        json!("string")
    );
    assert_eq!(again[0].description, "Return the text.");
}
