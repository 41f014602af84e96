//! Schema node → TypeScript type.
//!
//! The walk is recursive but bounded: a node nested more than [`MAX_DEPTH`]
//! levels below the root (the root is depth 0) renders as `unknown` without
//! being looked at, so a hostile 5,000-deep schema uses a small, fixed amount
//! of stack (a few frames per level, at most `MAX_DEPTH + 1` levels). Every
//! node is checked with [`ptc_schema::node_is_supported`] first; a node outside
//! the enforced subset (or any shape this module does not expect) renders as
//! `unknown`.
//!
//! Each node is rendered once and its text copied into at most `MAX_DEPTH`
//! ancestors; indentation is at most two spaces per level, so the output is
//! linear in the input — except for `$ref`s, which are rendered inline at each
//! use: a reference to a schema being rendered already (a recursive schema)
//! becomes a type alias the SDK declares (`type RefNode = { next?: RefNode };`;
//! `JsonValue` from [`schema_to_ts`], which declares nothing), and after
//! [`MAX_INLINED_REFS`] inlined references in one root schema the rest render as
//! `JsonValue`, so shared definitions cannot blow the output up. Validation still
//! enforces them in full.

use std::collections::HashSet;

use serde_json::{Map, Value};

mod object;
mod said;

use crate::names::string_literal;
use object::render_object;
pub(crate) use said::Said;

/// How many `$ref`s one root schema inlines before the rest render as `JsonValue`.
pub const MAX_INLINED_REFS: usize = 64;

/// Nesting depth beyond which a node renders as `unknown`.
///
/// The root is depth 0; a property, an array's `items`, a union branch, an
/// additional property's schema and a `$ref`'s target are each one level
/// deeper than their parent. Nodes at depths
/// `0..=MAX_DEPTH` render normally.
pub const MAX_DEPTH: usize = 64;

/// Objects whose members fit in this many characters on one line, with no
/// member comments, render inline as `{ a: string; b?: number }`.
const INLINE_WIDTH: usize = 120;

/// The TypeScript type for "any JSON value", declared by the SDK.
pub(crate) const JSON_VALUE: &str = "JsonValue";
const UNKNOWN: &str = "unknown";
const OPEN_RECORD: &str = "Record<string, JsonValue>";
const CLOSED_RECORD: &str = "Record<string, never>";

/// How tightly a rendered type binds, to know where parentheses are needed.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// `A | B`
    Union,
    /// `A & B`
    Intersection,
    /// keywords, literals, `T[]`, `{ ... }`, `Record<...>`
    Primary,
}

struct Ts {
    text: String,
    prec: Prec,
}

impl Ts {
    fn primary(text: impl Into<String>) -> Self {
        Ts {
            text: text.into(),
            prec: Prec::Primary,
        }
    }

    fn unknown() -> Self {
        Ts::primary(UNKNOWN)
    }

    /// The text, parenthesised if it binds more loosely than `min`.
    fn at_least(&self, min: Prec) -> String {
        if self.prec < min {
            format!("({})", self.text)
        } else {
            self.text.clone()
        }
    }
}

/// Renders one schema node as a TypeScript type.
///
/// See the crate documentation for the mapping. Never panics; anything
/// outside the enforced subset, and anything nested deeper than
/// [`MAX_DEPTH`], renders as `unknown`.
///
/// ```
/// use ptc_sdk_gen::schema_to_ts;
/// use serde_json::json;
/// assert_eq!(schema_to_ts(&json!({"type": "integer"})), "number");
/// assert_eq!(
///     schema_to_ts(&json!({"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "null"}]}})),
///     "(string | null)[]"
/// );
/// assert_eq!(schema_to_ts(&json!({"$ref": "#/x"})), "unknown");
/// ```
pub fn schema_to_ts(schema: &Value) -> String {
    render_at(schema, 0, false, &mut Said::default())
}

