//! Which language server answers for a file: the configured servers (`[[lsp]]` in
//! `ptc.toml`), then the defaults found on `PATH`, chosen by the file's extension.

use std::path::{Path, PathBuf};

/// One language server: how to start it and the file extensions it answers for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LspServerConfig {
    /// A name for messages (and the key of its running instance), e.g. `"typescript"`.
    pub name: String,
    /// The program to run (a path, or a name looked up on `PATH`).
    pub command: String,
    /// Its arguments (e.g. `["--stdio"]`).
    #[serde(default)]
    pub args: Vec<String>,
    /// File extensions without the dot (e.g. `["ts", "tsx"]`).
    pub extensions: Vec<String>,
}

/// A default server: its name, the programs tried in order, arguments, extensions.
struct Known {
    name: &'static str,
    programs: &'static [&'static str],
    args: &'static [&'static str],
    extensions: &'static [&'static str],
}

/// The defaults, used when found on `PATH`.
const DEFAULTS: &[Known] = &[
    Known {
        name: "typescript",
        programs: &["typescript-language-server"],
        args: &["--stdio"],
        extensions: &["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"],
    },
    Known {
        name: "python",
        programs: &["pyright-langserver", "basedpyright-langserver"],
        args: &["--stdio"],
        extensions: &["py", "pyi"],
    },
    Known {
        name: "rust",
        programs: &["rust-analyzer"],
        args: &[],
        extensions: &["rs"],
    },
];

/// The server for `path`: the first configured one listing its extension, else the default
/// for it whose program is on `PATH`. `Err` says what is missing.
pub(crate) fn server_for(
    configured: &[LspServerConfig],
    path: &Path,
) -> Result<LspServerConfig, String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if let Some(found) = configured.iter().find(|s| {
        s.extensions
            .iter()
            .any(|e| e.trim_start_matches('.') == ext)
    }) {
        return Ok(found.clone());
    }
    let Some(known) = DEFAULTS
        .iter()
        .find(|d| d.extensions.contains(&ext.as_str()))
    else {
        return Err(format!(
            "no language server for `.{ext}` files: read or grep them instead (the operator \
             can add one with [[lsp]] name, command, args, extensions in ptc.toml)"
        ));
    };
    let Some(command) = known.programs.iter().find_map(|p| on_path(p)) else {
        return Err(format!(
            "no {} language server: `{}` is not on PATH (install it, or set one with [[lsp]] \
             in ptc.toml)",
            known.name,
            known.programs.join("` or `")
        ));
    };
    Ok(LspServerConfig {
        name: known.name.to_string(),
        command: command.display().to_string(),
        args: known.args.iter().map(|a| a.to_string()).collect(),
        extensions: known.extensions.iter().map(|e| e.to_string()).collect(),
    })
}

/// `program` as found on `PATH` (an executable file).
pub(crate) fn on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

/// The LSP `languageId` of a file with extension `ext`.
pub(crate) fn language_id(ext: &str) -> &str {
    match ext {
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "py" | "pyi" => "python",
        "rs" => "rust",
        other => other,
    }
}

/// The `initializationOptions` a known server needs to answer precisely from the first
/// call: typescript-language-server's syntax-only server would otherwise answer while
/// the project loads (an import instead of the definition it names); and no automatic type
/// acquisition (npm downloads by a detached process).
pub(crate) fn initialization_options(config: &LspServerConfig) -> Option<serde_json::Value> {
    let program = Path::new(&config.command).file_name()?.to_str()?;
    (program == "typescript-language-server").then(|| {
        serde_json::json!({
            "tsserver": {"useSyntaxServer": "never"},
            "disableAutomaticTypingAcquisition": true,
        })
    })
}
