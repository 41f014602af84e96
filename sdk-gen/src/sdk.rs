//! The declarations block: `JsonValue`, the two maps, `ToolName`,
//! `ToolCallError` and `tools`.

use crate::comment::line_comment;
use crate::names::{is_identifier, property_key};
use crate::render::render_at;
use crate::ToolDecl;

/// The reserved transport tool; programs never get a binding for it.
pub(crate) const RUN_CODE: &str = "run_code";

/// One tool, rendered.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    name: String,
    doc: Option<String>,
    args: String,
    output: String,
}

/// See [`crate::declarations`].
pub(crate) fn declarations(tools: &[ToolDecl<'_>]) -> String {
    let mut entries: Vec<Entry> = tools
        .iter()
        .filter(|t| t.name != RUN_CODE)
        .map(|t| Entry {
            name: t.name.to_owned(),
            doc: line_comment(t.description),
            args: render_at(t.parameters, 0, t.closed),
            output: render_at(t.output, 0, false),
        })
        .collect();
    // Byte order of the name first; the rest of the tuple only breaks ties
    // between duplicate names, so the kept duplicate does not depend on the
    // input order.
    entries.sort_unstable();
    entries.dedup_by(|later, earlier| later.name == earlier.name);

    let mut out = String::new();
    out.push_str(
        "type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\n",
    );
    out.push_str("interface ToolArgsMap {");
    push_members(&mut out, &entries, |e| (e.doc.as_deref(), &e.args));
    out.push_str("}\n");
    out.push_str("interface ToolOutputMap {");
    push_members(&mut out, &entries, |e| (None, &e.output));
    out.push_str("}\n");
    out.push_str("type ToolName = keyof ToolArgsMap;\n");
    out.push_str("declare class ToolCallError extends Error { readonly toolName: string }\n");
    if entries.iter().any(|e| !is_identifier(&e.name)) {
        out.push_str(
            "// A name that is not an identifier is called as `tools[\"my-tool\"](args)`.\n",
        );
    }
    out.push_str(
        "declare const tools: { [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> };\n",
    );
    out
}

/// The maps' members, one tool each, unindented (the SDK is read by models: every byte
/// counts, and the layout stays unambiguous).
fn push_members<'e>(
    out: &mut String,
    entries: &'e [Entry],
    member: impl Fn(&'e Entry) -> (Option<&'e str>, &'e String),
) {
    if entries.is_empty() {
        return;
    }
    out.push('\n');
    for entry in entries {
        let (doc, ty) = member(entry);
        if let Some(doc) = doc {
            out.push_str(doc);
            out.push('\n');
        }
        out.push_str(&property_key(&entry.name));
        out.push_str(": ");
        out.push_str(ty);
        out.push_str(";\n");
    }
}
