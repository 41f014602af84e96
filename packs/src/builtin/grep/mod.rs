//! `grep`: regex search over file contents (`search` card, `shape: matches`).
//!
//! Built on ripgrep's crates: `ignore` walks the tree in parallel with ripgrep's
//! default filters but for hidden files, which are searched (`.gitignore` inside git
//! repositories, `.ignore` and `.rgignore` respected, VCS metadata and symlinks not followed);
//! a `path` that names an ignored folder (or one inside it) is searched whole, as a file named
//! is, and a search that found nothing (or any search in a program) says how many ignored
//! files it left out. `grep-regex` compiles the pattern with ripgrep's syntax,
//! `grep-searcher` searches each file and stops at the first NUL byte (binary files are skipped, as `rg` does), unless that NUL comes past the
//! first 8 KiB: a text file with a stray NUL (a garbled log line) is searched again as text,
//! as `rg -a` would. Every matching line is
//! counted for the true total; the first [`MAX_MATCHES`] in path order are returned.
//!
//! Bounded whatever the input: the pattern's compiled size is capped and the search checks
//! the call's cancellation as it goes (`matcher.rs`), a file with a line longer than
//! [`MAX_LINE_BYTES`] is skipped (and counted) instead of being read whole into memory, and
//! the walk stops at [`super::walk::MAX_DEPTH`] levels. Each file the walk yields is opened
//! race-free ([`Workspace::open_found`]: no symlink followed, nothing outside the root) and
//! searched through that descriptor; the deny paths are pruned from the walk and counted.

mod encodings;
mod ignored;
mod line_break;
mod line_cap;
mod matcher;
mod pages;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use grep_matcher::LineTerminator;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::{WalkBuilder, WalkState};
use line_break::line_break_note;
use line_cap::LineCap;
use matcher::CancellableMatcher;
use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::beneath::Access;
use super::data_caps::{
    entries_note, thousands, PROGRAM_LONG_LINE_BYTES, PROGRAM_MAX_ENTRIES, PROGRAM_MAX_LINE_CHARS,
};
use super::path_glob::{literal_folder, no_match_note, path_glob};
use super::shared::{self, arg_str, blocking, invalid_args, PolicyFilter};
use super::walk::{self, WalkLimits};
use super::workspace::Workspace;
use ptc::presentation::SearchShape;
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

/// Matches returned inline.
pub const MAX_MATCHES: usize = 250;
/// Characters kept of one matching line.
pub const MAX_LINE_CHARS: usize = 500;
/// The longest line searched; a file with a longer one is skipped.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// Ignored files a search that found nothing counts at most (it walks them to count them).
pub const MAX_IGNORED_COUNTED: u64 = 10_000;

#[derive(Deserialize)]
struct Args {
    pattern: String,
    path: Option<String>,
    include: Option<String>,
    offset: Option<f64>,
}

/// The caps of one call: matches kept and characters per line (data caps in a program).
#[derive(Clone, Copy)]
struct Caps {
    matches: usize,
    line_chars: usize,
    /// Bytes of longer lines kept whole all the same (in a program).
    long_lines: usize,
    /// Count the ignored files left out even when something matched (in a program, where
    /// a total is data: a count over files grep skipped would be silently short).
    count_ignored: bool,
}

/// One matching line.
#[derive(Debug, Clone, Serialize)]
struct Match {
    path: String,
    line: u64,
    text: String,
    /// The line was longer than the cap and `text` cut.
    #[serde(skip)]
    cut: bool,
    /// The line is not UTF-8: `text` shows the bytes that are not as U+FFFD.
    #[serde(skip)]
    lossy: bool,
}

