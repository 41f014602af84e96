//! How deeply a program nests, estimated by one linear scan that never recurses.
//!
//! swc's parser, its visitors and the drop of its syntax tree recurse once per level of nesting,
//! so a program such as `[` × 5,000, `1+` × 50,000 or `if (a)` × 50,000 would overflow any thread's
//! stack and abort the whole process. [`estimate`] bounds the depth of the syntax tree *from above*
//! before swc sees the text, so a program can be refused (or given a large stack) beforehand.
//!
//! The scan knows comments, strings, template literals (with `${…}`) and regular expressions, and
//! counts per open bracket level:
//!
//! - every bracket group (`(…)`, `[…]`, `{…}`, a template literal) as one level while open and as
//!   one link of its enclosing level's chain once closed (`f(a)(b)(c)` and `x[0][0]` nest left);
//! - every operator and nesting keyword (`+`, `.`, `=>`, `?`, `:`, `if`, `else`, `await`, `new`, …)
//!   as one link of the current level's chain (`1+1+1`, `a.b.c`, `if (a) if (b) x` nest), and
//!   a run of operator characters that no single operator spells as one link per character
//!   (`!!!…`, `~-+…`, `......`, `x!!!` are prefix or postfix operators inside one another);
//! - every type-argument `<` until its `>` (`Array<Array<…>>`).
//!
//! A level's chain starts over only where its siblings begin: after `,` (list items), after `;`
//! unless `else` follows, after `}` when a statement keyword follows, and at a line break where
//! automatic semicolon insertion must end the statement (a value on one line, a name on the next).
//! The estimate at a point is the sum over the open levels; [`estimate`] returns its maximum.
//!
//! A `/` starts a regular expression or divides depending on the grammar around it. The scan
//! decides as JavaScript tokenizers do (after a value it divides, after an operator or a reserved
//! word it starts a regex, after the `)` of an `if`/`while`/`for`/`with` header it starts a regex).
//! Where that is not enough to know (after `}`, after `await`, `yield` or `of`, which may be names),
//! both readings must agree: if the text up to the next `/` on the line holds a bracket, a quote
//! or a comment, the reading would change what counts, and the position is reported as
//! ambiguous instead ([`Nesting::ambiguous`]); the program is then refused with a hint to wrap
//! the expression in parentheses.

/// The deepest estimate a program may have (far above hand-written code: real programs a model
/// writes stay well under 100).
pub(crate) const MAX_NESTING: usize = 1_000;

/// The result of [`estimate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Nesting {
    /// The deepest estimated nesting.
    pub(crate) depth: usize,
    /// The byte offset where that depth was first reached.
    pub(crate) at: usize,
    /// The byte offset of a `/` whose reading (regex or division) the scan cannot decide and
    /// which would change the estimate (see the module docs).
    pub(crate) ambiguous: Option<usize>,
    /// The byte offset of the first `}` that closes more than the program opened: in a
    /// function body, that would close the function itself.
    pub(crate) stray_brace: Option<usize>,
}

/// An upper bound on how deeply the syntax tree of `source` nests (see the module docs).
pub(crate) fn estimate(source: &str) -> Nesting {
    let mut scan = Scan::new(source.as_bytes());
    scan.run();
    Nesting {
        depth: scan.max,
        at: scan.max_at,
        ambiguous: scan.ambiguous,
        stray_brace: scan.stray_brace,
    }
}

/// What kind of bracket opened a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Root,
    Paren,
    Bracket,
    Brace,
    /// A template literal's text (between backticks and `${…}` parts).
    Template,
    /// A template literal's `${…}` part.
    Substitution,
}

/// One open bracket level.
#[derive(Debug, Clone, Copy)]
struct Level {
    open: Open,
    /// The estimate of the enclosing levels when this one opened.
    base: usize,
    /// Links in the current chain of this level.
    chain: usize,
    /// Type-argument `<` not yet closed by `>` on this level.
    angles: usize,
    /// A paren that holds an `if`/`while`/`for`/`with` header (a `/` after it starts a regex).
    header: bool,
}

/// The last significant token, for regular-expression and line-break decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Start of text, an operator, an opening bracket, `,` or `;`: a `/` starts a regex.
    Operator,
    /// A name, a value keyword (`this`, `true`, …) or a property name: a `/` divides.
    Name,
    /// A reserved word that expects an operand (`return`, `typeof`, `else`, …): a `/` starts a
    /// regex.
    Keyword,
    /// `await`, `yield` or `of`: keywords or plain names, depending on where they stand.
    MaybeName,
    /// A number, string, template or regex literal.
    Literal,
    /// A `)` (`header`: it closed an `if`/`while`/`for`/`with` header).
    CloseParen { header: bool },
    /// A `]`.
    CloseBracket,
    /// A `}`.
    CloseBrace,
}

