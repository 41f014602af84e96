//! Backslashes a string drops: `"^export\s+\w+"` is `"^exports+w+"` to JavaScript, so a regex
//! pattern written in a plain string matches nothing and nothing says so. Before a run, each
//! string or template literal whose text holds such an escape (a letter that is no string
//! escape, or a regex metacharacter) gets one note at its site; so does `\b`, a valid escape
//! (backspace) that a program means as a word boundary. A tagged template (`String.raw`…) is
//! left alone, since its tag can read the text as written, and so are regex literals and types.

use swc_common::{BytePos, Span};
use swc_ecma_ast::{ModuleItem, Str, TaggedTpl, Tpl, TsType};
use swc_ecma_visit::{Visit, VisitWith};

use super::shape::line_col;
use crate::{Note, NoteKind};

/// The most literals noted in one program (a slip is usually made the same way throughout; the
/// rest are counted, and the run's own notes keep room).
pub(crate) const MAX_NOTED: usize = crate::MAX_NOTES / 2;

/// The notes on the literals of `items` (at most [`MAX_NOTED`], sites as in `text`, which
/// `offset` indexes), and how many more literals would have been noted.
pub(super) fn notes(
    items: &[ModuleItem],
    text: &str,
    offset: impl Fn(BytePos) -> usize,
) -> (Vec<Note>, usize) {
    let mut finder = Finder {
        text,
        offset,
        notes: Vec::new(),
        more: 0,
    };
    for item in items {
        item.visit_with(&mut finder);
    }
    (finder.notes, finder.more)
}

struct Finder<'a, F> {
    text: &'a str,
    offset: F,
    notes: Vec<Note>,
    more: usize,
}

impl<F: Fn(BytePos) -> usize> Finder<'_, F> {
    /// Note the literal at `span` if its `raw` texts drop an escape.
    fn literal<'r>(&mut self, span: Span, raw: impl Iterator<Item = &'r str>) {
        let mut dropped = Vec::new();
        for part in raw {
            for escaped in dropped_escapes(part) {
                if !dropped.contains(&escaped) {
                    dropped.push(escaped);
                }
            }
        }
        if dropped.is_empty() {
            return;
        }
        if self.notes.len() >= MAX_NOTED {
            self.more += 1;
            return;
        }
        let (subject, text) = describe(&dropped);
        self.notes.push(Note {
            kind: NoteKind::Note,
            site: Some(line_col(self.text, (self.offset)(span.lo))),
            subject,
            text,
            count: 1,
        });
    }
}

impl<F: Fn(BytePos) -> usize> Visit for Finder<'_, F> {
    fn visit_str(&mut self, lit: &Str) {
        if let Some(raw) = &lit.raw {
            // The raw text keeps its quotes; neither is an escape.
            self.literal(lit.span, std::iter::once(&raw[1..raw.len() - 1]));
        }
    }

    fn visit_tpl(&mut self, tpl: &Tpl) {
        let raw = tpl.quasis.iter().map(|quasi| &*quasi.raw);
        self.literal(tpl.span, raw);
        tpl.exprs.visit_with(self);
    }

    fn visit_tagged_tpl(&mut self, tagged: &TaggedTpl) {
        tagged.tag.visit_with(self);
        tagged.tpl.exprs.visit_with(self);
    }

    fn visit_ts_type(&mut self, _: &TsType) {}
}

/// The characters whose escape in `raw` (a literal's text between its delimiters) a string
/// drops and a regex would not, and `b` for a `\b`, in order. `\$` is left alone: templates
/// need it before `{`, and a program writes it in strings by the same habit.
fn dropped_escapes(raw: &str) -> Vec<char> {
    let mut dropped = Vec::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            continue;
        }
        let Some(escaped) = chars.next() else { break };
        let kept = match escaped {
            'b' => false,
            'a'..='z' | 'A'..='Z' => matches!(escaped, 'f' | 'n' | 'r' | 't' | 'v' | 'x' | 'u'),
            '.' | '(' | ')' | '[' | ']' | '{' | '}' | '*' | '+' | '?' | '|' | '^' => false,
            _ => true,
        };
        if !kept {
            dropped.push(escaped);
        }
    }
    dropped
}

/// The subject (`"\s", "\w"`) and text of the note on a literal that drops `escapes`.
fn describe(escapes: &[char]) -> (String, String) {
    let list = |f: &dyn Fn(char) -> String| escapes.iter().map(|&c| f(c)).collect::<Vec<_>>();
    let subject = list(&|c| format!("\"\\{c}\"")).join(", ");
    let read = list(&|c| match c {
        'b' => "a backspace".to_string(),
        _ => format!("\"{c}\""),
    })
    .join(", ");
    let doubled = list(&|c| format!("\"\\\\{c}\"")).join(", ");
    let (these, is) = match escapes.len() {
        1 => ("this", "is"),
        _ => ("these", "are"),
    };
    let text = format!(
        "in a string {these} {is} just {read}, not a regex escape: write {doubled} \
         (or use String.raw`…`, or a regex literal /…/)"
    );
    (subject, text)
}

#[cfg(test)]
mod tests {
    use super::{describe, dropped_escapes, MAX_NOTED};
    use crate::program::{positions::PositionMap, shape::shape};

    #[test]
    fn escapes_a_string_drops_are_found_and_string_escapes_are_not() {
        let quoted = dropped_escapes;
        assert_eq!(quoted(r"^export function\s+\w+"), ['s', 'w']);
        assert_eq!(
            quoted(r"\d\D\S\W\B\.\(\)\[\]\{\}\*\+\?\|\^\p"),
            [
                'd', 'D', 'S', 'W', 'B', '.', '(', ')', '[', ']', '{', '}', '*', '+', '?', '|',
                '^', 'p'
            ]
        );
        assert_eq!(quoted(r"\bword\b"), ['b', 'b']);
        let fine = r#"\n\t\r\\\'\"\0\x41\u0041\u{41}\v\f\/\-\:\$\`"#;
        assert!(quoted(fine).is_empty(), "{:?}", quoted(fine));
        assert!(quoted("a\\\nb").is_empty(), "a line continuation");
        assert!(quoted(r"\\s\\w").is_empty(), "doubled backslashes");
    }

    #[test]
    fn the_note_names_each_escape_once_and_what_a_string_makes_of_it() {
        assert_eq!(
            describe(&['s']),
            (
                r#""\s""#.to_string(),
                r#"in a string this is just "s", not a regex escape: write "\\s" (or use String.raw`…`, or a regex literal /…/)"#
                    .to_string()
            )
        );
        let (subject, text) = describe(&['b', 'w']);
        assert_eq!(subject, r#""\b", "\w""#);
        assert!(
            text.starts_with(r#"in a string these are just a backspace, "w", not a regex escape: write "\\b", "\\w""#),
            "{text}"
        );
    }

    #[test]
    fn past_the_most_noted_literals_the_rest_are_counted() {
        let source = "'\\s';\n".repeat(MAX_NOTED + 3) + "return 1";
        let notes = shape(&source, 0).unwrap().notes;
        assert_eq!(notes.left_out, 3);
        let kept = notes.into_kept(&PositionMap::new(&source));
        assert_eq!(kept.len(), MAX_NOTED);
        assert_eq!(kept[1].site, Some((2, 1)));
    }
}
