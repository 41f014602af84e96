//! Failures that point at the model's own code, like a compiler's diagnostics:
//!
//! ```text
//! run_code.ts:4:17: TypeError: cannot read property 'slice' of undefined
//!    4 | const n = files.slice(0, 3)
//!      |                 ^
//! ```
//!
//! Positions come from the program that ran (shaped and stripped) and are mapped back to the
//! program as written ([`PositionMap`]); frames of the glue and the engine are never shown. An
//! uncaught `ToolCallError` names its tool and the line that called it. A TypeError reading a
//! property of `undefined` names the expression that was. Where the cause is known, a hint
//! follows (`await` outside an async function, a tool call used without `await`).

use serde::Deserialize;

use crate::program::positions::PositionMap;

/// The most characters of a source line shown (around the column).
const LINE_WINDOW: usize = 120;

/// An uncaught error as the glue describes it (`describeError`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Described {
    /// `TypeError`, `ToolCallError`, … (`None` for a thrown value that is not an error).
    pub(crate) name: Option<String>,
    /// The message (for a thrown non-error, the value as console.log shows it).
    pub(crate) message: String,
    /// The program's own frames, innermost first, in the running program's positions.
    #[serde(default)]
    pub(crate) frames: Vec<(usize, usize)>,
    /// For a `ToolCallError`: its tool.
    #[serde(default)]
    pub(crate) tool: Option<String>,
    /// For a `ToolCallError`: where the tool was called (`"line:col"`).
    #[serde(default)]
    pub(crate) site: Option<String>,
}

/// What a diagnostic needs of the program.
pub(crate) struct Source<'a> {
    /// The program as written.
    pub(crate) text: &'a str,
    /// The running program's positions → the program as written.
    pub(crate) map: &'a PositionMap,
    /// The file name positions are shown in (`run_code.ts`).
    pub(crate) filename: &'a str,
}

impl Source<'_> {
    /// The line of the program as written at 1-based `line`.
    fn line(&self, line: usize) -> Option<&str> {
        self.text
            .split('\n')
            .nth(line.checked_sub(1)?)
            .map(|l| l.trim_end_matches('\r'))
    }

    /// `   4 | text` and `     |    ^` under 1-based `col` (the text windowed around it).
    pub(crate) fn snippet(&self, line: usize, col: usize) -> String {
        let Some(text) = self.line(line) else {
            return String::new();
        };
        let chars: Vec<char> = text.chars().collect();
        let col = col.clamp(1, chars.len() + 1);
        let start = col
            .saturating_sub(LINE_WINDOW / 2)
            .min(chars.len().saturating_sub(LINE_WINDOW));
        let end = (start + LINE_WINDOW).min(chars.len());
        let shown: String = chars[start..end].iter().collect();
        let (open, close) = (
            if start > 0 { "…" } else { "" },
            if end < chars.len() { "…" } else { "" },
        );
        let pad: String = chars[start..col - 1]
            .iter()
            .map(|&c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let number = line.to_string();
        let gutter = " ".repeat(number.len());
        format!(
            "\n {number} | {open}{shown}{close}\n {gutter} | {}{pad}^",
            " ".repeat(open.chars().count())
        )
    }

    /// `run_code.ts:L:C` of a running position, and the position as written.
    pub(crate) fn at(&self, line: usize, col: usize) -> (String, usize, usize) {
        let (line, col) = self.map.original(line, col);
        (format!("{}:{line}:{col}", self.filename), line, col)
    }
}

/// The 1-based `line` of `text` and a caret under 1-based `col` (in characters), as every
/// diagnostic of a program shows them: `"\n 4 | text\n   |    ^"` (a long line windowed around the
/// column); empty when `text` has no such line. For diagnostics made outside the engine (a
/// static type check).
pub fn source_snippet(text: &str, line: usize, col: usize) -> String {
    let source = Source {
        text,
        map: &PositionMap::default(),
        filename: "",
    };
    source.snippet(line, col)
}

/// The message of an uncaught error (see the module docs).
pub(crate) fn exception(described: &Described, source: &Source<'_>) -> String {
    let name = described.name.as_deref();
    let head = match name {
        Some(name) if described.message.is_empty() => name.to_string(),
        Some(name) => format!("{name}: {}", described.message),
        None => format!(
            "Uncaught {} (a thrown value that is not an Error has no line: throw new Error(…))",
            described.message
        ),
    };
    if let (Some(tool), Some(site)) = (&described.tool, described.site.as_deref()) {
        if let Some((line, col)) = crate::left::parse_site(site) {
            let (at, line, col) = source.at(line, col);
            return format!(
                "ToolCallError: {tool} failed at {at}: {}{}",
                described.message,
                source.snippet(line, col)
            );
        }
    }
    let Some(&(line, col)) = described.frames.first() else {
        return head;
    };
    let (at, line, col) = source.at(line, col);
    let hint = match name {
        Some("TypeError") => {
            let mut hint = unreadable_hint(&described.message, source, line, col);
            let unawaited = missing_await_hint(source, line);
            if unawaited.is_empty() && described.message.ends_with("not iterable") {
                hint.push_str(NOT_ITERABLE_HINT);
            }
            hint.push_str(&unawaited);
            hint
        }
        _ => String::new(),
    };
    format!("{at}: {head}{}{hint}", source.snippet(line, col))
}

