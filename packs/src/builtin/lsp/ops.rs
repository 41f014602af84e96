//! The tool's operations as LSP requests, and their results as the tool's values: paths
//! relative to the root, one-based lines and UTF-16 characters, each location with its
//! line's text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp_types::request::{
    DocumentSymbolRequest, GotoDefinition, GotoImplementation, HoverRequest, References,
    WorkspaceSymbolRequest,
};
use lsp_types::{
    DiagnosticSeverity, DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse,
    GotoDefinitionParams, GotoDefinitionResponse, HoverContents, HoverParams, MarkedString, OneOf,
    PartialResultParams, Position, ReferenceContext, ReferenceParams, SymbolInformation,
    SymbolKind, TextDocumentIdentifier, TextDocumentPositionParams, Url, WorkDoneProgressParams,
    WorkspaceSymbolParams, WorkspaceSymbolResponse,
};
use serde::{Deserialize, Serialize};

use super::documents::{read_text, Synced};
use super::server::Server;
use crate::builtin::workspace::Workspace;

/// The longest a call waits for a server's indexing to finish before asking it.
const INDEX_WAIT: Duration = Duration::from_secs(60);
/// The longest a call waits for the diagnostics of a document's latest version: the first
/// call's wait includes the server's start (typescript-language-server took about 30 s to
/// load playwright-core's project, reporting no progress meanwhile).
const DIAGNOSTICS_WAIT: Duration = Duration::from_secs(60);
/// The longest it then waits for them to be published again after another file changed
/// (a server may not republish diagnostics that stayed the same).
const SETTLE_WAIT: Duration = Duration::from_secs(3);
/// How long the diagnostics of a document must stay unrepublished to be its answer: a server
/// may publish them in stages (typescript-language-server: syntax first, an empty list, then
/// the type errors about 150 ms later).
const QUIET: Duration = Duration::from_millis(750);
/// Characters of a location's line text kept.
const MAX_TEXT: usize = 400;

/// What the model asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Operation {
    GoToDefinition,
    FindReferences,
    GoToImplementation,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    Diagnostics,
}

impl Operation {
    /// Its name in the tool's schema.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::GoToDefinition => "goToDefinition",
            Self::FindReferences => "findReferences",
            Self::GoToImplementation => "goToImplementation",
            Self::Hover => "hover",
            Self::DocumentSymbol => "documentSymbol",
            Self::WorkspaceSymbol => "workspaceSymbol",
            Self::Diagnostics => "diagnostics",
        }
    }

    /// Whether it asks about a cursor position.
    pub(crate) fn at_position(self) -> bool {
        matches!(
            self,
            Self::GoToDefinition | Self::FindReferences | Self::GoToImplementation | Self::Hover
        )
    }
}

/// One place in a file.
#[derive(Debug, Serialize)]
pub(crate) struct Place {
    path: String,
    line: u32,
    character: u32,
    text: String,
}

impl Place {
    /// Its file, workspace-relative.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }
}

/// One symbol.
#[derive(Debug, Serialize)]
pub(crate) struct Symbol {
    name: String,
    kind: String,
    path: String,
    line: u32,
    character: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<String>,
}

impl Symbol {
    /// Its file, workspace-relative.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }
}

/// One diagnostic.
#[derive(Debug, Serialize)]
pub(crate) struct Problem {
    path: String,
    line: u32,
    character: u32,
    severity: &'static str,
    message: String,
}

/// The tool's value: the one field its operation fills.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Output {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) locations: Option<Vec<Place>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) markdown: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) symbols: Option<Vec<Symbol>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) diagnostics: Option<Vec<Problem>>,
}

