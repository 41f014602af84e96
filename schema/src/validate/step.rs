//! One step of the engine: the checks of one (schema, value) pair, and the keywords it reads.

use serde_json::{Number, Value};

use super::{constraints, passes, run_in, Failure, Step, Task, Union};
use crate::pointer::{PathArena, Seg};
use crate::refs;
use crate::support::types::{describe, entry_matches};
use crate::support::{kind, preview};

/// Allowed values an enum violation lists.
const LISTED_VALUES: usize = 20;

/// Checks one (schema, value) pair: pushes its violations onto `sink` and the checks of its
/// children onto `work`. `root` is the document `$ref`s resolve in.
pub(super) fn step<'a>(
    root: &'a Value,
    task: Task<'a>,
    work: &mut Vec<Task<'a>>,
    arena: &mut PathArena<'a>,
    sink: &mut Vec<Failure>,
) -> Step<'a> {
    let mut fail = |message: String| {
        sink.push(Failure {
            path: task.path,
            message,
        });
        Step::Checked
    };
    let Some(schema) = task.schema.as_object() else {
        return fail("schema node is not supported".into());
    };
    let keywords = Keywords::of(schema);
    let value = task.value;
    if let Some(reference) = keywords.reference {
        let Some(target) = reference.as_str().and_then(|r| refs::resolve(root, r)) else {
            return fail(format!(
                "schema `$ref` {} does not resolve",
                preview(reference)
            ));
        };
        work.push(Task {
            schema: target,
            ..task
        });
        return Step::Checked;
    }
    for (union, entry) in [
        (Union::OneOf, keywords.one_of),
        (Union::AnyOf, keywords.any_of),
    ] {
        if let Some(Value::Array(branches)) = entry {
            if !branches.is_empty() {
                return Step::Union(union, branches);
            }
        }
    }
    if let Some(ty) = keywords.ty {
        if !entry_matches(ty, value) {
            return fail(format!("expected {}, got {}", describe(ty), kind(value)));
        }
    }
    if let Some(Value::Array(allowed)) = keywords.enum_ {
        if !allowed.iter().any(|a| scalar_eq(a, value)) {
            return fail(format!(
                "expected one of {}, got {}",
                list_values(allowed),
                preview(value)
            ));
        }
    }
    if let Some(expected) = keywords.const_ {
        if !scalar_eq(expected, value) {
            return fail(format!(
                "expected constant {}, got {}",
                preview(expected),
                preview(value)
            ));
        }
    }
    constraints::check(&keywords, value, |broken| {
        sink.push(Failure {
            path: task.path,
            message: broken.message(),
        });
        true
    });
    match value {
        Value::Object(map) => {
            let props = keywords.properties.and_then(Value::as_object);
            if let Some(Value::Array(required)) = keywords.required {
                for name in required.iter().filter_map(Value::as_str) {
                    if !map.contains_key(name) {
                        sink.push(Failure {
                            path: task.path,
                            message: format!(
                                "missing required property {}",
                                Value::String(name.to_owned())
                            ),
                        });
                    }
                }
            }
            if let Some(names) = keywords.property_names {
                for key in map.keys() {
                    if let Some(message) = property_name_violation(root, names, key) {
                        sink.push(Failure {
                            path: arena.push(task.path, Seg::Key(key)),
                            message,
                        });
                    }
                }
            }
            let start = work.len();
            let extra = keywords.additional_properties;
            for (key, child) in map {
                let child_schema = match props.and_then(|p| p.get(key)) {
                    Some(declared) => declared,
                    None => match extra {
                        Some(Value::Bool(false)) => {
                            sink.push(Failure {
                                path: arena.push(task.path, Seg::Key(key)),
                                message: format!(
                                    "property {} is not allowed (additionalProperties is false)",
                                    Value::String(key.clone())
                                ),
                            });
                            continue;
                        }
                        Some(schema @ Value::Object(_)) => schema,
                        _ => continue,
                    },
                };
                work.push(Task {
                    schema: child_schema,
                    value: child,
                    path: arena.push(task.path, Seg::Key(key)),
                });
            }
            work[start..].reverse();
        }
        Value::Array(items) => {
            if let Some(item_schema) = keywords.items {
                for (i, item) in items.iter().enumerate().rev() {
                    work.push(Task {
                        schema: item_schema,
                        value: item,
                        path: arena.push(task.path, Seg::Index(i)),
                    });
                }
            }
        }
        _ => {}
    }
    Step::Checked
}

