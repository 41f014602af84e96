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
//! exponentially many branches on a deep value; the checks made inside the branches of
//! one outermost union are counted, and past [`UNION_BUDGET`] validation stops with a
//! violation saying so (a long array of small unions never comes near it).

use serde_json::Value;

use crate::error::{ValidationError, Violation, MAX_VIOLATIONS};
use crate::pointer::{PathArena, PathId, ROOT};
use crate::support::collect_issues;

mod constraints;
mod passes;
mod step;

pub(crate) use step::scalar_eq;
use step::step;

/// The most checks validation makes inside the branches of one outermost `anyOf`/`oneOf`.
pub const UNION_BUDGET: usize = 1_000_000;

/// Longest branch failure quoted inside a "no branch matched" message.
const BRANCH_DETAIL_LIMIT: usize = 160;
/// Branch failures a "matches none of the branches" violation quotes.
const LISTED_BRANCHES: usize = 20;

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
                if !in_branch {
                    // An outermost union: its branches get a budget of their own.
                    budget = UNION_BUDGET;
                }
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
