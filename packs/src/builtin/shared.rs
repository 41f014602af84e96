//! Small helpers the `builtin` tools share: running blocking work, argument checks,
//! text handling and the pieces of presentation every file tool uses.

use std::path::Path;

use serde_json::Value;

use ptc::presentation::{FileLocation, ToolResult};
use ptc::{codes, ToolError, ToolErrorInfo};

use super::workspace::Workspace;

/// Hides from a directory search the files a policy would deny: a file is hidden when the
/// registry's guards would deny the same call aimed at just that file (its `path` argument
/// replaced by the file's root-relative path).
pub(crate) struct PolicyFilter {
    guards: Option<ptc::CallGuards>,
    args: Value,
    hidden: std::sync::atomic::AtomicU64,
}

impl PolicyFilter {
    /// The filter of the call `ctx` runs.
    pub(crate) fn of(ctx: &ptc::ToolRunContext) -> Self {
        PolicyFilter {
            guards: ctx.guards(),
            args: Value::clone(ctx.execution().arguments()),
            hidden: Default::default(),
        }
    }

    /// Whether the file at root-relative `path` is hidden (and then counted).
    pub(crate) fn hides(&self, path: &str) -> bool {
        let hidden = self.denies(path);
        if hidden {
            self.hidden
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        hidden
    }

    /// Whether a policy denies the file at root-relative `path` (not counted).
    pub(crate) fn denies(&self, path: &str) -> bool {
        let Some(guards) = &self.guards else {
            return false;
        };
        let mut args = self.args.clone();
        if let Some(map) = args.as_object_mut() {
            map.insert("path".into(), Value::String(path.to_string()));
        }
        guards.denial(args).is_some()
    }

    /// How many files were hidden.
    pub(crate) fn hidden(&self) -> u64 {
        self.hidden.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The note a search result ends with when a policy hid files from it.
pub(crate) fn hidden_note(value: &Value) -> String {
    match value["hidden"].as_u64().filter(|&n| n > 0) {
        Some(n) => format!("[{n} file(s) not shown: a policy denies them]\n"),
        None => String::new(),
    }
}

/// `n` is zero (for `skip_serializing_if`).
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The optional `hidden` count of a search's output schema.
pub(crate) fn hidden_spec() -> ptc_schema::ValueSpec {
    ptc_schema::ValueSpec::integer().describe("Files a policy hid.")
}

/// Refuse a file of `len` bytes (its apparent size, from `fstat`: a sparse file counts whole)
/// past `cap`, before anything of it is read: the error names both and what to do (`hint`).
pub(crate) fn check_size(
    len: u64,
    cap: u64,
    shown: &str,
    tool: &str,
    hint: &str,
) -> Result<(), ToolError> {
    if len <= cap {
        return Ok(());
    }
    Err(ToolError::new(format!(
        "`{shown}` is too large: {} ({len} bytes); {tool} handles files up to {}. {hint}",
        size(len),
        size(cap)
    ))
    .with_info(ToolErrorInfo::new("FileTooLargeError", codes::TOOL_ERROR)))
}

/// `bytes` in the largest binary unit that keeps it at least 1 (`10.0 GiB`).
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `bytes` as a whole number of KiB, MiB or GiB (`1 MiB`) when it is one, else [`size`].
pub(crate) fn whole_size(bytes: u64) -> String {
    [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        .into_iter()
        .find(|(unit, _)| bytes >= *unit && bytes.is_multiple_of(*unit))
        .map_or_else(
            || size(bytes),
            |(unit, name)| format!("{} {name}", bytes / unit),
        )
}

/// A duration in milliseconds as a model reads it: `30 min`, `2 s`, else `1500 ms`.
pub(crate) fn millis(ms: u128) -> String {
    match ms {
        0 => "0 ms".to_string(),
        ms if ms.is_multiple_of(60_000) => format!("{} min", ms / 60_000),
        ms if ms.is_multiple_of(1_000) => format!("{} s", ms / 1_000),
        ms => format!("{ms} ms"),
    }
}

/// The note a file named `.env` or `.env.*` is read with: such files are not denied by
/// default (projects keep examples and harmless settings in them) but often hold secrets.
pub(crate) fn secrets_note(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    (name == ".env" || name.starts_with(".env.")).then(|| {
        "this is a `.env` file: it may hold secrets; do not repeat its values unless the task \
         needs them"
            .to_string()
    })
}

/// How many leading bytes decide whether a file is binary (a NUL byte among them).
pub(crate) const BINARY_PROBE: usize = 8192;

/// Run blocking file-system work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(ToolError::new(format!("the tool's worker failed: {e}"))))
}

/// An `INVALID_ARGS` error with `message`.
pub(crate) fn invalid_args(message: impl Into<String>) -> ToolError {
    ToolError::new(message).with_info(ToolErrorInfo::new("ToolArgsError", codes::INVALID_ARGS))
}

/// A whole number ≥ `min` from a `number` argument, `default` when absent.
pub(crate) fn whole_number(
    value: Option<f64>,
    name: &str,
    default: u64,
    min: u64,
) -> Result<u64, ToolError> {
    let Some(v) = value else { return Ok(default) };
    if !v.is_finite() || v.fract() != 0.0 || v < min as f64 {
        return Err(invalid_args(format!(
            "`{name}` must be a whole number ≥ {min}, got {v}"
        )));
    }
    // Saturates for absurdly large values, which every caller treats as "no limit".
    Ok(v as u64)
}

/// Whether `probe` (the first bytes of a file) looks binary: it contains a NUL byte.
pub(crate) fn looks_binary(probe: &[u8]) -> bool {
    probe.contains(&0)
}

/// `text` cut to at most `max` characters, with a marker saying how long it was.
pub(crate) fn cap_chars(text: &str, max: usize) -> String {
    cap_line(text, max, 0)
}

/// Like [`cap_chars`] for a line of which `more` characters were never read (see
/// [`read_line_capped`]): the marker counts them too.
pub(crate) fn cap_line(text: &str, max: usize, more: usize) -> String {
    match text.char_indices().nth(max) {
        None if more == 0 => text.to_string(),
        None => format!(
            "{text}… [line cut: {} characters]",
            text.chars().count() + more
        ),
        Some((cut, _)) => {
            let total = text.chars().count() + more;
            format!("{}… [line cut: {total} characters]", &text[..cut])
        }
    }
}

/// Read one line (through its `\n`) into `buf`, keeping at most `keep` bytes of it: the rest
/// is read past without being stored, so memory stays bounded whatever the file. Returns
/// `None` at the end of input, else how many characters (UTF-8 lead bytes) were not kept.
pub(crate) fn read_line_capped(
    reader: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    keep: usize,
) -> std::io::Result<Option<usize>> {
    let mut read_any = false;
    let mut dropped = 0;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(read_any.then_some(dropped));
        }
        read_any = true;
        let (line, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(end) => (&chunk[..=end], true),
            None => (chunk, false),
        };
        let room = keep.saturating_sub(buf.len()).min(line.len());
        buf.extend_from_slice(&line[..room]);
        dropped += line[room..]
            .iter()
            .filter(|&&b| (b & 0xc0) != 0x80 && b != b'\n' && b != b'\r')
            .count();
        let used = line.len();
        reader.consume(used);
        if done {
            return Ok(Some(dropped));
        }
    }
}

/// The last at most `max` bytes of `text`, starting on a character boundary.
pub(crate) fn tail_str(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// Strip one trailing `\n` (and a `\r` before it).
pub(crate) fn strip_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Lines in `text` as a reader counts them: newlines, plus one for an unterminated last line.
pub(crate) fn count_lines(text: &str) -> u64 {
    let newlines = text.bytes().filter(|&b| b == b'\n').count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

/// A language hint from a file's extension, for syntax highlighting.
pub(crate) fn lang_hint(path: &str) -> Option<String> {
    let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
    let lang = match ext.as_str() {
        "rs" => "rust",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "jsx",
        "py" => "python",
        "go" => "go",
        "java" => "java",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "rb" => "ruby",
        "sh" | "bash" => "bash",
        "json" => "json",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "md" => "markdown",
        "html" | "htm" => "html",
        "css" => "css",
        "sql" => "sql",
        other => return Some(other.to_string()),
    };
    Some(lang.to_string())
}

/// One location for editor follow-along.
pub(crate) fn location(path: &str, line: Option<u64>) -> Option<Vec<FileLocation>> {
    Some(vec![FileLocation {
        path: path.to_string(),
        line,
    }])
}

/// A string argument of a pending call, for presenters (which see unvalidated args).
pub(crate) fn arg_str<'a>(args: &'a Value, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

/// The metadata of a successful result, for `present_result` (`None` for failures).
pub(crate) fn ok_meta(result: &ToolResult) -> Option<&Value> {
    if result.is_error {
        return None;
    }
    result.meta.as_ref()
}

/// The text of a result's content blocks.
pub(crate) fn result_text(result: &ToolResult) -> String {
    ptc::content_text(&result.content)
}

/// The `search` cards of glob and grep: a generic pending card titled `<verb> <pattern>`,
/// and a completed `search` card of `shape` carrying `data_key` from the metadata.
pub(crate) fn search_cards(
    builder: ptc::ToolBuilder,
    verb: &'static str,
    shape: ptc::presentation::SearchShape,
    data_key: &'static str,
) -> ptc::ToolBuilder {
    use ptc::presentation::{ToolCallKind, ToolCallView, ToolResultView};
    builder
        .present_call(move |args| {
            Some(ToolCallView::Generic {
                title: format!("{verb} {}", arg_str(args, "pattern")?),
                kind: Some(ToolCallKind::Search),
                raw_input: None,
                content: None,
                locations: None,
            })
        })
        .present_result(move |args, result| {
            let meta = ok_meta(result)?;
            Some(ToolResultView::Search {
                shape,
                title: arg_str(args, "pattern").map(|p| format!("{verb} {p}")),
                truncated: meta["truncated"].as_bool().unwrap_or(false),
                total: meta["total"].as_u64().unwrap_or(0),
                data: Some(serde_json::json!({ data_key: meta[data_key] })),
            })
        })
}

/// The footer of a paged text window (`read`, `web_fetch`): `empty` when there is no text, else
/// that `offset` is past the end (when `shown_nothing`), or where to go on; then the value's
/// `note`. `what` names the text (`` `a.txt` ``, `the page`).
pub(crate) fn window_footer(value: &Value, what: &str, empty: &str, shown_nothing: bool) -> String {
    let total = value["total_lines"].as_u64().unwrap_or(0);
    let offset = value["offset"].as_u64().unwrap_or(1);
    let mut out = String::new();
    if total == 0 {
        out.push_str(&format!("[{empty}]\n"));
    } else if shown_nothing {
        out.push_str(&format!(
            "[{what} has {total} lines; offset {offset} is past the end]\n"
        ));
    } else if let Some(next) = value["next_offset"].as_u64() {
        out.push_str(&format!(
            "[lines {offset}-{} of {total}; continue with offset={next}]\n",
            next - 1
        ));
    }
    if let Some(note) = value["note"].as_str() {
        out.push_str(&format!("[{note}]\n"));
    }
    out
}

/// The one entry beside the missing `path` whose name differs from its name only in case
/// (`Readme.md` for `README.md`) or in Unicode normalization (`résumé.md` with combining
/// accents, as macOS writes names), root-relative, when exactly one does and it may be read;
/// for a "not found" error, what to pass instead.
pub(crate) fn case_sibling(ws: &Workspace, path: &Path) -> Option<String> {
    let nfc = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    let key = |name: &str| nfc.normalize(name).to_lowercase();
    let asked = path.file_name()?.to_str()?;
    let name = key(asked);
    let parent = path.parent()?;
    let mut same = std::fs::read_dir(parent)
        .ok()?
        .flatten()
        .filter(|entry| entry.file_name().to_str().is_some_and(|n| key(n) == name));
    let one = same.next()?.file_name();
    if same.next().is_some() {
        return None;
    }
    let found = ws.resolve(parent.join(&one).to_str()?, "file_path").ok()?;
    let written = one.to_str()?;
    if nfc.normalize(written) != nfc.normalize(asked) {
        return Some(format!("Did you mean `{}`?", found.display));
    }
    // The same letters in other code points: shown escaped, or it would look the same.
    let escaped: String = found
        .display
        .chars()
        .map(|c| match c.is_ascii() {
            true => c.to_string(),
            false => format!("\\u{:04x}", c as u32),
        })
        .collect();
    Some(format!(
        "`{}` is there, its name written in other Unicode code points (decomposed accents, as \
         macOS writes names): pass \"{escaped}\" (or the path as glob lists it).",
        found.display
    ))
}