#[derive(Serialize)]
struct Output {
    matches: Vec<Match>,
    total: u64,
    files: u64,
    truncated: bool,
    #[serde(skip)]
    offset: u64,
    #[serde(skip)]
    cut_lines: usize,
    #[serde(skip)]
    lossy_lines: usize,
    #[serde(skip_serializing_if = "shared::is_zero")]
    skipped: u64,
    #[serde(skip_serializing_if = "shared::is_zero")]
    hidden: u64,
    /// What the walk left out.
    #[serde(flatten)]
    left: walk::LeftOut,
    /// Files an ignore file left out of a search that found nothing (counted only then).
    #[serde(skip_serializing_if = "shared::is_zero")]
    ignored: u64,
    /// The topmost folders an ignore file left out whole (for a program's note).
    #[serde(skip)]
    ignored_in: Vec<String>,
    /// The workspace root (whether it is in a git repository, for the note).
    #[serde(skip)]
    root: std::path::PathBuf,
    /// The `path` argument as given (`.` without one).
    #[serde(skip)]
    path: String,
    /// What the pattern itself gets wrong (slashes taken for delimiters, a byte order mark).
    #[serde(skip)]
    delimited: Option<String>,
    /// Files searched for a non-ASCII pattern that are not UTF-8 in an encoding not told (it
    /// may have missed lines of theirs), and the first of them.
    #[serde(skip)]
    not_utf8: (u64, Option<String>),
    /// Files searched decoded from another encoding, and the first of them with its encoding.
    #[serde(skip)]
    decoded: (u64, Option<(String, &'static str)>),
    /// Files PCRE2 gave up on (a look-around pattern backtracking without end), the first.
    #[serde(skip)]
    gave_up: (u64, Option<String>),
    /// Files with a matching line that held a carriage return, the first.
    #[serde(skip)]
    lone_cr: (u64, Option<String>),
    /// The digests of the matches this page skipped, and of every match through its end.
    #[serde(skip)]
    digests: (pages::Digest, pages::Digest),
}

/// The `grep` tool.
pub(crate) fn tool(ws: Arc<Workspace>) -> ToolDefinition {
    let shown = ws.clone();
    let pages = Arc::new(pages::Pages::default());
    let builder = ToolDefinition::builder("grep")
        .path_arguments(ws.path_arguments(&[("path", Some("."))]))
        .description(
            "Search file contents with a ripgrep regular expression. Returns matching lines with \
             line numbers, grouped by file. Returns the first 250 matches inline; a capped result \
             reports the true total of matching lines, so narrow the pattern, path or include, \
             or page with offset, to see the rest. Use read on a matched file for surrounding \
             context. Hidden files are searched; binary files are not, nor files .gitignore \
             excludes unless path names them or their folder.",
        )
        .code_description(
            "Search file contents by ripgrep regex (≤ 10,000 lines a call); hidden files too, not \
             binary ones, nor .gitignored ones unless `path` is inside one (or is one).",
        )
        .parameters(
            ParameterSpec::new()
                .required(
                    "pattern",
                    ValueSpec::string()
                        .describe("Regular expression to search for (ripgrep syntax)."),
                )
                .optional(
                    "path",
                    ValueSpec::string().describe(
                        "Where to search. Defaults to the session workspace; a relative path \
                         resolves against it.",
                    ),
                )
                .optional(
                    "include",
                    ValueSpec::string().describe(
                        "One glob filter for which files to search (e.g. \"*.ts\", \
                         \"*.{js,jsx}\"). Not a list; negation is not supported.",
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
                    "matches",
                    ValueSpec::array(
                        ValueSpec::object(false)
                            .required_property("path", ValueSpec::string())
                            .required_property("line", ValueSpec::integer())
                            .required_property("text", ValueSpec::string()),
                    )
                    .describe("`text` cut only past 32 MiB of long lines."),
                )
                .required_property(
                    "total",
                    ValueSpec::integer().describe("Matching lines, not occurrences."),
                )
                .required_property("files", ValueSpec::integer())
                .required_property("truncated", ValueSpec::boolean())
                .property(
                    "skipped",
                    ValueSpec::integer().describe("A line over 8 MiB: not searched."),
                )
                .property("hidden", shared::hidden_spec())
                .property("ignored", ValueSpec::integer()),
        ))
        .concurrency_safe(true)
        .execute(move |args: Args, ctx| {
            let (ws, pages) = (ws.clone(), pages.clone());
            let signal = ctx.signal().clone();
            let filter = PolicyFilter::of(&ctx);
            let caps = match ctx.in_program() {
                true => Caps {
                    matches: PROGRAM_MAX_ENTRIES,
                    line_chars: PROGRAM_MAX_LINE_CHARS,
                    long_lines: PROGRAM_LONG_LINE_BYTES,
                    count_ignored: true,
                },
                false => Caps {
                    matches: MAX_MATCHES,
                    line_chars: MAX_LINE_CHARS,
                    long_lines: 0,
                    count_ignored: false,
                },
            };
            async move {
                let search = (
                    args.pattern.clone(),
                    args.path.clone(),
                    args.include.clone(),
                );
                let searched = ws.clone();
                let out = blocking(move || grep(&searched, args, &signal, &filter, caps)).await?;
                if ctx.in_program() {
                    let asked = (search.2.as_deref(), search.1.as_deref());
                    let include = match out.total {
                        0 => include_note(&ws, asked.0, asked.1),
                        _ => None,
                    };
                    let end = out.offset + out.matches.len() as u64;
                    let shifted = pages.page(
                        ctx.execution().root_call_id(),
                        search,
                        (out.offset, out.digests.0),
                        (end, out.digests.1),
                    );
                    note_program_cuts(&ctx, &out, include.into_iter().chain(shifted));
                }
                Ok(out)
            }
        })
        .render(move |args, value| vec![ContentBlock::text(render(&shown, args, value))])
        .presentation_meta(|_, value| {
            Some(json!({
                "total": value["total"],
                "truncated": value["truncated"],
                "files": grouped(value),
            }))
        });
    shared::search_cards(builder, "Grep", SearchShape::Matches, "files")
        .build()
        .expect("the grep definition is valid")
}

/// In a program, say what the caps and the walk left out (matches past the cap, files not
/// searched, lines cut, denied or too deep entries), and note what the pattern gets wrong,
/// the ignored files left out and what else was `noted` (an `include` that may have matched
/// nothing, the matches a page skips having changed since the last page).
fn note_program_cuts(ctx: &ptc::ToolRunContext, out: &Output, noted: impl Iterator<Item = String>) {
    let mut notes = Vec::new();
    if out.truncated {
        let kept = out.matches.len() as u64;
        notes.push(entries_note(
            "matches", out.offset, kept, out.total, "pattern",
        ));
    }
    if out.skipped > 0 {
        notes.push(format!(
            "{} file(s) not searched: a line longer than 8 MiB",
            out.skipped
        ));
    }
    notes.extend(out.left.cut_notes());
    if let (n @ 1.., Some(first)) = &out.gave_up {
        notes.push(format!(
            "{n} file(s) not searched to the end: PCRE2, which runs look-around patterns, \
             gave up backtracking on a line (first: `{first}`; simplify the pattern)"
        ));
    }
    if out.cut_lines > 0 {
        notes.push(format!(
            "{} matching line(s) cut at {} characters, past {} of long lines kept whole (read \
             the file for the whole line)",
            out.cut_lines,
            thousands(PROGRAM_MAX_LINE_CHARS as u64),
            shared::size(PROGRAM_LONG_LINE_BYTES as u64)
        ));
    }
    if !notes.is_empty() {
        ctx.cut_short(notes.join("; "));
    }
    // Not cuts: what the program got is all there is, but not what it may think.
    let mut said: Vec<String> = out.delimited.iter().cloned().chain(noted).collect();
    said.extend(out.left.links_note());
    if out.ignored > 0 {
        said.push(ignored::note(
            out.ignored,
            &out.path,
            &out.ignored_in,
            &out.root,
        ));
    }
    if let (n @ 1.., Some(first)) = &out.lone_cr {
        said.push(format!(
            "{n} file(s) have matching lines that hold carriage returns (`\\r`; first: \
             `{first}`): lines are split at `\\n` only, so a file ending lines in CR alone \
             (classic Mac OS) is one line here (convert it: bash tr '\\r' '\\n')"
        ));
    }
    if let (n @ 1.., Some((first, encoding))) = &out.decoded {
        said.push(format!(
            "{n} file(s) not in UTF-8 were searched decoded (first: `{first}`, {encoding}); read \
             shows them decoded too"
        ));
    }
    if let (n @ 1.., Some(first)) = &out.not_utf8 {
        said.push(format!(
            "{n} file(s) searched are not UTF-8 (first: `{first}`), and the pattern's non-ASCII \
             characters match UTF-8 text only: lines of theirs in another encoding were not \
             found (read says which encoding; convert with bash iconv)"
        ));
    }
    if out.lossy_lines > 0 {
        said.push(format!(
            "{} matching line(s) not UTF-8, shown with U+FFFD for the bytes that are not \
             (do not write them back; `read` says which lines)",
            out.lossy_lines
        ));
    }
    if !said.is_empty() {
        ctx.note(said.join("; "));
    }
}

/// Why a search that found nothing may have searched no file: an `include` of a shape that
/// matches nothing as written under `path`, or anchored in a folder that is not there.
fn include_note(ws: &Workspace, include: Option<&str>, path: Option<&str>) -> Option<String> {
    let hint = no_match_note(ws, include?, path.unwrap_or("."))?;
    Some(format!("`include` may have matched no file: {hint}"))
}

/// What every search thread adds to.
#[derive(Default)]
struct Collected {
    /// Matches kept at most (`offset` + the cap): the first ones in path order.
    keep: usize,
    total: u64,
    files: u64,
    /// The first `keep` matches in path order, per file.
    kept: BTreeMap<String, Vec<Found>>,
    kept_count: usize,
    /// Files skipped for a line longer than [`MAX_LINE_BYTES`].
    skipped: u64,
    /// Files searched that are not UTF-8 (counted for a non-ASCII pattern only), and the first
    /// of them in path order.
    not_utf8: (u64, Option<String>),
    /// Files of them searched decoded, and the first in path order with its encoding.
    decoded: (u64, Option<(String, &'static str)>),
    /// Files PCRE2 gave up on, and the first in path order.
    gave_up: (u64, Option<String>),
    /// Files with a matching line that held a carriage return, and the first.
    lone_cr: (u64, Option<String>),
}

/// Count `shown` in `files`, the first of them in path order.
fn first_of(files: &mut (u64, Option<String>), shown: &str) {
    let (count, first) = files;
    *count += 1;
    if first.as_deref().is_none_or(|f| shown < f) {
        *first = Some(shown.to_string());
    }
}

/// How far into a file a NUL byte says "binary file" rather than "a text file with a stray
/// NUL" (binary formats show a NUL in their first few KiB).
const BINARY_PREFIX: u64 = 8 * 1024;

impl Collected {
    /// File `shown` was searched decoded from `encoding`.
    fn decoded(&mut self, shown: &str, encoding: &'static str) {
        let (count, first) = &mut self.decoded;
        *count += 1;
        if first.as_ref().is_none_or(|(f, _)| shown < f.as_str()) {
            *first = Some((shown.to_string(), encoding));
        }
    }

    /// File `shown` is not UTF-8, in an encoding not told.
    fn not_utf8(&mut self, shown: &str) {
        first_of(&mut self.not_utf8, shown);
    }

    /// PCRE2 gave up on a line of file `shown`: its matches past it are not counted.
    fn gave_up(&mut self, shown: &str) {
        first_of(&mut self.gave_up, shown);
    }

    /// The matches `sink` collected of file `path`.
    fn add(&mut self, path: String, sink: FileSink<'_>) {
        let FileSink {
            count,
            matches,
            lone_cr,
            ..
        } = sink;
        if lone_cr {
            first_of(&mut self.lone_cr, &path);
        }
        self.total += count;
        self.files += 1;
        self.kept_count += matches.len();
        self.kept.insert(path, matches);
        // Drop the matches of the largest paths until only `keep` remain.
        while self.kept_count > self.keep {
            let Some(mut last) = self.kept.last_entry() else {
                break;
            };
            let excess = self.kept_count - self.keep;
            if last.get().len() <= excess {
                self.kept_count -= last.remove().len();
            } else {
                let keep = last.get().len() - excess;
                last.get_mut().truncate(keep);
                self.kept_count -= excess;
            }
        }
    }
}

/// One matching line as a file gave it: its number, its text (cut at the line cap), whether
/// it was cut, and whether it was not UTF-8.
struct Found(u64, String, bool, bool);

/// Collects the matching lines of one file.
struct FileSink<'a> {
    count: u64,
    matches: Vec<Found>,
    signal: &'a CancellationToken,
    keep: usize,
    line_cap: &'a LineCap,
    /// Whether a matching line held a carriage return not ending it.
    lone_cr: bool,
    /// Where a NUL byte ended the search (binary data, as `rg` takes it).
    nul_at: Option<u64>,
}

impl<'a> FileSink<'a> {
    /// Nothing collected yet: up to `keep` matches, lines cut by `line_cap`.
    fn new(signal: &'a CancellationToken, keep: usize, line_cap: &'a LineCap) -> Self {
        FileSink {
            count: 0,
            matches: Vec::new(),
            signal,
            keep,
            line_cap,
            lone_cr: false,
            nul_at: None,
        }
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.count += 1;
        if self.matches.len() < self.keep {
            let line = shared::strip_eol(m.bytes());
            self.lone_cr |= line.contains(&b'\r');
            let text = String::from_utf8_lossy(line);
            let lossy = matches!(text, std::borrow::Cow::Owned(_));
            let (text, cut) = self.line_cap.keep(&text);
            self.matches
                .push(Found(m.line_number().unwrap_or(0), text, cut, lossy));
        }
        Ok(!self.count.is_multiple_of(4096) || !self.signal.is_cancelled())
    }

    fn binary_data(&mut self, _: &Searcher, offset: u64) -> Result<bool, io::Error> {
        self.nul_at = Some(offset);
        Ok(false)
    }
}

fn searcher() -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .line_terminator(LineTerminator::crlf())
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .heap_limit(Some(MAX_LINE_BYTES))
        .build()
}

/// A searcher that takes every file as text (NUL bytes included).
fn text_searcher() -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .line_terminator(LineTerminator::crlf())
        .binary_detection(BinaryDetection::none())
        .heap_limit(Some(MAX_LINE_BYTES))
        .build()
}

/// Search the open file `file` (shown as `shown`), adding its matches to `out`.
fn search_file(
    searcher: &mut Searcher,
    matcher: &CancellableMatcher,
    (file, shown): (&File, String),
    signal: &CancellationToken,
    out: &Mutex<Collected>,
    line_cap: &LineCap,
) {
    let keep = out.lock().unwrap_or_else(|e| e.into_inner()).keep;
    let mut sink = FileSink::new(signal, keep, line_cap);
    let mut result = searcher.search_file(matcher, file, &mut sink);
    // A NUL past the first few KiB that binary formats show one in: a text file with a
    // stray NUL (a garbled log line), searched again as text, as `rg -a` would.
    if sink.nul_at.is_some_and(|at| at >= BINARY_PREFIX)
        && (&*file).seek(SeekFrom::Start(0)).is_ok()
    {
        sink = FileSink::new(signal, keep, line_cap);
        result = text_searcher().search_file(matcher, file, &mut sink);
    }
    // A non-ASCII pattern finds its characters in UTF-8 text only: a file in another encoding
    // is searched again decoded, whether or not other lines of it matched (binary files are
    // skipped as such, not as another encoding).
    let other_encoding = !matcher.is_ascii()
        && sink.nul_at.is_none()
        && (sink.matches.iter().any(|found| found.3) || !encodings::is_utf8(file));
    match result {
        Ok(()) if other_encoding => {
            let decoded = encodings::other_encoding(file).and_then(|encoding| {
                let mut again = FileSink::new(signal, keep, line_cap);
                (&*file).seek(SeekFrom::Start(0)).ok()?;
                encodings::decoding_searcher(encoding)?
                    .search_file(matcher, file, &mut again)
                    .ok()?;
                Some((encoding, again))
            });
            let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
            match decoded {
                Some((encoding, again)) => {
                    out.decoded(&shown, encoding.name());
                    sink = again;
                }
                None => out.not_utf8(&shown),
            }
            if sink.count > 0 {
                out.add(shown, sink);
            }
        }
        Ok(()) if sink.count > 0 => {
            let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
            out.add(shown, sink);
        }
        Ok(()) => {}
        // A line over the searcher's heap limit (its only allocation error).
        Err(e) if e.to_string().contains("allocation limit") => {
            out.lock().unwrap_or_else(|e| e.into_inner()).skipped += 1;
        }
        Err(e) if e.to_string().contains(matcher::PCRE2_FAILED) => {
            let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
            out.gave_up(&shown);
            if sink.count > 0 {
                out.add(shown, sink);
            }
        }
        // Unreadable files are skipped, as rg skips them (with a warning); a cancelled
        // search is reported by the caller.
        Err(_) => {}
    }
}

fn grep(
    ws: &Workspace,
    args: Args,
    signal: &CancellationToken,
    filter: &PolicyFilter,
    caps: Caps,
) -> Result<Output, ToolError> {
    if args.pattern.is_empty() {
        return Err(invalid_args(
            "`pattern` is empty; pass a regular expression",
        ));
    }
    let offset = shared::whole_number(args.offset, "offset", 0, 0)?;
    let skip = usize::try_from(offset).unwrap_or(usize::MAX);
    let matcher = CancellableMatcher::new(&args.pattern, signal.clone()).map_err(|e| {
        let mut why = format!("`pattern` is not a usable regular expression: {e}");
        if args.pattern.contains("\\r") || args.pattern.contains('\r') {
            why.push_str(
                " (grep matches lines without their line endings; to list the files with CRLF \
                 endings, run bash `grep -rlI $'\\r' .`)",
            );
        } else if args.pattern.contains("\\n") || args.pattern.contains('\n') {
            why.push_str(
                " (lines are searched one at a time: search for one line of the text, then read \
                 the lines around each match with read's offset and limit)",
            );
        }
        invalid_args(why)
    })?;
    let target = ws.resolve(args.path.as_deref().unwrap_or("."), "path")?;
    if !target.exists {
        return Err(ToolError::new(format!(
            "Path not found: `{}` does not exist in the workspace.",
            args.path.as_deref().unwrap_or(".")
        )));
    }
    let out = Mutex::new(Collected {
        keep: skip.saturating_add(caps.matches),
        ..Collected::default()
    });
    let line_cap = LineCap::new(caps.line_chars, caps.long_lines);
    let include = args.include.as_deref();
    let folder = include.and_then(|i| literal_folder(&target.path, i));
    let limits = WalkLimits::new(ws).within(folder.map(|f| target.path.join(f)));
    let mut ignored = ignored::Ignored::default();
    if target.path.is_file() {
        let raw = args.path.as_deref().unwrap_or(".");
        let opened = ws.open(target, raw, "path", Access::Read)?;
        if opened.meta.is_file() {
            let shown = opened.target.display;
            search_file(
                &mut searcher(),
                &matcher,
                (&opened.file, shown),
                signal,
                &out,
                &line_cap,
            );
        }
    } else {
        // A folder an ignore file excludes (or one inside it), named as `path`: the caller
        // asked for it by name, so all of it is searched.
        let named_ignored = is_ignored(&target.path, ws.root());
        let walk = search_walk(&target.path, include, &limits, !named_ignored)?;
        let searched = AtomicU64::new(0);
        let entered = ignored::Entered::default();
        walk.build_parallel().run(|| {
            let (matcher, out, limits, searched) = (matcher.clone(), &out, &limits, &searched);
            let entered = &entered;
            let line_cap = &line_cap;
            let mut searcher = searcher();
            Box::new(move |entry| {
                if signal.is_cancelled() {
                    return WalkState::Quit;
                }
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                limits.visit(&entry);
                entered.saw(&entry);
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                let shown = ws.display(entry.path());
                if filter.hides(&shown) {
                    return WalkState::Continue;
                }
                searched.fetch_add(1, Ordering::Relaxed);
                // Opened race-free: a file swapped for a symlink since the walk saw it is
                // skipped, never followed.
                if let Some((file, _)) = ws.open_found(entry.path(), Access::Read) {
                    search_file(
                        &mut searcher,
                        &matcher,
                        (&file, shown),
                        signal,
                        out,
                        line_cap,
                    );
                }
                WalkState::Continue
            })
        });
        let found_nothing = out.lock().unwrap_or_else(|e| e.into_inner()).total == 0;
        if (found_nothing || caps.count_ignored) && !named_ignored {
            let searched = (searched.into_inner(), &entered);
            ignored = ignored::left_out(ws, &target.path, include, filter, signal, searched)?;
        }
    }
    if signal.is_cancelled() {
        return Err(ToolError::new("grep was cancelled"));
    }
    let out = out.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut hasher = pages::Hasher::default();
    let mut skipped = hasher.at();
    let mut matches = Vec::new();
    let all = out.kept.into_iter().flat_map(|(path, lines)| {
        lines
            .into_iter()
            .map(move |Found(line, text, cut, lossy)| Match {
                path: path.clone(),
                line,
                text,
                cut,
                lossy,
            })
    });
    for (i, m) in all.enumerate() {
        if i == skip {
            skipped = hasher.at();
        }
        hasher.add(&m.path, &m.text);
        if i >= skip {
            matches.push(m);
        }
    }
    if matches.is_empty() && skip > 0 {
        skipped = hasher.at();
    }
    Ok(Output {
        truncated: offset + (matches.len() as u64) < out.total,
        offset,
        cut_lines: matches.iter().filter(|m| m.cut).count(),
        lossy_lines: matches.iter().filter(|m| m.lossy).count(),
        matches,
        total: out.total,
        files: out.files,
        skipped: out.skipped,
        hidden: filter.hidden(),
        left: limits.left_out(ws),
        ignored: ignored.files,
        ignored_in: ignored.folders,
        root: ws.root().to_path_buf(),
        path: args.path.unwrap_or_else(|| ".".to_string()),
        delimited: pattern_note(&args.pattern, out.total > 0),
        not_utf8: out.not_utf8,
        gave_up: out.gave_up,
        lone_cr: out.lone_cr,
        decoded: out.decoded,
        digests: (skipped, hasher.at()),
    })
}

/// What the pattern itself gets wrong, whatever it found: the note for a pattern between
/// slashes ([`delimiters_note`]), one that looks for a byte order mark, or one written to
/// match across lines ([`line_break_note`]).
fn pattern_note(pattern: &str, found: bool) -> Option<String> {
    delimiters_note(pattern, found)
        .or_else(|| bom_note(pattern))
        .or_else(|| line_break_note(pattern, found))
}

/// For a pattern that looks for a UTF-8 byte order mark (the character, `\x{FEFF}`,
/// `\uFEFF`, `\xEF\xBB\xBF`): the search drops a file's BOM before matching (as ripgrep
/// does), so it can never match one.
fn bom_note(pattern: &str) -> Option<String> {
    let lower = pattern.to_ascii_lowercase();
    let asks = pattern.contains('\u{feff}')
        || ["\\x{feff}", "\\ufeff", "\\u{feff}", "\\xef\\xbb\\xbf"]
            .iter()
            .any(|form| lower.contains(form));
    asks.then(|| {
        "a UTF-8 byte order mark is dropped before matching (as ripgrep does), so no search \
         finds one; `read` notes a file that starts with one, or use bash \
         (`head -c3 FILE | od -c`)"
            .to_string()
    })
}

/// For a pattern between slashes, as a JavaScript regex literal (`/A|B/`, `/todo/i`) or a
/// path (`/usr/bin/`): patterns take no delimiters, so the slashes were searched for as
/// characters. `found`: whether it matched anything (then the matches are of the slashes too).
fn delimiters_note(pattern: &str, found: bool) -> Option<String> {
    let (inner, flags) = pattern.strip_prefix('/')?.rsplit_once('/')?;
    let bare_slash = inner
        .char_indices()
        .any(|(i, c)| c == '/' && !inner[..i].ends_with('\\'));
    let literal = !bare_slash && flags.chars().all(|c| c.is_ascii_lowercase());
    if inner.is_empty() || !(literal || flags.is_empty()) {
        return None;
    }
    let bare = match flags.contains('i') {
        true => format!("(?i){inner}"),
        false => inner.to_string(),
    };
    Some(match found || !literal {
        true => format!(
            "the pattern's /…/ were searched for as characters (patterns take no delimiters; \
             without them: `{bare}`)"
        ),
        false => format!("patterns take no /…/ delimiters: search for `{bare}`"),
    })
}

/// A walk of `dir` for grep: hidden files too, never VCS metadata, no symlink followed, only
/// the files `include` matches; what ignore files (.gitignore, .ignore, .rgignore) exclude is
/// left out when `ignores` is set, as in ripgrep.
fn search_walk(
    dir: &Path,
    include: Option<&str>,
    limits: &WalkLimits,
    ignores: bool,
) -> Result<WalkBuilder, ToolError> {
    let mut walk = WalkBuilder::new(dir);
    match ignores {
        true => walk.add_custom_ignore_filename(".rgignore"),
        false => walk.standard_filters(false),
    };
    // A .gitignore counts outside a git repository too (rg's `--no-require-git`): the
    // description says .gitignored files are left out, and a workspace is often a copy.
    walk.hidden(false)
        .require_git(false)
        .threads(super::walk_threads());
    limits.apply(&mut walk, |entry| !super::glob::is_vcs_dir(entry));
    if let Some(include) = include.filter(|i| !i.is_empty()) {
        walk.overrides(path_glob(dir, include, "include")?);
    }
    Ok(walk)
}

/// Whether an ignore file excludes the directory `dir` (below `root`) or a folder it lies in,
/// as grep's walk of the folder above each would see it.
fn is_ignored(dir: &Path, root: &Path) -> bool {
    let below_root = |d: &&Path| *d != root && d.starts_with(root);
    dir.ancestors().take_while(below_root).any(|d| {
        let Some(parent) = d.parent() else {
            return false;
        };
        let wanted = d.to_path_buf();
        let mut walk = WalkBuilder::new(parent);
        walk.add_custom_ignore_filename(".rgignore")
            .hidden(false)
            .require_git(false)
            .follow_links(false)
            .max_depth(Some(1))
            .filter_entry(move |e| e.depth() == 0 || e.path() == wanted);
        !walk.build().flatten().any(|e| e.depth() == 1)
    })
}

/// `[{path, matches: [{line, text}]}]` from a value's flat match list.
fn grouped(value: &Value) -> Value {
    let mut files: Vec<Value> = Vec::new();
    for m in value["matches"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let entry = json!({"line": m["line"], "text": m["text"]});
        match files.last_mut() {
            Some(f) if f["path"] == m["path"] => {
                if let Some(list) = f["matches"].as_array_mut() {
                    list.push(entry);
                }
            }
            _ => files.push(json!({"path": m["path"], "matches": [entry]})),
        }
    }
    Value::Array(files)
}

/// `path:line:text` lines, a blank line between files, a header and a cap note.
fn render(ws: &Workspace, args: &Value, value: &Value) -> String {
    let total = value["total"].as_u64().unwrap_or(0);
    let files = value["files"].as_u64().unwrap_or(0);
    if total == 0 {
        let ignored = match value["ignored"].as_u64().filter(|&n| n > 0) {
            Some(n) => format!(
                "[{}]\n",
                ignored::note(n, arg_str(args, "path").unwrap_or("."), &[], ws.root())
            ),
            None => String::new(),
        };
        let delimited = pattern_note(arg_str(args, "pattern").unwrap_or_default(), false)
            .map(|note| format!("[{note}]\n"))
            .unwrap_or_default();
        let include = include_note(ws, arg_str(args, "include"), arg_str(args, "path"))
            .map(|note| format!("[{note}]\n"))
            .unwrap_or_default();
        return format!(
            "No matches for `{}`.\n{}{}{ignored}{delimited}{include}",
            arg_str(args, "pattern").unwrap_or_default(),
            shared::hidden_note(value),
            walk::notes(value)
        )
        .trim_end()
        .to_string();
    }
    let lines = if total == 1 { "line" } else { "lines" };
    let noun = if files == 1 { "file" } else { "files" };
    let mut text = format!("{total} matching {lines} in {files} {noun}\n");
    let mut last_path: Option<&str> = None;
    let matches = value["matches"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for m in matches {
        let path = m["path"].as_str().unwrap_or_default();
        if last_path != Some(path) {
            text.push('\n');
            last_path = Some(path);
        }
        text.push_str(&format!(
            "{path}:{}:{}\n",
            m["line"],
            m["text"].as_str().unwrap_or_default()
        ));
    }
    text.push_str(&shared::hidden_note(value));
    text.push_str(&walk::notes(value));
    if let Some(note) = pattern_note(arg_str(args, "pattern").unwrap_or_default(), true) {
        text.push_str(&format!("\n[{note}]\n"));
    }
    if let Some(skipped) = value["skipped"].as_u64().filter(|&n| n > 0) {
        text.push_str(&format!(
            "\n[{skipped} file(s) not searched: a line longer than 8 MiB]\n"
        ));
    }
    if value["truncated"] == true {
        let offset = args["offset"].as_f64().map_or(0, |o| o as u64);
        let shown = match offset {
            0 => format!("the first {}", matches.len()),
            _ => format!("{}-{}", offset + 1, offset + matches.len() as u64),
        };
        text.push_str(&format!(
            "\n[showing {shown} of {total} matching lines, by path; narrow the pattern, path \
             or include, or page with offset={}, to see the rest]\n",
            offset + matches.len() as u64
        ));
    }
    text
}
