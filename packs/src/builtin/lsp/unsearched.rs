//! Files a TypeScript search did not look at. The server answers `findReferences`,
//! `goToImplementation` and `workspaceSymbol` from the projects it has loaded: the project of
//! the file asked about (its tsconfig/jsconfig.json's files, or without one an inferred project
//! of what the file imports), and those of the files open. A file outside them, such as tests a
//! tsconfig's `include` leaves out, or another package of a monorepo, is never looked at, and
//! what it holds is missing unsaid. The tool asks the server which files the project holds
//! (tsserver's `projectInfo`, through typescript-language-server's `typescript.tsserverRequest`)
//! and finds the workspace's TypeScript and JavaScript files outside it that hold the name (as a
//! word) or the symbol query: up to [`OPENED`] are opened, which loads their projects, and the
//! search is asked again; more are named in a note.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use lsp_types::request::ExecuteCommand;
use lsp_types::{ExecuteCommandParams, WorkDoneProgressParams};
use serde_json::{json, Value};

use super::documents::read_text;
use super::server::Server;
use crate::builtin::walk::WalkLimits;
use crate::builtin::workspace::Workspace;

/// The extensions of the files looked through.
const SOURCES: [&str; 8] = ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"];
/// Files larger than this are not looked through (bundles, generated code).
const MAX_BYTES: u64 = 2 << 20;
/// Files looked through at most.
const MAX_FILES: usize = 20_000;
/// Files named in the note at most.
const NAMED: usize = 5;