/// One root schema being rendered: where its `$ref`s resolve, the references being
/// inlined now (to spot recursion), the targets named by an alias, and how many more
/// references may be inlined.
struct Cx<'a, 's> {
    root: &'a Value,
    said: &'s mut Said,
    inlining: Vec<*const Value>,
    named: Vec<(*const Value, String)>,
    refs_left: usize,
}

/// Renders `schema` for a position whose line is indented `indent` levels
/// (two spaces each); multi-line object bodies are indented relative to it.
/// `close_root`: a root object that does not state `additionalProperties`
/// renders closed (no `& Record<string, JsonValue>`). Property comments in `said`
/// are left out; those written here are added to it.
pub(crate) fn render_at(
    schema: &Value,
    indent: usize,
    close_root: bool,
    said: &mut Said,
) -> String {
    let root = schema as *const Value;
    let mut cx = Cx {
        root: schema,
        said,
        inlining: vec![root],
        named: Vec::new(),
        refs_left: MAX_INLINED_REFS,
    };
    let ts = render(schema, 0, indent, close_root, &mut cx);
    declared(root, ts, indent, &mut cx).text
}

/// `ts`, the rendering of `target` at `indent`, or the name of its alias when the rendering
/// referred back to it (the alias is declared here, its lines moved to the left margin).
fn declared(target: *const Value, ts: Ts, indent: usize, cx: &mut Cx<'_, '_>) -> Ts {
    let Some((_, name)) = cx.named.iter().find(|(k, _)| *k == target) else {
        return ts;
    };
    if let Some(aliases) = cx.said.aliases.as_mut() {
        let margin = "  ".repeat(indent);
        let mut lines = ts.text.lines();
        let mut body = lines.next().unwrap_or_default().to_owned();
        for line in lines {
            body.push('\n');
            body.push_str(line.strip_prefix(margin.as_str()).unwrap_or(line));
        }
        aliases
            .declarations
            .push_str(&format!("type {name} = {body};\n"));
    }
    Ts::primary(name.clone())
}

fn render(node: &Value, depth: usize, indent: usize, close: bool, cx: &mut Cx<'_, '_>) -> Ts {
    if depth > MAX_DEPTH {
        return Ts::unknown();
    }
    let Some(obj) = node.as_object() else {
        return Ts::unknown();
    };
    if !ptc_schema::node_is_supported(node) {
        return Ts::unknown();
    }
    render_supported(obj, depth, indent, close, cx).unwrap_or_else(Ts::unknown)
}

/// A `$ref`: its target inline; a reference back to a target being rendered (recursion)
/// names an alias when the SDK declares them, else renders as `JsonValue`, as do
/// references past the budget.
#[inline(never)]
fn render_ref(reference: &Value, depth: usize, indent: usize, cx: &mut Cx<'_, '_>) -> Option<Ts> {
    let reference = reference.as_str()?;
    let target = ptc_schema::resolve_ref(cx.root, reference)?;
    let key = target as *const Value;
    if let Some((_, name)) = cx.named.iter().find(|(k, _)| *k == key) {
        return Some(Ts::primary(name.clone()));
    }
    if cx.inlining.contains(&key) {
        let Some(aliases) = cx.said.aliases.as_mut() else {
            return Some(Ts::primary(JSON_VALUE));
        };
        let name = aliases.reserve(reference);
        cx.named.push((key, name.clone()));
        return Some(Ts::primary(name));
    }
    if cx.refs_left == 0 {
        return Some(Ts::primary(JSON_VALUE));
    }
    cx.refs_left -= 1;
    cx.inlining.push(key);
    let ts = render(target, depth + 1, indent, false, cx);
    cx.inlining.pop();
    Some(declared(key, ts, indent, cx))
}

