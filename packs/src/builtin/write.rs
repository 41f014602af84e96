//! `write`: create or fully replace a UTF-8 text file (`diff` card).
//!
//! Missing parent directories are created once every check has passed (inside the root: the
//! confinement resolves the deepest existing ancestor first, and each directory is made
//! relative to the one before it, through no symlink); a refused write creates nothing. The
//! file is opened race-free ([`Workspace::open`]), checked (a regular file, not a protected
//! one) and only then truncated and written through that descriptor. The result card shows the
//! whole file for a new file, or the changed region with context when an existing text file is
//! replaced. A replaced file keeps its CRLF line endings, BOM and final newline or lack of one
//! (`file_form.rs`); in a program a `[note]` says what it kept that the content did not have.
//!
//! In a program, a write of a file the same run read only in part, or of one that changed
//! since the run last read or wrote it (an `edit`, a command), is refused before anything is
//! written (see `partial_reads.rs`). `edit` needs no such check: it changes the file on disk,
//! so it never drops what a read did not see nor undoes what changed since.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::beneath::Access;
use super::diff::{self, Hunk};
use super::file_form::{self, Kept};
use super::partial_reads::{self, ReadLog};
use super::shared::{self, arg_str, blocking, location};
use super::workspace::{Resolved, Workspace};
use ptc::presentation::{ToolCallView, ToolResultView};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

/// Bytes of an existing file read for the before-image of the diff card.
const MAX_BEFORE_IMAGE: u64 = 4 * 1024 * 1024;

#[derive(Deserialize)]
struct Args {
    file_path: String,
    content: String,
    /// Write the content as given, the file's old form notwithstanding.
    exact: Option<bool>,
}

#[derive(Serialize)]
struct Output {
    path: String,
    created: bool,
    bytes: u64,
    lines: u64,
    hunks: Vec<Hunk>,
    /// What the file kept of its form that the content did not have (said in a note).
    #[serde(skip)]
    kept: Kept,
}

/// The `write` tool; in a program it refuses files the run read only in part, or that changed
/// since it read or wrote them (`log`).
pub(crate) fn tool(ws: Arc<Workspace>, log: Arc<ReadLog>) -> ToolDefinition {
    ToolDefinition::builder("write")
        .path_arguments(ws.path_arguments(&[("file_path", None)]))
        .description(
            "Create or fully replace a UTF-8 text file. A replaced file keeps its CRLF line \
             endings, BOM, and final newline or lack of one, unless `exact`.",
        )
        .parameters(
            ParameterSpec::new()
                .required(
                    "file_path",
                    ValueSpec::string().describe("Path of the file, resolved by the filesystem backend."),
                )
                .required(
                    "content",
                    ValueSpec::string().describe("Full UTF-8 text content to write."),
                )
                .optional(
                    "exact",
                    ValueSpec::boolean().describe(
                        "Write content byte for byte (to change line endings, or drop a BOM).",
                    ),
                ),
        )
        .output(
            ValueSpec::object(false)
                .required_property("path", ValueSpec::string())
                .required_property("created", ValueSpec::boolean())
                .required_property("bytes", ValueSpec::integer())
                .required_property("lines", ValueSpec::integer())
                .required_property(
                    "hunks",
                    diff::hunks_spec(),
                ),
        )
        .concurrency_safe(false)
        // The same file_path and content again leave the same file: a durable run may repeat
        // a write its crash cut off.
        .idempotent(true)
        .execute(move |args: Args, ctx| {
            let (ws, log) = (ws.clone(), log.clone());
            let run = ctx
                .in_program()
                .then(|| ctx.execution().root_call_id().to_string());
            async move {
                let out =
                    blocking(move || write(&ws, args, run.as_deref().map(|r| (r, &*log)))).await?;
                if let Some(note) = out.kept.note(&out.path).filter(|_| ctx.in_program()) {
                    ctx.note(note);
                }
                Ok(out)
            }
        })
        .render(|_, value| {
            let verb = if value["created"] == true { "Created" } else { "Replaced" };
            vec![ContentBlock::text(format!(
                "{verb} `{}` ({} lines, {} bytes).",
                value["path"].as_str().unwrap_or_default(),
                value["lines"],
                value["bytes"]
            ))]
        })
        .presentation_meta(|_, value| {
            Some(json!({"path": value["path"], "created": value["created"], "hunks": value["hunks"]}))
        })
        .present_call(|args| {
            let path = arg_str(args, "file_path")?;
            Some(ToolCallView::Diff {
                title: format!("Write {path}"),
                diffs: vec![diff::created(path, arg_str(args, "content").unwrap_or_default())],
                locations: location(path, None),
            })
        })
        .present_result(|args, result| {
            let meta = shared::ok_meta(result)?;
            let path = meta["path"].as_str()?;
            let hunks: Vec<Hunk> = serde_json::from_value(meta["hunks"].clone()).ok()?;
            // A new file, or one without a before-image (too large, not UTF-8): whole file.
            let diffs = if hunks.is_empty() {
                vec![diff::created(path, arg_str(args, "content").unwrap_or_default())]
            } else {
                hunks.iter().map(|h| h.file_diff(path)).collect()
            };
            Some(ToolResultView::Diff {
                title: Some(format!("Write {path}")),
                diffs,
            })
        })
        .build()
        .expect("the write definition is valid")
}

