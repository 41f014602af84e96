//! The documents a server was told about, and their versions. Before every query the
//! files it has open are read again from the workspace, and a file whose text changed
//! since (a `write`, an `edit`, `bash`) is sent with `didChange` and `didSave`; one gone
//! or denied is closed. Files of the server's languages changed since it started (found
//! by their modification time, `.gitignore`d and dependency folders aside) are opened too,
//! so a change in a file the server never had open reaches it as well. So the server sees
//! what the tools changed, with no hook in them.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
};
use lsp_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, TextDocumentContentChangeEvent, TextDocumentIdentifier,
    TextDocumentItem, Url, VersionedTextDocumentIdentifier,
};

use super::server::Server;
use crate::builtin::beneath::Access;
use crate::builtin::workspace::Workspace;

/// The most directory entries looked at for changed files before each query.
const MAX_SCANNED: usize = 50_000;
/// The largest file sent to a server.
pub(crate) const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// One open document as the server has it.
#[derive(Debug)]
struct Doc {
    path: PathBuf,
    /// The version last sent.
    version: i32,
    text: String,
    /// The inbox's count when it was last sent (diagnostics after it are for this text).
    sent_at: u64,
}

/// A queried document once synced.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Synced {
    /// Its version on the server.
    pub(crate) version: i32,
    /// The inbox's count when its text was last sent.
    pub(crate) sent_at: u64,
    /// The inbox's count when any document's text was last sent (its diagnostics may
    /// depend on another file).
    pub(crate) any_sent_at: u64,
}

/// The open documents of one server.
#[derive(Debug)]
pub(crate) struct Documents {
    open: HashMap<Url, Doc>,
    /// The server's extensions.
    extensions: Vec<String>,
    /// When the server started (it read older files itself).
    since: SystemTime,
    /// The inbox's count when a text was last sent.
    any_sent_at: u64,
}

impl Documents {
    /// None open yet, for a server of `extensions` started now.
    pub(crate) fn new(extensions: Vec<String>) -> Self {
        Documents {
            open: HashMap::new(),
            extensions,
            // A second's margin for file systems with coarse timestamps.
            since: SystemTime::now() - Duration::from_secs(1),
            any_sent_at: 0,
        }
    }

    /// Tell `server` the current text of every open document and of `path` (opening it
    /// first if need be); `path`'s document as the server now has it.
    pub(crate) fn sync(
        &mut self,
        server: &Server,
        ws: &Workspace,
        path: &Path,
        text: String,
    ) -> Result<Synced, String> {
        let uri = uri_of(path)?;
        for changed in changed_since(ws, &self.extensions, self.since) {
            if changed != path {
                if let (Ok(u), Some(text)) = (uri_of(&changed), read_text(ws, &changed)) {
                    if !self.open.contains_key(&u) {
                        self.open_doc(server, u, &changed, text);
                    }
                }
            }
        }
        let others: Vec<Url> = self.open.keys().filter(|u| **u != uri).cloned().collect();
        for other in others {
            let fresh = read_text(ws, &self.open[&other].path);
            self.update(server, &other, fresh);
        }
        if self.open.contains_key(&uri) {
            self.update(server, &uri, Some(text));
        } else {
            self.open_doc(server, uri.clone(), path, text);
        }
        let doc = &self.open[&uri];
        Ok(Synced {
            version: doc.version,
            sent_at: doc.sent_at,
            any_sent_at: self.any_sent_at,
        })
    }

    /// Open those of `paths` not open yet (a file that cannot be read is left out).
    pub(crate) fn open_all(&mut self, server: &Server, ws: &Workspace, paths: &[PathBuf]) {
        for path in paths {
            let Ok(uri) = uri_of(path) else { continue };
            if self.open.contains_key(&uri) {
                continue;
            }
            if let Some(text) = read_text(ws, path) {
                self.open_doc(server, uri, path, text);
            }
        }
    }

    fn open_doc(&mut self, server: &Server, uri: Url, path: &Path, text: String) {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        server.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
            text_document: TextDocumentItem {
                uri: uri.clone(),
                language_id: super::config::language_id(ext).to_string(),
                version: 1,
                text: text.clone(),
            },
        });
        let doc = Doc {
            path: path.to_path_buf(),
            version: 1,
            text,
            sent_at: server.inbox.seq(),
        };
        self.any_sent_at = doc.sent_at;
        self.open.insert(uri, doc);
    }

    /// Send `uri`'s new text if it changed; close it when it can no longer be read.
    fn update(&mut self, server: &Server, uri: &Url, text: Option<String>) {
        let Some(text) = text else {
            self.open.remove(uri);
            server.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
            });
            return;
        };
        let Some(doc) = self.open.get_mut(uri) else {
            return;
        };
        if doc.text == text {
            return;
        }
        doc.version += 1;
        doc.sent_at = server.inbox.seq();
        self.any_sent_at = doc.sent_at;
        server.notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
            text_document: VersionedTextDocumentIdentifier {
                uri: uri.clone(),
                version: doc.version,
            },
            content_changes: vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: text.clone(),
            }],
        });
        server.notify::<DidSaveTextDocument>(DidSaveTextDocumentParams {
            text_document: TextDocumentIdentifier { uri: uri.clone() },
            text: Some(text.clone()),
        });
        doc.text = text;
    }
}

/// Files with one of `extensions` modified after `since`, under the root: `.gitignore`d
/// files, hidden and dependency folders aside, at most [`MAX_SCANNED`] entries looked at.
fn changed_since(ws: &Workspace, extensions: &[String], since: SystemTime) -> Vec<PathBuf> {
    let walk = ignore::WalkBuilder::new(ws.root())
        .filter_entry(|e| {
            !matches!(
                e.file_name().to_str(),
                Some("node_modules" | "target" | "__pycache__")
            )
        })
        .build();
    let deny = ws.deny_now();
    walk.flatten()
        .take(MAX_SCANNED)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| {
            let ext = e
                .path()
                .extension()
                .and_then(|x| x.to_str())
                .unwrap_or_default();
            extensions.iter().any(|x| x == ext)
        })
        .filter(|e| {
            e.metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .is_some_and(|m| m >= since)
        })
        .map(|e| e.into_path())
        .filter(|p| !deny.covers(p))
        .collect()
}

/// The `file://` URI of the absolute `path`.
pub(crate) fn uri_of(path: &Path) -> Result<Url, String> {
    Url::from_file_path(path).map_err(|()| format!("`{}` has no file URI", path.display()))
}

/// The text of `path` in the workspace (race-free, outside the deny paths, at most
/// [`MAX_FILE_BYTES`], UTF-8 with invalid bytes replaced); `None` when it cannot be read.
pub(crate) fn read_text(ws: &Workspace, path: &Path) -> Option<String> {
    if ws.deny_now().covers(path) {
        return None;
    }
    let (file, meta) = ws.open_found(path, Access::Read)?;
    if meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}