/// How many links a run of operator characters counts for: one operator counts one or two (as
/// written: `+`, `===`, `>>>=` …), but a run no single operator spells holds several, and each
/// may be a prefix operator one level deeper than the last (`!!!…`, `~-+…`, `......`), so
/// every character counts.
fn weight(op: &[u8]) -> usize {
    const LONG_OPERATORS: &[&[u8]] = &[
        b"===", b"!==", b"**=", b"...", b"<<=", b">>=", b">>>", b">>>=", b"&&=", b"||=", b"??=",
    ];
    if op.len() <= 2 || LONG_OPERATORS.contains(&op) {
        op.len().clamp(1, 2)
    } else {
        op.len()
    }
}

mod lexemes;
mod probe;
#[cfg(test)]
mod tests;
mod words;

use lexemes::{is_name_part, is_name_start, is_operator_char};
pub(crate) use probe::starts_in_code;
use words::{CONTINUING, MAYBE_NAMES, NESTING_WORDS, OPERAND_KEYWORDS, STATEMENT_WORDS};

struct Scan<'a> {
    text: &'a [u8],
    pos: usize,
    levels: Vec<Level>,
    prev: Prev,
    /// The next `(` opens an `if`/`while`/`for`/`with` header.
    header_next: bool,
    /// The last word was `for` (for `for await (`).
    after_for: bool,
    /// The last token was `.` or `?.`: the next word is a property name.
    after_dot: bool,
    /// A line break since the last significant token.
    newline: bool,
    /// A `;` just ended this level's statement; the chain starts over unless `else` follows.
    after_semicolon: bool,
    max: usize,
    max_at: usize,
    ambiguous: Option<usize>,
    stray_brace: Option<usize>,
}

impl<'a> Scan<'a> {
    fn new(text: &'a [u8]) -> Self {
        Scan {
            text,
            pos: 0,
            levels: vec![Level {
                open: Open::Root,
                base: 0,
                chain: 0,
                angles: 0,
                header: false,
            }],
            prev: Prev::Operator,
            header_next: false,
            after_for: false,
            after_dot: false,
            newline: false,
            after_semicolon: false,
            max: 1,
            max_at: 0,
            ambiguous: None,
            stray_brace: None,
        }
    }

    fn top(&mut self) -> &mut Level {
        self.levels
            .last_mut()
            .expect("the root level is never popped")
    }

    fn top_open(&self) -> Open {
        self.levels.last().map_or(Open::Root, |l| l.open)
    }

    fn current(&self) -> usize {
        let top = self.levels.last().expect("the root level is never popped");
        top.base + 1 + top.chain + top.angles
    }

    fn record(&mut self) {
        let now = self.current();
        if now > self.max {
            self.max = now;
            self.max_at = self.pos;
        }
    }

    fn link(&mut self, n: usize) {
        self.top().chain += n;
        self.record();
    }

    fn restart_chain(&mut self) {
        let top = self.top();
        top.chain = 0;
        top.angles = 0;
    }

    fn push(&mut self, open: Open, header: bool) {
        let base = self.current();
        self.levels.push(Level {
            open,
            base,
            chain: 0,
            angles: 0,
            header,
        });
        self.record();
    }