/// What a program's object turned into text reads as.
const OBJECT_AS_TEXT: &str = "[object Object]";

/// Refuse content from a program that holds objects turned into text (`lines.join("\n")` of
/// read lines writes `[object Object]` for every line) unless the file held that text before:
/// the write would replace the file's text with it.
fn objects_as_text(content: &str, before: Option<&str>, shown: &str) -> Result<(), ToolError> {
    let times = content.matches(OBJECT_AS_TEXT).count();
    if times == 0 || before.is_some_and(|b| b.contains(OBJECT_AS_TEXT)) {
        return Ok(());
    }
    Err(ToolError::new(format!(
        "write refused: the content holds `{OBJECT_AS_TEXT}` {times} time(s), an object turned \
         into text (read's `lines` are objects: join their `.text`), so `{shown}` would lose \
         what it says; nothing was written"
    )))
}

/// In a program (`run`: its id and what runs read), refuse to write `content` over `target`
/// (open as `file`, holding `before`; neither for a new file) when the run read it only in part
/// or it changed since, or when the content holds objects turned into text.
fn check_program_write(
    run: Option<(&str, &ReadLog)>,
    target: &Resolved,
    file: Option<&File>,
    content: &str,
    before: Option<&str>,
) -> Result<(), ToolError> {
    let Some((run, log)) = run else {
        return Ok(());
    };
    let shown = &target.display;
    if log.knows(run, &target.path) {
        let now = file
            .map(partial_reads::digest_file)
            .transpose()
            .map_err(|e| ToolError::new(format!("cannot read `{shown}`: {e}")))?;
        log.check(run, &target.path, shown, now)
            .map_err(ToolError::new)?;
    }
    objects_as_text(content, before, shown)
}

/// Write `args`; in a program (`run`: its id and what runs read), refuse a file the run read
/// only in part or that changed since, and content with objects turned into text.
fn write(ws: &Workspace, args: Args, run: Option<(&str, &ReadLog)>) -> Result<Output, ToolError> {
    let target = ws.resolve(&args.file_path, "file_path")?;
    ws.check_writable(&target)?;
    let created = !target.exists;
    // Only for the message (opening a directory for writing fails anyway).
    if target.exists && target.path.is_dir() {
        return Err(ToolError::new(format!(
            "`{}` is a directory; write needs a file path.",
            target.display
        )));
    }
    // A new file: every check before anything (the file, its folders) is created.
    if created {
        check_program_write(run, &target, None, &args.content, None)?;
    }
    let opened = ws.open(target, &args.file_path, "file_path", Access::Create)?;
    let (mut file, meta, target) = (opened.file, opened.meta, opened.target);
    let shown = &target.display;
    if meta.is_dir() {
        return Err(ToolError::new(format!(
            "`{shown}` is a directory; write needs a file path."
        )));
    }
    if !meta.is_file() {
        return Err(ToolError::new(format!(
            "`{shown}` is not a regular file; write only replaces regular files."
        )));
    }
    let mut before = None;
    if !created && meta.len() <= MAX_BEFORE_IMAGE {
        let mut bytes = Vec::new();
        if (&file)
            .take(MAX_BEFORE_IMAGE)
            .read_to_end(&mut bytes)
            .is_ok()
        {
            // Text read from it showed U+FFFD for its other bytes: writing it back loses them.
            let text = String::from_utf8(bytes).map_err(|e| {
                ToolError::new(format!(
                    "`{shown}` is not valid UTF-8 (invalid byte at offset {}); write refuses to \
                     replace it, as text read from it lost those bytes: {}; or remove it to \
                     write a new file.",
                    e.utf8_error().valid_up_to(),
                    super::text_encoding::not_utf8_advice(e.as_bytes(), shown)
                ))
            })?;
            before = Some(text);
        }
    }
    if !created {
        check_program_write(run, &target, Some(&file), &args.content, before.as_deref())?;
    }
    // Content built from read's lines (no line endings, no BOM) keeps the file's form.
    let mut args = args;
    let kept = match before.as_deref() {
        Some(old) if args.exact != Some(true) => file_form::keep(old, &mut args.content),
        _ => Kept::default(),
    };
    // Written over the old bytes, then cut to length: a file truncated to nothing and written
    // again makes ext4 start writing it back as it closes (its `auto_da_alloc`), and the next
    // write of it waits for that to finish (a rewrite took 150 us in `ftruncate` alone).
    file.write_all_at(args.content.as_bytes(), 0)
        .and_then(|()| file.set_len(args.content.len() as u64))
        .and_then(|()| file.flush())
        .map_err(|e| ToolError::new(format!("cannot write `{shown}`: {e}")))?;
    if let Some((run, log)) = run {
        log.wrote(
            run,
            &target.path,
            partial_reads::digest_of(args.content.as_bytes()),
        );
    }
    let hunks = match &before {
        Some(old) => diff::replaced(old, &args.content),
        None => Vec::new(),
    };
    Ok(Output {
        path: target.display,
        created,
        bytes: args.content.len() as u64,
        lines: shared::count_lines(&args.content),
        hunks,
        kept,
    })
}
