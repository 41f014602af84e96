//! `[[lsp]]`: the language servers of the builtin pack's `lsp` tool, before its defaults
//! found on `PATH` (typescript-language-server, pyright or basedpyright, rust-analyzer).
//!
//! ```toml
//! [[lsp]]
//! name = "go"
//! command = "gopls"                  # a name on PATH, or a path (relative: to this file)
//! args = []
//! extensions = ["go"]
//! ```
//!
//! A command is a program ptc runs: an untrusted workspace `ptc.toml` cannot set one (its
//! `[[lsp]]` entries are ignored, with a notice; see [`super::trust`]).

use std::path::Path;

use ptc_packs::builtin::LspServerConfig;

/// Validate `[[lsp]]` entries: a unique name, a command, at least one extension. A command
/// with a `/` is taken relative to the file's folder `dir`.
pub(super) fn servers(
    raw: Vec<toml::Spanned<LspServerConfig>>,
    text: &str,
    dir: Option<&Path>,
) -> Result<Vec<LspServerConfig>, (usize, String)> {
    let mut servers: Vec<LspServerConfig> = Vec::with_capacity(raw.len());
    for entry in raw {
        let line = super::line_of(text, entry.span().start);
        let mut server = entry.into_inner();
        let problem = if server.name.trim().is_empty() {
            Some("`name` is empty".to_string())
        } else if server.command.trim().is_empty() {
            Some(format!("`{}` has an empty `command`", server.name))
        } else if server.extensions.iter().all(|e| e.trim().is_empty()) {
            Some(format!(
                "`{}` lists no `extensions` (e.g. [\"go\"])",
                server.name
            ))
        } else if servers.iter().any(|s| s.name == server.name) {
            Some(format!("two servers are named `{}`", server.name))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err((line, format!("lsp: {problem}")));
        }
        if let (true, Some(dir)) = (server.command.contains('/'), dir) {
            server.command = dir.join(&server.command).display().to_string();
        }
        servers.push(server);
    }
    Ok(servers)
}
