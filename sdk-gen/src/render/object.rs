//! Object nodes: `{ a: T; b?: U }`, closed or open, and `Record<string, T>`.

use serde_json::{Map, Value};

use super::{render, Cx, Prec, Ts, CLOSED_RECORD, INLINE_WIDTH, OPEN_RECORD};
use crate::comment::property_doc;
use crate::names::property_key;

/// An object node. `additionalProperties` as a schema `T` gives `Record<string, T>` when
/// there are no properties, else the properties joined with an open record (TypeScript
/// cannot say "the other keys are `T`" beside properties of other types).
pub(super) fn render_object(
    obj: &Map<String, Value>,
    depth: usize,
    indent: usize,
    close: bool,
    cx: &mut Cx<'_, '_>,
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
    // Below the root only a node with `properties` is closed, as the pipeline checks it.
    let closed = match obj.get("additionalProperties") {
        None => close && (depth == 0 || obj.contains_key("properties")),
        Some(Value::Bool(true)) => false,
        Some(Value::Bool(false)) => true,
        Some(extra @ Value::Object(_)) if properties.is_empty() => {
            let ty = render(extra, depth + 1, indent, false, cx);
            return Some(Ts::primary(format!("Record<string, {}>", ty.text)));
        }
        Some(Value::Object(_)) => false,
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
            let doc = property_doc(schema, cx.root)
                .and_then(|text| cx.said.first(name, &text, format!("// {text}")));
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let ty = render(schema, depth + 1, indent + 1, close, cx);
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