/// Why the property name `key` breaks `propertyNames`, or `None`. The name is validated as a
/// string value; a string has no properties, so this never nests further.
fn property_name_violation(root: &Value, names: &Value, key: &str) -> Option<String> {
    let name = Value::String(key.to_owned());
    if passes::passes_in(root, names, &name) {
        return None;
    }
    let mut arena = PathArena::new();
    let (failures, _) = run_in(root, names, &name, &mut arena);
    let first = failures.first()?;
    Some(format!(
        "property name {} is not allowed (propertyNames): {}",
        preview(&name),
        first.message
    ))
}

/// The allowed values of an `enum`, for a message: `"a", "b", "c"`, at most
/// [`LISTED_VALUES`] of them.
fn list_values(values: &[Value]) -> String {
    let mut out: Vec<String> = values.iter().take(LISTED_VALUES).map(preview).collect();
    if values.len() > LISTED_VALUES {
        out.push(format!("… ({} more)", values.len() - LISTED_VALUES));
    }
    out.join(", ")
}

/// The keywords of one schema node that validation reads, gathered in one pass over
/// its entries (cheaper than a hash lookup per keyword on the hot path).
#[derive(Default)]
pub(super) struct Keywords<'a> {
    pub(super) reference: Option<&'a Value>,
    pub(super) one_of: Option<&'a Value>,
    pub(super) any_of: Option<&'a Value>,
    pub(super) property_names: Option<&'a Value>,
    pub(super) minimum: Option<&'a Value>,
    pub(super) maximum: Option<&'a Value>,
    pub(super) exclusive_minimum: Option<&'a Value>,
    pub(super) exclusive_maximum: Option<&'a Value>,
    pub(super) min_length: Option<&'a Value>,
    pub(super) max_length: Option<&'a Value>,
    pub(super) pattern: Option<&'a Value>,
    pub(super) format: Option<&'a Value>,
    pub(super) min_items: Option<&'a Value>,
    pub(super) max_items: Option<&'a Value>,
    pub(super) unique_items: Option<&'a Value>,
    pub(super) ty: Option<&'a Value>,
    pub(super) enum_: Option<&'a Value>,
    pub(super) const_: Option<&'a Value>,
    pub(super) properties: Option<&'a Value>,
    pub(super) required: Option<&'a Value>,
    pub(super) additional_properties: Option<&'a Value>,
    pub(super) items: Option<&'a Value>,
}

impl<'a> Keywords<'a> {
    pub(super) fn of(schema: &'a serde_json::Map<String, Value>) -> Self {
        let mut k = Keywords::default();
        for (key, value) in schema {
            let slot = match key.as_str() {
                "$ref" => &mut k.reference,
                "oneOf" => &mut k.one_of,
                "anyOf" => &mut k.any_of,
                "propertyNames" => &mut k.property_names,
                "minimum" => &mut k.minimum,
                "maximum" => &mut k.maximum,
                "exclusiveMinimum" => &mut k.exclusive_minimum,
                "exclusiveMaximum" => &mut k.exclusive_maximum,
                "minLength" => &mut k.min_length,
                "maxLength" => &mut k.max_length,
                "pattern" => &mut k.pattern,
                "format" => &mut k.format,
                "minItems" => &mut k.min_items,
                "maxItems" => &mut k.max_items,
                "uniqueItems" => &mut k.unique_items,
                "type" => &mut k.ty,
                "enum" => &mut k.enum_,
                "const" => &mut k.const_,
                "properties" => &mut k.properties,
                "required" => &mut k.required,
                "additionalProperties" => &mut k.additional_properties,
                "items" => &mut k.items,
                _ => continue,
            };
            *slot = Some(value);
        }
        k
    }
}

/// Equality for `enum` / `const`: numbers compare numerically (`1 == 1.0`).
pub(crate) fn scalar_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_eq(x, y),
        _ => a == b,
    }
}

fn numbers_eq(x: &Number, y: &Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}