/// The identifier at `position` (zero-based line, UTF-16 character) of `text`, if the cursor is
/// on or just after one.
pub(super) fn identifier_at(text: &str, position: lsp_types::Position) -> Option<String> {
    let line = text.split('\n').nth(position.line as usize)?;
    let mut at = None;
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= position.character as usize {
            at = Some(i);
            break;
        }
        units += c.len_utf16();
    }
    let at = at.unwrap_or(line.len());
    let start = line[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = at
        + line[at..]
            .find(|c: char| !is_word(c))
            .unwrap_or(line.len() - at);
    let word = &line[start..end];
    (!word.is_empty() && !word.starts_with(|c: char| c.is_ascii_digit())).then(|| word.into())
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// What a file must hold to be searched too.
#[derive(Debug, Clone)]
pub(super) enum Wanted {
    /// The name at the cursor, as a whole word (references, implementations).
    Word(String),
    /// A symbol query, in the name a declaration gives (`class FooError`, `const fooError`),
    /// in any case (tsserver matches symbols so).
    Declared(String),
}

impl Wanted {
    fn text(&self) -> &str {
        match self {
            Wanted::Word(s) | Wanted::Declared(s) => s,
        }
    }

    /// Whether `text` holds it.
    fn in_text(&self, text: &str) -> bool {
        match self {
            Wanted::Word(name) => uses(
                &memchr::memmem::Finder::new(name.as_bytes()),
                text.as_bytes(),
                name.len(),
            ),
            Wanted::Declared(query) => declares(text, query),
        }
    }
}

/// The workspace's files outside a TypeScript project that hold a name.
pub(super) struct Outside {
    /// The files, in order.
    pub(super) files: Vec<PathBuf>,
    /// The project's tsconfig/jsconfig.json (`None`: an inferred project).
    config: Option<PathBuf>,
}

/// At most this many files outside the project are opened for the server to search them.
pub(super) const OPENED: usize = 50;

/// The workspace's files outside `file`'s project that hold `wanted`, other than the files
/// `found` (workspace-relative) named; `None` when the server cannot say which files its project
/// holds.
pub(super) async fn outside(
    server: &Server,
    ws: &Workspace,
    file: &Path,
    wanted: &Wanted,
    found: &HashSet<String>,
) -> Option<Outside> {
    let (project, config) = project_files(server, file).await?;
    let (ws, wanted, found) = (ws.clone(), wanted.clone(), found.clone());
    let files = tokio::task::spawn_blocking(move || {
        holding(&ws, &wanted, |path| {
            !project.contains(path) && !found.contains(&ws.display(path))
        })
    })
    .await
    .ok()?;
    Some(Outside { files, config })
}

impl Outside {
    /// The note on the search for `wanted`: the files among these in which the server found
    /// nothing (none of `found`, workspace-relative), said as searched after all when they were
    /// `opened` for it (a name's uses only: a symbol query's files that hold no such symbol
    /// are no news), else as left unsearched. `None` when there are none.
    pub(super) fn note(
        &self,
        ws: &Workspace,
        wanted: &Wanted,
        found: &HashSet<String>,
        opened: bool,
    ) -> Option<String> {
        if opened && matches!(wanted, Wanted::Declared(_)) {
            return None;
        }
        let name = wanted.text();
        let left: Vec<String> = self
            .files
            .iter()
            .map(|p| ws.display(p))
            .filter(|p| !found.contains(p))
            .collect();
        if left.is_empty() {
            return None;
        }
        let named = left
            .iter()
            .take(NAMED)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        let more = match left.len().saturating_sub(NAMED) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let project = match &self.config {
            Some(config) => format!("`{}`'s files", ws.display(config)),
            None => "what this file imports (no tsconfig.json or jsconfig.json above it)".into(),
        };
        Some(match opened {
            true => format!(
                "`{name}` also appears in {} file(s) outside this file's project ({project}) \
                 where the TypeScript server, with them open, found no reference to it (another \
                 symbol of that name, or an import it could not resolve): {named}{more}; grep \
                 them to be sure",
                left.len()
            ),
            false => format!(
                "`{name}` is also used in {} file(s) the TypeScript server did not search, \
                 outside this file's project ({project}): {named}{more}; grep them (or ask from \
                 one of them, for its own project)",
                left.len()
            ),
        })
    }
}

/// The body of tsserver's answer to `command` with `args`, asked through
/// typescript-language-server's `typescript.tsserverRequest`; `None` when it has none.
async fn tsserver(server: &Server, command: &str, args: Value) -> Option<Value> {
    let params = ExecuteCommandParams {
        command: "typescript.tsserverRequest".into(),
        arguments: vec![json!(command), args],
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let mut answer = server.request::<ExecuteCommand>(params).await.ok()??;
    Some(match answer.get_mut("body") {
        Some(body) => body.take(),
        None => answer,
    })
}

/// One symbol tsserver's `navto` found: its name, kind (LSP's, as typescript-language-server
/// maps tsserver's), file, zero-based position and container.
pub(super) struct Found {
    pub(super) name: String,
    pub(super) kind: lsp_types::SymbolKind,
    pub(super) file: PathBuf,
    pub(super) at: lsp_types::Position,
    pub(super) container: Option<String>,
}

/// The symbols matching `query` in every project the server has loaded: tsserver's `navto`
/// with no file (typescript-language-server's `workspace/symbol` names the last file opened,
/// which scopes the search to that file's project). `None` when the server cannot say.
pub(super) async fn symbols_everywhere(server: &Server, query: &str) -> Option<Vec<Found>> {
    use lsp_types::SymbolKind as K;
    let answer = tsserver(server, "navto", json!({"searchValue": query})).await?;
    let items = answer.as_array()?;
    let number = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(1);
    let found = items.iter().filter_map(|item| {
        let text = |key: &str| item.get(key).and_then(Value::as_str);
        let start = item.get("start")?;
        let kind = match text("kind")? {
            "class" | "local class" => K::CLASS,
            "const" | "enum member" => K::CONSTANT,
            "constructor" => K::CONSTRUCTOR,
            "enum" => K::ENUM,
            "field" => K::FIELD,
            "file" => K::FILE,
            "function" | "local function" => K::FUNCTION,
            "getter" | "method" | "setter" => K::METHOD,
            "interface" => K::INTERFACE,
            "module" => K::MODULE,
            "property" | "JSX attribute" => K::PROPERTY,
            _ => K::VARIABLE,
        };
        Some(Found {
            name: text("name")?.to_string(),
            kind,
            file: PathBuf::from(text("file")?),
            at: lsp_types::Position {
                line: number(start, "line").saturating_sub(1) as u32,
                character: number(start, "offset").saturating_sub(1) as u32,
            },
            container: text("containerName").map(str::to_string),
        })
    });
    Some(found.collect())
}

/// The files of `file`'s project, and its tsconfig/jsconfig.json (`None`: an inferred one).
async fn project_files(
    server: &Server,
    file: &Path,
) -> Option<(HashSet<PathBuf>, Option<PathBuf>)> {
    let args = json!({"file": file, "needFileNameList": true});
    let info = tsserver(server, "projectInfo", args).await?;
    let files = info.get("fileNames")?.as_array()?;
    let files = files
        .iter()
        .filter_map(Value::as_str)
        .map(PathBuf::from)
        .collect();
    let config = info
        .get("configFileName")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|c| c.is_file());
    Some((files, config))
}

/// The workspace's source files (ignore rules and deny paths as grep's, `node_modules` left
/// out) that `consider` admits and that hold `wanted`, by path.
fn holding(ws: &Workspace, wanted: &Wanted, consider: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let limits = WalkLimits::new(ws);
    let mut walk = WalkBuilder::new(ws.root());
    limits.apply(&mut walk, |entry| entry.file_name() != "node_modules");
    let mut holding = Vec::new();
    for entry in walk.build().flatten().take(MAX_FILES) {
        let path = entry.path();
        let source = path
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| SOURCES.contains(&x));
        if !source || !entry.file_type().is_some_and(|t| t.is_file()) || !consider(path) {
            continue;
        }
        let small = entry.metadata().is_ok_and(|m| m.len() <= MAX_BYTES);
        let text = small.then(|| read_text(ws, path)).flatten();
        if text.is_some_and(|t| wanted.in_text(&t)) {
            holding.push(path.to_path_buf());
        }
    }
    holding.sort();
    holding
}

