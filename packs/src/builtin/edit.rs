//! `edit`: replace literal text in an existing UTF-8 text file (`diff` card).
//!
//! In a file whose lines end in CRLF, the `\n` of `old_string` and `new_string` mean CRLF, so
//! an edit cannot change line endings: one that would leave the file as it was (`"\r\n"` →
//! `"\n"`) is refused, naming bash for that, never reported as replacements that changed
//! nothing.
//! `old_string` must occur exactly once unless `replace_all` is set; the error for zero
//! or several matches says which, so the caller can add context. Binary and non-UTF-8
//! files are refused rather than rewritten lossily. Files over [`MAX_FILE_BYTES`], and edits
//! whose result would pass it (`replace_all` of a short string with a long one), are refused
//! before anything is read or built. The file is opened race-free ([`Workspace::open`]) and
//! rewritten in place through that descriptor.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::beneath::Access;
use super::diff::{self, Hunk};
use super::shared::{self, arg_str, blocking, invalid_args, location};
use super::text_encoding;
use super::workspace::Workspace;
use ptc::presentation::{FileDiff, ToolCallView, ToolResultView};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::{codes, ToolError, ToolErrorInfo};

/// The largest file edit changes, and the largest result it writes (apparent sizes: a sparse
/// file counts whole); the file and its result are held in memory.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Deserialize)]
struct Args {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

#[derive(Serialize)]
struct Output {
    path: String,
    replacements: u64,
    hunks: Vec<Hunk>,
    /// The file's encoding when it is not UTF-8 (edited and written in it).
    #[serde(skip)]
    encoding: Option<&'static str>,
}

/// The `edit` tool.
pub(crate) fn tool(ws: Arc<Workspace>) -> ToolDefinition {
    ToolDefinition::builder("edit")
        .path_arguments(ws.path_arguments(&[("file_path", None)]))
        .description(
            "Edit an existing text file by replacing literal text (one in an 8-bit encoding \
             stays in it). In a file whose lines end in CRLF, `\\n` means CRLF (edit keeps line \
             endings).",
        )
        .parameters(
            ParameterSpec::new()
                .required(
                    "file_path",
                    ValueSpec::string()
                        .describe("Path of the file, resolved by the filesystem backend."),
                )
                .required(
                    "old_string",
                    ValueSpec::string().describe("Literal text to replace. Must match exactly."),
                )
                .required(
                    "new_string",
                    ValueSpec::string().describe(
                        "Literal replacement text. Use an empty string to delete the match.",
                    ),
                )
                .optional(
                    "replace_all",
                    ValueSpec::boolean().describe(
                        "Replace all matches. Defaults to false; when false, old_string must \
                         appear exactly once.",
                    ),
                ),
        )
        .output(
            ValueSpec::object(false)
                .required_property("path", ValueSpec::string())
                .required_property("replacements", ValueSpec::integer())
                .required_property("hunks", diff::hunks_spec()),
        )
        .concurrency_safe(false)
        .execute(move |args: Args, ctx| {
            let ws = ws.clone();
            async move {
                let out = blocking(move || edit(&ws, args)).await?;
                if let Some(encoding) = out.encoding {
                    ctx.note(format!(
                        "`{}` is {encoding} text, not UTF-8: edited and written in {encoding}",
                        out.path
                    ));
                }
                Ok(out)
            }
        })
        .render(|_, value| {
            let n = value["replacements"].as_u64().unwrap_or(0);
            let path = value["path"].as_str().unwrap_or_default();
            let noun = if n == 1 { "occurrence" } else { "occurrences" };
            let mut text = format!("Edited `{path}`: replaced {n} {noun}.");
            if let Some(first) = value["hunks"].get(0) {
                text.push_str(&format!(" First change at line {}.", first["line"]));
            }
            vec![ContentBlock::text(text)]
        })
        .presentation_meta(|_, value| Some(json!({"path": value["path"], "hunks": value["hunks"]})))
        .present_call(|args| {
            let path = arg_str(args, "file_path")?;
            Some(ToolCallView::Diff {
                title: format!("Edit {path}"),
                diffs: vec![FileDiff {
                    path: path.to_string(),
                    old_text: Some(arg_str(args, "old_string").unwrap_or_default().to_string()),
                    new_text: arg_str(args, "new_string").unwrap_or_default().to_string(),
                }],
                locations: location(path, None),
            })
        })
        .present_result(|_, result| {
            let meta = shared::ok_meta(result)?;
            let path = meta["path"].as_str()?;
            let hunks: Vec<Hunk> = serde_json::from_value(meta["hunks"].clone()).ok()?;
            Some(ToolResultView::Diff {
                title: Some(format!("Edit {path}")),
                diffs: hunks.iter().map(|h| h.file_diff(path)).collect(),
            })
        })
        .build()
        .expect("the edit definition is valid")
}

fn edit(ws: &Workspace, args: Args) -> Result<Output, ToolError> {
    if args.old_string.is_empty() {
        return Err(invalid_args(
            "`old_string` is empty; pass the literal text to replace (use write to create a file)",
        ));
    }
    if args.old_string == args.new_string {
        return Err(invalid_args(
            "`old_string` and `new_string` are the same; the edit would change nothing",
        ));
    }
    let target = ws.resolve(&args.file_path, "file_path")?;
    ws.check_writable(&target)?;
    if !target.exists {
        return Err(ToolError::new(format!(
            "File not found: `{}` does not exist in the workspace. Use write to create a file.",
            args.file_path
        )));
    }
    // Only for the message (opening a directory for writing fails anyway).
    if target.path.is_dir() {
        return Err(ToolError::new(format!(
            "`{}` is not a regular file; edit only changes text files.",
            target.display
        )));
    }
    let opened = ws.open(target, &args.file_path, "file_path", Access::ReadWrite)?;
    let (file, meta, target) = (opened.file, opened.meta, opened.target);
    let shown = &target.display;
    if !meta.is_file() {
        return Err(ToolError::new(format!(
            "`{shown}` is not a regular file; edit only changes text files."
        )));
    }
    let hint = "Change it with bash (sed, a script) instead.";
    shared::check_size(meta.len(), MAX_FILE_BYTES, shown, "edit", hint)?;
    let bytes = read_all(&file, meta.len())
        .map_err(|e| ToolError::new(format!("cannot read `{shown}`: {e}")))?;
    shared::check_size(bytes.len() as u64, MAX_FILE_BYTES, shown, "edit", hint)?;
    let probe = &bytes[..bytes.len().min(shared::BINARY_PROBE)];
    if shared::looks_binary(probe) {
        return Err(ToolError::new(text_encoding::refusal(shown, probe, "edit")));
    }
    // Text in an 8-bit encoding is edited in it, when it reads and writes back byte for byte.
    let (old, encoding) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => match text_encoding::round_trip(e.as_bytes()) {
            Some((text, encoding)) => (text, Some(encoding)),
            None => {
                return Err(ToolError::new(format!(
                    "`{shown}` is not valid UTF-8 (invalid byte at offset {}); edit refuses to \
                     rewrite it: {}.",
                    e.utf8_error().valid_up_to(),
                    text_encoding::not_utf8_advice(e.as_bytes(), shown)
                )))
            }
        },
    };
    let mut args = args;
    let endings = super::file_form::Endings::of(&old);
    if endings.all_crlf() {
        (args.old_string, args.new_string) = crlf(args.old_string, args.new_string);
        // `"\r\n"` → `"\n"`: the `\n` written as CRLF again, so nothing would change.
        if args.old_string == args.new_string {
            return Err(invalid_args(format!(
                "`{shown}` has CRLF line endings, and edit writes each `\\n` of `new_string` \
                 there as `\\r\\n`, so this edit would leave the file unchanged; nothing was \
                 changed. Edit cannot change line endings: use bash (`sed -i 's/\\r$//' FILE` \
                 for LF endings)."
            )));
        }
    }
    let count = old.match_indices(&args.old_string).count();
    match count {
        0 => {
            let endings = if endings.mixed() && args.old_string.contains('\n') {
                format!(
                    " Its lines end in CRLF ({}) and LF ({}), which read does not show: \
                     write `\\r\\n` where a line ends in CRLF.",
                    endings.crlf, endings.lf
                )
            } else {
                String::new()
            };
            return Err(ToolError::new(format!(
                "`old_string` was not found in `{shown}`. It must match the file exactly, \
                 including whitespace and indentation; read the file to copy the text.{endings}"
            )));
        }
        1 => {}
        n if !args.replace_all => {
            return Err(ToolError::new(format!(
                "`old_string` occurs {n} times in `{shown}`. Add surrounding context to make it \
                 unique, or set replace_all: true to replace every occurrence."
            )))
        }
        _ => {}
    }
    // The result's size, known before anything is built.
    let new_len = old.len() as u128 - count as u128 * args.old_string.len() as u128
        + count as u128 * args.new_string.len() as u128;
    if new_len > MAX_FILE_BYTES as u128 {
        return Err(ToolError::new(format!(
            "replacing the {count} occurrences would make `{shown}` {} ({new_len} bytes); edit \
             writes files up to {}. {hint}",
            shared::size(new_len.min(u64::MAX as u128) as u64),
            shared::size(MAX_FILE_BYTES)
        ))
        .with_info(ToolErrorInfo::new("FileTooLargeError", codes::TOOL_ERROR)));
    }
    let matches = old
        .match_indices(&args.old_string)
        .map(|(i, m)| (i, i + m.len()));
    let (new, hunks) = diff::apply_edits(&old, matches, &args.new_string, new_len as usize)
        .map_err(|e| ToolError::new(format!("cannot edit `{shown}`: {e}")))?;
    drop(old);
    let bytes = match encoding {
        None => new.into_bytes(),
        Some(encoding) => text_encoding::encode(&new, encoding).map_err(|lost| {
            ToolError::new(format!(
                "`{shown}` is {} text, which cannot hold {lost:?} of `new_string`; nothing was \
                 changed. Convert the file to UTF-8 first (bash: {}), or write the text without \
                 them.",
                encoding.name(),
                text_encoding::conversion(encoding, shown)
            ))
        })?,
    };
    rewrite(&file, &bytes).map_err(|e| ToolError::new(format!("cannot write `{shown}`: {e}")))?;
    Ok(Output {
        path: target.display,
        replacements: count as u64,
        hunks,
        encoding: encoding.map(|e| e.name()),
    })
}

/// `old_string` and `new_string` with the CRLF line endings of the file they edit: read shows
/// lines without their endings, so a model writes `\n`; matching and inserting it as `\r\n`
/// keeps the file's line endings whole. Text that has a `\r` already is taken as written.
fn crlf(old_string: String, new_string: String) -> (String, String) {
    let to_crlf = |text: String| match text.contains('\r') || !text.contains('\n') {
        true => text,
        false => text.replace('\n', "\r\n"),
    };
    (to_crlf(old_string), to_crlf(new_string))
}

/// The whole of `file` (`len` bytes when it was opened; it may have changed since), read into
/// memory reserved up front, never more than one byte past [`MAX_FILE_BYTES`].
fn read_all(file: &File, len: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(len as usize)
        .map_err(std::io::Error::other)?;
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Replace the content of `file` with `new`, in place (same inode, same permissions).
fn rewrite(file: &File, new: &[u8]) -> std::io::Result<()> {
    file.write_all_at(new, 0)?;
    file.set_len(new.len() as u64)
}
