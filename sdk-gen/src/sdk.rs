//! The declarations block: `JsonValue`, the two maps, `ToolName`,
//! `ToolCallError` and `tools`.

use crate::comment::doc_comment;
use crate::names::property_key;
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
            doc: doc_comment(t.description),
            args: render_at(t.parameters, 1),
            output: render_at(t.output, 1),
        })
        .collect();
    // Byte order of the name first; the rest of the tuple only breaks ties
    // between duplicate names, so the kept duplicate does not depend on the
    // input order.
    entries.sort_unstable();
    entries.dedup_by(|later, earlier| later.name == earlier.name);

    let mut out = String::new();
    out.push_str("/** Any JSON value. */\n");
    out.push_str(
        "type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\n\n",
    );

    out.push_str("/** The argument object each tool takes. */\n");
    out.push_str("interface ToolArgsMap {");
    push_members(&mut out, &entries, |e| (e.doc.as_deref(), &e.args));
    out.push_str("}\n\n");

    out.push_str("/** What each tool's promise resolves to. */\n");
    out.push_str("interface ToolOutputMap {");
    push_members(&mut out, &entries, |e| (None, &e.output));
    out.push_str("}\n\n");

    out.push_str("/** The name of a callable tool. */\n");
    out.push_str("type ToolName = keyof ToolArgsMap;\n\n");

    out.push_str("/** A failed tool call rejects with this error. */\n");
    out.push_str("declare class ToolCallError extends Error {\n");
    out.push_str("  /** The name of the tool whose call failed. */\n");
    out.push_str("  readonly toolName: string;\n");
    out.push_str("}\n\n");

    out.push_str("/** The tools: `await tools.name(args)`, or `tools[\"my-tool\"](args)` for names that are not identifiers. */\n");
    out.push_str(
        "declare const tools: { [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> };\n",
    );
    out
}

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
            out.push_str("  ");
            out.push_str(doc);
            out.push('\n');
        }
        out.push_str("  ");
        out.push_str(&property_key(&entry.name));
        out.push_str(": ");
        out.push_str(ty);
        out.push_str(";\n");
    }
}
