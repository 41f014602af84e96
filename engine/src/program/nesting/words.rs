//! The words the nesting scan knows: which nest, which expect an operand, which may be names,
//! which continue a statement and which start one.

/// Words that make their operand (or body) one level deeper.
pub(super) const NESTING_WORDS: &[&[u8]] = &[
    b"if",
    b"else",
    b"for",
    b"while",
    b"do",
    b"with",
    b"await",
    b"new",
    b"typeof",
    b"void",
    b"delete",
    b"yield",
    b"in",
    b"of",
    b"instanceof",
    b"as",
    b"satisfies",
    b"keyof",
    b"extends",
    b"implements",
    b"return",
    b"throw",
    b"case",
    b"infer",
    b"is",
    b"asserts",
    b"unique",
    b"readonly",
];

/// Reserved words after which an expression (so a regex) may start. Every other word, contextual
/// keywords such as `let`, `as` or `type` included, may be a plain name, after which `/` divides.
pub(super) const OPERAND_KEYWORDS: &[&[u8]] = &[
    b"case",
    b"delete",
    b"do",
    b"else",
    b"extends",
    b"in",
    b"instanceof",
    b"new",
    b"return",
    b"throw",
    b"typeof",
    b"void",
    b"if",
    b"while",
    b"for",
    b"with",
    b"switch",
    b"catch",
];

/// Words that may be keywords or names: a `/` after them is ambiguous.
pub(super) const MAYBE_NAMES: &[&[u8]] = &[b"await", b"yield", b"of"];

/// Words that continue the statement before them even on a new line.
pub(super) const CONTINUING: &[&[u8]] = &[
    b"in",
    b"of",
    b"instanceof",
    b"as",
    b"satisfies",
    b"else",
    b"catch",
    b"finally",
    b"extends",
    b"implements",
    b"while",
];

/// Words that can only start a new statement (or declaration).
pub(super) const STATEMENT_WORDS: &[&[u8]] = &[
    b"const",
    b"let",
    b"var",
    b"function",
    b"class",
    b"if",
    b"for",
    b"return",
    b"throw",
    b"try",
    b"switch",
    b"break",
    b"continue",
    b"import",
    b"export",
    b"type",
    b"interface",
    b"declare",
    b"enum",
    b"namespace",
    b"do",
    b"debugger",
];
