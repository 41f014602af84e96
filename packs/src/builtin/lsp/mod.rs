//! `lsp`: precise code navigation from real language servers (`typescript-language-server`,
//! `pyright`/`basedpyright`, `rust-analyzer`, or those of `[[lsp]]` in `ptc.toml`).
//!
//! A server starts on a call's first file of its language ([`config`]), in the pack's
//! sandbox, and stays warm for the calling [`ptc::Owner`] ([`servers`], [`server`]); it ends
//! with its owner. Before each query the files the server has open are synced with the
//! workspace ([`documents`]), and the call waits (bounded) for the server's indexing to end.
//! [`ops`] turns the operation into an LSP request and the answer into the tool's value.
//!
//! Differences from the seed's schema: three more operations (`documentSymbol`,
//! `workspaceSymbol` with `query`, `diagnostics`), and `line` and `character` required only
//! by the operations at a cursor.

mod capabilities;
pub mod config;
mod documents;
mod inbox;
mod ops;
mod projects;
mod rpc;
mod server;
mod servers;
mod unsearched;

use std::io::Read;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::Deserialize;
use serde_json::{json, Value};

use super::background::Background;
use super::beneath::Access;
use super::shared::{self, invalid_args};
use ops::{Operation, Output};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;
pub(crate) use servers::Servers;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    operation: Operation,
    file_path: String,
    line: Option<f64>,
    character: Option<f64>,
    query: Option<String>,
}

const OPERATIONS: [&str; 7] = [
    "goToDefinition",
    "findReferences",
    "goToImplementation",
    "hover",
    "documentSymbol",
    "workspaceSymbol",
    "diagnostics",
];

fn place_spec(more: ValueSpec) -> ValueSpec {
    more.required_property("path", ValueSpec::string())
        .required_property("line", ValueSpec::integer())
        .required_property("character", ValueSpec::integer())
}

fn output_spec() -> ValueSpec {
    let place = place_spec(ValueSpec::object(false)).required_property("text", ValueSpec::string());
    let symbol = place_spec(
        ValueSpec::object(false)
            .required_property("name", ValueSpec::string())
            .required_property("kind", ValueSpec::string()),
    )
    .property("container", ValueSpec::string());
    let severity = ValueSpec::string()
        .enum_values(["error", "warning", "information", "hint"].map(|s| json!(s)));
    let problem = place_spec(ValueSpec::object(false))
        .required_property("severity", severity)
        .required_property("message", ValueSpec::string());
    ValueSpec::object(false)
        .property("locations", ValueSpec::array(place))
        .property("markdown", ValueSpec::string())
        .property(
            "symbols",
            ValueSpec::array(symbol).describe(
                "`kind`: LSP SymbolKind, lower case (class, enum member…); `container`: \
                 parent's name.",
            ),
        )
        .property("diagnostics", ValueSpec::array(problem))
}

/// The `lsp` tool, its servers in `servers`.
pub(crate) fn tool(bg: Background, servers: Servers) -> ToolDefinition {
    ToolDefinition::builder("lsp")
        .path_arguments(bg.ws.path_arguments(&[("file_path", None)]))
        .description(
            "Query a language server for precise code navigation. operation is one of \
             goToDefinition, findReferences, goToImplementation, hover, documentSymbol, \
             workspaceSymbol (with query) or diagnostics (the file's errors and warnings, \
             after your edits). line and character are one-based UTF-16 cursor coordinates. \
             findReferences includes the declaration.",
        )
        .code_description(
            "Ask the file's language server: `locations`, `markdown` (hover), `symbols` or \
             `diagnostics`. A note names files TypeScript could not search.",
        )
        .parameters(
            ParameterSpec::new()
                .required(
                    "operation",
                    ValueSpec::string()
                        .enum_values(OPERATIONS.map(|s| json!(s)))
                        .describe("What to ask."),
                )
                .required(
                    "file_path",
                    ValueSpec::string().describe(
                        "The source file to query, relative to the workspace or absolute.",
                    ),
                )
                .optional(
                    "line",
                    ValueSpec::number().describe("One-based line of the cursor."),
                )
                .optional(
                    "character",
                    ValueSpec::number().describe("One-based UTF-16 column of the cursor."),
                )
                .optional(
                    "query",
                    ValueSpec::string().describe("workspaceSymbol: the name to look for."),
                ),
        )
        .output(output_spec())
        .concurrency_safe(true)
        .execute(move |args: Args, ctx| {
            let (bg, servers) = (bg.clone(), servers.clone());
            let signal = ctx.signal().clone();
            async move {
                let (out, note) = tokio::select! {
                    out = run(&bg, &servers, bg.owner(&ctx), args) => out?,
                    _ = signal.cancelled() => return Err(ToolError::new("the lsp call was cancelled")),
                };
                if let Some(note) = note {
                    ctx.note(note);
                }
                Ok(out)
            }
        })
        .render(|args, value| vec![ContentBlock::text(render(args, value))])
        .build()
        .expect("the lsp definition is valid")
}

