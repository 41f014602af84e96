//! Validation of a JSON value against a supported schema.
//!
//! The engine never recurses. It keeps a stack of frames: an `All` frame holds
//! the pending (schema, value) checks that must all pass; a `Union` frame sits
//! between an `All` frame and the branch currently being tried, counting
//! which branches matched (`anyOf` stops at the first). A branch is just another
//! `All` frame, so nested unions and deep values both live on the heap. A `$ref`
//! node hands its value to its target (resolved from the root) as one more check.
//!
//! Unions and references shared by several places can make a small schema try
//! exponentially many branches on a deep value; the checks made inside branches are
//! counted, and past [`UNION_BUDGET`] validation stops with a violation saying so.

use serde_json::{Number, Value};

use crate::error::{ValidationError, Violation, MAX_VIOLATIONS};
use crate::pointer::{PathArena, PathId, Seg, ROOT};
use crate::refs;
use crate::support::types::{describe, entry_matches};
use crate::support::{collect_issues, kind, preview};

mod constraints;
mod passes;

/// The most checks validation makes inside union branches being tried (for one value).
pub const UNION_BUDGET: usize = 1_000_000;

/// Longest branch failure quoted inside a "no branch matched" message.
const BRANCH_DETAIL_LIMIT: usize = 160;
/// Branch failures a "matches none of the branches" violation quotes.
const LISTED_BRANCHES: usize = 20;
/// Allowed values an enum violation lists.
const LISTED_VALUES: usize = 20;

#[derive(Clone, Copy)]
struct Task<'a> {
    schema: &'a Value,
    value: &'a Value,
    path: PathId,
}

/// A failure whose pointer is rendered only if it is actually reported
/// (most `oneOf` branch failures are discarded).
struct Failure {
    path: PathId,
    message: String,
}

enum Frame<'a> {
    /// Checks that must all pass.
    All { work: Vec<Task<'a>> },
    /// A union being decided, branch by branch. `mark` is the path-arena
    /// length when it started: branch paths are kept until the decision
    /// (pending failures refer to them), then forgotten.
    Union {
        union: Union,
        branches: &'a [Value],
        value: &'a Value,
        path: PathId,
        next: usize,
        mark: usize,
        matched: Vec<usize>,
        failures: Vec<Failure>,
    },
}

enum Step<'a> {
    /// The node was checked; any violations are in the sink, child checks on the work list.
    Checked,
    /// The node is a union to decide.
    Union(Union, &'a [Value]),
}

/// The two unions: `anyOf` (at least one branch) and `oneOf` (exactly one).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Union {
    AnyOf,
    OneOf,
}

impl Union {
    fn keyword(self) -> &'static str {
        match self {
            Union::AnyOf => "anyOf",
            Union::OneOf => "oneOf",
        }
    }
}

/// Validates `value` against `schema`.
///
/// The schema is first checked with [`crate::assert_supported`] (an
/// unsupported schema is reported as an error at the value root, never
/// ignored). Iterative and stack-safe; reports every violation in document
/// order, up to [`MAX_VIOLATIONS`] (a `oneOf` that no branch matches counts as
/// one, quoting each branch's first failure).
pub fn validate(schema: &Value, value: &Value) -> Result<(), ValidationError> {
    let issues = collect_issues(schema);
    if !issues.is_empty() {
        let detail: Vec<String> = issues.iter().map(ToString::to_string).collect();
        let message = format!("schema is not supported: {}", detail.join("; "));
        return Err(ValidationError {
            path: String::new(),
            message: message.clone(),
            violations: vec![Violation {
                path: String::new(),
                message,
            }],
            more: false,
        });
    }
    validate_supported(schema, value)
}

/// [`validate`] without the support check, for schemas already known to be supported
/// (see [`crate::SupportedSchema`]).
pub(crate) fn validate_supported(schema: &Value, value: &Value) -> Result<(), ValidationError> {
    if passes::passes(schema, value) {
        return Ok(());
    }
    validate_engine(schema, value)
}

/// The engine: every violation, with its path and message.
fn validate_engine(schema: &Value, value: &Value) -> Result<(), ValidationError> {
    let mut arena = PathArena::new();
    let (failures, more) = run(schema, value, &mut arena);
    if failures.is_empty() {
        return Ok(());
    }
    let violations = failures
        .into_iter()
        .map(|f| Violation {
            path: arena.render(f.path),
            message: f.message,
        })
        .collect();
    match ValidationError::from_violations(violations, more) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Walks the value; returns the violations outside `oneOf` branches being tried, in
/// document order (at most [`MAX_VIOLATIONS`]) and whether there were more.
fn run<'a>(schema: &'a Value, value: &'a Value, arena: &mut PathArena<'a>) -> (Vec<Failure>, bool) {
    run_in(schema, schema, value, arena)
}

