//! `glob`: file paths matching a glob, newest first (`search` card, `shape: paths`).
//!
//! Built on ripgrep's `ignore` walker with the pattern as an override glob, so the
//! pattern means what it means to `rg --files --glob PATTERN`: a pattern without `/`
//! matches a file name at any depth, one with `/` is anchored at the searched
//! directory, `**` crosses directories. Hidden and ignored files are included; VCS
//! metadata directories are not; symlinks are not followed, and each file found is looked
//! at race-free ([`Workspace::open_found`]), so nothing outside the root is listed. The deny
//! paths are pruned (and counted); the walk stops at [`super::walk::MAX_DEPTH`] levels.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use ignore::{WalkBuilder, WalkState};
use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::beneath::Access;
use super::data_caps::{entries_note, PROGRAM_MAX_ENTRIES};
use super::path_glob::{literal_folder, no_match_note, path_glob};
use super::shared::{self, arg_str, blocking, invalid_args, PolicyFilter};
use super::walk::{self, WalkLimits};
use super::workspace::Workspace;
use ptc::presentation::SearchShape;
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

/// Paths returned inline.
pub const MAX_PATHS: usize = 100;
/// Directory names never descended into.
pub const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj", ".bzr"];

/// Whether a walk's `entry` is a VCS metadata directory ([`VCS_DIRS`]), which no search enters.
pub(crate) fn is_vcs_dir(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_dir())
        && VCS_DIRS.iter().any(|v| entry.file_name() == *v)
}

/// In a program, say what the cap and the walk cut: paths past the cap, entries the sandbox
/// denied, directories too deep.
fn note_program_cuts(ctx: &ptc::ToolRunContext, out: &Output) {
    let mut notes = Vec::new();
    if out.truncated {
        let kept = out.paths.len() as u64;
        let what = "pattern or path";
        notes.push(entries_note("paths", out.offset, kept, out.total, what));
    }
    notes.extend(out.left.cut_notes());
    if !notes.is_empty() {
        ctx.cut_short(notes.join("; "));
    }
}

#[derive(Deserialize)]
struct Args {
    pattern: String,
    path: Option<String>,
    offset: Option<f64>,
}

#[derive(Serialize)]
struct Output {
    paths: Vec<String>,
    total: u64,
    truncated: bool,
    #[serde(skip)]
    offset: u64,
    #[serde(skip_serializing_if = "shared::is_zero")]
    hidden: u64,
    /// What the walk left out.
    #[serde(flatten)]
    left: walk::LeftOut,
}

/// The `glob` tool.
pub(crate) fn tool(ws: Arc<Workspace>) -> ToolDefinition {
    let shown = ws.clone();
    let builder = ToolDefinition::builder("glob")
        .path_arguments(ws.path_arguments(&[("path", Some("."))]))
        .description(
            "Find files whose paths match a glob pattern. Returns matching paths sorted by \
             modification time, including hidden and ignored files (VCS metadata directories \
             are excluded). Returns the first 100 paths inline; a capped result reports the true \
             total, so narrow the pattern or path, or page with offset, to see the rest.",
        )
        .code_description(
            "Files matching a glob (\"*.ts\": any depth; \"src/*.ts\": directly in src), hidden \
             and ignored too, not VCS metadata; ≤ 10,000 a call.",
        )
        .parameters(
            ParameterSpec::new()
                .required(
                    "pattern",
                    ValueSpec::string().describe(
                        "Glob pattern to match file paths against (e.g. \"**/*.ts\", \
                         \"src/**/*.test.js\"); `*` stays within one folder.",
                    ),
                )
                .optional(
                    "path",
                    ValueSpec::string().describe(
                        "Where to search. Defaults to the session workspace; a relative path \
                         resolves against it.",
                    ),
                )
                .optional(
                    "offset",
                    ValueSpec::number().describe("Entries to skip, to page past a capped result."),
                ),
        )
        .output(walk::output_properties(
            ValueSpec::object(false)
                .required_property(
                    "paths",
                    ValueSpec::array(ValueSpec::string()).describe(
                        "Newest first; workspace-relative.",
                    ),
                )
                .required_property("total", ValueSpec::integer())
                .required_property("truncated", ValueSpec::boolean())
                .property("hidden", shared::hidden_spec()),
        ))
        .concurrency_safe(true)
        .execute(move |args: Args, ctx| {
            let ws = ws.clone();
            let signal = ctx.signal().clone();
            let filter = PolicyFilter::of(&ctx);
            let cap = match ctx.in_program() {
                true => PROGRAM_MAX_ENTRIES,
                false => MAX_PATHS,
            };
            async move {
                let asked = (args.pattern.clone(), args.path.clone());
                let searched = ws.clone();
                let out = blocking(move || glob(&searched, args, &signal, &filter, cap)).await?;
                if ctx.in_program() {
                    note_program_cuts(&ctx, &out);
                    let (pattern, path) = (&asked.0, asked.1.as_deref().unwrap_or("."));
                    // Not cuts: links (what they lead to can be searched), a pattern's slip.
                    let mut said: Vec<String> = out.left.links_note().into_iter().collect();
                    if out.total == 0 {
                        said.extend(no_match_note(&ws, pattern, path));
                    }
                    if !said.is_empty() {
                        ctx.note(said.join("; "));
                    }
                }
                Ok(out)
            }
        })
        .render(move |args, value| {
            let paths = value["paths"].as_array().map(Vec::as_slice).unwrap_or_default();
            let total = value["total"].as_u64().unwrap_or(0);
            let pattern = arg_str(args, "pattern").unwrap_or_default();
            let mut text = String::new();
            if paths.is_empty() {
                text.push_str(&format!("No files match `{pattern}`."));
                let path = arg_str(args, "path").unwrap_or(".");
                if let Some(hint) = no_match_note(&shown, pattern, path) {
                    text.push_str(&format!(" [{hint}]"));
                }
            }
            for p in paths {
                text.push_str(p.as_str().unwrap_or_default());
                text.push('\n');
            }
            if value["truncated"] == true {
                let offset = args["offset"].as_f64().map_or(0, |o| o as u64);
                let shown = match offset {
                    0 => format!("the {} newest", paths.len()),
                    _ => format!("{}-{}", offset + 1, offset + paths.len() as u64),
                };
                text.push_str(&format!(
                    "[showing {shown} of {total} matching files; narrow the pattern or path, or \
                     page with offset={}]\n",
                    offset + paths.len() as u64
                ));
            }
            text.push_str(&shared::hidden_note(value));
            text.push_str(&walk::notes(value));
            vec![ContentBlock::text(text)]
        })
        .presentation_meta(|_, value| {
            Some(json!({"total": value["total"], "truncated": value["truncated"], "paths": value["paths"]}))
        });
    shared::search_cards(builder, "Glob", SearchShape::Paths, "paths")
        .build()
        .expect("the glob definition is valid")
}