/// The message of a syntax failure at a running position (already mapped for strip errors:
/// `mapped`).
pub(crate) fn syntax(
    line: usize,
    col: usize,
    message: &str,
    source: &Source<'_>,
    mapped: bool,
) -> String {
    let (line, col) = if mapped {
        (line, col)
    } else {
        source.map.original(line, col)
    };
    let lines = source.text.split('\n').count();
    let last = source.text.trim_end().split('\n').count().max(1);
    let (line, col, hint) = if line > last
        || (line == lines && source.line(line).is_none_or(|t| t.trim().is_empty()))
    {
        // Past the program's last line: something opened was never closed.
        let end = source.line(last).map_or(1, |t| t.chars().count() + 1);
        let hint = "\n(the program ended early: a `{`, `(`, `[`, string or comment is not closed)";
        (last, end, hint)
    } else {
        let text = source.line(line).unwrap_or("");
        (line, col, await_hint(message, text, col))
    };
    format!(
        "{}:{line}:{col}: {message}{}{hint}",
        source.filename,
        source.snippet(line, col)
    )
}

/// A `line:col message` failure from stripping, rendered with its source line.
pub(crate) fn syntax_message(message: &str, source: &Source<'_>) -> String {
    let parsed = message.split_once(' ').and_then(|(head, rest)| {
        let (line, col) = head.split_once(':')?;
        Some((line.parse().ok()?, col.parse().ok()?, rest))
    });
    match parsed {
        Some((line, col, rest)) => syntax(line, col, rest, source, true),
        None => message.to_string(),
    }
}

/// For a parse error right after an `await` (or about one): `await` only works in an async
/// function.
fn await_hint(message: &str, line: &str, col: usize) -> &'static str {
    let before: String = line.chars().take(col.saturating_sub(1)).collect();
    let after_await = before.trim_end().ends_with("await");
    let about_await = message.contains("await")
        || (after_await && (message.contains("Expected") || message.contains("Unexpected")));
    if about_await {
        "\n(`await` only works directly in the program or inside an `async` function: use \
         for…of, or Promise.all over map(async …))"
    } else {
        ""
    }
}

/// For a TypeError iterating what is not a list (QuickJS: "value is not iterable", V8: "r is
/// not iterable"): most often a tool's result, which is an object.
const NOT_ITERABLE_HINT: &str = "\n(for…of, spread and destructuring need an array or other \
     iterable: a tool's result is an object, with its lists in fields)";

/// For a TypeError reading a property of `undefined`/`null`: which expression was (see
/// [`crate::unreadable`]), e.g. `(res.match is undefined)`.
fn unreadable_hint(message: &str, source: &Source<'_>, line: usize, col: usize) -> String {
    let Some((property, of)) = crate::unreadable::unreadable(message) else {
        return String::new();
    };
    let text = source.line(line).unwrap_or_default();
    match crate::unreadable::expression(text, col, property) {
        Some((expression, _)) => {
            format!("\n({expression} is {of}, so .{property} cannot be read)")
        }
        None => String::new(),
    }
}

/// For a TypeError: the failing line, or else the first line of the program, that calls a
/// tool without `await`.
fn missing_await_hint(source: &Source<'_>, line: usize) -> String {
    let unawaited = |text: &str| match tool_call_at(text) {
        Some(at) => {
            let before = &text[..at];
            !before.contains("await")
                && !before.contains("return")
                && !before.contains("Promise.")
                && !text.contains(".then(")
        }
        None => false,
    };
    if source.line(line).is_some_and(unawaited) {
        return "\n(tool calls return Promises: did you forget `await`?)".into();
    }
    let assigned = source
        .text
        .split('\n')
        .position(|text| text.contains('=') && unawaited(text));
    match assigned {
        Some(i) => format!(
            "\n(line {} keeps a tool call's Promise, not its result: did you forget `await`?)",
            i + 1
        ),
        None => String::new(),
    }
}

