//! The declarations block: `JsonValue`, the two maps, `ToolName`,
//! `ToolCallError` and `tools`.

use crate::comment::line_comment;
use crate::names::{is_identifier, property_key};
use crate::render::{render_at, Said};
use crate::ToolDecl;

/// The reserved transport tool; programs never get a binding for it.
pub(crate) const RUN_CODE: &str = "run_code";

/// One tool, rendered.
struct Entry {
    name: String,
    doc: Option<String>,
    args: String,
    output: String,
}

/// See [`crate::declarations`].
pub(crate) fn declarations(tools: &[ToolDecl<'_>]) -> String {
    // Byte order of the name first; the rest of the key only breaks ties between
    // duplicate names, so the kept duplicate does not depend on the input order.
    let mut tools: Vec<(&ToolDecl<'_>, String)> = tools
        .iter()
        .filter(|t| t.name != RUN_CODE)
        .map(|t| {
            // Rendered (bounded in depth), not serialized: a hostile schema is deep.
            let fresh = |schema| render_at(schema, 0, false, &mut Said::default());
            let key = format!(
                "{}\0{}\0{}\0{}",
                t.description,
                fresh(t.parameters),
                fresh(t.output),
                t.closed
            );
            (t, key)
        })
        .collect();
    tools.sort_unstable_by(|(a, ka), (b, kb)| (a.name, ka).cmp(&(b.name, kb)));
    tools.dedup_by(|(later, _), (earlier, _)| later.name == earlier.name);
    // Rendered in reading order (every argument type, then every output type), so a
    // recurring property's comment is the first one the model reads.
    let mut said = Said::with_aliases();
    let args: Vec<String> = tools
        .iter()
        .map(|(t, _)| render_at(t.parameters, 0, t.closed, &mut said))
        .collect();
    let entries: Vec<Entry> = tools
        .iter()
        .zip(args)
        .map(|((t, _), args)| Entry {
            name: t.name.to_owned(),
            doc: line_comment(t.description),
            args,
            output: render_at(t.output, 0, false, &mut said),
        })
        .collect();

    let mut out = String::new();
    out.push_str(
        "type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\n",
    );
    out.push_str(said.alias_declarations());
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
