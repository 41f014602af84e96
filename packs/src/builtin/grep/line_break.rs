//! Patterns written to match across lines. grep searches one line at a time, as ripgrep does
//! without `--multiline`: a class that includes a line break (`\s`, `[^"]`, `[\s\S]`, `(?s).`)
//! matches any of its other characters but never the break, so `a[\s\S]*?b` finds `a` and `b`
//! on one line only. A literal `\n` is refused outright; these compile, and are noted.

use regex_syntax::hir::{Class, Hir, HirKind};

/// How a pattern's classes meet a line break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reach {
    /// A class with a line break among other characters (`\s`, `[^a]`).
    InClass,
    /// A class of every character (`[\s\S]`, `(?s).`): written to cross lines.
    Anything,
}

/// The note for `pattern` (`found`: whether it matched anything): for a class of every
/// character always, for another class with a line break when nothing matched.
pub(super) fn line_break_note(pattern: &str, found: bool) -> Option<String> {
    let what = match reach(pattern)? {
        Reach::Anything => "`[\\s\\S]` and `(?s).` stop",
        Reach::InClass if !found => "a class that includes a line break (`\\s`, `[^…]`) stops",
        Reach::InClass => return None,
    };
    Some(format!(
        "lines are searched one at a time: {what} at the line's end, so no match spans lines \
         (to match across lines, read the file and search its text with a JS regex)"
    ))
}

/// The most a class of `pattern` reaches a line break (`None`: no class does, or the pattern
/// does not parse). A class other than one of everything that starts or ends the pattern
/// (`^\\s*assert`, `;\\s*$`) is not counted: a line break there would only widen a match
/// that is found on its line anyway.
fn reach(pattern: &str) -> Option<Reach> {
    let hir = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .build()
        .parse(pattern)
        .ok()?;
    let mut most = None;
    visit(&hir, true, &mut most);
    most
}

/// Visit `hir`; `edge`: it starts or ends the pattern, with nothing but anchors beyond it.
fn visit(hir: &Hir, edge: bool, most: &mut Option<Reach>) {
    match hir.kind() {
        HirKind::Class(class) => {
            let (breaks, all) = match class {
                Class::Unicode(c) => (
                    c.ranges()
                        .iter()
                        .any(|r| r.start() <= '\n' && '\n' <= r.end()),
                    c.ranges().len() == 1
                        && (c.ranges()[0].start(), c.ranges()[0].end()) == ('\0', char::MAX),
                ),
                Class::Bytes(c) => (
                    c.ranges()
                        .iter()
                        .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
                    c.ranges().len() == 1
                        && (c.ranges()[0].start(), c.ranges()[0].end()) == (0, 255),
                ),
            };
            match (breaks, all) {
                (true, true) => *most = Some(Reach::Anything),
                (true, false) if !edge => *most = (*most).max(Some(Reach::InClass)),
                _ => {}
            }
        }
        HirKind::Repetition(r) => visit(&r.sub, edge, most),
        HirKind::Capture(c) => visit(&c.sub, edge, most),
        HirKind::Alternation(subs) => subs.iter().for_each(|sub| visit(sub, edge, most)),
        HirKind::Concat(subs) => {
            let consuming = |sub: &Hir| !matches!(sub.kind(), HirKind::Look(_) | HirKind::Empty);
            let first = subs.iter().position(consuming);
            let last = subs.iter().rposition(consuming);
            for (at, sub) in subs.iter().enumerate() {
                let end = Some(at) == first || Some(at) == last;
                visit(sub, edge && end, most);
            }
        }
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_that_include_a_line_break_are_told_apart_from_those_that_do_not() {
        for pattern in ["a[\\s\\S]*?b", "(?s)a.*b", "x(?:[\\w\\W]+)"] {
            assert_eq!(reach(pattern), Some(Reach::Anything), "{pattern}");
        }
        for pattern in ["def\\s+main", "\"[^\"]*\"", "a(b|\\s)c"] {
            assert_eq!(reach(pattern), Some(Reach::InClass), "{pattern}");
        }
        // At the pattern's edges a line break would only widen a match found anyway.
        for pattern in ["^\\s*assert\\b", "return;\\s*$", "\\s+$", "(?:^|x)[^a]"] {
            assert_eq!(reach(pattern), None, "{pattern}");
        }
        for pattern in ["a.*b", "[a-z]+", "\\w+\\d", "[ \\t]+", "(unclosed"] {
            assert_eq!(reach(pattern), None, "{pattern}");
        }
    }

    #[test]
    fn a_class_of_everything_is_noted_always_another_only_when_nothing_matched() {
        assert!(line_break_note("a[\\s\\S]*?b", true).is_some());
        assert!(line_break_note("def\\s+main", false).is_some());
        assert_eq!(line_break_note("def\\s+main", true), None);
        assert_eq!(line_break_note("a.*b", false), None);
    }
}
