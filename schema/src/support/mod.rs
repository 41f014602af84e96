//! The enforced raw JSON Schema subset: node-local checks and the iterative
//! whole-schema walk.
//!
//! Decisions the seed leaves implicit, made strict here:
//! * boolean schemas (`true` / `false`) are unsupported; `{}` is "any value";
//! * a union (`anyOf`: at least one branch matches; `oneOf`: exactly one) and a `$ref` are
//!   nodes of their own: beside them only annotations (`description`, `title`, `default`,
//!   `examples`) and `$defs`/`definitions` may stand, so every constraint lives in a branch
//!   or in the target (this is how every schema of the recorded catalog writes them);
//! * `type` is one of the seven names or an array of distinct names (`["string", "null"]`);
//! * the structural keywords `properties` / `required` / `additionalProperties` (`true`,
//!   `false` or a schema for the other keys) / `propertyNames` need `type` to name
//!   `"object"`, `items` (one schema) needs `"array"`;
//! * the value constraints (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//!   `minLength`, `maxLength` (code points), `pattern`, `minItems`, `maxItems`,
//!   `uniqueItems`) apply to values of their kind only and need no `type`; a `type` that
//!   rules their kind out is reported; `format` stands beside any type and is checked on
//!   strings (see [`constraints`], [`crate::pattern`] and
//!   [`crate::format`]);
//! * `$ref` is local: `#`, `#/$defs/<name>` or `#/definitions/<name>`, resolved from the
//!   root; a reference cycle that never descends into the value is refused (see
//!   [`crate::refs`]);
//! * `enum` / `const` hold scalars that match the node's `type` when present;
//! * OpenAPI's `discriminator` (`{"propertyName": …, "mapping": …}`, generated beside a
//!   `oneOf`) is an annotation: the union decides.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::error::{JsonSchemaError, SchemaIssue};
use crate::pointer::{escape_token, PathArena, PathId, Seg, ROOT};
use crate::refs;

mod constraints;
mod literals;
pub(crate) mod types;

use literals::{check_enum, check_scalar};
use types::{check_type, TypeState};

/// Keywords that may stand beside a union or a `$ref`: annotations and definitions.
const BESIDE_A_NODE_OF_ITS_OWN: &[&str] = &[
    "discriminator",
    "description",
    "title",
    "default",
    "examples",
    "$defs",
    "definitions",
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
    let own = ["anyOf", "oneOf", "$ref"]
        .into_iter()
        .filter(|k| obj.contains_key(*k))
        .collect::<Vec<_>>();
    let ty = TypeState::of(obj.get("type"));
    for (key, val) in obj {
        let key = key.as_str();
        if let Some(owner) = own.iter().find(|o| **o != key) {
            if !BESIDE_A_NODE_OF_ITS_OWN.contains(&key) && known(key) {
                issues.push((
                    format!("/{key}"),
                    format!(
                        "`{key}` cannot be combined with `{owner}`; put constraints inside {}",
                        if *owner == "$ref" {
                            "the target"
                        } else {
                            "the branches"
                        }
                    ),
                ));
                continue;
            }
        }
        if let Some(want) = constraints::applies_to(key) {
            constraints::check(key, want, val, &ty, issues);
            continue;
        }
        match key {
            "type" => check_type(val, issues),
            "oneOf" | "anyOf" => check_union(key, val, issues),
            "$ref" => match val {
                Value::String(r) if refs::well_formed(r) => {}
                Value::String(r) => issues.push((
                    "/$ref".into(),
                    format!(
                        "`$ref` {} is not local; use \"#\", \"#/$defs/<name>\" or \"#/definitions/<name>\"",
                        preview(&Value::String(r.clone()))
                    ),
                )),
                other => issues.push((
                    "/$ref".into(),
                    format!("`$ref` must be a string, got {}", kind(other)),
                )),
            },
            "$defs" | "definitions" | "properties" => {
                if key == "properties" {
                    need_type(key, "object", &ty, issues);
                }
                if !val.is_object() {
                    issues.push((
                        format!("/{key}"),
                        format!("`{key}` must be an object of schemas, got {}", kind(val)),
                    ));
                }
            }
            "required" => {
                need_type(key, "object", &ty, issues);
                check_required(val, obj, issues);
            }
            "additionalProperties" => {
                need_type(key, "object", &ty, issues);
                if !val.is_boolean() && !val.is_object() {
                    issues.push((
                        "/additionalProperties".into(),
                        format!(
                            "`additionalProperties` must be a boolean or a schema, got {}",
                            kind(val)
                        ),
                    ));
                }
            }
            "propertyNames" => need_type(key, "object", &ty, issues),
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
            "description" | "title" | "x-mcp-header" => {
                if !val.is_string() {
                    issues.push((
                        format!("/{key}"),
                        format!("`{key}` must be a string, got {}", kind(val)),
                    ));
                }
            }
            "format" => {
                if !val.is_string() {
                    issues.push((
                        "/format".into(),
                        format!("`format` must be a string, got {}", kind(val)),
                    ));
                }
            }
            "default" | "examples" => {}
            "discriminator" => {
                if !val.get("propertyName").is_some_and(Value::is_string) {
                    issues.push((
                        "/discriminator".into(),
                        "`discriminator` must be an object with a string `propertyName`".into(),
                    ));
                }
            }
            other => issues.push((
                format!("/{}", escape_token(other)),
                format!("unsupported keyword `{other}`"),
            )),
        }
    }
}

