//! A fetched body as text: the charset honoured (`encoding_rs`), HTML converted to Markdown
//! (`htmd`, main content only when the page marks it), JSON pretty-printed, other text as
//! is; binary content types refused before their body is read.
//!
//! The charset is the `Content-Type`'s, else a byte-order mark, else (HTML) a
//! `<meta charset>` in the first 1024 bytes, else UTF-8 when the bytes are UTF-8 and
//! windows-1252 (what browsers assume) when not. When the page has a `<main>` (or
//! `role="main"`) element, only it is converted, else its `<article>` elements, else the
//! whole body; scripts, styles, navigation and other non-content elements are dropped, and
//! links and images are made absolute against the page's final URL.

use std::rc::Rc;

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use htmd::{HtmlToMarkdown, Node};
use markup5ever_rcdom::NodeData;
use reqwest::Url;

use ptc::ToolError;

/// Elements that are never content.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "nav", "head",
];

/// What a body is converted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Html,
    Json,
    Text,
}

/// The media type of a `Content-Type` value, lower case, without parameters.
fn media_type(content_type: &str) -> String {
    let media = content_type.split(';').next().unwrap_or_default();
    media.trim().to_ascii_lowercase()
}

/// How a `Content-Type` is converted; `None` for a type that is not text.
pub(super) fn kind(content_type: &str) -> Option<Kind> {
    let media = media_type(content_type);
    let (top, sub) = media.split_once('/').unwrap_or((&media, ""));
    match (top, sub) {
        ("", _) => Some(Kind::Text),
        ("text", "html") | ("application", "xhtml+xml") => Some(Kind::Html),
        ("application", "json") => Some(Kind::Json),
        ("application", s) if s.ends_with("+json") => Some(Kind::Json),
        ("text", _) => Some(Kind::Text),
        ("application", s)
            if s.ends_with("+xml")
                || matches!(
                    s,
                    "xml"
                        | "javascript"
                        | "ecmascript"
                        | "x-javascript"
                        | "yaml"
                        | "x-yaml"
                        | "toml"
                        | "x-sh"
                        | "sql"
                        | "graphql"
                        | "x-ndjson"
                        | "x-www-form-urlencoded"
                ) =>
        {
            Some(Kind::Text)
        }
        _ => None,
    }
}

/// Refuse a content type that is not text, naming it.
pub(super) fn check_textual(content_type: &str, url: &Url) -> Result<(), ToolError> {
    match kind(content_type) {
        Some(_) => Ok(()),
        None => Err(ToolError::new(format!(
            "{url} is `{}`, not text: web_fetch returns HTML (as Markdown), JSON and text only",
            media_type(content_type)
        ))),
    }
}

/// `body` decoded as text, and converted by the content type; a body with no content type
/// that holds a NUL byte is refused as binary. `cut`: the body was cut at the cap (it may
/// end inside a character).
pub(super) fn to_text(
    body: &[u8],
    content_type: &str,
    url: &Url,
    cut: bool,
) -> Result<String, ToolError> {
    let kind = kind(content_type).unwrap_or(Kind::Text);
    if content_type.is_empty() && super::super::shared::looks_binary(&body[..body.len().min(8192)])
    {
        return Err(ToolError::new(format!(
            "{url} sent no content type and its body is binary: web_fetch returns text only"
        )));
    }
    let text = decode(body, content_type, kind, cut);
    Ok(match kind {
        Kind::Html => html_to_markdown(&text, url),
        Kind::Json => pretty_json(&text).unwrap_or(text),
        Kind::Text => text,
    })
}

/// `body` in its charset (see the module docs); `cut` as for [`to_text`].
pub(super) fn decode(body: &[u8], content_type: &str, kind: Kind, cut: bool) -> String {
    let declared = charset_param(content_type)
        .or_else(|| (kind == Kind::Html).then(|| meta_charset(body)).flatten())
        .and_then(|label| Encoding::for_label(label.as_bytes()));
    let encoding = declared.unwrap_or(match std::str::from_utf8(body) {
        Ok(_) => UTF_8,
        // A body cut at the cap may end inside a character: still UTF-8.
        Err(e) if cut && e.error_len().is_none() => UTF_8,
        Err(_) => WINDOWS_1252,
    });
    // `decode` lets a byte-order mark win, as browsers do.
    encoding.decode(body).0.into_owned()
}

/// The `charset` parameter of a `Content-Type` value.
fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        (key.trim().eq_ignore_ascii_case("charset"))
            .then(|| value.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// A `charset=` declared in the first 1024 bytes of an HTML document (`<meta charset="…">`
/// or `<meta http-equiv="Content-Type" content="text/html; charset=…">`).
fn meta_charset(body: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]).to_ascii_lowercase();
    let at = head.find("<meta")?;
    let rest = &head[at..];
    let value = &rest[rest.find("charset=")? + "charset=".len()..];
    let value = value.trim_start_matches(['"', '\'', ' ']);
    let end = value
        .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.:".contains(c)))
        .unwrap_or(value.len());
    Some(value[..end].to_string()).filter(|v| !v.is_empty())
}

