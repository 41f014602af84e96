//! Local `$ref`s: `#` (the root), `#/$defs/<name>` and `#/definitions/<name>`.
//!
//! A `$ref` node holds only the reference and annotations, and stands for its target. The
//! support check resolves every reference and refuses a cycle that never descends into a
//! property, an item or an additional property (`a` → `b` → `a`, or a union branch that refers
//! back to the union), the only way a reference could make validation or rendering loop at
//! one value. Recursion through properties and items is fine: each turn consumes a level of
//! the value, and values are finite.

use std::collections::HashMap;

use serde_json::Value;

use crate::pointer::PathId;

/// The target of `reference` inside `root`, or `None` when it is not a local reference to
/// an existing schema (`#`, `#/$defs/<name>`, `#/definitions/<name>`).
///
/// ```
/// use serde_json::json;
/// let root = json!({"$defs": {"a/b": {"type": "string"}}});
/// assert_eq!(ptc_schema::resolve_ref(&root, "#/$defs/a~1b"), Some(&json!({"type": "string"})));
/// assert_eq!(ptc_schema::resolve_ref(&root, "https://example.org/s.json"), None);
/// ```
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    if reference == "#" {
        return Some(root);
    }
    let (section, name) = split(reference)?;
    root.get(section)?.get(unescape(name).as_str())
}

/// `#/$defs/x` → (`$defs`, `x`), for the two sections ptc resolves; `None` otherwise.
fn split(reference: &str) -> Option<(&'static str, &str)> {
    for section in ["$defs", "definitions"] {
        if let Some(name) = reference
            .strip_prefix("#/")
            .and_then(|r| r.strip_prefix(section))
            .and_then(|r| r.strip_prefix('/'))
        {
            if !name.contains('/') {
                return Some((section, name));
            }
        }
    }
    None
}

/// RFC 6901: `~1` → `/`, `~0` → `~`.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Whether `reference` has a form ptc resolves (node-local: the target is not looked up).
pub(crate) fn well_formed(reference: &str) -> bool {
    reference == "#" || split(reference).is_some()
}

/// The schemas a node applies to the same value: its `$ref` target and its union branches.
fn same_value_edges<'a>(root: &'a Value, node: &'a Value) -> Vec<&'a Value> {
    let mut out = Vec::new();
    if let Some(target) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
    {
        out.push(target);
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get(union) {
            out.extend(branches.iter());
        }
    }
    out
}

/// The `$ref` nodes of `refs` that close a cycle at one value, each reported once, by path.
/// Iterative depth-first search; linear in the schema.
pub(crate) fn same_value_cycles<'a>(root: &'a Value, refs: &[(&'a Value, PathId)]) -> Vec<PathId> {
    #[derive(Clone, Copy, PartialEq)]
    enum Color {
        Open,
        Done,
    }
    let paths: HashMap<*const Value, PathId> = refs
        .iter()
        .map(|(n, id)| (*n as *const Value, *id))
        .collect();
    let mut color: HashMap<*const Value, Color> = HashMap::new();
    let mut found = Vec::new();
    for &(start, _) in refs {
        if color.contains_key(&(start as *const Value)) {
            continue;
        }
        let mut stack: Vec<(&Value, Vec<&Value>)> = vec![(start, same_value_edges(root, start))];
        color.insert(start as *const Value, Color::Open);
        while let Some((node, edges)) = stack.last_mut() {
            let Some(next) = edges.pop() else {
                color.insert(*node as *const Value, Color::Done);
                stack.pop();
                continue;
            };
            match color.get(&(next as *const Value)) {
                Some(Color::Done) => {}
                Some(Color::Open) => {
                    // A cycle: report the first `$ref` node on it (from `next` to the top).
                    let from = stack
                        .iter()
                        .position(|(n, _)| std::ptr::eq(*n, next))
                        .unwrap_or(0);
                    let on_cycle = stack[from..]
                        .iter()
                        .find_map(|(n, _)| paths.get(&(*n as *const Value)));
                    if let Some(id) = on_cycle {
                        if !found.contains(id) {
                            found.push(*id);
                        }
                    }
                }
                None => {
                    color.insert(next as *const Value, Color::Open);
                    stack.push((next, same_value_edges(root, next)));
                }
            }
        }
    }
    found
}
