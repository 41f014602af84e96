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
//! linear in the input.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::comment::line_comment;
use crate::names::{property_key, string_literal};

/// Nesting depth beyond which a node renders as `unknown`.
///
/// The root is depth 0; a property, an array's `items` and a `oneOf` branch
/// are each one level deeper than their parent. Nodes at depths
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

/// The property comments already written: a property of the same name and description
/// is commented once per SDK (the model has read it), wherever it recurs.
#[derive(Default)]
pub(crate) struct Said(HashSet<(String, String)>);

impl Said {
    /// `doc`, unless `name` was already said with the same text.
    fn first(&mut self, name: &str, text: &str, doc: String) -> Option<String> {
        self.0
            .insert((name.to_owned(), text.to_owned()))
            .then_some(doc)
    }
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
    render(schema, 0, indent, close_root, said).text
}

fn render(node: &Value, depth: usize, indent: usize, close: bool, said: &mut Said) -> Ts {
    if depth > MAX_DEPTH {
        return Ts::unknown();
    }
    let Some(obj) = node.as_object() else {
        return Ts::unknown();
    };
    if !ptc_schema::node_is_supported(node) {
        return Ts::unknown();
    }
    render_supported(obj, depth, indent, close, said).unwrap_or_else(Ts::unknown)
}

/// `None` means "unexpected shape": the caller renders `unknown`.
fn render_supported(
    obj: &Map<String, Value>,
    depth: usize,
    indent: usize,
    close: bool,
    said: &mut Said,
) -> Option<Ts> {
    if let Some(values) = obj.get("enum") {
        return literal_union(values.as_array()?);
    }
    if let Some(value) = obj.get("const") {
        return literal(value).map(Ts::primary);
    }
    // The subset keeps `oneOf` apart from `type` and the other constraints
    // (`ptc_schema` rejects them side by side), so `oneOf` alone decides.
    if let Some(branches) = obj.get("oneOf") {
        let branches = branches.as_array()?;
        return Some(union(
            branches
                .iter()
                .map(|b| render(b, depth + 1, indent, false, said)),
        ));
    }
    match obj.get("type") {
        None => Some(Ts::primary(JSON_VALUE)),
        Some(Value::String(t)) => render_type(t, obj, depth, indent, close, said),
        Some(_) => None,
    }
}

fn render_type(
    t: &str,
    obj: &Map<String, Value>,
    depth: usize,
    indent: usize,
    close: bool,
    said: &mut Said,
) -> Option<Ts> {
    Some(match t {
        "string" => Ts::primary("string"),
        "number" | "integer" => Ts::primary("number"),
        "boolean" => Ts::primary("boolean"),
        "null" => Ts::primary("null"),
        "array" => {
            let item = match obj.get("items") {
                None => Ts::primary(JSON_VALUE),
                Some(items) => render(items, depth + 1, indent, false, said),
            };
            Ts::primary(format!("{}[]", item.at_least(Prec::Primary)))
        }
        "object" => render_object(obj, depth, indent, close, said)?,
        _ => return None,
    })
}

fn render_object(
    obj: &Map<String, Value>,
    depth: usize,
    indent: usize,
    close: bool,
    said: &mut Said,
) -> Option<Ts> {
    let empty = Map::new();
    let properties = match obj.get("properties") {
        None => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return None,
    };
    let required: Vec<&str> = match obj.get("required") {
        None => Vec::new(),
        Some(Value::Array(names)) => names.iter().map(Value::as_str).collect::<Option<_>>()?,
        Some(_) => return None,
    };
    let closed = match obj.get("additionalProperties") {
        None => close,
        Some(Value::Bool(true)) => false,
        Some(Value::Bool(false)) => true,
        Some(_) => return None,
    };
    if properties.is_empty() {
        return Some(Ts::primary(if closed {
            CLOSED_RECORD
        } else {
            OPEN_RECORD
        }));
    }

    struct Member {
        doc: Option<String>,
        decl: String,
    }
    let members: Vec<Member> = properties
        .iter()
        .map(|(name, schema)| {
            let doc = schema
                .get("description")
                .and_then(Value::as_str)
                .and_then(|text| said.first(name, text, line_comment(text)?));
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let ty = render(schema, depth + 1, indent + 1, false, said);
            Member {
                doc,
                decl: format!("{}{optional}: {}", property_key(name), ty.text),
            }
        })
        .collect();

    let inline_len: usize = members.iter().map(|m| m.decl.len() + 2).sum();
    let inline = inline_len <= INLINE_WIDTH
        && members
            .iter()
            .all(|m| m.doc.is_none() && !m.decl.contains('\n'));
    let body = if inline {
        let decls: Vec<&str> = members.iter().map(|m| m.decl.as_str()).collect();
        format!("{{ {} }}", decls.join("; "))
    } else {
        let pad = "  ".repeat(indent + 1);
        let mut body = String::from("{\n");
        // Members without comments share lines (up to INLINE_WIDTH); a one-line member
        // with a comment has a line of its own, ending with the comment; a multi-line
        // member has its own lines, the comment on the first.
        let mut line = String::new();
        let flush = |body: &mut String, line: &mut String| {
            if !line.is_empty() {
                body.push_str(&pad);
                body.push_str(line);
                body.push('\n');
                line.clear();
            }
        };
        for m in &members {
            if m.decl.contains('\n') {
                flush(&mut body, &mut line);
                if let Some(doc) = &m.doc {
                    body.push_str(&pad);
                    body.push_str(doc);
                    body.push('\n');
                }
                body.push_str(&pad);
                body.push_str(&m.decl);
                body.push_str(";\n");
                continue;
            }
            if m.doc.is_some() || line.len() + m.decl.len() + 2 > INLINE_WIDTH {
                flush(&mut body, &mut line);
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&m.decl);
            line.push(';');
            if let Some(doc) = &m.doc {
                line.push(' ');
                line.push_str(doc);
                flush(&mut body, &mut line);
            }
        }
        flush(&mut body, &mut line);
        body.push_str(&"  ".repeat(indent));
        body.push('}');
        body
    };
    Some(if closed {
        Ts::primary(body)
    } else {
        Ts {
            text: format!("{body} & {OPEN_RECORD}"),
            prec: Prec::Intersection,
        }
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