/// Ask `server` `op` about `doc` (the document of `uri`, synced) at `position` (zero-based).
pub(crate) async fn run(
    server: &Server,
    ws: &Workspace,
    op: Operation,
    (uri, doc): (&Url, Synced),
    position: Position,
    query: String,
) -> Result<Output, String> {
    // A server reporting its indexing answers only once it is done (bounded).
    server.inbox.wait_idle(INDEX_WAIT).await;
    let text_document = TextDocumentIdentifier { uri: uri.clone() };
    let at = TextDocumentPositionParams {
        text_document: text_document.clone(),
        position,
    };
    let mut lines = Lines::new(ws);
    let locations = |response: Option<GotoDefinitionResponse>, lines: &mut Lines| {
        let all = match response {
            None => vec![],
            Some(GotoDefinitionResponse::Scalar(l)) => vec![(l.uri, l.range.start)],
            Some(GotoDefinitionResponse::Array(v)) => {
                v.into_iter().map(|l| (l.uri, l.range.start)).collect()
            }
            Some(GotoDefinitionResponse::Link(v)) => v
                .into_iter()
                .map(|l| (l.target_uri, l.target_selection_range.start))
                .collect(),
        };
        Output {
            locations: Some(all.into_iter().map(|(u, p)| lines.place(&u, p)).collect()),
            ..Output::default()
        }
    };
    let (work, partial) = (
        WorkDoneProgressParams::default(),
        PartialResultParams::default(),
    );
    Ok(match op {
        Operation::GoToDefinition => {
            let params = GotoDefinitionParams {
                text_document_position_params: at,
                work_done_progress_params: work,
                partial_result_params: partial,
            };
            locations(server.request::<GotoDefinition>(params).await?, &mut lines)
        }
        Operation::GoToImplementation => {
            let params = GotoDefinitionParams {
                text_document_position_params: at,
                work_done_progress_params: work,
                partial_result_params: partial,
            };
            locations(
                server.request::<GotoImplementation>(params).await?,
                &mut lines,
            )
        }
        Operation::FindReferences => {
            let params = ReferenceParams {
                text_document_position: at,
                work_done_progress_params: work,
                partial_result_params: partial,
                context: ReferenceContext {
                    include_declaration: true,
                },
            };
            let found = server
                .request::<References>(params)
                .await?
                .unwrap_or_default();
            locations(Some(GotoDefinitionResponse::Array(found)), &mut lines)
        }
        Operation::Hover => {
            let params = HoverParams {
                text_document_position_params: at,
                work_done_progress_params: work,
            };
            let hover = server.request::<HoverRequest>(params).await?;
            Output {
                markdown: Some(hover.map(|h| markdown(h.contents)).unwrap_or_default()),
                ..Output::default()
            }
        }
        Operation::DocumentSymbol => {
            let params = DocumentSymbolParams {
                text_document,
                work_done_progress_params: work,
                partial_result_params: partial,
            };
            let mut symbols = Vec::new();
            match server.request::<DocumentSymbolRequest>(params).await? {
                None => {}
                Some(DocumentSymbolResponse::Flat(flat)) => {
                    flat_symbols(flat, &mut lines, &mut symbols)
                }
                Some(DocumentSymbolResponse::Nested(nested)) => {
                    flatten(&nested, None, uri, &mut lines, &mut symbols)
                }
            }
            // In the file's order (typescript-language-server sorts them by name).
            symbols.sort_by_key(|s| (s.line, s.character));
            Output {
                symbols: Some(symbols),
                ..Output::default()
            }
        }
        Operation::WorkspaceSymbol if server.name == "typescript" => {
            // Every loaded project, not the last opened file's.
            match super::unsearched::symbols_everywhere(server, &query).await {
                Some(found) => {
                    let symbols = found
                        .into_iter()
                        .filter_map(|f| {
                            let uri = Url::from_file_path(&f.file).ok()?;
                            Some(symbol(f.name, f.kind, lines.place(&uri, f.at), f.container))
                        })
                        .collect();
                    Output {
                        symbols: Some(symbols),
                        ..Output::default()
                    }
                }
                None => workspace_symbols(server, query, (work, partial), &mut lines).await?,
            }
        }
        Operation::WorkspaceSymbol => {
            workspace_symbols(server, query, (work, partial), &mut lines).await?
        }
        Operation::Diagnostics => {
            let (version, sent_at) = (doc.version, doc.sent_at);
            let fresh = |p: &super::inbox::Published| match p.version {
                Some(v) => v >= version,
                None => p.seq > sent_at,
            };
            if !server
                .inbox
                .wait_diagnostics(uri, DIAGNOSTICS_WAIT, fresh)
                .await
            {
                return Err(format!(
                    "it published no diagnostics for the file's latest text within {} s (a \
                     server still loading a large project may need longer: ask again)",
                    DIAGNOSTICS_WAIT.as_secs()
                ));
            }
            if doc.any_sent_at > doc.sent_at {
                let after = doc.any_sent_at;
                let again = |p: &super::inbox::Published| p.seq > after;
                server.inbox.wait_diagnostics(uri, SETTLE_WAIT, again).await;
            }
            settle(server, uri).await;
            let published = server.inbox.diagnostics(uri).map(|p| p.diagnostics);
            let problems = published
                .unwrap_or_default()
                .into_iter()
                .map(|d| {
                    let place = lines.place(uri, d.range.start);
                    Problem {
                        path: place.path,
                        line: place.line,
                        character: place.character,
                        severity: severity(d.severity),
                        message: d.message,
                    }
                })
                .collect();
            Output {
                diagnostics: Some(problems),
                ..Output::default()
            }
        }
    })
}

/// Wait (at most [`SETTLE_WAIT`]) until the diagnostics of `uri` went [`QUIET`] unrepublished.
async fn settle(server: &Server, uri: &lsp_types::Url) {
    let deadline = tokio::time::Instant::now() + SETTLE_WAIT;
    loop {
        let last = server.inbox.diagnostics(uri).map_or(0, |p| p.seq);
        let later = |p: &super::inbox::Published| p.seq > last;
        let wait = QUIET.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
        if wait.is_zero() || !server.inbox.wait_diagnostics(uri, wait, later).await {
            return;
        }
    }
}