/// Where `text` calls a tool (`tools.name(` or `tools[`), outside string literals.
fn tool_call_at(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut quote = None;
    for (at, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q && (at == 0 || bytes[at - 1] != b'\\') => quote = None,
            Some(_) => {}
            None if matches!(b, b'\'' | b'"' | b'`') => quote = Some(b),
            None if bytes[at..].starts_with(b"tools") => {
                let word_start = at == 0
                    || !(bytes[at - 1].is_ascii_alphanumeric()
                        || matches!(bytes[at - 1], b'_' | b'$' | b'.'));
                let rest = &text[at + 5..];
                let called = rest.starts_with('[')
                    || rest.strip_prefix('.').is_some_and(|name| {
                        let end = name
                            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                            .unwrap_or(name.len());
                        end > 0 && name[end..].trim_start().starts_with('(')
                    });
                if word_start && called {
                    return Some(at);
                }
            }
            None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_call_is_found_outside_strings_only() {
        assert_eq!(tool_call_at("const r = tools.read({ a })"), Some(10));
        assert_eq!(tool_call_at("const r = tools[name](args)"), Some(10));
        assert_eq!(
            tool_call_at("x = 'see tools.read(' + tools.grep(q)"),
            Some(24)
        );
        assert_eq!(tool_call_at("const s = \"uses tools.x(\" + n"), None);
        assert_eq!(tool_call_at("const n = mytools.read(1)"), None);
        assert_eq!(tool_call_at("const n = tools.length"), None);
    }

    fn source<'a>(text: &'a str, map: &'a PositionMap) -> Source<'a> {
        Source {
            text,
            map,
            filename: "run_code.ts",
        }
    }

    /// A `TypeError` saying `message`, thrown at `frame` (line, column).
    fn type_error(message: &str, frame: (usize, usize)) -> Described {
        Described {
            name: Some("TypeError".into()),
            message: message.into(),
            frames: vec![frame],
            ..Default::default()
        }
    }

    #[test]
    fn an_exception_shows_its_line_and_a_caret() {
        let text = "const files = undefined;\nconst n = files.slice(0, 3)";
        let map = PositionMap::new(text);
        let described = type_error("cannot read property 'slice' of undefined", (2, 17));
        assert_eq!(
            exception(&described, &source(text, &map)),
            "run_code.ts:2:17: TypeError: cannot read property 'slice' of undefined\n 2 | const n = files.slice(0, 3)\n   |                 ^\n(files is undefined, so .slice cannot be read)"
        );
    }

    #[test]
    fn a_tool_call_error_names_its_tool_and_call_site() {
        let text = "const x = 1;\nconst r = await tools.grep({ glob: '*' })";
        let map = PositionMap::new(text);
        let described = Described {
            name: Some("ToolCallError".into()),
            message: "Invalid arguments for tool grep: /glob: unknown".into(),
            tool: Some("grep".into()),
            site: Some("2:23".into()),
            ..Default::default()
        };
        let shown = exception(&described, &source(text, &map));
        assert!(
            shown.starts_with("ToolCallError: grep failed at run_code.ts:2:23: Invalid arguments"),
            "{shown}"
        );
        assert!(shown.ends_with("|                       ^"), "{shown}");
    }

    #[test]
    fn hints_for_known_causes() {
        let text = "const r = tools.read({ file_path: 'a' });\nr.lines.map(l => l)";
        let map = PositionMap::new(text);
        let described = type_error("cannot read property 'map' of undefined", (2, 1));
        let shown = exception(&described, &source(text, &map));
        assert!(shown.contains("did you forget `await`?"), "{shown}");
        assert!(
            shown.contains("\n(r.lines is undefined, so .map cannot be read)"),
            "{shown}"
        );
        // Iterating a result: its lists are fields; iterating a Promise: the missing await.
        let not_iterable = |text: &str| {
            let map = PositionMap::new(text);
            exception(
                &type_error("value is not iterable", (2, 1)),
                &source(text, &map),
            )
        };
        let shown = not_iterable(
            "const r = await tools.glob({ pattern: '*' });
for (const p of r) {}",
        );
        assert!(
            shown.contains("a tool's result is an object, with its lists in fields"),
            "{shown}"
        );
        let shown = not_iterable(
            "const r = 1;
for (const p of tools.glob({ pattern: '*' })) {}",
        );
        assert!(
            shown.contains("did you forget `await`?") && !shown.contains("lists in fields"),
            "{shown}"
        );
        // swc points at the token after the `await`.
        let shown = syntax(
            1,
            25,
            "Expected ';', got 'tools'",
            &source("xs.forEach(x => { await tools.a(x) })", &map),
            true,
        );
        assert!(shown.contains("use for…of"), "{shown}");
        // Elsewhere on a line that awaits, a parse error is not about `await`.
        let text = "const r = await tools.grep({ pattern: \"TODO\" };";
        let shown = syntax(1, 47, "Expected ',', got ';'", &source(text, &map), true);
        assert!(!shown.contains("`await` only works"), "{shown}");
        // Past the last line: something opened was never closed.
        let text = "for (const m of ms) {\n  f(m);\n";
        let shown = syntax(4, 1, "Expression expected", &source(text, &map), true);
        assert!(
            shown.starts_with("run_code.ts:2:8: Expression expected"),
            "{shown}"
        );
        assert!(shown.contains("the program ended early"), "{shown}");
    }
}