    /// Close the innermost level if it was opened by `open`; the group becomes one link of the
    /// level around it. A closer that does not match closes nothing.
    fn pop(&mut self, open: Open) -> Option<Level> {
        if self.levels.len() == 1 || self.top_open() != open {
            return None;
        }
        let level = self.levels.pop();
        self.link(1);
        level
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.text.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn run(&mut self) {
        while self.pos < self.text.len() {
            self.step();
        }
    }

    /// One lexeme: template text, a line break, a blank, a comment or a token.
    fn step(&mut self) {
        if self.top_open() == Open::Template {
            self.template_text();
            return;
        }
        if self.line_break() {
            return;
        }
        match self.text[self.pos] {
            b' ' | b'\t' | 0x0b | 0x0c => self.pos += 1,
            b'/' if self.peek(1) == b'/' => self.line_comment(),
            b'/' if self.peek(1) == b'*' => self.block_comment(),
            c => self.token(c),
        }
    }

    /// One significant token starting at `c`.
    fn token(&mut self, c: u8) {
        let newline = std::mem::take(&mut self.newline);
        let after_dot = std::mem::take(&mut self.after_dot);
        if is_name_start(c) {
            let start = self.pos;
            self.pos += 1;
            while self.pos < self.text.len() && is_name_part(self.text[self.pos]) {
                self.pos += 1;
            }
            let word = &self.text[start..self.pos];
            self.word(word, newline, after_dot || c == b'#');
            return;
        }
        let header = std::mem::take(&mut self.header_next);
        self.after_for = false;
        if std::mem::take(&mut self.after_semicolon) {
            self.restart_chain();
        }
        if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_ascii_digit()) {
            self.number();
            self.prev = Prev::Literal;
            return;
        }
        match c {
            b'\'' | b'"' => {
                self.string(c);
                self.prev = Prev::Literal;
            }
            b'`' => {
                self.pos += 1;
                self.push(Open::Template, false);
            }
            b'(' => {
                self.pos += 1;
                self.push(Open::Paren, header);
                self.prev = Prev::Operator;
            }
            b'[' => {
                self.pos += 1;
                self.push(Open::Bracket, false);
                self.prev = Prev::Operator;
            }
            b'{' => {
                self.pos += 1;
                self.push(Open::Brace, false);
                self.prev = Prev::Operator;
            }
            b')' => {
                self.pos += 1;
                let header = self.pop(Open::Paren).is_some_and(|l| l.header);
                self.prev = Prev::CloseParen { header };
            }
            b']' => {
                self.pos += 1;
                self.pop(Open::Bracket);
                self.prev = Prev::CloseBracket;
            }
            b'}' => {
                self.pos += 1;
                if self.top_open() == Open::Substitution {
                    // Back in the template's text.
                    self.levels.pop();
                    return;
                }
                if self.levels.len() == 1 && self.stray_brace.is_none() {
                    self.stray_brace = Some(self.pos - 1);
                }
                self.pop(Open::Brace);
                self.prev = Prev::CloseBrace;
            }
            b',' => {
                self.pos += 1;
                self.top().chain = 0;
                self.prev = Prev::Operator;
            }
            b';' => {
                self.pos += 1;
                self.after_semicolon = true;
                self.prev = Prev::Operator;
            }
            b'/' if self.slash_starts_regex() => {
                self.regex();
                self.prev = Prev::Literal;
            }
            _ => self.punctuator(),
        }
    }

    /// A name or keyword; `property` when it cannot be a keyword (after `.`, or `#name`).
    fn word(&mut self, word: &'a [u8], newline: bool, property: bool) {
        let continuing = CONTINUING.contains(&word);
        let restart = if std::mem::take(&mut self.after_semicolon) {
            word != b"else"
        } else {
            match self.prev {
                Prev::CloseBrace => !continuing && (newline || STATEMENT_WORDS.contains(&word)),
                Prev::Name | Prev::Literal | Prev::CloseBracket => newline && !continuing,
                Prev::CloseParen { header: false } => newline && !continuing,
                _ => false,
            }
        };
        if restart {
            self.restart_chain();
        }
        let keyword = !property;
        self.header_next = keyword
            && (matches!(word, b"if" | b"while" | b"for" | b"with")
                || (word == b"await" && self.after_for));
        self.after_for = keyword && word == b"for";
        if keyword && NESTING_WORDS.contains(&word) {
            self.link(1);
        }
        self.prev = if !keyword {
            Prev::Name
        } else if OPERAND_KEYWORDS.contains(&word) {
            Prev::Keyword
        } else if MAYBE_NAMES.contains(&word) {
            Prev::MaybeName
        } else {
            Prev::Name
        };
    }

    fn punctuator(&mut self) {
        let start = self.pos;
        let run = self.text[start..]
            .iter()
            .take_while(|&&b| is_operator_char(b))
            .count()
            .max(1);
        self.pos += run;
        let op = &self.text[start..self.pos];
        let value_before = matches!(
            self.prev,
            Prev::Name
                | Prev::MaybeName
                | Prev::Literal
                | Prev::CloseParen { .. }
                | Prev::CloseBracket
                | Prev::CloseBrace
        );
        if op == b"." || op == b"?." {
            self.after_dot = true;
        }
        let opening_angles = op.iter().filter(|&&b| b == b'<').count();
        if opening_angles > 0 {
            self.top().angles += opening_angles;
        } else if op.iter().all(|&b| b == b'>') {
            let top = self.top();
            top.angles = top.angles.saturating_sub(op.len());
        }
        self.link(weight(op));
        if matches!(op, b"++" | b"--") && value_before {
            // Postfix: the value stays a value.
            return;
        }
        self.prev = Prev::Operator;
    }
}
