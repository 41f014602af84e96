//! `web_fetch`: an HTTP(S) page as text, paged by line like `read`.
//!
//! The page is fetched by `client.rs` under the address rules of `guard.rs` (SSRF defence:
//! no loopback, private or link-local address unless `[web]` allows it), redirects checked
//! hop by hop, the body cut at `[web] max_bytes`, the call bounded by `[web] timeout_ms`;
//! `convert.rs` makes it text (HTML as Markdown, JSON pretty-printed). A window of the text
//! is returned: natively up to [`MAX_LINES`] lines and [`MAX_WINDOW_BYTES`]; in a program
//! up to the data cap `PROGRAM_MAX_BYTES` with no line cap (a cut is said through
//! `ToolRunContext::cut_short`). `offset` fetches the page again and returns the window from
//! that line. A status of 400 or more is an error carrying the status and the page's start.

mod client;
mod convert;
mod guard;

use std::sync::Arc;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::data_caps::{thousands, PROGRAM_MAX_BYTES};
use super::shared::{self, arg_str, whole_number};
pub(crate) use client::Client;
use ptc::presentation::{ToolCallKind, ToolCallView};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

pub use client::MAX_REDIRECTS;
pub use guard::{non_public, HostPattern, WebConfig};

/// Lines one native call returns at most.
pub const MAX_LINES: usize = 2000;
/// Bytes of text one native call returns at most (the window ends early past it).
pub const MAX_WINDOW_BYTES: usize = 100 * 1024;
/// Characters of an error page shown with its status.
const ERROR_PAGE_CHARS: usize = 500;

#[derive(Deserialize)]
struct Args {
    url: String,
    offset: Option<f64>,
}

/// The structured value of a `web_fetch` call.
#[derive(Debug, Serialize)]
struct Output {
    final_url: String,
    status: u16,
    content_type: String,
    offset: u64,
    text: String,
    total_lines: u64,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The `web_fetch` tool, fetching through `client`.
pub(crate) fn tool(client: Arc<Client>) -> ToolDefinition {
    ToolDefinition::builder("web_fetch")
        .description("Fetch the content of a specific HTTP(S) URL and return it decoded to text.")
        .code_description(
            "Fetch an HTTP(S) URL as text, HTML as Markdown; page on from `next_offset`.",
        )
        .parameters(
            ParameterSpec::new()
                .required(
                    "url",
                    ValueSpec::string().describe("The HTTP(S) URL to fetch."),
                )
                .optional(
                    "offset",
                    ValueSpec::number().describe("1-based first line to return. Defaults to 1."),
                ),
        )
        .output(output_spec())
        .concurrency_safe(true)
        .execute(move |args: Args, ctx| {
            let client = client.clone();
            async move {
                let offset = whole_number(args.offset, "offset", 1, 1)?;
                let fetched = client.fetch(&args.url, ctx.signal()).await?;
                let text = convert::to_text(
                    &fetched.body,
                    &fetched.content_type,
                    &fetched.final_url,
                    fetched.cut,
                )?;
                if fetched.status.as_u16() >= 400 {
                    return Err(ToolError::new(format!(
                        "{} answered HTTP {}: {}",
                        fetched.final_url,
                        fetched.status,
                        shared::cap_chars(text.trim(), ERROR_PAGE_CHARS)
                    )));
                }
                let in_program = ctx.in_program();
                let cap_note = fetched.cut.then(|| {
                    format!(
                        "the page was cut at {} bytes (`[web] max_bytes`): its end is missing",
                        thousands(client.config().max_bytes as u64)
                    )
                });
                let out = window(&fetched, text, offset, in_program, cap_note);
                if in_program {
                    note_program_cut(&ctx, &out);
                }
                Ok(out)
            }
        })
        .render(|_, value| vec![ContentBlock::text(render(value))])
        .present_call(|args| {
            let url = arg_str(args, "url")?;
            Some(ToolCallView::Generic {
                title: format!("Fetch {url}"),
                kind: Some(ToolCallKind::Fetch),
                raw_input: None,
                content: None,
                locations: None,
            })
        })
        .build()
        .expect("the web_fetch definition is valid")
}

fn output_spec() -> ValueSpec {
    ValueSpec::object(false)
        .required_property("final_url", ValueSpec::string())
        .required_property("status", ValueSpec::integer())
        .required_property("content_type", ValueSpec::string())
        .required_property("offset", ValueSpec::integer())
        .required_property("text", ValueSpec::string())
        .required_property("total_lines", ValueSpec::integer())
        .required_property("truncated", ValueSpec::boolean())
        .property("next_offset", ValueSpec::integer())
        .property("note", ValueSpec::string())
}

/// The lines of `text` from `offset`, within the caps of a native call or a program.
fn window(
    fetched: &client::Fetched,
    text: String,
    offset: u64,
    in_program: bool,
    note: Option<String>,
) -> Output {
    let (max_lines, max_bytes) = match in_program {
        false => (MAX_LINES, MAX_WINDOW_BYTES),
        true => (usize::MAX, PROGRAM_MAX_BYTES),
    };
    let mut kept = String::new();
    let (mut total, mut shown) = (0u64, 0usize);
    for line in text.lines() {
        total += 1;
        if total < offset || shown >= max_lines || (shown > 0 && kept.len() >= max_bytes) {
            continue;
        }
        kept.push_str(&shared::cap_chars(line, max_bytes));
        kept.push('\n');
        shown += 1;
    }
    let last = offset + shown as u64 - 1;
    let truncated = shown > 0 && last < total;
    Output {
        final_url: fetched.final_url.to_string(),
        status: fetched.status.as_u16(),
        content_type: fetched.content_type.clone(),
        offset,
        text: kept,
        total_lines: total,
        truncated,
        next_offset: truncated.then_some(last + 1),
        note,
    }
}

/// In a program: say when the data cap or the body cap cut the page.
fn note_program_cut(ctx: &ptc::ToolRunContext, out: &Output) {
    if let Some(next) = out.next_offset {
        ctx.cut_short(format!(
            "lines {}-{} of {} ({} MiB per call; read on with offset={next})",
            thousands(out.offset),
            thousands(next - 1),
            thousands(out.total_lines),
            PROGRAM_MAX_BYTES / 1024 / 1024,
        ));
    }
    if let Some(note) = &out.note {
        ctx.cut_short(note.clone());
    }
}

/// The page's URL, status and type, its text, then a note when the window is partial.
fn render(value: &Value) -> String {
    let str_of = |key: &str| value[key].as_str().unwrap_or_default();
    let mut out = format!(
        "[{} — {} {}]\n\n{}",
        str_of("final_url"),
        value["status"],
        str_of("content_type"),
        str_of("text")
    );
    out.push_str(&super::shared::window_footer(
        value,
        "the page",
        "the page has no text",
        str_of("text").is_empty(),
    ));
    out
}

/// A client for `config`, shared by the pack's `web_fetch` definitions.
pub(crate) fn client(config: WebConfig) -> Arc<Client> {
    Arc::new(Client::new(config))
}