/// The server's answer, and a note on it a program should not miss.
async fn run(
    bg: &Background,
    servers: &Servers,
    owner: super::background::Caller,
    args: Args,
) -> Result<(Output, Option<String>), ToolError> {
    let position = match (args.operation.at_position(), args.line, args.character) {
        (false, ..) => lsp_types::Position::default(),
        (true, Some(line), Some(character)) => lsp_types::Position {
            line: one_based(line, "line")?,
            character: one_based(character, "character")?,
        },
        (true, ..) => {
            return Err(invalid_args(format!(
                "{} asks about a cursor: give `line` and `character` (one-based)",
                args.operation.name()
            )))
        }
    };
    let query = match (args.operation, args.query) {
        (Operation::WorkspaceSymbol, Some(q)) => q,
        (Operation::WorkspaceSymbol, None) => {
            return Err(invalid_args(
                "workspaceSymbol needs a `query` (a symbol name)",
            ))
        }
        _ => String::new(),
    };
    let target = bg.ws.resolve(&args.file_path, "file_path")?;
    let opened = bg
        .ws
        .open(target, &args.file_path, "file_path", Access::Read)?;
    if opened.meta.len() > documents::MAX_FILE_BYTES {
        return Err(ToolError::new(format!(
            "`{}` is over {} MiB; a language server is not asked about it",
            opened.target.display,
            documents::MAX_FILE_BYTES >> 20
        )));
    }
    let mut bytes = Vec::new();
    opened
        .file
        .take(documents::MAX_FILE_BYTES)
        .read_to_end(&mut bytes)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::new(format!("`{}` is not UTF-8 text", opened.target.display)))?;
    let line_text = match args.operation.at_position() {
        true => Some(cursor_line(&text, position, &opened.target.display)?),
        false => None,
    };
    // What files outside the file's project must hold to be searched too: the identifier at
    // the cursor as a word, or a declaration of a name holding the symbol query.
    let name = match args.operation {
        Operation::FindReferences | Operation::GoToImplementation => {
            unsearched::identifier_at(&text, position).map(unsearched::Wanted::Word)
        }
        Operation::WorkspaceSymbol => Some(unsearched::Wanted::Declared(query.clone())),
        _ => None,
    };
    let path = opened.target.path;
    let server = servers
        .for_file(bg, &owner, &path)
        .await
        .map_err(ToolError::new)?;
    // TypeScript searches only the file's project: what lies outside is looked for after.
    let wider = name
        .filter(|_| server.name == "typescript")
        .map(|n| (n, text.clone()));
    ops::offered(&server, args.operation).map_err(ToolError::new)?;
    let uri = documents::uri_of(&path).map_err(ToolError::new)?;
    let ask = |text: String, opening: Vec<std::path::PathBuf>| {
        let (server, bg, path, uri, query) = (&server, bg, &path, &uri, query.clone());
        async move {
            let mut docs = server.documents.lock().await;
            docs.open_all(server, &bg.ws, &opening);
            let synced = docs.sync(server, &bg.ws, path, text)?;
            drop(docs);
            ops::run(
                server,
                &bg.ws,
                args.operation,
                (uri, synced),
                position,
                query,
            )
            .await
            .map_err(|why| {
                let mut message = server.failure(&why);
                if server.is_gone() {
                    message.push_str("\n(the next lsp call starts it again)");
                }
                message
            })
        }
    };
    let mut out = ask(text, Vec::new()).await.map_err(ToolError::new)?;
    let mut unsearched_note = None;
    if let Some((name, text)) = wider {
        let found = found_in(&out);
        if let Some(outside) = unsearched::outside(&server, &bg.ws, &path, &name, &found).await {
            // Opened, the files outside are searched too (in a project of their own that
            // reaches this file through its imports).
            let opened = !outside.files.is_empty() && outside.files.len() <= unsearched::OPENED;
            if opened {
                out = ask(text, outside.files.clone())
                    .await
                    .map_err(ToolError::new)?;
            }
            unsearched_note = Some(outside.note(&bg.ws, &name, &found_in(&out), opened));
        }
    }
    let note = match line_text {
        Some(line) if nothing_found(&out) => Some(format!(
            "nothing at {}:{}:{} (line and character are one-based); that line reads {:?}",
            args.file_path,
            position.line + 1,
            position.character + 1,
            line
        )),
        _ => match unsearched_note {
            Some(Some(note)) => Some(note),
            _ => project_note(&server, bg, &path, args.operation),
        },
    };
    Ok((out, note))
}