/// `text` pretty-printed when it is JSON.
fn pretty_json(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    serde_json::to_string_pretty(&value).ok()
}

/// HTML as Markdown: the main content when the page marks it (see the module docs), links
/// and images made absolute against `base` (the page's final URL).
pub(super) fn html_to_markdown(html: &str, base: &Url) -> String {
    let converter = HtmlToMarkdown::builder()
        .skip_tags(SKIPPED.to_vec())
        .build();
    let Ok(tree) = converter.html_to_tree(html) else {
        return String::new();
    };
    absolute_links(&tree, base);
    let main = find(&tree, &|n| is(n, "main") || has_role_main(n));
    let parts = match main {
        Some(main) => vec![main],
        None => find_all(&tree, "article"),
    };
    if parts.is_empty() {
        return converter.tree_to_markdown(&tree);
    }
    let parts: Vec<String> = parts
        .iter()
        .map(|n| converter.tree_to_markdown(n))
        .collect();
    parts.join("\n\n")
}

/// Make every `href` and `src` under `node` absolute against `base` (a `#fragment` alone
/// stays as it is).
fn absolute_links(node: &Rc<Node>, base: &Url) {
    let mut stack = vec![node.clone()];
    while let Some(n) = stack.pop() {
        if let NodeData::Element { attrs, .. } = &n.data {
            for attr in attrs.borrow_mut().iter_mut() {
                let name = attr.name.local.as_ref();
                if (name == "href" || name == "src") && !attr.value.starts_with('#') {
                    if let Ok(url) = base.join(attr.value.trim()) {
                        attr.value = url.as_str().into();
                    }
                }
            }
        }
        stack.extend(n.children.borrow().iter().cloned());
    }
}

fn is(node: &Node, tag: &str) -> bool {
    matches!(&node.data, NodeData::Element { name, .. } if name.local.as_ref() == tag)
}

fn has_role_main(node: &Node) -> bool {
    let NodeData::Element { attrs, .. } = &node.data else {
        return false;
    };
    attrs
        .borrow()
        .iter()
        .any(|a| a.name.local.as_ref() == "role" && a.value.as_ref() == "main")
}

/// The first node (document order) that `test` accepts.
fn find(node: &Rc<Node>, test: &dyn Fn(&Node) -> bool) -> Option<Rc<Node>> {
    let mut stack = vec![node.clone()];
    while let Some(n) = stack.pop() {
        if test(&n) {
            return Some(n);
        }
        stack.extend(n.children.borrow().iter().rev().cloned());
    }
    None
}

/// The outermost `tag` elements, in document order.
fn find_all(node: &Rc<Node>, tag: &str) -> Vec<Rc<Node>> {
    let (mut out, mut stack) = (Vec::new(), vec![node.clone()]);
    while let Some(n) = stack.pop() {
        if is(&n, tag) {
            out.push(n);
        } else {
            stack.extend(n.children.borrow().iter().rev().cloned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_sort_into_html_json_text_and_binary() {
        assert_eq!(kind("text/html; charset=utf-8"), Some(Kind::Html));
        assert_eq!(kind("application/vnd.api+json"), Some(Kind::Json));
        assert_eq!(kind("text/plain"), Some(Kind::Text));
        assert_eq!(kind("application/atom+xml"), Some(Kind::Text));
        assert_eq!(kind(""), Some(Kind::Text));
        assert_eq!(kind("image/png"), None);
        assert_eq!(kind("application/octet-stream"), None);
        assert_eq!(kind("application/pdf"), None);
    }

    #[test]
    fn the_charset_comes_from_the_header_then_meta_then_utf8_else_windows_1252() {
        let latin1 = b"caf\xe9";
        assert_eq!(
            decode(latin1, "text/plain; charset=ISO-8859-1", Kind::Text, false),
            "café"
        );
        assert_eq!(decode(latin1, "text/plain", Kind::Text, false), "café");
        assert_eq!(
            decode("café".as_bytes(), "text/plain", Kind::Text, false),
            "café"
        );
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("日本語");
        let mut page = b"<html><head><meta charset=\"shift_jis\"></head><body>".to_vec();
        page.extend_from_slice(&sjis);
        assert!(decode(&page, "text/html", Kind::Html, false).contains("日本語"));
        // A UTF-8 body cut inside its last character stays UTF-8.
        assert_eq!(
            decode(&"café".as_bytes()[..4], "text/plain", Kind::Text, true),
            "caf\u{fffd}"
        );
    }

    #[test]
    fn main_content_is_converted_without_the_page_chrome() {
        let base = Url::parse("https://example.com/docs/page.html").unwrap();
        let md = html_to_markdown(
            "<html><head><title>T</title><style>p{}</style></head><body>\
             <header>Site</header><nav><a href=/>Home</a></nav>\
             <main><h1>Title</h1><p>Body <b>bold</b> <a href=other.html>next</a> \
             <a href=#top>top</a></p><script>x()</script></main>\
             <footer>(c)</footer></body></html>",
            &base,
        );
        assert_eq!(
            md,
            "# Title\n\nBody **bold** [next](https://example.com/docs/other.html) [top](#top)"
        );
    }
}