/// True for a keyword of the subset.
fn known(key: &str) -> bool {
    crate::SUPPORTED_KEYWORDS.contains(&key)
}

fn check_union(key: &str, val: &Value, issues: &mut Vec<(String, String)>) {
    match val {
        Value::Array(a) if a.len() >= 2 => {}
        Value::Array(a) => issues.push((
            format!("/{key}"),
            format!("`{key}` needs at least two branches, got {}", a.len()),
        )),
        other => issues.push((
            format!("/{key}"),
            format!("`{key}` must be an array of schemas, got {}", kind(other)),
        )),
    }
}

fn need_type(key: &str, want: &str, ty: &TypeState<'_>, issues: &mut Vec<(String, String)>) {
    if !ty.names(want) {
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

/// True when this one node's own keywords and their shapes are supported.
///
/// Child schemas (inside `properties`, `items`, `anyOf`/`oneOf`,
/// `additionalProperties`, `propertyNames`, `$defs`/`definitions`) are not inspected,
/// and a `$ref` is checked for its form only (its target is not looked up), so a
/// generator can render just the offending node as `unknown`. Never panics, whatever
/// the input.
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
    let mut refs: Vec<(&Value, PathId)> = Vec::new();
    while let Some((node, id)) = stack.pop() {
        check_node(node, &mut local);
        if let Some(Value::String(r)) = node.get("$ref") {
            if refs::well_formed(r) {
                if refs::resolve(schema, r).is_some() {
                    refs.push((node, id));
                } else {
                    local.push((
                        "/$ref".into(),
                        format!(
                            "`$ref` {} names no schema of this document",
                            preview(&Value::String(r.clone()))
                        ),
                    ));
                }
            }
        }
        if !local.is_empty() {
            let base = arena.render(id);
            out.extend(local.drain(..).map(|(rel, message)| SchemaIssue {
                path: format!("{base}{rel}"),
                message,
            }));
        }
        let Value::Object(obj) = node else { continue };
        for (key, child) in obj {
            match (key.as_str(), child) {
                ("properties" | "$defs" | "definitions", Value::Object(map)) => {
                    let p = arena.push(id, Seg::Key(key));
                    for (name, child) in map {
                        kids.push((child, arena.push(p, Seg::Key(name))));
                    }
                }
                ("items", child) if !child.is_array() => {
                    kids.push((child, arena.push(id, Seg::Key(key))));
                }
                ("propertyNames", child) => {
                    kids.push((child, arena.push(id, Seg::Key(key))));
                }
                ("additionalProperties", Value::Object(_)) => {
                    kids.push((child, arena.push(id, Seg::Key(key))));
                }
                ("oneOf" | "anyOf", Value::Array(branches)) => {
                    let p = arena.push(id, Seg::Key(key));
                    for (i, child) in branches.iter().enumerate() {
                        kids.push((child, arena.push(p, Seg::Index(i))));
                    }
                }
                _ => {}
            }
        }
        stack.extend(kids.drain(..).rev());
    }
    for id in refs::same_value_cycles(schema, &refs) {
        out.push(SchemaIssue {
            path: format!("{}/$ref", arena.render(id)),
            message: "`$ref` cycle: this reference leads back to itself without descending into a property or an item".into(),
        });
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