fn glob(
    ws: &Workspace,
    args: Args,
    signal: &CancellationToken,
    filter: &PolicyFilter,
    cap: usize,
) -> Result<Output, ToolError> {
    if args.pattern.is_empty() {
        return Err(invalid_args(
            "`pattern` is empty; pass a glob such as \"**/*.rs\"",
        ));
    }
    let offset = shared::whole_number(args.offset, "offset", 0, 0)?;
    let dir = ws.resolve(args.path.as_deref().unwrap_or("."), "path")?;
    if !dir.exists {
        return Err(ToolError::new(format!(
            "Directory not found: `{}` does not exist in the workspace.",
            args.path.as_deref().unwrap_or(".")
        )));
    }
    if !dir.path.is_dir() {
        return Err(ToolError::new(format!(
            "`{}` is a file, not a directory; glob searches directories.",
            dir.display
        )));
    }
    let overrides = path_glob(&dir.path, &args.pattern, "pattern")?;
    let found: Mutex<Vec<(SystemTime, PathBuf)>> = Mutex::new(Vec::new());
    let folder = literal_folder(&dir.path, &args.pattern).map(|f| dir.path.join(f));
    let limits = WalkLimits::new(ws).within(folder);
    let mut walk = WalkBuilder::new(&dir.path);
    limits.apply(&mut walk, |entry| !is_vcs_dir(entry));
    walk.standard_filters(false)
        .overrides(overrides)
        .threads(super::walk_threads())
        .build_parallel()
        .run(|| {
            let (found, limits) = (&found, &limits);
            Box::new(move |entry| {
                if signal.is_cancelled() {
                    return WalkState::Quit;
                }
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                limits.visit(&entry);
                if !entry.file_type().is_some_and(|t| t.is_file())
                    || filter.hides(&ws.display(entry.path()))
                {
                    return WalkState::Continue;
                }
                // Looked at race-free: a path that leads through a symlink swapped in since
                // the walk listed it is left out, so only what is inside the root is listed.
                if let Some((_, meta)) = ws.open_found(entry.path(), Access::Look) {
                    let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
                    found.push((mtime, entry.into_path()));
                }
                WalkState::Continue
            })
        });
    if signal.is_cancelled() {
        return Err(ToolError::new("glob was cancelled"));
    }
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    let total = found.len();
    let newest_first = |a: &(SystemTime, PathBuf), b: &(SystemTime, PathBuf)| {
        b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1))
    };
    let skip = usize::try_from(offset).unwrap_or(usize::MAX).min(total);
    let end = skip.saturating_add(cap);
    if total > end {
        found.select_nth_unstable_by(end, newest_first);
        found.truncate(end);
    }
    found.sort_unstable_by(newest_first);
    Ok(Output {
        paths: found[skip..].iter().map(|(_, p)| ws.display(p)).collect(),
        total: total as u64,
        truncated: total > end,
        offset,
        hidden: filter.hidden(),
        left: limits.left_out(ws),
    })
}
