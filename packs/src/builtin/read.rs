//! `read`: a line-numbered window of a UTF-8 text file (`read` card).
//!
//! The file is streamed: lines before the window are skipped, lines after it are only
//! counted, so a window of a 200,000-line file costs one pass and no more memory than
//! the window. Binary files (a NUL byte in the first 8 KiB) and files over
//! [`MAX_FILE_BYTES`] are refused. Text in another encoding (a UTF-16 byte order mark, or
//! bytes in the first 8 KiB that are not UTF-8: [`text_encoding`]) is shown decoded, with a
//! note naming the encoding; bytes that are not UTF-8 past that are shown as U+FFFD. The file is
//! opened race-free ([`Workspace::open`]); a `.env` file is read with a note that it may hold
//! secrets. A UTF-8 byte order mark is not text: line 1 is shown without it, with a note
//! (`write` keeps it in the file).
//!
//! In a program (a `run_code` sub-call) the window is the whole file up to
//! [`PROGRAM_MAX_BYTES`] with no line cut; a read cut by that cap says so
//! (`ToolRunContext::cut_short`), and what it read (the lines, the sha256 of the file's bytes)
//! is recorded for `write`'s check.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::Arc;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::beneath::Access;
use super::data_caps::{thousands, PROGRAM_MAX_BYTES};
use super::file_form::{self, Endings};
use super::partial_reads::{Digest, Hashing, ReadLog};
use super::shared::{self, arg_str, blocking, location, whole_number};
use super::text_encoding::{self, Decoded, TextEncoding};
use super::workspace::Workspace;
use ptc::presentation::{ReadFileLine, ToolCallKind, ToolCallView, ToolResultView};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

/// A UTF-8 byte order mark's bytes.
const BOM_BYTES: &[u8] = b"\xEF\xBB\xBF";

/// Lines returned when `limit` is absent.
pub const DEFAULT_LIMIT: u64 = 2000;
/// Characters kept of one line.
pub const MAX_LINE_CHARS: usize = 2000;
/// Bytes of one line held in memory (enough for [`MAX_LINE_CHARS`] characters of any width);
/// the rest of a longer line is read past, not stored.
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4 + 4;
/// Bytes of line text one window returns at most; the window ends early past it.
pub const MAX_WINDOW_BYTES: usize = 256 * 1024;
/// The largest file read reads (its apparent size: a sparse file counts whole), so one call
/// never streams through more.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024 * 1024;

#[derive(Deserialize)]
struct Args {
    file_path: String,
    offset: Option<f64>,
    limit: Option<f64>,
}

