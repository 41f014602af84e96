//! `ptc replay --html`: a session log as one self-contained waterfall page.
//!
//! Each root call is a timeline: its bar on top, its `run_code` sub-calls below on their
//! logged start and settle times, in lanes so that overlapping calls never share one,
//! coloured by outcome (ok, error, denied, cancelled, timeout, unsettled). Hovering a bar
//! shows what it was; clicking it shows its arguments, result summary, error and the
//! policy decision that ended it. Ctrl+wheel zooms a timeline, dragging pans it.
//!
//! The page needs no network: the style (`waterfall.css`) and script (`waterfall.js`)
//! are inlined, and the data is embedded as JSON with `<`, `>` and `&` escaped, so no
//! logged value can end the script element. Bars are drawn on canvases and only the
//! timelines near the viewport exist in the DOM, so a 10,000-call log stays responsive.
//! Every rendered timeline is a `section.run` whose `data-*` attributes (call id,
//! outcome, `data-calls`, `data-lanes`) describe it, with one `li.bar` per call
//! (`data-call-id`, `data-outcome`, `data-lane`, …) in a visually hidden list while a
//! run has at most 2,000 calls; `window.ptcWaterfall` exposes the layout.

mod data;

use super::{build_tree, SessionEvent};
use crate::registry::ToolRegistry;

const TEMPLATE: &str = include_str!("page.html");
const STYLE: &str = include_str!("waterfall.css");
const SCRIPT: &str = include_str!("waterfall.js");

/// Render `events` as one self-contained HTML page. `title` names the log; `skipped` lists the
/// lines that were skipped (the page says how many); with a registry, titles and summaries
/// come from the tools' presentation cards.
pub fn render_html(
    title: &str,
    events: &[SessionEvent],
    skipped: &[(usize, String)],
    registry: Option<&ToolRegistry>,
) -> String {
    let roots = build_tree(events);
    let page = data::page_data(title, &roots, skipped, registry);
    let json = serde_json::to_string(&page).unwrap_or_else(|_| "{}".into());
    let title = escape_html(title);
    let data = escape_script_json(&json);
    fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &title),
            ("{{STYLE}}", STYLE),
            ("{{SCRIPT}}", SCRIPT),
            ("{{DATA}}", &data),
        ],
    )
}

/// `template` with each placeholder replaced, in one pass (so no inserted text is read
/// again as a placeholder).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(key, _)| rest.starts_with(key)) {
            Some((key, value)) => {
                out.push_str(value);
                rest = &rest[key.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &rest[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text safe inside HTML elements and attributes.
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON safe inside a `<script>` element: no `<`, `>` or `&` (so no `</script>` or
/// `<!--`), and no line or paragraph separators; `JSON.parse` reads it unchanged.
fn escape_script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_its_element() {
        let json =
            serde_json::to_string(&serde_json::json!({"a": "</script><!-- & \u{2028}"})).unwrap();
        let safe = escape_script_json(&json);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["a"], "</script><!-- & \u{2028}");
    }
}