/// `None` means "unexpected shape": the caller renders `unknown`.
fn render_supported(
    obj: &Map<String, Value>,
    depth: usize,
    indent: usize,
    close: bool,
    cx: &mut Cx<'_, '_>,
) -> Option<Ts> {
    if let Some(reference) = obj.get("$ref") {
        return render_ref(reference, depth, indent, cx);
    }
    if let Some(values) = obj.get("enum") {
        return literal_union(values.as_array()?);
    }
    if let Some(value) = obj.get("const") {
        return literal(value).map(Ts::primary);
    }
    // The subset keeps unions apart from `type` and the other constraints
    // (`ptc_schema` rejects them side by side), so the union alone decides.
    if let Some(branches) = obj.get("oneOf").or_else(|| obj.get("anyOf")) {
        return render_union(branches.as_array()?, depth, indent, cx);
    }
    match obj.get("type") {
        None => Some(Ts::primary(JSON_VALUE)),
        Some(Value::String(t)) => render_type(t, obj, depth, indent, close, cx),
        Some(Value::Array(types)) => render_types(types, obj, depth, indent, close, cx),
        Some(_) => None,
    }
}

/// A union's branches, one level deeper.
#[inline(never)]
fn render_union(
    branches: &[Value],
    depth: usize,
    indent: usize,
    cx: &mut Cx<'_, '_>,
) -> Option<Ts> {
    let mut parts = Vec::with_capacity(branches.len());
    for branch in branches {
        parts.push(render(branch, depth + 1, indent, false, cx));
    }
    Some(union(parts.into_iter()))
}

/// A type array: the node rendered as each of its types, joined in a union.
#[inline(never)]
fn render_types(
    types: &[Value],
    obj: &Map<String, Value>,
    depth: usize,
    indent: usize,
    close: bool,
    cx: &mut Cx<'_, '_>,
) -> Option<Ts> {
    let mut parts = Vec::with_capacity(types.len());
    for t in types {
        parts.push(render_type(t.as_str()?, obj, depth, indent, close, cx)?);
    }
    Some(union(parts.into_iter()))
}

fn render_type(
    t: &str,
    obj: &Map<String, Value>,
    depth: usize,
    indent: usize,
    close: bool,
    cx: &mut Cx<'_, '_>,
) -> Option<Ts> {
    Some(match t {
        "string" => Ts::primary("string"),
        "number" | "integer" => Ts::primary("number"),
        "boolean" => Ts::primary("boolean"),
        "null" => Ts::primary("null"),
        "array" => {
            let item = match obj.get("items") {
                None => Ts::primary(JSON_VALUE),
                Some(items) => render(items, depth + 1, indent, close, cx),
            };
            Ts::primary(format!("{}[]", item.at_least(Prec::Primary)))
        }
        "object" => render_object(obj, depth, indent, close, cx)?,
        _ => return None,
    })
}

/// `A | B | ...`; no branches is `never`, one branch is itself. Repeated
/// members are dropped, and an `unknown` member makes the union `unknown`.
fn union(branches: impl Iterator<Item = Ts>) -> Ts {
    let mut seen = HashSet::new();
    let mut parts: Vec<Ts> = Vec::new();
    for branch in branches {
        if branch.text == UNKNOWN {
            return Ts::unknown();
        }
        if seen.insert(branch.text.clone()) {
            parts.push(branch);
        }
    }
    if parts.len() == 1 {
        return parts.pop().unwrap_or_else(Ts::unknown);
    }
    if parts.is_empty() {
        return Ts::primary("never");
    }
    Ts {
        // Members never need parentheses: `&` binds tighter than `|` and a
        // nested union just flattens.
        text: parts
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
        prec: Prec::Union,
    }
}

fn literal_union(values: &[Value]) -> Option<Ts> {
    let literals = values
        .iter()
        .map(|v| literal(v).map(Ts::primary))
        .collect::<Option<Vec<_>>>()?;
    Some(union(literals.into_iter()))
}

/// A scalar as a TypeScript literal type; `None` for arrays and objects.
fn literal(value: &Value) -> Option<String> {
    match value {
        Value::Null => Some("null".to_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(string_literal(s)),
        Value::Array(_) | Value::Object(_) => None,
    }
}