/// [`run`] for `schema`, a part of the document `root` (`$ref`s resolve there).
fn run_in<'a>(
    root: &'a Value,
    schema: &'a Value,
    value: &'a Value,
    arena: &mut PathArena<'a>,
) -> (Vec<Failure>, bool) {
    let mut frames = vec![Frame::All {
        work: vec![Task {
            schema,
            value,
            path: ROOT,
        }],
    }];
    let mut collected: Vec<Failure> = Vec::new();
    let mut sink: Vec<Failure> = Vec::new();
    // `Some(result)` = the top `All` frame, a branch being tried, has just finished.
    let mut finished: Option<Result<(), Failure>> = None;
    let mut budget = UNION_BUDGET;
    loop {
        if let Some(result) = finished.take() {
            frames.pop();
            let Some(Frame::Union {
                union,
                branches,
                value,
                path,
                next,
                mark,
                matched,
                failures,
            }) = frames.last_mut()
            else {
                // Unreachable by construction: only branch frames finish this way. Fail closed.
                return (vec![internal_error()], false);
            };
            match result {
                Ok(()) => matched.push(*next - 1),
                Err(f) => failures.push(f),
            }
            let decided = *union == Union::AnyOf && !matched.is_empty();
            if !decided && *next < branches.len() {
                let all: &[Value] = branches;
                let task = Task {
                    schema: &all[*next],
                    value,
                    path: *path,
                };
                *next += 1;
                frames.push(Frame::All { work: vec![task] });
                continue;
            }
            let verdict = decide(arena, *union, *path, branches.len(), matched, failures);
            arena.truncate(*mark);
            frames.pop();
            if let Err(f) = verdict {
                sink.push(f);
            }
        } else {
            let in_branch = frames.len() > 1;
            let Some(Frame::All { work }) = frames.last_mut() else {
                // Unreachable by construction: a OneOf frame always has a branch frame above
                // it until it is decided. Fail closed.
                return (vec![internal_error()], false);
            };
            let Some(task) = work.pop() else {
                if frames.len() == 1 {
                    return (collected, false);
                }
                finished = Some(Ok(()));
                continue;
            };
            if in_branch {
                budget = budget.saturating_sub(1);
                if budget == 0 {
                    collected.push(Failure {
                        path: task.path,
                        message: format!(
                            "validation stopped after {UNION_BUDGET} checks inside anyOf/oneOf branches: the schema's unions branch too much for this value"
                        ),
                    });
                    return (collected, false);
                }
            }
            if let Step::Union(union, branches) = step(root, task, work, arena, &mut sink) {
                frames.push(Frame::Union {
                    union,
                    branches,
                    value: task.value,
                    path: task.path,
                    next: 1,
                    mark: arena.len(),
                    matched: Vec::new(),
                    failures: Vec::new(),
                });
                frames.push(Frame::All {
                    work: vec![Task {
                        schema: &branches[0],
                        value: task.value,
                        path: task.path,
                    }],
                });
                continue;
            }
        }
        if sink.is_empty() {
            continue;
        }
        if frames.len() > 1 {
            // Inside a branch being tried: its first failure decides it.
            let first = sink.swap_remove(0);
            sink.clear();
            finished = Some(Err(first));
            continue;
        }
        collected.append(&mut sink);
        if collected.len() > MAX_VIOLATIONS {
            collected.truncate(MAX_VIOLATIONS);
            return (collected, true);
        }
    }
}

fn internal_error() -> Failure {
    Failure {
        path: ROOT,
        message: "internal validator state error".into(),
    }
}

fn decide(
    arena: &PathArena<'_>,
    union: Union,
    path: PathId,
    count: usize,
    matched: &[usize],
    failures: &[Failure],
) -> Result<(), Failure> {
    let keyword = union.keyword();
    match matched.len() {
        1 => Ok(()),
        _ if union == Union::AnyOf && !matched.is_empty() => Ok(()),
        0 => {
            let mut details: Vec<String> = failures
                .iter()
                .take(LISTED_BRANCHES)
                .enumerate()
                .map(|(i, f)| {
                    let rel = arena.render_relative(f.path, path);
                    let what = truncate(&f.message);
                    if rel.is_empty() {
                        format!("branch {i}: {what}")
                    } else {
                        format!("branch {i}: {}: {what}", truncate(&rel))
                    }
                })
                .collect();
            if failures.len() > LISTED_BRANCHES {
                details.push(format!("… ({} more)", failures.len() - LISTED_BRANCHES));
            }
            Err(Failure {
                path,
                message: format!(
                    "value matches none of the {count} {keyword} branches ({})",
                    details.join("; ")
                ),
            })
        }
        _ => {
            let list: Vec<String> = matched.iter().map(ToString::to_string).collect();
            Err(Failure {
                path,
                message: format!(
                    "value matches {} {keyword} branches ({}); exactly one must match",
                    matched.len(),
                    list.join(", ")
                ),
            })
        }
    }
}

fn truncate(s: &str) -> String {
    if s.len() <= BRANCH_DETAIL_LIMIT {
        return s.to_owned();
    }
    let mut cut = BRANCH_DETAIL_LIMIT;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &s[..cut])
}

/// Checks one (schema, value) pair: pushes its violations onto `sink` and the checks of its
/// children onto `work`. `root` is the document `$ref`s resolve in.
fn step<'a>(
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
struct Keywords<'a> {
    reference: Option<&'a Value>,
    one_of: Option<&'a Value>,
    any_of: Option<&'a Value>,
    property_names: Option<&'a Value>,
    minimum: Option<&'a Value>,
    maximum: Option<&'a Value>,
    exclusive_minimum: Option<&'a Value>,
    exclusive_maximum: Option<&'a Value>,
    min_length: Option<&'a Value>,
    max_length: Option<&'a Value>,
    pattern: Option<&'a Value>,
    format: Option<&'a Value>,
    min_items: Option<&'a Value>,
    max_items: Option<&'a Value>,
    unique_items: Option<&'a Value>,
    ty: Option<&'a Value>,
    enum_: Option<&'a Value>,
    const_: Option<&'a Value>,
    properties: Option<&'a Value>,
    required: Option<&'a Value>,
    additional_properties: Option<&'a Value>,
    items: Option<&'a Value>,
}

impl<'a> Keywords<'a> {
    fn of(schema: &'a serde_json::Map<String, Value>) -> Self {
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