/// `Err` when the server said in `initialize` it does not offer `op`.
pub(crate) fn offered(server: &Server, op: Operation) -> Result<(), String> {
    let key = match op {
        Operation::GoToDefinition => "definitionProvider",
        Operation::FindReferences => "referencesProvider",
        Operation::GoToImplementation => "implementationProvider",
        Operation::Hover => "hoverProvider",
        Operation::DocumentSymbol => "documentSymbolProvider",
        Operation::WorkspaceSymbol => "workspaceSymbolProvider",
        // Published unasked.
        Operation::Diagnostics => return Ok(()),
    };
    let capabilities = serde_json::to_value(&server.capabilities).unwrap_or_default();
    match capabilities[key] {
        serde_json::Value::Null | serde_json::Value::Bool(false) => Err(format!(
            "the {} language server does not offer {}",
            server.name,
            op.name()
        )),
        _ => Ok(()),
    }
}

/// LSP's `workspace/symbol` for `query`.
async fn workspace_symbols(
    server: &Server,
    query: String,
    (work, partial): (WorkDoneProgressParams, PartialResultParams),
    lines: &mut Lines<'_>,
) -> Result<Output, String> {
    let params = WorkspaceSymbolParams {
        query,
        work_done_progress_params: work,
        partial_result_params: partial,
    };
    let mut symbols = Vec::new();
    match server.request::<WorkspaceSymbolRequest>(params).await? {
        None => {}
        Some(WorkspaceSymbolResponse::Flat(flat)) => flat_symbols(flat, lines, &mut symbols),
        Some(WorkspaceSymbolResponse::Nested(nested)) => {
            for s in nested {
                let (u, p) = match s.location {
                    OneOf::Left(l) => (l.uri, l.range.start),
                    OneOf::Right(w) => (w.uri, Position::default()),
                };
                symbols.push(symbol(s.name, s.kind, lines.place(&u, p), s.container_name));
            }
        }
    }
    Ok(Output {
        symbols: Some(symbols),
        ..Output::default()
    })
}

fn flatten(
    nested: &[DocumentSymbol],
    container: Option<&str>,
    uri: &Url,
    lines: &mut Lines,
    out: &mut Vec<Symbol>,
) {
    for s in nested {
        let place = lines.place(uri, s.selection_range.start);
        out.push(symbol(
            s.name.clone(),
            s.kind,
            place,
            container.map(str::to_string),
        ));
        if let Some(children) = &s.children {
            flatten(children, Some(&s.name), uri, lines, out);
        }
    }
}

/// Symbols a server gave as a flat list (`SymbolInformation`), with their places.
fn flat_symbols(flat: Vec<SymbolInformation>, lines: &mut Lines<'_>, symbols: &mut Vec<Symbol>) {
    for s in flat {
        let place = lines.place(&s.location.uri, s.location.range.start);
        symbols.push(symbol(s.name, s.kind, place, s.container_name));
    }
}

fn symbol(name: String, kind: SymbolKind, place: Place, container: Option<String>) -> Symbol {
    Symbol {
        name,
        // `SymbolKind`'s Debug is its constant's name (`FUNCTION` → "function").
        kind: format!("{kind:?}").to_ascii_lowercase().replace('_', " "),
        path: place.path,
        line: place.line,
        character: place.character,
        container: container.filter(|c| !c.is_empty()),
    }
}

fn severity(severity: Option<DiagnosticSeverity>) -> &'static str {
    match severity {
        Some(DiagnosticSeverity::WARNING) => "warning",
        Some(DiagnosticSeverity::INFORMATION) => "information",
        Some(DiagnosticSeverity::HINT) => "hint",
        _ => "error",
    }
}

/// A hover's contents as Markdown.
fn markdown(contents: HoverContents) -> String {
    let marked = |m: MarkedString| match m {
        MarkedString::String(s) => s,
        MarkedString::LanguageString(l) => format!("```{}\n{}\n```", l.language, l.value),
    };
    match contents {
        HoverContents::Markup(m) => m.value,
        HoverContents::Scalar(m) => marked(m),
        HoverContents::Array(all) => all.into_iter().map(marked).collect::<Vec<_>>().join("\n\n"),
    }
}

/// The lines of the files results point into, each file read once per call.
struct Lines<'a> {
    ws: &'a Workspace,
    files: HashMap<PathBuf, Option<Vec<String>>>,
}

impl<'a> Lines<'a> {
    fn new(ws: &'a Workspace) -> Self {
        Lines {
            ws,
            files: HashMap::new(),
        }
    }

    /// `uri` at `pos` as the tool says it: a path relative to the root (absolute outside
    /// it), one-based line and character, and the line's text (for files in the workspace).
    fn place(&mut self, uri: &Url, pos: Position) -> Place {
        let path = uri
            .to_file_path()
            .unwrap_or_else(|()| PathBuf::from(uri.as_str()));
        let ws = self.ws;
        let lines = self.files.entry(path.clone()).or_insert_with(|| {
            let inside = path.starts_with(ws.root());
            let text = inside.then(|| read_text(ws, &path)).flatten()?;
            Some(text.lines().map(str::to_string).collect())
        });
        let text = lines
            .as_ref()
            .and_then(|l| l.get(pos.line as usize))
            .map(|t| cap(t.trim_end_matches('\r')))
            .unwrap_or_default();
        Place {
            path: ws.display(Path::new(&path)),
            line: pos.line + 1,
            character: pos.character + 1,
            text,
        }
    }
}

fn cap(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