/// The structured value of a `read` call.
#[derive(Debug, Serialize)]
struct Output {
    #[serde(skip)]
    full_path: std::path::PathBuf,
    path: String,
    offset: u64,
    lines: Vec<ReadFileLine>,
    total_lines: u64,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The caps of one call: the context caps natively, the data caps in a program.
struct Caps {
    default_limit: u64,
    window_bytes: usize,
    line_bytes: usize,
    line_chars: usize,
    /// Lines whole or not at all (in a program, where a line is data): a line past
    /// `line_bytes` ends the window before it, or fails a read that would start with it.
    whole_lines: bool,
}

impl Caps {
    fn of(in_program: bool) -> Self {
        match in_program {
            false => Caps {
                default_limit: DEFAULT_LIMIT,
                window_bytes: MAX_WINDOW_BYTES,
                line_bytes: MAX_LINE_BYTES,
                line_chars: MAX_LINE_CHARS,
                whole_lines: false,
            },
            true => Caps {
                default_limit: u64::MAX,
                window_bytes: PROGRAM_MAX_BYTES,
                line_bytes: PROGRAM_MAX_BYTES,
                line_chars: usize::MAX,
                whole_lines: true,
            },
        }
    }
}

/// What a read in a program saw, for [`ReadLog`] and its cut-short note.
struct Seen {
    /// The last line read whole (a line cut by the cap is not).
    last_whole: u64,
    /// The window ended at the byte cap (not at `limit` or the end of the file).
    capped: bool,
    /// The first line shown that was not valid UTF-8.
    not_utf8: Option<u64>,
    /// Line 1 was shown without the byte order mark it began with.
    bom: bool,
    /// The lines shown ended in CRLF and in LF.
    mixed: Option<Endings>,
    /// Carriage returns inside the lines shown (not ending one).
    lone_cr: usize,
    /// The file was decoded from this encoding.
    decoded: Option<&'static encoding_rs::Encoding>,
    /// The sha256 of the file's bytes (in a program).
    digest: Option<Digest>,
}

/// The `read` tool; in a program it records what it read in `log`.
pub(crate) fn tool(ws: Arc<Workspace>, log: Arc<ReadLog>) -> ToolDefinition {
    ToolDefinition::builder("read")
        .path_arguments(ws.path_arguments(&[("file_path", None)]))
        .description("Read a text file and return line-numbered content.")
        .code_description(format!(
            "Read a text file (≤ {} MiB per call); if `truncated`, go on from \
             `next_offset`.",
            PROGRAM_MAX_BYTES / 1024 / 1024
        ))
        .parameters(
            ParameterSpec::new()
                .required(
                    "file_path",
                    ValueSpec::string()
                        .describe("Path of the file, resolved by the filesystem backend."),
                )
                .optional(
                    "offset",
                    ValueSpec::number().describe("1-based first line to return. Defaults to 1."),
                )
                .optional(
                    "limit",
                    ValueSpec::number().describe(
                        "Maximum number of lines to return (default 2000; all in run_code).",
                    ),
                ),
        )
        .output(output_spec())
        .concurrency_safe(true)
        .execute(move |args: Args, ctx| {
            let (ws, log) = (ws.clone(), log.clone());
            let signal = ctx.signal().clone();
            let in_program = ctx.in_program();
            async move {
                let (out, seen) =
                    blocking(move || read(&ws, args, &signal, Caps::of(in_program), in_program))
                        .await?;
                if in_program {
                    note_program_read(&ctx, &log, &out, &seen);
                }
                Ok(out)
            }
        })
        .render(|_, value| vec![ContentBlock::text(render(value))])
        .presentation_meta(|_, value| {
            let path = value["path"].as_str().unwrap_or_default();
            Some(json!({
                "path": path,
                "offset": value["offset"],
                "totalLines": value["total_lines"],
                "lang": shared::lang_hint(path),
            }))
        })
        .present_call(|args| {
            let path = arg_str(args, "file_path")?;
            let offset = args.get("offset").and_then(Value::as_u64);
            Some(ToolCallView::Generic {
                title: format!("Read {path}"),
                kind: Some(ToolCallKind::Read),
                raw_input: None,
                content: None,
                locations: location(path, offset.or(Some(1))),
            })
        })
        .present_result(|_, result| {
            let meta = shared::ok_meta(result)?;
            let path = meta["path"].as_str()?.to_string();
            Some(ToolResultView::Read {
                title: Some(format!("Read {path}")),
                offset: meta["offset"].as_u64().unwrap_or(1),
                lines: parse_numbered(&shared::result_text(result)),
                total_lines: meta["totalLines"].as_u64().unwrap_or(0),
                lang: meta["lang"].as_str().map(str::to_string),
                content: None,
                path,
            })
        })
        .build()
        .expect("the read definition is valid")
}

fn output_spec() -> ValueSpec {
    ValueSpec::object(false)
        .required_property("path", ValueSpec::string())
        .required_property("offset", ValueSpec::integer())
        .required_property(
            "lines",
            ValueSpec::array(
                ValueSpec::object(false)
                    .required_property("number", ValueSpec::integer())
                    .required_property("text", ValueSpec::string()),
            )
            .describe("`text` without its line ending."),
        )
        .required_property("total_lines", ValueSpec::integer())
        .required_property("truncated", ValueSpec::boolean())
        .property("next_offset", ValueSpec::integer())
        .property("note", ValueSpec::string())
}

/// In a program: record what was read in `log`, and say when the byte cap cut the file
/// short (a `limit` the program asked for is not a cut).
fn note_program_read(ctx: &ptc::ToolRunContext, log: &ReadLog, out: &Output, seen: &Seen) {
    let first = out.lines.first().map_or(out.offset, |l| l.number);
    if let Some(digest) = seen.digest {
        log.record(
            ctx.execution().root_call_id(),
            &out.full_path,
            (first, seen.last_whole, out.total_lines),
            digest,
        );
    }
    if out.lines.is_empty() {
        if out.offset > out.total_lines.max(1) {
            ctx.note(format!(
                "offset {} is past the end ({} lines)",
                thousands(out.offset),
                thousands(out.total_lines)
            ));
        }
        return;
    }
    let mut said = Vec::new();
    if seen.capped && seen.last_whole < out.total_lines {
        let last = out.lines.last().map_or(first, |l| l.number);
        said.push(format!(
            "lines {}-{} of {} ({} MiB per read; read on with offset={})",
            thousands(first),
            thousands(last),
            thousands(out.total_lines),
            PROGRAM_MAX_BYTES / 1024 / 1024,
            seen.last_whole + 1
        ));
    }
    if !said.is_empty() {
        ctx.cut_short(said.join("; "));
    }
    let mut notes = Vec::new();
    if let Some(encoding) = seen.decoded {
        notes.push(decoded_note(encoding, &out.path));
    }
    if let Some(line) = seen.not_utf8 {
        notes.push(format!(
            "not valid UTF-8 from line {line} (those bytes read as \u{FFFD}; write refuses the file)"
        ));
    }
    if seen.bom {
        notes.push(file_form::bom_note(&out.path));
    }
    if let Some(counts) = seen.mixed {
        notes.push(file_form::mixed_note(&out.path, counts));
    }
    if seen.lone_cr > 0 {
        notes.push(file_form::lone_cr_note(&out.path, seen.lone_cr));
    }
    if !notes.is_empty() {
        ctx.note(notes.join("; "));
    }
}

/// Read the window `args` asks for within `caps`; `hash`: the sha256 of the file's bytes too.
fn read(
    ws: &Workspace,
    args: Args,
    signal: &CancellationToken,
    caps: Caps,
    hash: bool,
) -> Result<(Output, Seen), ToolError> {
    let cancelled = || ToolError::new("read was cancelled");
    let offset = whole_number(args.offset, "offset", 1, 1)?;
    let limit = whole_number(args.limit, "limit", caps.default_limit, 1)?;
    let target = ws.resolve(&args.file_path, "file_path")?;
    if !target.exists {
        let guess = shared::case_sibling(ws, &target.path)
            .map(|said| format!(" {said}"))
            .unwrap_or_default();
        return Err(ToolError::new(format!(
            "File not found: `{}` does not exist in the workspace.{guess} Use glob to find files.",
            args.file_path
        )));
    }
    let opened = ws.open(target, &args.file_path, "file_path", Access::Read)?;
    let (mut file, meta, target) = (opened.file, opened.meta, opened.target);
    let shown = &target.display;
    if meta.is_dir() {
        return Err(ToolError::new(format!(
            "`{shown}` is a directory, not a file. Use glob to list its files."
        )));
    }
    if !meta.is_file() {
        return Err(ToolError::new(format!(
            "`{shown}` is not a regular file (a device, socket or pipe); read only reads files."
        )));
    }
    shared::check_size(
        meta.len(),
        MAX_FILE_BYTES,
        shown,
        "read",
        "Read parts of it with bash (head, tail, sed -n).",
    )?;
    let mut probe = Vec::with_capacity(shared::BINARY_PROBE);
    (&mut file)
        .take(shared::BINARY_PROBE as u64)
        .read_to_end(&mut probe)?;
    let whole = (probe.len() as u64) < shared::BINARY_PROBE as u64;
    let decoded = match text_encoding::of(&probe, whole) {
        TextEncoding::Binary => {
            return Err(ToolError::new(text_encoding::refusal(
                shown, &probe, "read",
            )))
        }
        TextEncoding::Utf8 => None,
        TextEncoding::Other(encoding) => Some(encoding),
    };
    file.seek(SeekFrom::Start(0))?;
    let mut reader =
        BufReader::with_capacity(64 * 1024, Decoded::new(Hashing::new(file, hash), decoded));
    let mut lines = Vec::new();
    let mut number = 0u64;
    let mut bytes = 0usize;
    let mut window_full = false;
    let mut line_cut = false;
    let mut buf = Vec::new();
    // The first line shown that was not valid UTF-8.
    let mut not_utf8 = None;
    // Line 1 began with a UTF-8 byte order mark (not in its text).
    let mut bom = false;
    // How the lines shown ended, and the carriage returns inside them.
    let mut endings = Endings::default();
    let mut lone_cr = 0;
    // A line too long to return whole ended the window before it (in a program).
    let mut held_back = false;
    let last_wanted = offset.saturating_add(limit - 1);
    // Lines up to the end of the window, one by one.
    while number < last_wanted && !window_full {
        if signal.is_cancelled() {
            return Err(cancelled());
        }
        buf.clear();
        let Some(dropped) = shared::read_line_capped(&mut reader, &mut buf, caps.line_bytes)?
        else {
            break;
        };
        number += 1;
        if number >= offset && dropped > 0 && caps.whole_lines {
            if lines.is_empty() {
                let chars = String::from_utf8_lossy(shared::strip_eol(&buf))
                    .chars()
                    .count();
                return Err(ToolError::new(format!(
                    "line {} of `{}` has {} characters, more than the {} MiB a read returns \
                     of one line: a program gets lines whole or not at all, so process this \
                     file with bash (python, jq, awk) or search it with grep",
                    thousands(number),
                    target.display,
                    thousands((chars + dropped) as u64),
                    PROGRAM_MAX_BYTES / 1024 / 1024
                )));
            }
            held_back = true;
            break;
        }
        if number >= offset {
            if buf.ends_with(b"\r\n") {
                endings.crlf += 1;
            } else if buf.ends_with(b"\n") {
                endings.lf += 1;
            }
            let mut line = shared::strip_eol(&buf);
            lone_cr += line.iter().filter(|&&b| b == b'\r').count();
            if number == 1 {
                if let Some(rest) = line.strip_prefix(BOM_BYTES) {
                    (line, bom) = (rest, true);
                }
            }
            let text = String::from_utf8_lossy(line);
            if matches!(text, std::borrow::Cow::Owned(_)) {
                not_utf8.get_or_insert(number);
            }
            let text = shared::cap_line(&text, caps.line_chars, dropped);
            line_cut = dropped > 0;
            bytes += text.len();
            lines.push(ReadFileLine { number, text });
            window_full = bytes >= caps.window_bytes;
        }
    }
    let window_end = number - u64::from(held_back);
    // The rest is only counted.
    let (mut rest_newlines, mut rest_last) = (0u64, None);
    loop {
        if signal.is_cancelled() {
            return Err(cancelled());
        }
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        rest_newlines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        rest_last = chunk.last().copied();
        let n = chunk.len();
        reader.consume(n);
    }
    let unterminated = rest_last.is_some_and(|b| b != b'\n');
    let total_lines = number + rest_newlines + u64::from(unterminated);
    let truncated = total_lines > window_end && !lines.is_empty();
    let mixed = endings.mixed().then_some(endings);
    let seen = Seen {
        last_whole: window_end - u64::from(line_cut),
        capped: window_full || held_back,
        not_utf8,
        bom,
        mixed,
        lone_cr,
        decoded,
        digest: reader.into_inner().into_inner().finish(),
    };
    let out = Output {
        note: notes(
            shared::secrets_note(&target.path),
            decoded.map(|encoding| decoded_note(encoding, &target.display)),
            not_utf8,
            bom.then(|| file_form::bom_note(&target.display)),
            mixed.map(|counts| file_form::mixed_note(&target.display, counts)),
            (lone_cr > 0).then(|| file_form::lone_cr_note(&target.display, lone_cr)),
        ),
        full_path: target.path,
        path: target.display,
        offset,
        next_offset: truncated.then_some(window_end + 1),
        lines,
        total_lines,
        truncated,
    };
    Ok((out, seen))
}

/// The note on a file read decoded from `encoding`.
fn decoded_note(encoding: &'static encoding_rs::Encoding, shown: &str) -> String {
    let utf16 = encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE;
    let refused = match utf16 {
        true => "write and edit refuse it",
        false => "edit changes it in that encoding, write refuses it",
    };
    format!(
        "decoded from {}: the file is not UTF-8, and {refused} until it is converted (bash: {})",
        encoding.name(),
        text_encoding::conversion(encoding, shown)
    )
}

/// The secrets note, one for a file read `decoded` from another encoding, one for lines that
/// were not valid UTF-8 (from line `not_utf8` on), the one for a byte order mark left out of
/// line 1 (`bom`), and one for mixed line endings.
fn notes(
    secrets: Option<String>,
    decoded: Option<String>,
    not_utf8: Option<u64>,
    bom: Option<String>,
    mixed: Option<String>,
    lone_cr: Option<String>,
) -> Option<String> {
    let encoding = not_utf8.map(|line| {
        format!(
            "not valid UTF-8 from line {line}: those bytes show as \u{FFFD}, and write and edit \
             refuse this file (convert it first, e.g. bash: iconv -f windows-1252 -t utf-8; \
             not latin1, which reads 0x80-0x9F as control characters)"
        )
    });
    let all: Vec<String> = [secrets, decoded, encoding, bom, mixed, lone_cr]
        .into_iter()
        .flatten()
        .collect();
    (!all.is_empty()).then(|| all.join("; "))
}

/// `     1\ttext` lines, then a note when the window is partial or empty.
fn render(value: &Value) -> String {
    let mut out = String::new();
    let lines = value["lines"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for line in lines {
        let n = line["number"].as_u64().unwrap_or(0);
        let text = line["text"].as_str().unwrap_or_default();
        out.push_str(&format!("{n:>6}\t{text}\n"));
    }
    let path = value["path"].as_str().unwrap_or_default();
    out.push_str(&shared::window_footer(
        value,
        &format!("`{path}`"),
        &format!("`{path}` is empty"),
        lines.is_empty(),
    ));
    out
}

/// The numbered lines of rendered read content (`     n\ttext`), for the read card.
fn parse_numbered(text: &str) -> Vec<ReadFileLine> {
    text.lines()
        .filter_map(|line| {
            let (n, rest) = line.split_once('\t')?;
            let number = n.trim_start().parse().ok()?;
            Some(ReadFileLine {
                number,
                text: rest.to_string(),
            })
        })
        .collect()
}
