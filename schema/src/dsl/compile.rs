//! Compiling a spec to the raw subset: iterative, post-order, with issue paths in an arena.

use serde_json::{Map, Value};

use super::ValueSpec;
use crate::error::{JsonSchemaError, SchemaIssue};
use crate::pointer::{PathArena, PathId, Seg, ROOT};
use crate::support::{check_node, kind};
use crate::value::drop_deep;

fn is_scalar(v: &Value) -> bool {
    !(v.is_array() || v.is_object())
}

/// Iterative post-order compilation with issue paths kept in an arena.
pub(super) fn compile_tree(
    root: &ValueSpec,
    parameter_root: bool,
) -> Result<Value, JsonSchemaError> {
    enum Visit<'a> {
        Enter(&'a ValueSpec, PathId),
        Exit(&'a ValueSpec, PathId),
    }
    let mut arena = PathArena::new();
    let mut issues = Vec::new();
    let mut local = Vec::new();
    let mut stack = vec![Visit::Enter(root, ROOT)];
    let mut done: Vec<Value> = Vec::new();
    while let Some(visit) = stack.pop() {
        match visit {
            Visit::Enter(node, path) => {
                stack.push(Visit::Exit(node, path));
                let start = stack.len();
                match node {
                    ValueSpec::Array { items, .. } => {
                        stack.push(Visit::Enter(items, arena.push(path, Seg::Keyword("items"))));
                    }
                    ValueSpec::Object { properties, .. } if !properties.is_empty() => {
                        let p = arena.push(path, Seg::Keyword("properties"));
                        for prop in properties {
                            let at = arena.push(p, Seg::Key(&prop.name));
                            stack.push(Visit::Enter(&prop.spec, at));
                        }
                    }
                    ValueSpec::OneOf { branches, .. } => {
                        let p = arena.push(path, Seg::Keyword("oneOf"));
                        for (i, branch) in branches.iter().enumerate() {
                            stack.push(Visit::Enter(branch, arena.push(p, Seg::Index(i))));
                        }
                    }
                    _ => {}
                }
                stack[start..].reverse();
            }
            Visit::Exit(node, path) => {
                let kids = done.split_off(done.len() - node.child_count());
                let mut report = |rel: String, message: String| {
                    issues.push(SchemaIssue {
                        path: format!("{}{rel}", arena.render(path)),
                        message,
                    });
                };
                let options = node.options();
                for msg in &options.misuse {
                    report(String::new(), msg.clone());
                }
                let out = build_node(node, kids, parameter_root && path == ROOT, &mut report);
                // The same node-local checker as assert_supported: the output
                // is in the subset by construction or the issue is reported.
                check_node(&out, &mut local);
                for (rel, message) in local.drain(..) {
                    report(rel, message);
                }
                done.push(out);
            }
        }
    }
    let out = done.pop().unwrap_or_else(|| Value::Object(Map::new()));
    if issues.is_empty() {
        Ok(out)
    } else {
        // The partial output may be deep; serde_json's own drop recurses.
        drop_deep(out);
        Err(JsonSchemaError { issues })
    }
}

fn build_node(
    node: &ValueSpec,
    kids: Vec<Value>,
    parameter_root: bool,
    report: &mut impl FnMut(String, String),
) -> Value {
    let mut out = Map::new();
    let ty = match node {
        ValueSpec::String(_) => Some("string"),
        ValueSpec::Number(_) => Some("number"),
        ValueSpec::Integer(_) => Some("integer"),
        ValueSpec::Boolean(_) => Some("boolean"),
        ValueSpec::Null(_) => Some("null"),
        ValueSpec::Array { .. } => Some("array"),
        ValueSpec::Object { .. } => Some("object"),
        ValueSpec::Json(_) | ValueSpec::OneOf { .. } => None,
    };
    if let Some(ty) = ty {
        out.insert("type".into(), Value::String(ty.into()));
    }
    let options = node.options();
    if let Some(d) = &options.description {
        out.insert("description".into(), Value::String(d.clone()));
    }
    if let Some(h) = &options.mcp_header {
        out.insert("x-mcp-header".into(), Value::String(h.clone()));
    }
    match node {
        ValueSpec::Array { .. } => {
            if let Some(items) = kids.into_iter().next() {
                out.insert("items".into(), items);
            }
        }
        ValueSpec::Object {
            properties,
            additional_properties,
            ..
        } => {
            let mut props = Map::new();
            let mut required = Vec::new();
            for (prop, compiled) in properties.iter().zip(kids) {
                if props.contains_key(&prop.name) {
                    report(
                        format!("/properties/{}", crate::escape_token(&prop.name)),
                        format!("duplicate property {}", Value::String(prop.name.clone())),
                    );
                    drop_deep(compiled);
                    continue;
                }
                props.insert(prop.name.clone(), compiled);
                if prop.required {
                    required.push(Value::String(prop.name.clone()));
                }
            }
            if !props.is_empty() || parameter_root {
                out.insert("properties".into(), Value::Object(props));
            }
            if !required.is_empty() {
                out.insert("required".into(), Value::Array(required));
            }
            if !parameter_root {
                out.insert(
                    "additionalProperties".into(),
                    Value::Bool(*additional_properties),
                );
            }
        }
        ValueSpec::OneOf { .. } => {
            out.insert("oneOf".into(), Value::Array(kids));
        }
        _ => {}
    }
    // enum / const: only scalars are copied; a non-scalar (possibly deep)
    // value is reported here and never cloned.
    if let Some(values) = &options.enum_values {
        let mut copied = Vec::with_capacity(values.len());
        let mut ok = true;
        for (i, v) in values.iter().enumerate() {
            if is_scalar(v) {
                copied.push(v.clone());
            } else {
                ok = false;
                report(
                    format!("/enum/{i}"),
                    format!("`enum` value must be a scalar, got {}", kind(v)),
                );
            }
        }
        if ok {
            out.insert("enum".into(), Value::Array(copied));
        }
    }
    if let Some(c) = &options.constant {
        if is_scalar(c) {
            out.insert("const".into(), c.clone());
        } else {
            report(
                "/const".into(),
                format!("`const` must be a scalar, got {}", kind(c)),
            );
        }
    }
    Value::Object(out)
}
