//! The overview section of the up-front text with discovery on: how to find and call the
//! tools that are not declared, and one line per server or pack.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use super::settings::Grouping;
use crate::definition::ToolDefinition;

/// At most this many characters say what a group is for.
const ABOUT_CHARS: usize = 160;

/// The overview of `all` (the visible tools but the discovery tools), of which `shown` are
/// declared in full; `programs`: the model writes `run_code` programs.
pub(crate) fn text(
    all: &[Arc<ToolDefinition>],
    shown: &[Arc<ToolDefinition>],
    grouping: &Grouping,
    programs: bool,
) -> String {
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for tool in all {
        let group = grouping.group_of(tool.name());
        let short = tool
            .name()
            .strip_prefix(group)
            .and_then(|rest| rest.strip_prefix("__"))
            .unwrap_or(tool.name());
        groups.entry(group).or_default().push(short);
    }
    let hidden = all
        .iter()
        .filter(|t| !shown.iter().any(|s| Arc::ptr_eq(s, t)))
        .count();
    let mut out = String::from("## Finding tools\n");
    let _ = if programs {
        writeln!(
            out,
            "{hidden} of the {} tools are not declared above. Find them with `await tools.search_tools({{ query: \"what you need\" }})` \
(best first, each with its call signature), read the full declarations with `tools.describe_tools({{ names }})` if you need them, \
then call `tools.<name>(args)` (or `tools.call_tool({{ name, arguments }})` with a name in a variable): \
in one program, or search in one and call in the next. Any tool can be called by name without a search.",
            all.len()
        )
    } else {
        writeln!(
            out,
            "{hidden} of the {} tools are not listed. Find them with `search_tools` ({{ query }}: best first, each with its call \
signature; the tools found join your list), read their full declarations with `describe_tools` ({{ names }}), and call any tool by name \
with `call_tool` ({{ name, arguments }}).",
            all.len()
        )
    };
    out.push_str("Tools by server or pack (tool count: what it is for):\n");
    for (group, names) in &groups {
        let about = match grouping.about(group) {
            Some(about) => cut(&one_line(about), ABOUT_CHARS),
            None => names_line(names),
        };
        let _ = writeln!(out, "- {group} ({}): {about}", names.len());
    }
    out
}

/// Tool names, comma-separated, as many as fit.
fn names_line(names: &[&str]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        if out.len() + sep.len() + name.len() > ABOUT_CHARS {
            out.push_str(", …");
            break;
        }
        out.push_str(sep);
        out.push_str(name);
    }
    out
}

/// `text` on one line, control characters and runs of spaces collapsed.
pub(crate) fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` cut to at most `max` characters (at a word if one ends near), with `…`.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let end = text
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    let head = match head.rfind(' ') {
        Some(space) if space > end * 3 / 4 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end_matches([' ', ',', '.', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_at_a_word_near_the_end_and_collapsed_to_one_line() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("one two three four five", 16), "one two three…");
        assert_eq!(cut("abcdefghijklmnopqrstuvwxyz", 10), "abcdefghi…");
        assert_eq!(cut("ééééééééééé", 5), "éééé…", "characters, not bytes");
        assert_eq!(one_line("a\n\tb \u{7}  c"), "a b c");
    }

    #[test]
    fn names_fill_a_line_and_say_when_more_follow() {
        let names: Vec<String> = (0..40).map(|i| format!("tool_{i:02}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let line = names_line(&refs);
        assert!(line.len() <= ABOUT_CHARS + 5, "{line}");
        assert!(
            line.starts_with("tool_00, tool_01, ") && line.ends_with(", …"),
            "{line}"
        );
        assert_eq!(names_line(&["a", "b"]), "a, b");
    }
}
