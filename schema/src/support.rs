//! The enforced raw JSON Schema subset: node-local checks and the iterative
//! whole-schema walk.
//!
//! Decisions the seed leaves implicit, made strict here:
//! * boolean schemas (`true` / `false`) are unsupported; `{}` is "any value";
//! * `oneOf` is a node of its own: `type`, `properties`, `required`,
//!   `additionalProperties`, `items`, `enum` and `const` beside it are
//!   rejected (annotations are allowed), so every constraint lives in a branch;
//! * `properties` / `required` / `additionalProperties` need `type: "object"`,
//!   `items` needs `type: "array"`;
//! * `enum` / `const` hold scalars that match the node's `type` when present.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::error::{JsonSchemaError, SchemaIssue};
use crate::pointer::{escape_token, PathArena, PathId, Seg, ROOT};

/// The seven single types of the subset.
pub(crate) const TYPES: &[&str] = &[
    "object", "array", "string", "number", "integer", "boolean", "null",
];

/// Keywords that must not appear beside `oneOf`.
const ONE_OF_CONFLICTS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
];

/// The JSON kind of a value, as used in messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// True for a JSON number with no fractional part (`3` and `3.0`).
pub(crate) fn is_integral(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64()
                || n.is_u64()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// True when `value` is an instance of the subset type `ty`.
pub(crate) fn type_matches(ty: &str, value: &Value) -> bool {
    match ty {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => is_integral(value),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => false,
    }
}

fn is_scalar(value: &Value) -> bool {
    !(value.is_array() || value.is_object())
}

/// A short, bounded rendering of a value for messages.
pub(crate) fn preview(value: &Value) -> String {
    const LIMIT: usize = 80;
    match value {
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(o) => format!("an object with {} keys", o.len()),
        other => {
            let s = other.to_string();
            if s.len() <= LIMIT {
                s
            } else {
                let mut cut = LIMIT;
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                format!("{}...", &s[..cut])
            }
        }
    }
}

enum TypeState<'a> {
    Absent,
    Valid(&'a str),
    Invalid,
}

/// Checks one node's own keywords (not its child schemas). Issues are pushed
/// as `(pointer relative to the node, message)`.
pub(crate) fn check_node(node: &Value, issues: &mut Vec<(String, String)>) {
    let obj = match node {
        Value::Object(obj) => obj,
        Value::Bool(b) => {
            issues.push((
                String::new(),
                format!("boolean schema `{b}` is not supported; use {{}} for any value"),
            ));
            return;
        }
        other => {
            issues.push((
                String::new(),
                format!("schema node must be an object, got {}", kind(other)),
            ));
            return;
        }
    };
    let has_one_of = obj.contains_key("oneOf");
    let ty = match obj.get("type") {
        None => TypeState::Absent,
        Some(Value::String(s)) if TYPES.contains(&s.as_str()) => TypeState::Valid(s),
        Some(_) => TypeState::Invalid,
    };
    for (key, val) in obj {
        let key = key.as_str();
        if has_one_of && ONE_OF_CONFLICTS.contains(&key) {
            issues.push((
                format!("/{key}"),
                format!(
                    "`{key}` cannot be combined with `oneOf`; put constraints inside the branches"
                ),
            ));
            continue;
        }
        match key {
            "type" => check_type(val, issues),
            "oneOf" => check_one_of(val, issues),
            "properties" => {
                need_type(key, "object", &ty, issues);
                if !val.is_object() {
                    issues.push((
                        "/properties".into(),
                        format!(
                            "`properties` must be an object of schemas, got {}",
                            kind(val)
                        ),
                    ));
                }
            }
            "required" => {
                need_type(key, "object", &ty, issues);
                check_required(val, obj, issues);
            }
            "additionalProperties" => {
                need_type(key, "object", &ty, issues);
                match val {
                    Value::Bool(_) => {}
                    Value::Object(_) => issues.push((
                        "/additionalProperties".into(),
                        "schema-valued `additionalProperties` is not supported; use true or false"
                            .into(),
                    )),
                    other => issues.push((
                        "/additionalProperties".into(),
                        format!(
                            "`additionalProperties` must be a boolean, got {}",
                            kind(other)
                        ),
                    )),
                }
            }
            "items" => {
                need_type(key, "array", &ty, issues);
                if val.is_array() {
                    issues.push((
                        "/items".into(),
                        "tuple-form `items` (an array of schemas) is not supported; use one schema"
                            .into(),
                    ));
                }
            }
            "enum" => check_enum(val, &ty, issues),
            "const" => check_scalar("/const", "`const`", val, &ty, issues),
            "description" | "title" => {
                if !val.is_string() {
                    issues.push((
                        format!("/{key}"),
                        format!("`{key}` must be a string, got {}", kind(val)),
                    ));
                }
            }
            "default" | "examples" => {}
            other => issues.push((
                format!("/{}", escape_token(other)),
                format!("unsupported keyword `{other}`"),
            )),
        }
    }
}

fn check_type(val: &Value, issues: &mut Vec<(String, String)>) {
    let msg = match val {
        Value::String(s) if TYPES.contains(&s.as_str()) => return,
        Value::String(s) => format!("unknown type `{s}`; expected one of {}", TYPES.join(", ")),
        Value::Array(_) => "type arrays are not supported; use a single type or `oneOf`".into(),
        other => format!("`type` must be a string, got {}", kind(other)),
    };
    issues.push(("/type".into(), msg));
}

fn check_one_of(val: &Value, issues: &mut Vec<(String, String)>) {
    match val {
        Value::Array(a) if a.len() >= 2 => {}
        Value::Array(a) => issues.push((
            "/oneOf".into(),
            format!("`oneOf` needs at least two branches, got {}", a.len()),
        )),
        other => issues.push((
            "/oneOf".into(),
            format!("`oneOf` must be an array of schemas, got {}", kind(other)),
        )),
    }
}

fn need_type(key: &str, want: &str, ty: &TypeState<'_>, issues: &mut Vec<(String, String)>) {
    let ok = match ty {
        TypeState::Valid(t) => *t == want,
        // An invalid `type` was already reported; don't pile on.
        TypeState::Invalid => true,
        TypeState::Absent => false,
    };
    if !ok {
        issues.push((
            format!("/{key}"),
            format!("`{key}` is only allowed with type \"{want}\""),
        ));
    }
}

fn check_required(val: &Value, obj: &Map<String, Value>, issues: &mut Vec<(String, String)>) {
    let Value::Array(names) = val else {
        issues.push((
            "/required".into(),
            format!("`required` must be an array of strings, got {}", kind(val)),
        ));
        return;
    };
    let props = obj.get("properties").and_then(Value::as_object);
    let mut seen = HashSet::new();
    for (i, name) in names.iter().enumerate() {
        let Value::String(name) = name else {
            issues.push((
                format!("/required/{i}"),
                format!("required names must be strings, got {}", kind(name)),
            ));
            continue;
        };
        if !seen.insert(name.as_str()) {
            issues.push((
                format!("/required/{i}"),
                format!("duplicate required name {}", Value::String(name.clone())),
            ));
        } else if !props.is_some_and(|p| p.contains_key(name)) {
            issues.push((
                format!("/required/{i}"),
                format!(
                    "required name {} is not declared in `properties`",
                    Value::String(name.clone())
                ),
            ));
        }
    }
}

fn check_enum(val: &Value, ty: &TypeState<'_>, issues: &mut Vec<(String, String)>) {
    match val {
        Value::Array(a) if a.is_empty() => {
            issues.push(("/enum".into(), "`enum` must not be empty".into()));
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                check_scalar(&format!("/enum/{i}"), "`enum` value", v, ty, issues);
            }
        }
        other => issues.push((
            "/enum".into(),
            format!("`enum` must be an array of scalars, got {}", kind(other)),
        )),
    }
}