/// The words that declare a name after them.
const DECLARING: [&str; 10] = [
    "class",
    "interface",
    "type",
    "enum",
    "function",
    "const",
    "let",
    "var",
    "namespace",
    "module",
];

/// Whether `text` declares a name holding `query` (in any case): the query inside an
/// identifier that follows a declaring word (`class FooError`, `export function parseError`).
fn declares(text: &str, query: &str) -> bool {
    let (text, query) = (text.to_lowercase(), query.to_lowercase());
    if query.is_empty() {
        return false;
    }
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, query.as_bytes()).any(|at| {
        let start = bytes[..at]
            .iter()
            .rposition(|b| !ident(*b))
            .map_or(0, |i| i + 1);
        let before = text[..start].trim_end_matches([' ', '\t', '*']);
        DECLARING.iter().any(|word| {
            before.ends_with(word)
                && !before[..before.len() - word.len()]
                    .ends_with(|c: char| c.is_ascii() && ident(c as u8))
        })
    })
}

/// Whether `text` holds what `finder` finds as a whole word.
fn uses(finder: &memchr::memmem::Finder<'_>, text: &[u8], len: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    finder.find_iter(text).any(|at| {
        let before = at.checked_sub(1).map(|i| text[i]);
        let after = text.get(at + len).copied();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identifier_at_a_cursor_on_or_just_after_it() {
        let text = "import { okAsync } from './x';\nconst a = okAsync(1); // é $b";
        let at = |line, character| identifier_at(text, lsp_types::Position { line, character });
        assert_eq!(at(0, 9).as_deref(), Some("okAsync"));
        assert_eq!(at(0, 12).as_deref(), Some("okAsync"));
        assert_eq!(at(0, 16).as_deref(), Some("okAsync"), "just after it");
        assert_eq!(at(1, 6).as_deref(), Some("a"));
        assert_eq!(at(1, 27).as_deref(), Some("$b"));
        assert_eq!(at(0, 7), None, "on a brace after a space");
        assert_eq!(at(5, 0), None);
    }

    #[test]
    fn a_declaration_is_a_declaring_word_before_the_name_that_holds_the_query() {
        assert!(declares(
            "export class NonExhaustiveError extends Error {}",
            "error"
        ));
        assert!(declares("function* parseError() {}", "Error"));
        assert!(declares("const\tfooError = 1", "ERROR"));
        assert!(!declares("throw new Error('x')", "error"));
        assert!(!declares("// a class for errors: see MyError", "error"));
        assert!(
            !declares("subclass FooError", "error"),
            "not a declaring word"
        );
        assert!(!declares("class Foo {}", ""));
    }

    #[test]
    fn a_use_is_the_name_as_a_whole_word() {
        let finder = memchr::memmem::Finder::new("ok");
        assert!(uses(&finder, b"a(ok)", 2));
        assert!(uses(&finder, b"ok", 2));
        assert!(!uses(&finder, b"okAsync isOk $ok ok_", 2));
        assert!(uses(&finder, b"okAsync; ok;", 2));
    }
}