/// The text of the cursor's line, cut at 120 characters; `Err` naming the file's extent when
/// `position` (zero-based) lies past its last line or past the end of its line: a zero-based
/// position (one line or column short) is often caught so.
fn cursor_line(
    text: &str,
    position: lsp_types::Position,
    shown: &str,
) -> Result<String, ToolError> {
    let (line, character) = (position.line as usize, position.character as usize);
    let Some(at) = text.split('\n').nth(line) else {
        return Err(invalid_args(format!(
            "`line` {} is past the end of `{shown}`, which has {} lines (line and character are \
             one-based)",
            line + 1,
            shared::count_lines(text)
        )));
    };
    let at = at.strip_suffix('\r').unwrap_or(at);
    let width = at.encode_utf16().count();
    let shown_line: String = at.trim_end().chars().take(120).collect();
    if character > width {
        return Err(invalid_args(format!(
            "`character` {} is past the end of line {} of `{shown}`, which has {width} \
             characters (UTF-16; line and character are one-based): it reads {shown_line:?}",
            character + 1,
            line + 1
        )));
    }
    Ok(shown_line)
}

/// The files an answer's locations or symbols are in, workspace-relative.
fn found_in(out: &Output) -> std::collections::HashSet<String> {
    let places = out.locations.iter().flatten().map(|p| p.path());
    let symbols = out.symbols.iter().flatten().map(|s| s.path());
    places.chain(symbols).map(str::to_string).collect()
}

/// Whether a cursor's answer is empty: no hover text, no location.
fn nothing_found(out: &Output) -> bool {
    out.markdown.as_deref().is_some_and(str::is_empty)
        || out.locations.as_ref().is_some_and(Vec::is_empty)
}

/// For references, implementations and workspace symbols, when the TypeScript server has no
/// project (no `tsconfig.json` or `jsconfig.json` above the file in the workspace): it
/// searched only what the file reaches through its imports (an inferred project), so callers
/// and symbols elsewhere are missed.
fn project_note(
    server: &server::Server,
    bg: &Background,
    path: &std::path::Path,
    op: Operation,
) -> Option<String> {
    let missed = match op {
        Operation::FindReferences | Operation::GoToImplementation => "callers",
        Operation::WorkspaceSymbol => "symbols (even this file's; documentSymbol lists those)",
        _ => return None,
    };
    if server.name != "typescript" {
        return None;
    }
    let root = bg.ws.root();
    let configured = path
        .ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(root))
        .any(|dir| dir.join("tsconfig.json").is_file() || dir.join("jsconfig.json").is_file());
    if configured {
        return None;
    }
    Some(format!(
        "without a tsconfig.json or jsconfig.json the TypeScript server has no project: it \
         searched what this file imports, not the files that import it, so {missed} may be \
         missing: grep for the name to be sure"
    ))
}

fn one_based(n: f64, name: &str) -> Result<u32, ToolError> {
    if n.fract() != 0.0 || !(1.0..=u32::MAX as f64).contains(&n) {
        return Err(invalid_args(format!(
            "`{name}` must be a whole number ≥ 1 (one-based), not {n}"
        )));
    }
    Ok(n as u32 - 1)
}

/// The value as text for a model calling natively.
fn render(args: &Value, value: &Value) -> String {
    let at = |v: &Value| {
        format!(
            "{}:{}:{}",
            v["path"].as_str().unwrap_or_default(),
            v["line"],
            v["character"]
        )
    };
    let file = args["file_path"].as_str().unwrap_or_default();
    let list = |key: &str| value[key].as_array().cloned().unwrap_or_default();
    if let Some(markdown) = value["markdown"].as_str() {
        return match markdown.is_empty() {
            true => "No hover information at that position.".into(),
            false => markdown.to_string(),
        };
    }
    let (lines, none): (Vec<String>, String) = if value.get("locations").is_some() {
        let lines = list("locations")
            .iter()
            .map(|l| format!("{}: {}", at(l), l["text"].as_str().unwrap_or_default()))
            .collect();
        (lines, "No locations found.".into())
    } else if value.get("symbols").is_some() {
        let lines = list("symbols")
            .iter()
            .map(|s| {
                let container = s["container"]
                    .as_str()
                    .map(|c| format!(" (in {c})"))
                    .unwrap_or_default();
                format!(
                    "{} {}{container} — {}",
                    s["kind"].as_str().unwrap_or_default(),
                    s["name"].as_str().unwrap_or_default(),
                    at(s)
                )
            })
            .collect();
        (lines, "No symbols found.".into())
    } else {
        let lines = list("diagnostics")
            .iter()
            .map(|d| {
                format!(
                    "{}: {}: {}",
                    at(d),
                    d["severity"].as_str().unwrap_or_default(),
                    d["message"].as_str().unwrap_or_default()
                )
            })
            .collect();
        (lines, format!("No diagnostics in `{file}`."))
    };
    match lines.is_empty() {
        true => none,
        false => lines.join("\n"),
    }
}