fn check_scalar(
    path: &str,
    what: &str,
    val: &Value,
    ty: &TypeState<'_>,
    issues: &mut Vec<(String, String)>,
) {
    if !is_scalar(val) {
        issues.push((
            path.into(),
            format!(
                "{what} must be a scalar (string, number, boolean or null), got {}",
                kind(val)
            ),
        ));
    } else if let TypeState::Valid(t) = ty {
        if !type_matches(t, val) {
            issues.push((
                path.into(),
                format!("{what} {} does not match type \"{t}\"", preview(val)),
            ));
        }
    }
}

/// True when this one node's own keywords and their shapes are supported.
///
/// Child schemas inside `properties`, `items` and `oneOf` are not inspected,
/// so a generator can render just the offending node as `unknown`. Never
/// panics, whatever the input.
pub fn node_is_supported(node: &Value) -> bool {
    let mut issues = Vec::new();
    check_node(node, &mut issues);
    issues.is_empty()
}

/// Walks the whole schema with an explicit stack, collecting every issue.
pub(crate) fn collect_issues(schema: &Value) -> Vec<SchemaIssue> {
    let mut out = Vec::new();
    let mut arena = PathArena::new();
    let mut stack: Vec<(&Value, PathId)> = vec![(schema, ROOT)];
    let mut local = Vec::new();
    let mut kids: Vec<(&Value, PathId)> = Vec::new();
    while let Some((node, id)) = stack.pop() {
        check_node(node, &mut local);
        if !local.is_empty() {
            let base = arena.render(id);
            out.extend(local.drain(..).map(|(rel, message)| SchemaIssue {
                path: format!("{base}{rel}"),
                message,
            }));
        }
        let Value::Object(obj) = node else { continue };
        if let Some(Value::Object(props)) = obj.get("properties") {
            let p = arena.push(id, Seg::Keyword("properties"));
            for (name, child) in props {
                kids.push((child, arena.push(p, Seg::Key(name))));
            }
        }
        if let Some(items) = obj.get("items") {
            if !items.is_array() {
                kids.push((items, arena.push(id, Seg::Keyword("items"))));
            }
        }
        if let Some(Value::Array(branches)) = obj.get("oneOf") {
            let p = arena.push(id, Seg::Keyword("oneOf"));
            for (i, child) in branches.iter().enumerate() {
                kids.push((child, arena.push(p, Seg::Index(i))));
            }
        }
        stack.extend(kids.drain(..).rev());
    }
    out
}

/// Checks a whole schema against the enforced subset.
///
/// Iterative (explicit stack, no recursion). On failure the error lists
/// every offending path, not just the first.
pub fn assert_supported(schema: &Value) -> Result<(), JsonSchemaError> {
    let issues = collect_issues(schema);
    if issues.is_empty() {
        Ok(())
    } else {
        Err(JsonSchemaError { issues })
    }
}

/// [`assert_supported`] plus: the root must be `type: "object"`.
pub fn assert_object_schema(schema: &Value) -> Result<(), JsonSchemaError> {
    let mut issues = collect_issues(schema);
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        issues.push(SchemaIssue {
            path: String::new(),
            message: "root schema must have type \"object\"".into(),
        });
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(JsonSchemaError { issues })
    }
}
